"""Composition root (docs/SPEC.md §8): argv -> Config, Session, Model, Approver, Agent; exit codes.

Only argparse is imported at module level, so `--version` and `--help` stay
fast; everything else is imported when a command needs it.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from typing import TYPE_CHECKING, Any, TextIO

from saikish import __version__
from saikish.signals import Terminated, signals_end_the_run

if TYPE_CHECKING:
    from saikish.agent import Agent, RunResult
    from saikish.config import Config
    from saikish.models import ModelSpec
    from saikish.session import Session

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_STOPPED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
SUBCOMMANDS = ("check", "allowlist", "audit", "config", "trust")
AUTONOMY_LEVELS = ("full-auto", "supervised", "cautious", "manual")
SANDBOX_MODES = ("auto", "workspace-write", "read-only", "off")


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


def entry() -> None:
    """The console script."""
    sys.exit(main())


def main(argv: list[str] | None = None, *, stdin: TextIO | None = None,
         stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run saikish with `argv`; returns the exit code."""
    io = Streams(stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr)
    argv = list(sys.argv[1:] if argv is None else argv)
    from saikish.errors import SaikishError  # tiny module: no third-party imports

    try:
        with signals_end_the_run():
            if argv and argv[0] in SUBCOMMANDS:
                from saikish.subcommands import run_subcommand

                return run_subcommand(argv[0], argv[1:], io)
            args = parse_args(build_parser(), argv, io)
            if isinstance(args, int):
                return args
            return run(args, io)
    except SaikishError as exc:
        _say(io, str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        _say(io, "interrupted")
        return EXIT_INTERRUPTED
    except Terminated as exc:
        _say(io, f"ended by {signal.Signals(exc.signum).name}")
        return 128 + exc.signum


def _say(io: Streams, text: str) -> None:
    with contextlib.suppress(OSError, ValueError):  # the terminal may be gone (SIGHUP)
        print(f"saikish: {text}", file=io.stderr)


def build_parser() -> argparse.ArgumentParser:
    """The top-level command line."""
    parser = argparse.ArgumentParser(
        prog="saikish",
        description="An interactive terminal agent shell that asks before anything changes.",
        epilog="subcommands: saikish check | allowlist | audit | config | trust  "
               "(saikish check --help)")
    parser.add_argument("-p", "--prompt", metavar="PROMPT",
                        help="one-shot: run to completion, print the answer, exit ('-' = stdin)")
    parser.add_argument("-m", "--model", metavar="PROVIDER:MODEL",
                        help="openai:gpt-4.1-mini, anthropic:claude-sonnet-4-5, ollama:qwen3, "
                             "script:PATH.yml, demo")
    parser.add_argument("-c", "--config", metavar="PATH", help="agent.yml to use")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--auto-approve", action="store_true",
                      help="approve every call (deny rules and escalation still reject)")
    mode.add_argument("--auto-deny", action="store_true",
                      help="reject every call that would ask; read-only calls still run")
    parser.add_argument("--autonomy", choices=AUTONOMY_LEVELS)
    parser.add_argument("--sandbox", choices=SANDBOX_MODES, metavar="MODE",
                        help="the sandbox for calls nobody approved: auto (default), "
                             "workspace-write, read-only, off")
    parser.add_argument("--timeout", metavar="SECONDS",
                        help="approval timeout in seconds (0 = wait forever)")
    parser.add_argument("--output-format", choices=("text", "json"), default="text")
    parser.add_argument("--version", action="version", version=f"saikish {__version__}")
    return parser


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


def run(args: argparse.Namespace, io: Streams) -> int:
    """Load the config, pick the model, and run one-shot or the REPL."""
    from pathlib import Path

    from saikish.models import parse_spec
    from saikish.trust import ask_on, load_config_trusted

    args.timeout = timeout_seconds(args.timeout)
    # Only the REPL asks to trust a project's agent.yml; -p warns and ignores (docs/SPEC.md §4.8).
    repl = args.prompt is None and io.interactive()
    config = load_config_trusted(args.config, Path.cwd(), ask_on(io.stdin, io.stdout)
                                 if repl else None)
    spec = parse_spec(args.model, config)
    workspace = Path.cwd()
    demo_root = None
    if spec.provider == "demo":
        from saikish.models.demo import make_workspace

        demo_root = workspace = make_workspace()  # never touch the directory we started in
    try:
        session = make_session(args, config, str(workspace), demo=demo_root is not None)
        # Once, before anything runs (docs/SPEC.md §4.8); the REPL's banner shows the allowlist's.
        for warning in session.fresh_warnings():
            if not repl or warning in config.warnings():
                print(f"saikish: {warning}", file=io.stderr)
        if args.prompt is not None:
            return one_shot(args, config, spec, session, io)
        if not io.interactive():
            print("saikish: the interactive REPL needs a terminal; use -p PROMPT "
                  "(or -p - to read it from stdin)", file=io.stderr)
            return EXIT_USAGE
        from saikish.ui.repl import Repl

        return Repl(config, spec, session, io, timeout_s=_timeout_s(args, config)).run()
    finally:
        if demo_root is not None:
            from saikish.models.demo import remove_workspace

            remove_workspace(demo_root)


