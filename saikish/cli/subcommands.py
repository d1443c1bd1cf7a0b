"""`saikish check`, `saikish allowlist`, `saikish audit` (docs/SPEC.md §8); `config`, `trust`
and `undo` have modules of their own."""

from __future__ import annotations

import argparse
import json
import os
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from saikish.cli.compose import Streams, parse_args
from saikish.config.allowlist import HEADER, Allowlist, project_root, read_state
from saikish.config.rule_hints import claude_code_hint, never_matches, unknown_tool_warnings
from saikish.config.trust import load_config_trusted
from saikish.engine.policy import Context, decide
from saikish.errors import RuleError, UsageError
from saikish.rules import Rule, one_look, parse_rule, rule_texts
from saikish.runtime.opening import SessionOptions, open_session
from saikish.runtime.session import Session, relative_path_rule
from saikish.store import paths
from saikish.tools import builtin_tools
from saikish.tools.base import Tool
from saikish.tools.sandbox.launcher import (
    SANDBOXED_TOOLS,
    SandboxError,
    SandboxMode,
    SandboxSetup,
    start_sandbox,
)
from saikish.types import Assessment, Autonomy, Mode, ToolCall, Verdict
from saikish.view import View


def run_subcommand(name: str, argv: list[str], io: Streams) -> int:
    """Dispatch `saikish NAME ARGV`."""
    if name in ("config", "trust"):
        from saikish.cli.config import config_command, trust_command

        return (config_command if name == "config" else trust_command)(argv, io)
    if name == "mcp":
        from saikish.cli.mcp import mcp_command

        return mcp_command(argv, io)
    if name == "undo":
        from saikish.cli.undo import undo_command

        return undo_command(argv, io)
    if name == "sessions":
        from saikish.cli.sessions import sessions_command

        return sessions_command(argv, io)
    handler = {"check": check, "allowlist": allowlist, "audit": audit, "acp": acp}[name]
    return handler(argv, io)


# -- check ------------------------------------------------------------------------

# `check --exit-code`: a CI step can gate on the decision (0 allow, 10 ask, 11 reject).
CHECK_EXIT = {"allow": 0, "ask": 10, "reject": 11}

def check_parser() -> argparse.ArgumentParser:
    """`saikish check`'s command line."""
    parser = argparse.ArgumentParser(
        prog="saikish check",
        description="Explain the decision for a call without running it, with the rules in "
                    "force (agent.yml and the allowlist) plus those given here.")
    parser.add_argument("--allow", action="append", default=[], metavar="RULE")
    parser.add_argument("--deny", action="append", default=[], metavar="RULE")
    parser.add_argument("--autonomy", choices=[a.value for a in Autonomy])
    parser.add_argument("--sandbox", choices=("auto", "workspace-write", "read-only", "off"),
                        help="answer for this sandbox (default: the one this machine gives)")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--exit-code", action="store_true",
                        help="exit 0 when allowed, 10 when it would ask, 11 when rejected "
                             "(with --batch: the strictest line)")
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
    session = _check_session(args)
    for warning in session.warnings():  # once, on stderr (docs/SPEC.md §4.8)
        print(f"saikish: {warning}", file=io.stderr)
    try:
        judge = _Judge(session, _check_tools(args, session, io),
                       SandboxMode(args.sandbox or session.config.sandbox))
        rules = judge.session.rules()
        _warn_unknown_tools(rules.allow + rules.deny, io)
        if args.batch:
            worst = _check_batch(args.batch, judge, io)
            return CHECK_EXIT[worst] if args.exit_code else 0
        call = _check_call(args)
        assessment = judge.decide(call)
        tool = judge.tools.get(call.name)
        # What the call would do, as its tool shows it: the box, the transcript and json
        # output show the same (a file tool's diff against the file as it is now).
        view = tool.show(call, session.workspace) if tool is not None else None
    finally:
        session.close()
    if args.json:
        data = check_json(assessment, view)
        data["warnings"] = list(session.warnings())
        print(json.dumps(data, ensure_ascii=False), file=io.stdout)
    else:
        _print_check(assessment, view, io)
    return CHECK_EXIT[check_json(assessment)["decision"]] if args.exit_code else 0


def _check_tools(args: argparse.Namespace, session: Session, io: Streams) -> Mapping[str, Tool]:
    """The built-in tools; for `--tool mcp__...`, the configured servers are started first."""
    from saikish.tools.registry import ToolRegistry

    tools = ToolRegistry(builtin_tools())
    if args.tool and args.tool.startswith("mcp__"):
        host = session.attach_mcp()
        if host is not None:
            tools.add_source(host)
            host.wait_ready()
        for line in tools.notices():
            print(f"saikish: {line}", file=io.stderr)
    return tools


