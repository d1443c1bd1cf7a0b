"""Composition: config + session + model + tools + approver -> Agent (docs/SPEC.md §7.3, §8).

Imported by cli.py, the REPL and the subcommands; it imports none of them, so
the composition root (cli.py) is imported by nobody. Only the standard library
is imported at module level, so `--version` and `--help` stay fast.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from collections.abc import Callable

    from saikish.config.layers import Config
    from saikish.mcp.config import ServerTable
    from saikish.models import ModelSpec
    from saikish.remote.channel import RemoteChannel
    from saikish.runtime.agent import Agent
    from saikish.runtime.approval import Approver
    from saikish.runtime.session import Session
    from saikish.sessions.catalog import SessionInfo
    from saikish.tools.base import Tool


class Streams:
    """The terminal saikish talks to; injected so tests can drive main() directly."""

    # A plain class, not a dataclass: importing dataclasses costs --version a third.
    def __init__(self, stdin: TextIO, stdout: TextIO, stderr: TextIO) -> None:
        self.stdin, self.stdout, self.stderr = stdin, stdout, stderr

    def interactive(self) -> bool:
        """True when a person can be asked: stdin and stdout are terminals."""
        return _isatty(self.stdin) and _isatty(self.stdout)


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def parse_args(parser: argparse.ArgumentParser, argv: list[str], io: Streams,
               intermixed: bool = False) -> argparse.Namespace | int:
    """Parse, turning argparse's exits (--help, errors) into return codes on our streams."""
    stdout, stderr = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = io.stdout, io.stderr
    try:
        return parser.parse_intermixed_args(argv) if intermixed else parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    finally:
        sys.stdout, sys.stderr = stdout, stderr


def make_session(args: argparse.Namespace, config: Config, workspace: str,
                 demo: bool = False, session_id: str | None = None) -> Session:
    """The Session for this run (runtime/opening.py): mode and autonomy from flags over
    agent.yml; the id of a resumed session, or a new one."""
    from saikish.runtime.opening import SessionOptions, open_session
    from saikish.tools.sandbox.launcher import SandboxMode
    from saikish.types import Autonomy, Mode

    mode = Mode.AUTO_APPROVE if args.auto_approve else Mode.AUTO_DENY if args.auto_deny \
        else None
    return open_session(config, workspace, SessionOptions(
        mode=mode, autonomy=Autonomy(args.autonomy) if args.autonomy else None,
        sandbox=SandboxMode(args.sandbox) if args.sandbox else None,
        hooks=not getattr(args, "no_hooks", False),
        memory_only="demo: 'always' is kept in memory, never saved" if demo else "",
        session_id=session_id))


def timeout_seconds(text: str | float | None) -> float | None:
    """`--timeout`'s value as seconds >= 0; anything else is a usage error (exit 2)."""
    import math

    from saikish.errors import UsageError

    if text is None:
        return None
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < 0:
        raise UsageError(f"--timeout {text!r}: give the seconds to wait for an answer, "
                         f"a number >= 0 (0 waits forever)")
    return seconds


def rule_warnings(session: Session) -> list[str]:
    """Rules in force that name no tool (Claude Code's Edit, Read): they match nothing."""
    from saikish.config.rule_hints import unknown_tool_warnings
    from saikish.tools import builtin_tools

    rules = session.rules()
    return unknown_tool_warnings(rules.allow + rules.deny, builtin_tools())


def timeout_s(args: argparse.Namespace, config: Config) -> float | None:
    """The approval timeout: --timeout over agent.yml; None waits for ever."""
    seconds = args.timeout if args.timeout is not None else config.confirmation.timeout_ms / 1000
    return seconds or None


def build_agent(config: Config, spec: ModelSpec, session: Session, io: Streams,
                timeout_s: float | None, *, console: Any, show_results: bool = True) -> Agent:
    """The REPL's and `-p`'s agent: Agent.create with the terminal approver and transcript."""
    from saikish.models import load_model
    from saikish.runtime.agent import Agent
    from saikish.runtime.approval import NoTerminalApprover
    from saikish.ui.render import ConsoleReporter

    approver: Approver = NoTerminalApprover()
    if io.interactive():
        from saikish.ui.approver import TerminalApprover

        approver = TerminalApprover(console, timeout_s)
    agent = Agent.create(load_model(spec, config), session_tools(session), approver,
                         session=session)
    agent.subscribe(ConsoleReporter(console, show_results, session.workspace))
    return agent


def start_remote(agent: Agent, where: str, timeout_s: float | None,
                 io: Streams) -> RemoteChannel:
    """`--remote` / `/remote`: the approval server for `agent`, its link on stderr (§7.5).

    Imported only here, so a run without it loads neither the server nor websockets.
    """
    from saikish.remote.address import parse_address
    from saikish.remote.channel import start

    channel = start(agent, parse_address(where), timeout_s, terminal=io.interactive())
    for line in channel.banner():
        print(line, file=io.stderr, flush=True)
    return channel


def session_tools(session: Session) -> list[Tool]:
    """The built-in tools; bash offers to run outside a configured sandbox (docs/SPEC.md §4.9)."""
    from saikish.tools import builtin_tools
    from saikish.tools.sandbox.launcher import offer_outside

    tools = builtin_tools()
    if session.sandbox.configured:
        tools["bash"] = offer_outside(tools["bash"])
    return list(tools.values())


def editor_agents(
        args: argparse.Namespace,
) -> Callable[[str, Approver, ServerTable, SessionInfo | None], Agent]:
    """`saikish acp`: an Agent per editor session, in the directory the editor names."""
    from dataclasses import replace
    from pathlib import Path

    from saikish.config.trust import load_config_trusted
    from saikish.models import load_model, parse_spec
    from saikish.runtime.agent import Agent
    from saikish.runtime.approval import DeadlineApprover
    from saikish.runtime.resume import record_new, resume

    def make(cwd: str, approver: Approver, servers: ServerTable,
             stored: SessionInfo | None) -> Agent:
        # An editor's folder is a project like any other: its agent.yml only tightens
        # until trusted (docs/SPEC.md §4.8); nothing here asks, so it warns and ignores.
        # The servers the editor names are the person's own: they join agent.yml's.
        config = load_config_trusted(args.config, Path(cwd))
        config = replace(config, mcp_servers=config.mcp_servers + servers)
        model = load_model(parse_spec(args.model, config), config)
        session = make_session(args, config, cwd)
        seconds = timeout_s(args, config)  # the countdown, as in the terminal (docs/SPEC.md §5.2)
        asker = DeadlineApprover(approver, seconds) if seconds else approver
        agent = Agent.create(model, session_tools(session), asker, session=session)
        # A new session file, or the stored one ACP's session/load goes on with (§10.2).
        if stored is None:
            record_new(agent)
        else:
            resume(agent, stored)
        return agent

    return make
