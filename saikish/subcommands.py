"""`saikish check`, `saikish allowlist`, `saikish audit` (SPEC 8)."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from saikish import paths
from saikish.allowlist import HEADER, Allowlist, read_state
from saikish.app import Streams, parse_args
from saikish.config import find_config, load_config
from saikish.errors import RuleError, UsageError
from saikish.policy import Context, decide
from saikish.rules import parse_rule
from saikish.tools import builtin_tools
from saikish.types import Assessment, Autonomy, Mode, ToolCall, Verdict


def run_subcommand(name: str, argv: list[str], io: Streams) -> int:
    """Dispatch `saikish NAME ARGV`."""
    handler = {"check": check, "allowlist": allowlist, "audit": audit, "acp": acp}[name]
    return handler(argv, io)


# -- check ------------------------------------------------------------------------

def check_parser() -> argparse.ArgumentParser:
    """`saikish check`'s command line."""
    parser = argparse.ArgumentParser(
        prog="saikish check",
        description="Explain the decision for a call without running it, with the rules in "
                    "force (agent.yml and the allowlist) plus those given here.")
    parser.add_argument("--allow", action="append", default=[], metavar="RULE")
    parser.add_argument("--deny", action="append", default=[], metavar="RULE")
    parser.add_argument("--autonomy", choices=[a.value for a in Autonomy])
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("-c", "--config", metavar="PATH")
    parser.add_argument("--batch", metavar="FILE",
                        help="one bash command per line ('-' = stdin); one JSON line each")
    parser.add_argument("--tool", metavar="NAME", help="check a call of this tool")
    parser.add_argument("--args", metavar="JSON", help="the tool call's arguments")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND")
    return parser


def check(argv: list[str], io: Streams) -> int:
    """Explain what the pipeline would do with a command or call."""
    args = parse_args(check_parser(), argv, io)
    if isinstance(args, int):
        return args
    ctx = _check_context(args)
    if args.batch:
        return _check_batch(args.batch, ctx, io)
    call = _check_call(args)
    assessment = decide(call, ctx)
    if args.json:
        print(json.dumps(check_json(assessment), ensure_ascii=False), file=io.stdout)
    else:
        _print_check(call, assessment, io)
    return 0


def _check_context(args: argparse.Namespace) -> Context:
    from saikish.session import Session

    config = load_config(find_config(args.config, Path.cwd()))
    session = Session(config, os.getcwd(), Mode.EVENT_BASED,
                      Autonomy(args.autonomy) if args.autonomy else config.confirmation.autonomy,
                      allowlist=Allowlist(paths.allowlist_path()))
    session.extra_allow = tuple(_rules(args.allow, "--allow"))
    session.extra_deny = tuple(_rules(args.deny, "--deny"))
    return session.context(builtin_tools())


def _rules(texts: Iterable[str], flag: str) -> list[Any]:
    try:
        return [parse_rule(text, flag) for text in texts]
    except RuleError as exc:
        raise UsageError(str(exc)) from None


def _check_call(args: argparse.Namespace) -> ToolCall:
    if args.tool:
        try:
            arguments = json.loads(args.args or "{}")
        except json.JSONDecodeError as exc:
            raise UsageError(f"--args is not valid JSON: {exc}") from None
        if not isinstance(arguments, dict):
            return ToolCall("check", args.tool, {}, raw_arguments=args.args)
        return ToolCall("check", args.tool, arguments)
    words = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not words:
        raise UsageError("saikish check needs -- COMMAND, --batch FILE or --tool NAME --args JSON")
    command = words[0] if len(words) == 1 else shlex.join(words)
    return ToolCall("check", "bash", {"command": command})


def _check_batch(source: str, ctx: Context, io: Streams) -> int:
    if source == "-":
        lines: Iterable[str] = io.stdin
    else:
        try:
            lines = Path(source).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as exc:
            raise UsageError(f"cannot read {source}: {exc.strerror or exc}") from None
    write = io.stdout.write
    for line in lines:
        command = line.rstrip("\n")
        assessment = decide(ToolCall("check", "bash", {"command": command}), ctx)
        record = check_json(assessment)
        record["command"] = command
        write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


def check_json(assessment: Assessment) -> dict[str, Any]:
    """The object `saikish check --json` prints (SPEC 8; words from docs/events.md)."""
    from saikish.vocabulary import risk_name, verdict_name

    return {
        "decision": verdict_name(assessment),
        "risk": risk_name(assessment.risk),
        "reason": assessment.reason,
        # An ask is decided by the person (SPEC 4.1 step 7).
        "source": "user" if assessment.verdict is Verdict.ASK else assessment.source.value,
        "rule": assessment.rule,
        "commands": [{"argv": list(c.argv), "risk": c.risk.name, "allowed_by": c.allowed_by}
                     for c in assessment.commands if not c.is_redirect],
        "writes": [c.argv[1] for c in assessment.commands if c.is_redirect],
        "proposed_rules": list(assessment.proposed_rules),
    }