def _check_session(args: argparse.Namespace) -> Session:
    config = load_config_trusted(args.config, Path.cwd())
    # check decides and runs nothing: no ledger, no undo, no hooks or servers; the
    # sandbox is probed only for a call that would run contained (_Judge).
    session = open_session(config, os.getcwd(), SessionOptions(
        mode=Mode.EVENT_BASED, autonomy=Autonomy(args.autonomy) if args.autonomy else None,
        start_sandbox=False, audit=False, checkpoints=False, hooks=False, mcp=False))
    session.extra_allow = tuple(_rules(args.allow, "--allow"))
    session.extra_deny = tuple(_rules(args.deny, "--deny"))
    return session


def _rules(texts: Iterable[str], flag: str) -> list[Rule]:
    rules = []
    for text in texts:
        try:
            rule = parse_rule(text, flag)
        except RuleError as exc:
            raise UsageError(f"{exc}{claude_code_hint(text)}") from None
        problem = never_matches(rule)
        if problem:
            raise UsageError(f"{flag}: {problem}")
        rules.append(rule)
    return rules


def _warn_unknown_tools(rules: Iterable[Any], io: Streams) -> None:
    """Rules naming no tool (Claude Code's Edit, Read) match nothing: say so on stderr."""
    for line in unknown_tool_warnings(rules, builtin_tools()):
        print(f"saikish: warning: {line}", file=io.stderr)


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


class _Judge:
    """decide() with the sandbox this machine would really give, probed only when an
    answer depends on it (a bash call that would run contained)."""

    def __init__(self, session: Session, tools: Mapping[str, Tool], mode: SandboxMode) -> None:
        self.session, self.tools, self.mode = session, tools, mode
        self.probed = mode is SandboxMode.OFF
        if mode is SandboxMode.OFF:
            session.sandbox = SandboxSetup(mode)
        # One check reads the rules once: a --batch of 12,000 lines must not re-read the
        # allowlist and look for git 12,000 times. None until first needed.
        self._contexts: dict[bool | None, Context] = {}

    def decide(self, call: ToolCall) -> Assessment:
        """The assessment the executor would make of `call` in this session."""
        if self.probed:
            return decide(call, self._context())
        assessment = decide(call, self._context(sandbox=True))
        if not (assessment.contained and call.name in SANDBOXED_TOOLS):
            return assessment
        try:
            self.session.sandbox = start_sandbox(self.mode, self.session.workspace)
        except SandboxError as exc:
            self.session.sandbox = SandboxSetup(self.mode, None, str(exc))
        self.session.sandbox.close()  # a probe: check runs nothing in it
        self.probed = True
        return decide(call, self._context())

    def _context(self, sandbox: bool | None = None) -> Context:
        """The session's context, with checkpoints as a run here would keep them (check
        opens no store: it writes nothing), and the sandbox presumed when asked to."""
        key = sandbox if not self.probed else None
        if key not in self._contexts:
            self._contexts[key] = self._fresh_context(sandbox)
        return self._contexts[key]

    def _fresh_context(self, sandbox: bool | None) -> Context:
        ctx = self.session.context(self.tools)
        undo = undo_possible(self.session.workspace)
        held = replace(ctx.containment, checkpoints=undo is None, no_undo=undo or "")
        if sandbox is not None:
            held = replace(held, sandbox=sandbox)
        return replace(ctx, containment=held)


def undo_possible(workspace: str) -> str | None:
    """Why a run in `workspace` would keep no checkpoints, or None (§4.10)."""
    import shutil

    from saikish.checkpoints.store import refusal

    refused = refusal(workspace)
    if refused:
        return f"no undo: {refused}"
    return None if shutil.which("git") else "no undo: git is not installed"


# One encoder for every line of a --batch (json.dumps builds one per call when given options).
_JSON_LINE = json.JSONEncoder(ensure_ascii=False)
_BATCH_KEPT = 65536  # lines whose answers a --batch keeps for their repeats


