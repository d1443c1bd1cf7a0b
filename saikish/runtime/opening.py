"""Opening a session: the one place every front end gets its Session from (docs/SPEC.md
§7.3) — the REPL, `-p`, `check`, ACP and the Python API.

The defaults are the command line's, so a program that embeds saikish is as safe as the
terminal: the person's allowlist, the audit ledger, the sandbox for what nobody looked
at, checkpoints for undo, the configured hooks and MCP servers. A front end turns off
what it has no use for (`check` decides, it runs nothing) by saying so.
"""

from __future__ import annotations

from dataclasses import dataclass

from saikish.config.allowlist import Allowlist
from saikish.config.layers import Config
from saikish.hooks.runner import Hooks
from saikish.runtime.session import Session, new_session_id
from saikish.store import paths
from saikish.store.audit import AuditLog
from saikish.tools.sandbox.launcher import SandboxMode, start_sandbox
from saikish.types import Autonomy, Mode


@dataclass(frozen=True)
class SessionOptions:
    """How a session opens; each default is what the command line does."""

    mode: Mode | None = None  # None: agent.yml's confirmation.mode
    autonomy: Autonomy | None = None  # None: agent.yml's confirmation.autonomy
    sandbox: SandboxMode | None = None  # None: agent.yml's `sandbox` (auto unless set)
    start_sandbox: bool = True  # False: `check`, which probes it only for a call that needs it
    allowlist: bool = True  # the person's allowlist file (§4.5)
    audit: bool = True  # one ledger line per decision (§4.6)
    checkpoints: bool = True  # undo for what runs without a question (§4.10)
    hooks: bool = True  # agent.yml's command hooks (§7.2)
    mcp: bool = True  # agent.yml's MCP servers, started later (§7.1)
    memory_only: str = ""  # why "always" stays in memory (the demo), or ""
    session_id: str | None = None  # a resumed session's id; None: a new one


def open_session(config: Config, workspace: str,
                 options: SessionOptions = SessionOptions()) -> Session:
    """The Session for `workspace` under `config`, opened as `options` say."""
    session = Session(config, workspace,
                      options.mode or config.confirmation.mode,
                      options.autonomy or config.confirmation.autonomy,
                      allowlist=Allowlist(paths.allowlist_path()) if options.allowlist else None,
                      persist_always=config.confirmation.storage == "storage",
                      memory_only=options.memory_only,
                      id=options.session_id or new_session_id())
    if options.audit:
        session.audit = AuditLog(paths.state_dir() / "audit.jsonl", session.id,
                                 workspace=workspace)
    if options.start_sandbox:
        session.sandbox = start_sandbox(options.sandbox or SandboxMode(config.sandbox),
                                        workspace)
    if options.checkpoints:
        session.attach_checkpoints()
    if options.mcp:
        session.attach_mcp()  # started later: never before the prompt (§7.1)
    if options.hooks:
        session.hooks = Hooks.from_config(config, workspace, session.id,
                                          session.permission_mode)
        session.hooks.audit = session.audit
    return session
