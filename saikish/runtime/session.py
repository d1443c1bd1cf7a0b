"""The Session: the mutable state of one run (mode, autonomy, session rules, /auto budget)."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from saikish.config.allowlist import (
    Allowlist,
    AllowlistError,
    AllowlistState,
    ProjectRules,
    project_root,
)
from saikish.config.layers import Config
from saikish.engine.policy import Context, RuleSet
from saikish.engine.tiers import Containment
from saikish.hooks.runner import Hooks
from saikish.hooks.wire import permission_mode
from saikish.rules import PATH_ARGS, Rule, rule_texts
from saikish.runtime.program_path import read_program_path
from saikish.store.audit import AuditLog
from saikish.tools.base import Tool
from saikish.tools.sandbox.launcher import SandboxMode, SandboxSetup
from saikish.types import Autonomy, Mode, Scope

if TYPE_CHECKING:
    from saikish.checkpoints.store import Checkpoints
    from saikish.mcp.host import McpHost
    from saikish.sessions.log import SessionLog


@dataclass
class Session:
    """Owns everything that changes while saikish runs; no module-level state."""

    config: Config
    workspace: str
    mode: Mode = Mode.EVENT_BASED
    autonomy: Autonomy = Autonomy.CAUTIOUS
    allowlist: Allowlist | None = None
    audit: AuditLog | None = None
    persist_always: bool = True
    extra_allow: tuple[Rule, ...] = ()
    extra_deny: tuple[Rule, ...] = ()
    # Why "always" choices stay in memory whatever the config says (the demo), or "".
    memory_only: str = ""
    session_rules: list[Rule] = field(default_factory=list)
    auto_budget: int = 0
    # The effective sandbox (docs/SPEC.md §4.9); summary() is the line /config shows.
    sandbox: SandboxSetup = field(default_factory=SandboxSetup)
    # Warnings already shown, so each is said once (a file broken mid-session is said then).
    told: set[str] = field(default_factory=set)
    # The command hooks in force (docs/SPEC.md §7.2); None with --no-hooks.
    hooks: Hooks | None = None
    # The configured MCP servers (docs/SPEC.md §7.1); None when there are none.
    mcp: McpHost | None = None
    # Snapshots before calls nobody approved, for undo (docs/SPEC.md §4.10); None when
    # they cannot be kept, and `checkpoints_problem` says why.
    checkpoints: Checkpoints | None = None
    checkpoints_problem: str = ""
    # The workspace's protected paths (git metadata, hooks dir, saikish's config), found once.
    protected: tuple[str, ...] | None = None
    id: str = field(default_factory=lambda: new_session_id())
    # The session file the conversation is written to (docs/SPEC.md §10.2), if any.
    transcript: SessionLog | None = None

    def permission_mode(self) -> str:
        """Claude Code's name for this session's mode and autonomy, for hooks (§7.2)."""
        return permission_mode(self.mode, self.autonomy)

    def attach_mcp(self) -> McpHost | None:
        """A host for the config's MCP servers, not started yet; None when there are none.

        The host (and what it imports) is loaded only when a server is configured.
        """
        if len(self.config.mcp_servers):
            from saikish.mcp.host import McpHost
            from saikish.store import paths

            self.mcp = McpHost(self.config.mcp_servers, self.workspace, paths.state_dir(),
                               self.config.secrets())
        return self.mcp

    def attach_checkpoints(self) -> Checkpoints | None:
        """The workspace's checkpoint store (old checkpoints pruned, at most hourly); None
        with the reason in `checkpoints_problem` when git or the state dir is missing."""
        from saikish.checkpoints.store import Checkpoints
        from saikish.checkpoints.values import CheckpointError
        from saikish.store import paths

        try:
            self.checkpoints = Checkpoints.open(self.workspace, paths.state_dir())
        except CheckpointError as exc:
            self.checkpoints, self.checkpoints_problem = None, str(exc)
            return None
        with contextlib.suppress(CheckpointError):  # housekeeping: never stops a session
            self.checkpoints.prune()
        return self.checkpoints

    def undo_problem(self) -> str | None:
        """Why a call's changes could not be undone now, or None when they can (§4.10)."""
        if self.checkpoints is None:
            return self.checkpoints_problem or "checkpoints are off in this session"
        return self.checkpoints.problem


    def adopt_transcript(self, log: SessionLog) -> None:
        """From now on this run is the stored session `log`: the audit log and the hooks
        (session_id, transcript_path) say so; the file it replaces is let go."""
        if self.transcript is not None and self.transcript is not log:
            self.transcript.close()
        self.transcript, self.id = log, log.id
        if self.audit is not None:
            self.audit.session_id = log.id
        if self.hooks is not None:
            self.hooks.session_id, self.hooks.transcript_path = log.id, str(log.path)

    def close(self) -> None:
        """Release what the session started (MCP servers, the sandbox, its file); safe to
        call twice."""
        if self.transcript is not None:
            self.transcript.close()
        if self.mcp is not None:
            self.mcp.close()
        self.sandbox.close()

    def context(self, tools: Mapping[str, Tool]) -> Context:
        """The policy's view of this session now (the allowlist file is re-read if changed)."""
        return Context(tools, self.rules(), self.autonomy, self.mode, self.workspace,
                       self.containment(),
                       read_program_path(os.environ.get("PATH"), self.workspace))

    def containment(self) -> Containment:
        """What this session can contain now (docs/SPEC.md §4.1): the contained tier runs
        in a working sandbox; with the sandbox turned off by the person and --auto-approve,
        it runs unsandboxed as they chose."""
        setup = self.sandbox
        off = setup.requested is SandboxMode.OFF
        missing = setup.problem or ("the sandbox is off" if off else "no sandbox")
        undo = self.undo_problem()
        return Containment(
            sandbox=setup.effective is not SandboxMode.OFF,
            checkpoints=undo is None,
            unsandboxed=off and self.mode is Mode.AUTO_APPROVE,
            protected=self._protected(),
            missing=missing,
            no_undo=f"no undo: {undo}" if undo else "")

    def _protected(self) -> tuple[str, ...]:
        """Git metadata, the hooks directory git is told to use, saikish's config: found once
        per session (a bounded walk); new `.git` directories are git metadata by name."""
        if self.protected is None:
            from saikish.tools.sandbox.protected import protected_paths

            self.protected = protected_paths(self.workspace)
        return self.protected

    def rules(self) -> RuleSet:
        """Config, allowlist file (global, then this project) and session rules (§4.1 step 4)."""
        state = self.allowlist.current() if self.allowlist else AllowlistState()
        project = state.project(self.workspace)
        return RuleSet(
            config_allow=self.config.allow + self.extra_allow,
            config_deny=self.config.deny + self.extra_deny,
            file_allow=state.allow,
            file_deny=state.deny,
            session_allow=tuple(self.session_rules),
            deny_complete=state.deny_complete and project.complete,
            config_ask=self.config.ask,
            file_ask=state.ask,
            project_allow=project.allow,
            project_deny=project.deny,
            project_ask=project.ask,
        )

    def project_rules(self) -> ProjectRules | None:
        """This workspace's section of the allowlist file, if the file has one."""
        return self.allowlist.current().project(self.workspace) if self.allowlist else None

    def allowlist_errors(self) -> tuple[str, ...]:
        """What is wrong with the allowlist file, if anything."""
        return self.allowlist.current().errors if self.allowlist else ()

    def warnings(self) -> tuple[str, ...]:
        """Every one-line warning the person is owed: ignored config settings, a broken file,
        a sandbox that was wanted and cannot run (the contained tier is asked instead),
        checkpoints that cannot be kept."""
        off = (f"no undo: {self.checkpoints_problem}",) if self.checkpoints_problem else ()
        return self.config.warnings() + self.allowlist_errors() + off + \
            self.containment_warnings()

    def containment_warnings(self) -> tuple[str, ...]:
        """One line when bash calls that would run contained are asked instead (§4.1)."""
        setup = self.sandbox
        if setup.requested is SandboxMode.OFF or setup.effective is not SandboxMode.OFF:
            return ()
        return (f"no sandbox ({setup.problem or 'not available'}): bash calls that would run "
                f"contained are asked instead",)

    def fresh_warnings(self) -> tuple[str, ...]:
        """The warnings not shown yet; they count as shown from now on."""
        fresh = tuple(w for w in self.warnings() if w not in self.told)
        self.told.update(fresh)
        return fresh

    def saves_always(self) -> bool:
        """True when "Always (remember)" writes to the allowlist file."""
        return self.persist_always and not self.memory_only and self.allowlist is not None

    def always_note(self, rules: Sequence[Rule], scope: Scope = Scope.PROJECT) -> str:
        """Where "Always (remember)" would put `rules`, said before it does (for the box)."""
        if self.memory_only:
            return self.memory_only
        if not self.saves_always():
            return "'always' choices are kept for this session (allowedToolsStorage: memory)"
        scopes = {self._scope_of(rule, scope) for rule in rules}
        if scopes == {None}:
            return "remember saves for every project"
        return f"remember saves for this project ({project_root(self.workspace)})" + \
            ("; some for every project" if None in scopes else "")

    def remember(self, rules: Sequence[Rule], persist: bool,
                 scope: Scope = Scope.PROJECT) -> str:
        """Add "always" rules: to the file when `persist` and it can be, else to the session.

        Rules go to this project's section unless `scope` is GLOBAL; a rule
        with a relative path only means something here, so it always stays
        in the project. Returns a one-line note saying where the rules went.
        """
        parsed = [replace(rule, origin="always") for rule in rules]
        if persist and self.saves_always():
            assert self.allowlist is not None
            try:
                return self._save(parsed, scope, self.allowlist)
            except (AllowlistError, OSError) as exc:
                self._add_session(parsed)
                return f"kept for this session only ({exc})"
        self._add_session(parsed)
        if persist and self.memory_only:
            return f"allowed for this session only ({self.memory_only}): {rule_texts(rules)}"
        where = "this session" if not persist else "this session (allowedToolsStorage: memory)"
        return f"allowed for {where}: {rule_texts(rules)}"

    def forbid(self, rules: Sequence[Rule], persist: bool) -> str:
        """Add deny rules (an editor's "reject always"): to this project's section of the
        file when `persist` and it can be, else for this session. Returns where they went."""
        parsed = tuple(replace(rule, origin="reject always") for rule in rules)
        if persist and self.saves_always():
            assert self.allowlist is not None
            try:
                return self._save(parsed, Scope.PROJECT, self.allowlist, "deny")
            except (AllowlistError, OSError) as exc:
                self.extra_deny += parsed
                return f"denied for this session only ({exc})"
        self.extra_deny += parsed
        return f"denied for this session: {rule_texts(rules)}"

    def _save(self, rules: Sequence[Rule], scope: Scope, allowlist: Allowlist,
              section: str = "allow") -> str:
        notes = []
        for rule in rules:
            project = self._scope_of(rule, scope)
            allowlist.add(rule, section, project)
            where = f"this project ({project})" if project else "every project"
            notes.append(f"{rule} for {where}")
        saved = "saved to" if section == "allow" else f"saved to the {section} list of"
        return f"{saved} {allowlist.path}: {'; '.join(notes)}"

    def _scope_of(self, rule: Rule, scope: Scope) -> str | None:
        """The project path a rule is saved under, or None for the global lists."""
        if scope is Scope.GLOBAL and not relative_path_rule(rule):
            return None
        return project_root(self.workspace)

    def _add_session(self, rules: Sequence[Rule]) -> None:
        known = {r.text for r in self.session_rules}
        self.session_rules.extend(r for r in rules if r.text not in known)

    def forget(self, text: str) -> bool:
        """Drop a session rule; True when there was one."""
        before = len(self.session_rules)
        self.session_rules = [r for r in self.session_rules if r.text != text]
        return len(self.session_rules) < before


def new_session_id() -> str:
    """A fresh session id: 12 hex digits, unique enough for one person's sessions."""
    return uuid.uuid4().hex[:12]


def relative_path_rule(rule: Rule) -> bool:
    """True when a rule names a path relative to a workspace (only a project can hold it)."""
    paths = [glob for key, glob in rule.when if key in PATH_ARGS]
    words = [w for w in rule.words or () if "/" in w]
    return any(not p.startswith(("/", "~")) for p in paths + words)