def _check_batch(source: str, judge: _Judge, io: Streams) -> str:
    """One JSON line per command (blank lines and comments are none); returns the strictest
    decision ('allow' for none)."""
    if source == "-":
        lines: Iterable[str] = io.stdin
    else:
        try:
            lines = Path(source).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as exc:
            raise UsageError(f"cannot read {source}: {exc.strerror or exc}") from None
    write = io.stdout.write
    worst = "allow"
    # check runs nothing: a path resolved for one line holds for the rest, and a line seen
    # before gets the answer it got (decide() is pure; keyed by whether the sandbox was
    # probed, the one thing that changes the context within a batch).
    decided: dict[tuple[bool, str], tuple[str, str]] = {}
    with one_look():
        for line in lines:
            command = line.rstrip("\n")
            if not command.strip() or command.lstrip().startswith("#"):
                continue  # as a shell reads a script: nothing to run
            key = (judge.probed, command)
            if key not in decided:
                if len(decided) >= _BATCH_KEPT:
                    decided.clear()
                assessment = judge.decide(ToolCall("check", "bash", {"command": command}))
                record = check_json(assessment)  # the command is the view: said once, below
                record["command"] = command
                decided[key] = (_JSON_LINE.encode(record) + "\n", record["decision"])
            encoded, decision = decided[key]
            write(encoded)
            worst = max(worst, decision, key=CHECK_EXIT.__getitem__)
    return worst


def check_json(assessment: Assessment, view: View | None = None) -> dict[str, Any]:
    """The object `saikish check --json` prints (SPEC 8; words from docs/events.md)."""
    from saikish.vocabulary import reason_kind_name, risk_name, verdict_name, view_fields

    data: dict[str, Any] = {
        "decision": verdict_name(assessment),
        "tier": assessment.tier.value,
        "risk": risk_name(assessment.risk),
        "reason": assessment.reason,
        "reason_kind": reason_kind_name(assessment),
        # Why a contained call was not verified (docs/SPEC.md §4.1); null otherwise.
        "not_verified": assessment.unverified or None,
        # An ask is decided by the person (docs/SPEC.md §4.1 step 7).
        "source": "user" if assessment.verdict is Verdict.ASK else assessment.source.value,
        "rule": assessment.rule,
        "commands": [{"argv": list(c.argv), "risk": c.risk.name, "allowed_by": c.allowed_by,
                      "reason_kind": None if c.permitted else c.reason_kind.value}
                     for c in assessment.commands if not c.is_redirect],
        "writes": [c.argv[1] for c in assessment.commands
                   if c.is_redirect and c.argv[0] != "reads"],
        "reads": [c.argv[1] for c in assessment.commands
                  if c.is_redirect and c.argv[0] == "reads"],
        "proposed_rules": [rule.text for rule in assessment.proposed_rules],
    }
    if view is not None:
        data["view"] = view_fields(view)
    return data


def _print_check(assessment: Assessment, view: View | None, io: Streams) -> None:
    from rich.text import Text

    from saikish.inert import inert
    from saikish.ui.parts import CommandTable, risk_label, stream_console
    from saikish.ui.preview import call_body

    console = stream_console(io.stdout)
    data = check_json(assessment)
    if view is not None:
        console.print(call_body(view, max_lines=None))
    console.print(Text.assemble((data["decision"].upper(), "bold"), "  ",
                                risk_label(assessment.risk), "  ", inert(assessment.reason)))
    if assessment.commands:
        console.print(CommandTable(assessment.commands))
    if assessment.proposed_rules:
        console.print(Text("always would add: " + inert(rule_texts(assessment.proposed_rules)),
                           style="dim"))


# -- allowlist ----------------------------------------------------------------------

def allowlist_parser() -> argparse.ArgumentParser:
    """`saikish allowlist`'s command line."""
    parser = argparse.ArgumentParser(
        prog="saikish allowlist", description="Manage the allowlist file: global rules and "
        "one section per project (path rules default to the current project).")
    parser.add_argument("action", nargs="?", default="show",
                        choices=("show", "add", "remove", "path", "edit"))
    parser.add_argument("rule", nargs="?", help="the rule, for add and remove")
    kind = parser.add_mutually_exclusive_group()
    kind.add_argument("--deny", action="store_true", help="add to the deny list")
    kind.add_argument("--ask", action="store_true", help="add to the ask list")
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--global", dest="scope_global", action="store_true",
                       help="every project")
    scope.add_argument("--project", nargs="?", const="", metavar="PATH",
                       help="this project (or the one at PATH)")
    parser.add_argument("-c", "--config", metavar="PATH")
    return parser


def allowlist(argv: list[str], io: Streams) -> int:
    """show | add RULE | remove RULE | path | edit."""
    args = parse_args(allowlist_parser(), argv, io, intermixed=True)
    if isinstance(args, int):
        return args
    if args.project and args.rule is None and not os.path.isdir(args.project):
        args.rule, args.project = args.project, ""  # '--project RULE': the rule, not a PATH
    path = paths.allowlist_path()
    if args.action == "path":
        print(path, file=io.stdout)
        return 0
    if args.action in ("add", "remove") and not args.rule:
        raise UsageError(f"saikish allowlist {args.action} RULE, e.g. 'Bash(npm test *)'")
    if args.action in ("add", "remove"):
        rule = _rules([args.rule], f"allowlist {args.action}")[0]
        if args.action == "add":
            _warn_unknown_tools([rule], io)
        project, why = _scope(args, rule)
        change = _add if args.action == "add" else _remove
        return change(Allowlist(path), rule, project, why, args, io)
    if args.action == "edit":
        return _edit_allowlist(path, io)
    return _show(args, path, io)


