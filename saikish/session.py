"""The Session: the mutable state of one run (mode, autonomy, session rules, /auto budget)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from saikish.allowlist import Allowlist, AllowlistError
from saikish.audit import AuditLog
from saikish.config import Config
from saikish.policy import Context, RuleSet
from saikish.rules import Rule, parse_rule
from saikish.tools.base import Tool
from saikish.tools.sandbox import SandboxSetup
from saikish.types import Autonomy, Mode


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
    session_rules: list[Rule] = field(default_factory=list)
    auto_budget: int = 0
    # The effective sandbox (SPEC 4.9); summary() is the line /config shows.
    sandbox: SandboxSetup = field(default_factory=SandboxSetup)
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])

    def context(self, tools: Mapping[str, Tool]) -> Context:
        """The policy's view of this session now (the allowlist file is re-read if changed)."""
        return Context(tools, self.rules(), self.autonomy, self.mode, self.workspace)

    def rules(self) -> RuleSet:
        """Config, allowlist file and session rules, as the policy consults them."""
        state = self.allowlist.current() if self.allowlist else None
        return RuleSet(
            config_allow=self.config.allow + self.extra_allow,
            config_deny=self.config.deny + self.extra_deny,
            file_allow=state.allow if state else (),
            file_deny=state.deny if state else (),
            session_allow=tuple(self.session_rules),
            deny_complete=state.deny_complete if state else True,
        )

    def allowlist_errors(self) -> tuple[str, ...]:
        """What is wrong with the allowlist file, if anything."""
        return self.allowlist.current().errors if self.allowlist else ()

    def remember(self, rules: Sequence[str], persist: bool) -> str:
        """Add "always" rules: to the file when `persist` and it can be, else to the session.

        Returns a one-line note for the person saying where the rules went.
        """
        parsed = [parse_rule(text, "always") for text in rules]
        if persist and self.persist_always and self.allowlist is not None:
            try:
                for rule in parsed:
                    self.allowlist.add(rule)
                return f"saved to {self.allowlist.path}: {', '.join(rules)}"
            except (AllowlistError, OSError) as exc:
                self._add_session(parsed)
                return f"kept for this session only ({exc})"
        self._add_session(parsed)
        where = "this session" if not persist else "this session (allowedToolsStorage: memory)"
        return f"allowed for {where}: {', '.join(rules)}"

    def _add_session(self, rules: Sequence[Rule]) -> None:
        known = {r.text for r in self.session_rules}
        self.session_rules.extend(r for r in rules if r.text not in known)

    def forget(self, text: str) -> bool:
        """Drop a session rule; True when there was one."""
        before = len(self.session_rules)
        self.session_rules = [r for r in self.session_rules if r.text != text]
        return len(self.session_rules) < before
