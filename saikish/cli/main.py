"""The command line (docs/SPEC.md §8): argv -> app.py's composition -> exit codes.

Imported by nobody. Only argparse is imported at module level (with app.py, which
imports nothing more), so `--version` and `--help` stay fast; everything else is
imported when a command needs it.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
from typing import TYPE_CHECKING, Any, TextIO

from saikish import __version__
from saikish.cli.compose import (
    Streams,
    build_agent,
    make_session,
    parse_args,
    rule_warnings,
    start_remote,
    timeout_s,
    timeout_seconds,
)
from saikish.cli.signals import Terminated, signals_end_the_run
from saikish.types import ExitReason

if TYPE_CHECKING:
    from saikish.config.layers import Config
    from saikish.models import ModelSpec
    from saikish.runtime.agent import RunResult
    from saikish.runtime.session import Session
    from saikish.runtime.subscribers import JsonResult
    from saikish.sessions.catalog import SessionInfo

EXIT_OK, EXIT_FAILURE, EXIT_USAGE, EXIT_STOPPED, EXIT_INTERRUPTED = 0, 1, 2, 3, 130
EXIT_CLOSED_PIPE = 1  # stdout's reader went away: as Python's advice and rich's consoles
EXIT_DENIED = 4  # --fail-on-deny: the run finished, but some call was rejected
EXIT_WARNED = 5  # --fail-on-warning: the run finished, but with a warning (a failed server)
OUTPUT_FORMATS = ("text", "json", "stream-json")
SUBCOMMANDS = ("check", "allowlist", "audit", "config", "trust", "undo", "acp", "sessions",
               "mcp")
AUTONOMY_LEVELS = ("full-auto", "supervised", "cautious", "manual")
SANDBOX_MODES = ("auto", "workspace-write", "read-only", "off")


def entry() -> None:
    """The console script: what saikish starts and leaves behind is adopted by it and ends
    with it (tools/sandbox/orphans.py), even when saikish is killed (cli/supervisor.py)."""
    from saikish.cli.supervisor import supervise
    from saikish.tools.sandbox.orphans import adopting_orphans

    supervise()
    with adopting_orphans():
        code = main()
    sys.exit(code)


def main(argv: list[str] | None = None, *, stdin: TextIO | None = None,
         stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run saikish with `argv`; returns the exit code."""
    io = Streams(stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr)
    argv = list(sys.argv[1:] if argv is None else argv)
    from saikish.errors import SaikishError  # tiny module: no third-party imports

    try:
        with signals_end_the_run():
            code = _dispatch(argv, io)
            io.stdout.flush()  # a reader that went away shows here, not at exit
            return code
    except BrokenPipeError:
        # `saikish ... | head -1`: nobody reads any more; end quietly, for every command.
        _silence(io.stdout)
        return EXIT_CLOSED_PIPE
    except SaikishError as exc:
        _say(io, str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        _say(io, "interrupted")
        return EXIT_INTERRUPTED
    except Terminated as exc:
        _say(io, f"ended by {signal.Signals(exc.signum).name}")
        return 128 + exc.signum


def _dispatch(argv: list[str], io: Streams) -> int:
    from saikish.errors import SaikishError

    parser = build_parser()
    split = subcommand_of(argv, parser)
    if split is not None:
        from saikish.cli.subcommands import run_subcommand

        return run_subcommand(split[0], split[1], io)
    args = parse_args(parser, argv, io)
    if isinstance(args, int):
        return args
    _one_shot_only(args)
    try:
        return run(args, io)
    except SaikishError as exc:
        _print_error_json(args, str(exc), io)  # CI reads stdout as JSON even now
        raise


def subcommand_of(argv: list[str], parser: argparse.ArgumentParser
                  ) -> tuple[str, list[str]] | None:
    """(subcommand, its argv) when argv names one, also after global options:
    `saikish -c FILE check -- ls` is `saikish check -c FILE -- ls`. None for the REPL or -p.

    An option's value is never taken for a subcommand (`saikish -p check` is a prompt).
    """
    # argparse keeps no public table of its options: this one says which take a value.
    options = parser._option_string_actions
    index = 0
    while index < len(argv) and argv[index].startswith("-") and argv[index] != "--":
        action = options.get(argv[index].split("=", 1)[0])
        if action is None:
            return None  # not ours: argparse says so
        takes_value = action.nargs != 0 and "=" not in argv[index]
        index += 2 if takes_value else 1
    if index < len(argv) and argv[index] in SUBCOMMANDS:
        return argv[index], [*argv[:index], *argv[index + 1:]]
    return None


def _one_shot_only(args: argparse.Namespace) -> None:
    """Flags that shape -p's output and exit code mean nothing to the REPL: say so."""
    from saikish.errors import UsageError

    if args.prompt is not None:
        return
    given = [flag for flag, on in (
        (f"--output-format {args.output_format}", args.output_format != "text"),
        ("--fail-on-deny", args.fail_on_deny), ("--fail-on-warning", args.fail_on_warning))
        if on]
    if given:
        raise UsageError(f"{' and '.join(given)} shape{'s' if len(given) == 1 else ''} the "
                         f"output of a one-shot run: add -p PROMPT (or -p - to read it "
                         f"from stdin)")


def _silence(stream: TextIO) -> None:
    """What is still buffered for a closed pipe goes to /dev/null, so that Python's own
    flush at exit has nothing to complain about."""
    import os

    with contextlib.suppress(OSError, ValueError):  # not a file (a test's StringIO)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)


def _say(io: Streams, text: str) -> None:
    """One line on stderr, made inert: it may quote a server's or a hostile file's text."""
    from saikish.inert import inert

    with contextlib.suppress(OSError, ValueError):  # the terminal may be gone (SIGHUP)
        print(f"saikish: {inert(text)}", file=io.stderr)


def build_parser() -> argparse.ArgumentParser:
    """The top-level command line."""
    parser = argparse.ArgumentParser(
        prog="saikish",
        description="An interactive terminal agent shell that asks before anything changes.",
        epilog="subcommands: saikish check | allowlist | audit | config | trust | undo | acp | "
               "sessions | mcp  (saikish check --help)")
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
    parser.add_argument("--output-format", choices=OUTPUT_FORMATS, default="text",
                        help="-p's output: text (the answer), json (one object at the end), "
                             "stream-json (every event as a JSON line; docs/events.md)")
    parser.add_argument("--fail-on-deny", action="store_true",
                        help=f"exit {EXIT_DENIED} when any call was rejected, even if the "
                             f"run finished")
    parser.add_argument("--remote", nargs="?", const="", metavar="HOST:PORT",
                        help="also ask for approvals on a web page (docs/remote.md); "
                             "127.0.0.1 and a free port unless given")
    parser.add_argument("--fail-on-warning", action="store_true",
                        help=f"exit {EXIT_WARNED} when the run finished with a warning (an "
                             f"MCP server that failed, a rule that matches nothing...)")
    parser.add_argument("--no-hooks", action="store_true",
                        help="run without the hooks of agent.yml (docs/SPEC.md §7.2)")
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument("--continue", dest="continue_session", action="store_true",
                        help="go on with the last session of this workspace")
    resume.add_argument("--resume", nargs="?", const="", metavar="ID",
                        help="go on with a stored session (without ID: pick from a list)")
    parser.add_argument("--version", action="version", version=f"saikish {__version__}")
    return parser


def run(args: argparse.Namespace, io: Streams) -> int:
    """Load the config, pick the model, and run one-shot or the REPL."""
    from pathlib import Path

    from saikish.config.trust import ask_on, load_config_trusted
    from saikish.models import parse_spec

    args.timeout = timeout_seconds(args.timeout)
    if args.remote is not None:  # a bad address is a usage error before anything starts
        from saikish.remote.address import parse_address

        parse_address(args.remote)
    # Only the REPL asks to trust a project's agent.yml; -p warns and ignores (§4.8).
    repl = args.prompt is None and io.interactive()
    config = load_config_trusted(args.config, Path.cwd(), ask_on(io.stdin, io.stdout)
                                 if repl else None)
    spec = parse_spec(args.model, config)
    workspace = Path.cwd()
    demo_root = None
    if spec.provider == "demo":
        from saikish.models.demo import make_workspace

        demo_root = workspace = make_workspace()  # never touch the directory we started in
    session: Session | None = None
    try:
        chosen = _chosen_session(args, str(workspace), io, repl, demo_root is not None)
        session = make_session(args, config, str(workspace), demo=demo_root is not None,
                               session_id=chosen.id if chosen else None)
        # Once, before anything runs (§4.8); the REPL's banner shows the allowlist's.
        for warning in session.fresh_warnings():
            if not repl or warning in config.warnings():
                _say(io, warning)
        if args.no_hooks and len(config.hooks):
            count = len(config.hooks)
            print(f"saikish: hooks are off (--no-hooks): {count} configured "
                  f"hook{'s' if count > 1 else ''} will not run", file=io.stderr)
        if args.prompt is not None:
            return one_shot(args, config, spec, session, io, chosen)
        if not io.interactive():
            print("saikish: the interactive REPL needs a terminal; use -p PROMPT "
                  "(or -p - to read it from stdin)", file=io.stderr)
            return EXIT_USAGE
        from saikish.ui.repl import Repl

        return Repl(config, spec, session, io, timeout_s=timeout_s(args, config),
                    remote=args.remote, resumed=chosen, store=demo_root is None).run()
    finally:
        if session is not None:
            session.close()  # MCP servers: none is left running
        if demo_root is not None:
            from saikish.models.demo import remove_workspace

            remove_workspace(demo_root)


def _chosen_session(args: argparse.Namespace, workspace: str, io: Streams, repl: bool,
                    demo: bool) -> SessionInfo | None:
    """The stored session --continue / --resume name (docs/SPEC.md §10.2)."""
    from saikish.cli.sessions import chosen_session
    from saikish.errors import UsageError

    if demo:
        if args.continue_session or args.resume is not None:
            raise UsageError("the demo keeps no sessions: --continue and --resume need a model")
        return None
    return chosen_session(args, workspace, io, repl)


def one_shot(args: argparse.Namespace, config: Config, spec: ModelSpec, session: Session,
             io: Streams, chosen: SessionInfo | None = None) -> int:
    """`-p PROMPT`: run to completion, print the answer (or JSON), return the exit code."""
    from saikish.runtime.resume import resumed_line, start
    from saikish.runtime.subscribers import JsonResult, StreamJson
    from saikish.ui.parts import stream_console

    prompt = io.stdin.read() if args.prompt == "-" else args.prompt
    if not prompt.strip():
        print("saikish: the prompt is empty", file=io.stderr)
        return EXIT_USAGE
    console = stream_console(io.stderr)
    rules = rule_warnings(session)
    _warn(io, rules)
    agent = build_agent(config, spec, session, io, timeout_s(args, config), console=console)
    agent.registry.start()  # MCP servers start now, while the rest gets ready (§7.1)
    if spec.provider != "demo":
        replayed = start(agent, chosen)
        if chosen is not None and replayed is not None:
            print(f"saikish: {resumed_line(chosen, replayed)}", file=io.stderr)
    for note in agent.instructions.notes():
        print(f"saikish: {note}", file=io.stderr)
    collected = JsonResult()
    agent.subscribe(collected)
    if args.output_format == "stream-json":
        agent.subscribe(StreamJson(io.stdout))
    # Without a terminal, --remote's page is where a person answers (docs/SPEC.md §7.5).
    remote = start_remote(agent, args.remote, timeout_s(args, config), io) \
        if args.remote is not None else None
    try:
        agent.start()  # SessionStart hooks, before anything else runs (§7.2)
        result = agent.send(prompt)
    finally:
        if remote is not None:
            remote.close()
    # e.g. an MCP server that crashed after the last turn, or one still starting at the end
    late = agent.registry.notices() + agent.registry.unfinished()
    _warn(io, late)
    # Warnings as they stand at the end: an allowlist may break mid-run (§4.8).
    collected.warnings[:0] = [*session.warnings(), *rules]
    collected.warnings.extend(late)
    # A stop reason is the stopped call's feedback, and an error has its own key.
    if result.message and result.exit_reason in (ExitReason.FINISHED, ExitReason.MAX_ITERATIONS):
        collected.warnings.append(result.message)
    _print_result(args.output_format, result, collected, io)
    if result.message:  # it may quote a server (an MCP reason, an API error body)
        _say(io, result.message)
    if agent.conversation.log is not None and agent.conversation.log.failed:
        _say(io, agent.conversation.log.failed)
    return exit_code(result, collected.calls if args.fail_on_deny else (),
                     collected.warnings if args.fail_on_warning else ())


def _warn(io: Streams, lines: list[str]) -> None:
    for line in lines:
        _say(io, f"warning: {line}")


def _print_result(output_format: str, result: RunResult, collected: JsonResult,
                  io: Streams) -> None:
    import json

    if output_format == "json":
        print(json.dumps(collected.json(), ensure_ascii=False), file=io.stdout)
    elif output_format == "stream-json":
        print(json.dumps({"type": "result", **collected.json()}, ensure_ascii=False),
              file=io.stdout)
    elif result.text:
        print(result.text, file=io.stdout)


def _print_error_json(args: argparse.Namespace, message: str, io: Streams) -> None:
    """A run that failed before it started still prints its JSON object (docs/events.md)."""
    if args.prompt is None or args.output_format == "text":
        return
    import json

    from saikish.events import RunEnded
    from saikish.runtime.subscribers import JsonResult
    from saikish.vocabulary import ERROR

    data = JsonResult(end=RunEnded("", ERROR, message)).json()
    if args.output_format == "stream-json":
        data = {"type": "result", **data}
    print(json.dumps(data, ensure_ascii=False), file=io.stdout)


def exit_code(result: RunResult, calls: Any = (), warnings: Any = ()) -> int:
    """docs/SPEC.md §8: 0 finished, 1 failure, 3 stopped, 130 Ctrl-C during a call;
    4 finished with a rejection (--fail-on-deny), 5 finished with a warning
    (--fail-on-warning)."""
    from saikish.vocabulary import ERROR, FINISHED, MAX_ITERATIONS, STOPPED

    if result.interrupted:
        return EXIT_INTERRUPTED
    code = {FINISHED: EXIT_OK, STOPPED: EXIT_STOPPED, ERROR: EXIT_FAILURE,
            MAX_ITERATIONS: EXIT_FAILURE}[result.exit_reason]
    rejected = any(c["decision"] in ("rejected_soft", "rejected_hard") for c in calls)
    if code == EXIT_OK and rejected:
        return EXIT_DENIED
    return EXIT_WARNED if code == EXIT_OK and warnings else code


if __name__ == "__main__":  # pragma: no cover
    entry()