def _scope(args: argparse.Namespace, rule: Rule) -> tuple[str | None, str]:
    """(project path or None for global, the words saying why) for add and remove.

    This project by default, as the box's "Always (remember)" does; a project is named
    by its repository root, so a subdirectory is the same project (§4.5).
    """
    if args.scope_global:
        if relative_path_rule(rule):
            raise UsageError(f"{rule} names a relative path, which means something only in "
                             f"one project: use --project (the default)")
        return None, "every project (--global)"
    if args.project is not None:
        where = os.path.abspath(args.project or os.getcwd())
        if not os.path.isdir(where):
            raise UsageError(f"--project {args.project}: no such directory")
        root = project_root(where)
        return root, f"project {root}"
    root = project_root(os.getcwd())
    return root, f"project {root} (the default, as for 'always' in the box; --global for " \
                 f"every project)"


def _add(allowlist: Allowlist, rule: Rule, project: str | None, where: str,
         args: argparse.Namespace, io: Streams) -> int:
    section = "deny" if args.deny else "ask" if args.ask else "allow"
    added = allowlist.add(rule, section, project)
    print(f"{'added to' if added else 'already in'} {section} for {where}: {rule}  "
          f"({allowlist.path})", file=io.stdout)
    return 0


def _remove(allowlist: Allowlist, rule: Rule, project: str | None, where: str,
            args: argparse.Namespace, io: Streams) -> int:
    if allowlist.remove(rule.text, project):
        print(f"removed from {where}: {rule}", file=io.stdout)
        return 0
    exact = os.path.abspath(args.project or os.getcwd())  # a section keyed before §4.5's roots
    if project is not None and project != exact and allowlist.remove(rule.text, exact):
        print(f"removed from project {exact}: {rule}", file=io.stdout)
        return 0
    print(f"no rule {rule} for {where} in {allowlist.path}", file=io.stdout)
    return 1


def _show(args: argparse.Namespace, path: Path, io: Streams) -> int:
    from rich.console import Console

    from saikish.ui.scopes import scope_view, vanished

    config = load_config_trusted(args.config, Path.cwd())
    state = read_state(path)
    console = Console(file=io.stdout, highlight=False)
    console.print(f"allowlist: {path}" + ("" if path.exists() else " (not created yet)"),
                  soft_wrap=True)
    if config.files:
        console.print(f"config: {', '.join(map(str, config.files))}", soft_wrap=True)
    console.print(scope_view(state, config, os.getcwd()), soft_wrap=True)
    for project in vanished(state):
        print(f"saikish: {path}:{project.line}: project {project.path} no longer exists "
              f"(its rules are kept; remove the section if it is gone for good)",
              file=io.stderr)
    for warning in config.warnings() + state.errors:
        print(f"saikish: {warning}", file=io.stderr)
    return 2 if state.errors else 0


def _edit_allowlist(path: Path, io: Streams) -> int:
    import subprocess

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
    from saikish.store.audit import read_tail
    from saikish.ui.tables import audit_table

    parser = argparse.ArgumentParser(prog="saikish audit", description="Show the audit ledger.")
    parser.add_argument("--tail", type=int, default=20, metavar="N",
                        help="the last N decisions (default 20; 0 shows none)")
    parser.add_argument("--json", action="store_true", help="print the raw JSON lines")
    args = parse_args(parser, argv, io)
    if isinstance(args, int):
        return args
    if args.tail < 0:
        raise UsageError(f"audit --tail {args.tail}: give a number of decisions >= 0")
    entries = read_tail(paths.state_dir() / "audit.jsonl", args.tail) if args.tail else []
    if args.json:
        for entry in entries:
            print(json.dumps(entry, ensure_ascii=False), file=io.stdout)
        return 0
    from saikish.ui.parts import stream_console

    stream_console(io.stdout).print(audit_table(entries))
    return 0


# -- acp --------------------------------------------------------------------------

def acp(argv: list[str], io: Streams) -> int:
    """`saikish acp`: an Agent Client Protocol agent on stdin/stdout (docs/SPEC.md §7.4)."""
    from saikish.acp.jsonrpc import Connection
    from saikish.acp.server import AcpServer
    from saikish.cli.compose import editor_agents

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