def make_session(args: argparse.Namespace, config: Config, workspace: str,
                 demo: bool = False) -> Session:
    """The Session for this run: mode and autonomy from flags over agent.yml."""
    from saikish import paths
    from saikish.allowlist import Allowlist
    from saikish.audit import AuditLog
    from saikish.session import Session
    from saikish.tools.sandbox import SandboxMode, start_sandbox
    from saikish.types import Autonomy, Mode

    mode = config.confirmation.mode
    if args.auto_approve:
        mode = Mode.AUTO_APPROVE
    elif args.auto_deny:
        mode = Mode.AUTO_DENY
    autonomy = Autonomy(args.autonomy) if args.autonomy else config.confirmation.autonomy
    session = Session(config, workspace, mode, autonomy,
                      allowlist=Allowlist(paths.allowlist_path()),
                      persist_always=config.confirmation.storage == "storage",
                      memory_only="demo: 'always' is kept in memory, never saved" if demo else "")
    session.audit = AuditLog(paths.state_dir() / "audit.jsonl", session.id,
                             workspace=workspace)
    session.sandbox = start_sandbox(
        SandboxMode(args.sandbox or config.sandbox), workspace)
    return session


def rule_warnings(session: Session) -> list[str]:
    """Rules in force that name no tool (Claude Code's Edit, Read): they match nothing."""
    from saikish.rule_hints import unknown_tool_warnings
    from saikish.tools import builtin_tools

    rules = session.rules()
    return unknown_tool_warnings(rules.allow + rules.deny, builtin_tools())


def timeout_seconds(text: str | None) -> float | None:
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


def _timeout_s(args: argparse.Namespace, config: Config) -> float | None:
    seconds = args.timeout if args.timeout is not None else config.confirmation.timeout_ms / 1000
    return seconds or None


def build_agent(config: Config, spec: ModelSpec, session: Session, io: Streams,
                timeout_s: float | None, *, console: Any, show_results: bool = True) -> Agent:
    """Model, tools, approver, executor and agent for one session."""
    from saikish.agent import Agent
    from saikish.executor import Approver, Executor, NoTerminalApprover
    from saikish.models import load_model
    from saikish.tools import RunContext, builtin_tools
    from saikish.tools.sandbox import offer_outside
    from saikish.ui.render import ConsoleReporter

    tools = builtin_tools()
    if session.sandbox.configured:
        tools["bash"] = offer_outside(tools["bash"])
    approver: Approver = NoTerminalApprover()
    if io.interactive():
        from saikish.ui.approver import TerminalApprover

        approver = TerminalApprover(console, timeout_s)
    run_context = RunContext(session.workspace, config.tools.output_limit,
                             config.tools.bash_timeout, secrets=config.secrets())
    executor = Executor(session, tools, approver,
                        ConsoleReporter(console, show_results, session.workspace), run_context)
    return Agent(load_model(spec, config), executor, list(tools.values()),
                 config.system_prompt, config.llm.max_iterations)


def one_shot(args: argparse.Namespace, config: Config, spec: ModelSpec, session: Session,
             io: Streams) -> int:
    """`-p PROMPT`: run to completion, print the answer (or JSON), return the exit code."""
    from saikish.ui.render import stream_console

    prompt = io.stdin.read() if args.prompt == "-" else args.prompt
    if not prompt.strip():
        print("saikish: the prompt is empty", file=io.stderr)
        return EXIT_USAGE
    console = stream_console(io.stderr)
    for line in rule_warnings(session):
        print(f"saikish: warning: {line}", file=io.stderr)
    agent = build_agent(config, spec, session, io, _timeout_s(args, config), console=console)
    result = agent.send(prompt, lambda piece: None)
    if args.output_format == "json":
        import json

        print(json.dumps(result_json(result, session.warnings()), ensure_ascii=False),
              file=io.stdout)
    elif result.text:
        print(result.text, file=io.stdout)
    if result.message:
        print(f"saikish: {result.message}", file=io.stderr)
    return exit_code(result)


def exit_code(result: RunResult) -> int:
    """docs/SPEC.md §8: 0 finished, 1 failure, 3 stopped by a hard rejection or timeout,
    130 Ctrl-C."""
    from saikish.agent import ERROR, FINISHED, MAX_ITERATIONS, STOPPED

    if result.interrupted:
        return EXIT_INTERRUPTED
    return {FINISHED: EXIT_OK, STOPPED: EXIT_STOPPED, ERROR: EXIT_FAILURE,
            MAX_ITERATIONS: EXIT_FAILURE}[result.exit_reason]


def result_json(result: RunResult, warnings: tuple[str, ...] = ()) -> dict[str, Any]:
    """The object `--output-format json` prints (docs/SPEC.md §8; §4.8: with warnings)."""
    return {
        "warnings": list(warnings),
        "result": result.text,
        "exit_reason": result.exit_reason,
        "calls": [{
            "id": record.call.id,
            "name": record.call.name,
            "arguments": record.call.wire_arguments,
            "decision": record.decision.outcome.value,
            "source": record.decision.source.value,
            "rule": record.decision.rule,
            "edited": record.edited,
        } for record in result.records],
        "usage": {"input_tokens": result.usage.input_tokens,
                  "output_tokens": result.usage.output_tokens},
    }


if __name__ == "__main__":  # pragma: no cover
    entry()