def _print_check(call: ToolCall, assessment: Assessment, io: Streams) -> None:
    from rich.console import Console
    from rich.text import Text

    from saikish.ui.inert import inert
    from saikish.ui.preview import command_table, risk_label

    console = Console(file=io.stdout, highlight=False)
    data = check_json(assessment)
    console.print(Text.assemble((data["decision"].upper(), "bold"), "  ",
                                risk_label(assessment.risk), "  ", inert(assessment.reason)))
    if assessment.commands:
        console.print(command_table(assessment.commands))
    if assessment.proposed_rules:
        console.print(Text("always would add: " + inert(", ".join(assessment.proposed_rules)),
                           style="dim"))


# -- allowlist ----------------------------------------------------------------------

def allowlist(argv: list[str], io: Streams) -> int:
    """show | add RULE | remove RULE | path | edit."""
    parser = argparse.ArgumentParser(prog="saikish allowlist",
                                     description="Manage the allowlist file.")
    parser.add_argument("action", nargs="?", default="show",
                        choices=("show", "add", "remove", "path", "edit"))
    parser.add_argument("rule", nargs="?", help="the rule, for add and remove")
    parser.add_argument("--deny", action="store_true", help="add to the deny list")
    parser.add_argument("-c", "--config", metavar="PATH")
    args = parse_args(parser, argv, io, intermixed=True)
    if isinstance(args, int):
        return args
    path = paths.allowlist_path()
    if args.action == "path":
        print(path, file=io.stdout)
        return 0
    if args.action in ("add", "remove") and not args.rule:
        raise UsageError(f"saikish allowlist {args.action} RULE, e.g. 'Bash(npm test *)'")
    if args.action == "add":
        rule = _rules([args.rule], "allowlist add")[0]
        section = "deny" if args.deny else "allow"
        added = Allowlist(path).add(rule, section)
        print(f"{'added to' if added else 'already in'} {section}: {rule}  ({path})",
              file=io.stdout)
        return 0
    if args.action == "remove":
        text = _rules([args.rule], "allowlist remove")[0].text
        removed = Allowlist(path).remove(text)
        print(f"removed {text}" if removed else f"no rule {text} in {path}", file=io.stdout)
        return 0 if removed else 1
    if args.action == "edit":
        return _edit_allowlist(path, io)
    return _show(args, path, io)


def _show(args: argparse.Namespace, path: Path, io: Streams) -> int:
    from rich.console import Console

    from saikish.policy import RuleSet
    from saikish.ui.tables import rules_table

    config = load_config(find_config(args.config, Path.cwd()))
    state = read_state(path)
    console = Console(file=io.stdout, highlight=False)
    console.print(f"allowlist: {path}" + ("" if path.exists() else " (not created yet)"),
                  soft_wrap=True)
    if config.path:
        console.print(f"config: {config.path}", soft_wrap=True)
    console.print(rules_table(RuleSet(config.allow, config.deny, state.allow, state.deny)))
    for error in state.errors:
        print(f"saikish: {error}", file=io.stderr)
    return 2 if state.errors else 0


def _edit_allowlist(path: Path, io: Streams) -> int:
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(HEADER + "allow:\ndeny:\n", encoding="utf-8")
    subprocess.run([*shlex.split(editor), str(path)], check=False)
    errors = read_state(path).errors
    for error in errors:
        print(f"saikish: {error}", file=io.stderr)
    return 2 if errors else 0


# -- audit ------------------------------------------------------------------------

def audit(argv: list[str], io: Streams) -> int:
    """Show the last decisions from the audit ledger."""
    from rich.console import Console

    from saikish.audit import read_tail
    from saikish.ui.tables import audit_table

    parser = argparse.ArgumentParser(prog="saikish audit", description="Show the audit ledger.")
    parser.add_argument("--tail", type=int, default=20, metavar="N")
    parser.add_argument("--json", action="store_true", help="print the raw JSON lines")
    args = parse_args(parser, argv, io)
    if isinstance(args, int):
        return args
    entries = read_tail(paths.state_dir() / "audit.jsonl", args.tail)
    if args.json:
        for entry in entries:
            print(json.dumps(entry, ensure_ascii=False), file=io.stdout)
        return 0
    Console(file=io.stdout, highlight=False, width=160).print(audit_table(entries))
    return 0


# -- acp --------------------------------------------------------------------------

def acp(argv: list[str], io: Streams) -> int:
    """`saikish acp`: an Agent Client Protocol agent on stdin/stdout (docs/SPEC.md §7.4)."""
    from saikish.acp import AcpServer
    from saikish.app import editor_agents
    from saikish.jsonrpc import Connection

    parser = argparse.ArgumentParser(
        prog="saikish acp", description="Serve the Agent Client Protocol on stdio, for "
                                        "editors (Zed, JetBrains, Neovim clients).")
    parser.add_argument("-m", "--model", metavar="PROVIDER:MODEL")
    parser.add_argument("-c", "--config", metavar="PATH")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--auto-approve", action="store_true")
    mode.add_argument("--auto-deny", action="store_true")
    parser.add_argument("--autonomy", choices=[a.value for a in Autonomy])
    parser.add_argument("--sandbox", choices=("auto", "workspace-write", "read-only", "off"),
                        metavar="MODE")
    parser.add_argument("--timeout", type=float, metavar="SECONDS",
                        help="approval timeout (0 = wait forever)")
    args = parse_args(parser, argv, io)
    if isinstance(args, int):
        return args
    return AcpServer(Connection(io.stdin, io.stdout), editor_agents(args)).serve()
