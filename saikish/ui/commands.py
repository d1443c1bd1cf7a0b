"""Slash commands of the REPL (docs/SPEC.md §9): each a small function on the REPL's state."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from textwrap import shorten
from typing import TYPE_CHECKING

from rich.text import Text

from saikish.config.rule_hints import (
    argument_problem,
    claude_code_hint,
    never_matches,
    unknown_tool_warnings,
)
from saikish.errors import RuleError, SaikishError
from saikish.inert import inert
from saikish.rules import Rule, parse_rule
from saikish.types import Autonomy, Mode
from saikish.ui import daily

if TYPE_CHECKING:
    from saikish.ui.shellstate import ShellState

EXIT = "exit"
UNDO_DIFF_LINES = 200  # longer diffs are cut here; `saikish undo` shows all of it


@dataclass(frozen=True)
class Command:
    """One slash command: its help line and what it does."""

    usage: str
    help: str
    run: Callable[[ShellState, str], str | None]


def run_command(repl: ShellState, line: str) -> str | None:
    """Run `/name args`; returns EXIT to leave the REPL."""
    name, _, arg = line[1:].partition(" ")
    command = COMMANDS.get(name)
    if command is None:
        repl.say(f"unknown command /{name}; /help lists them", "red")
        return None
    try:
        return command.run(repl, arg.strip())
    except (SaikishError, ValueError) as exc:
        repl.say(str(exc), "red")
        return None


def _help(repl: ShellState, arg: str) -> None:
    from rich.table import Table

    table = Table.grid(padding=(0, 2))
    table.add_column(style="bold", no_wrap=True)
    table.add_column()
    for name, command in COMMANDS.items():
        table.add_row(f"/{name} {command.usage}".rstrip(), command.help)
    repl.console.print(table)
    repl.say("Enter sends · Alt-Enter or Esc Enter: new line · Ctrl-C cancels · Ctrl-D exits")


def _exit(repl: ShellState, arg: str) -> str:
    return EXIT


def _model(repl: ShellState, arg: str) -> None:
    if arg:
        repl.switch_model(arg)
    repl.say(f"model: {repl.spec}")


def _tools(repl: ShellState, arg: str) -> None:
    for tool in repl.agent.tools:  # an MCP server writes these: shown inert
        repl.console.print(Text.assemble((inert(tool.name).ljust(12), "bold"),
                                         inert(tool.description)))


def _mcp(repl: ShellState, arg: str) -> None:
    """The MCP servers: state (starting / ready N tools / failed: why) and tools with risk."""
    from rich.table import Table

    from saikish.ui.parts import risk_label

    config, mcp = repl.session.config, repl.session.mcp
    for item in (i for i in config.ignored if i.key == "mcpServers"):
        repl.say(f"{item.origin}: mcpServers ignored: this project's agent.yml is not trusted",
                 "yellow")
    if mcp is None:
        repl.say("no MCP servers (agent.yml's mcpServers: is empty)")
        return
    for line in mcp.lines():
        style = {"ready": "green", "failed": "red"}.get(line.state, "yellow")
        repl.console.print(Text.assemble((line.name, "bold"), " ", (line.state, style),
                                         (f" · {inert(line.detail)}" if line.detail else ""),
                                         (f"  {inert(line.origin)}", "dim")))
        if line.tools:
            table = Table.grid(padding=(0, 2))
            for tool in line.tools:
                risk = tool.risk({}, repl.session.workspace)
                changed = tool.definition_change() if tool.definition_change else None
                table.add_row("  " + inert(tool.name), risk_label(risk),
                              Text(inert(shorten(tool.description, 70, placeholder=" …")),
                                   style="dim"),
                              Text("changed since approved" if changed else "", style="red"))
            repl.console.print(table)


def _hooks(repl: ShellState, arg: str) -> None:
    """The hooks in force and the file and line of each (docs/SPEC.md §7.2)."""
    from rich.table import Table

    from saikish.hooks.runner import hook_lines

    config, hooks = repl.session.config, repl.session.hooks
    ignored = [i for i in config.ignored if i.key == "hooks"]
    if hooks is None and len(config.hooks):
        repl.say(f"hooks are off (--no-hooks): {len(config.hooks)} configured do not run")
    elif not len(config.hooks):
        repl.say("no hooks (agent.yml's hooks: is empty)")
    else:
        table = Table("event", "matcher", "command", "timeout", box=None)
        table.add_column("from", overflow="fold")  # the whole path: it says which file
        for row in hook_lines(config.hooks):
            table.add_row(*(inert(cell) for cell in row))
        repl.console.print(table)
    for item in ignored:
        repl.say(f"{item.origin}: hooks ignored: this project's agent.yml is not trusted", "yellow")


def _allowlist(repl: ShellState, arg: str) -> None:
    from saikish.config.allowlist import AllowlistState
    from saikish.ui.scopes import scope_view

    session = repl.session
    state = session.allowlist.current() if session.allowlist else AllowlistState()
    repl.console.print(scope_view(state, session.config, session.workspace,
                                  session.session_rules), soft_wrap=True)
    for error in repl.session.allowlist_errors():
        repl.say(error, "red")


def _config(repl: ShellState, arg: str) -> None:
    from saikish.ui.settings import config_table

    repl.console.print(config_table(repl.session.config))


def _allow(repl: ShellState, arg: str) -> None:
    rule = _rule(arg, "/allow", repl)
    repl.session.session_rules.append(rule)
    repl.say(f"allowed for this session: {rule}")


def _deny(repl: ShellState, arg: str) -> None:
    rule = _rule(arg, "/deny", repl)
    repl.session.extra_deny += (rule,)
    repl.say(f"denied for this session: {rule}")


def _forget(repl: ShellState, arg: str) -> None:
    text = _rule(arg, "/forget").text
    found = repl.session.forget(text)
    allowlist = repl.session.allowlist
    scopes = (None, repl.session.workspace)  # global and this project
    if allowlist is not None and [allowlist.remove(text, s) for s in scopes].count(True):
        found = True
        repl.say(f"removed from {allowlist.path}: {text}")
    repl.say(f"forgot {text}" if found else f"no session or allowlist rule {text}")


def _mode(repl: ShellState, arg: str) -> None:
    if arg:
        repl.session.mode = Mode(_choice(arg, [m.value for m in Mode], "/mode"))
    repl.say(f"mode: {repl.session.mode.value}")


def _autonomy(repl: ShellState, arg: str) -> None:
    if arg:
        repl.session.autonomy = Autonomy(_choice(arg, [a.value for a in Autonomy], "/autonomy"))
    repl.say(f"autonomy: {repl.session.autonomy.value}")


def _auto(repl: ShellState, arg: str) -> None:
    if not arg.isdigit():
        raise ValueError("/auto N: approve the next N calls that would ask (never escalation "
                         "or deny rules)")
    repl.session.auto_budget = int(arg)
    repl.say(f"the next {arg} calls that would ask are approved")


def _audit(repl: ShellState, arg: str) -> None:
    from saikish.store import paths
    from saikish.store.audit import read_tail
    from saikish.ui.tables import audit_table

    if arg and not arg.isdigit():
        raise ValueError("/audit [N]: N is how many of the last decisions to show")
    count = int(arg) if arg else 20
    if count == 0:
        return
    repl.console.print(audit_table(read_tail(paths.state_dir() / "audit.jsonl", count)))


def _remote(repl: ShellState, arg: str) -> None:
    """/remote [HOST:PORT]: the approval web page (docs/SPEC.md §7.5); /remote off stops it."""
    if arg == "off":
        if repl.remote is None:
            repl.say("no remote approval server is running")
        repl.stop_remote("stopped at the terminal (/remote off)")
        return
    if repl.remote is not None:
        where = f" ({arg} not used)" if arg else ""
        for line in repl.remote.banner():
            repl.say(line + where)
        return
    repl.start_remote(arg)
def _undo(repl: ShellState, arg: str) -> None:
    """Put back what the last N calls nobody approved changed: diff first, then y/N (§4.10)."""
    from saikish.ui.undo_view import plan_view, undone_line

    if arg and (not arg.isdigit() or int(arg) < 1):
        raise ValueError("/undo [N]: N is how many calls to undo, 1 or more")
    checkpoints = repl.session.checkpoints
    if checkpoints is None:
        raise ValueError(f"no undo: {repl.session.undo_problem()}")
    plan = checkpoints.plan_undo(int(arg or 1))
    repl.console.print(plan_view(plan, max_lines=UNDO_DIFF_LINES))
    if plan.files and not _yes_no("Restore these files? [y/N] "):
        repl.say("nothing restored")
        return
    repl.say(undone_line(checkpoints.undo(plan), plan))


def _yes_no(question: str) -> bool:
    """A y/N question at the REPL's terminal; Ctrl-C, Ctrl-D and anything but y/yes are no."""
    from prompt_toolkit import PromptSession

    try:
        answer = PromptSession[str]().prompt(question)
    except (KeyboardInterrupt, EOFError):
        return False
    return answer.strip().lower() in ("y", "yes")


def _rule(text: str, command: str, repl: ShellState | None = None) -> Rule:
    if not text:
        raise ValueError(f"{command} RULE, e.g. {command} 'Bash(npm test *)'")
    try:
        rule = parse_rule(text, command)
    except RuleError as exc:
        raise ValueError(inert(f"{exc}{claude_code_hint(text)}")) from None
    problem = argument_problem(rule, {t.name: t for t in repl.agent.tools}) if repl \
        else never_matches(rule)
    if problem:
        raise ValueError(inert(problem))
    if repl is not None:  # /allow, /deny: a rule naming no tool would silently do nothing
        for warning in unknown_tool_warnings([rule], [t.name for t in repl.agent.tools]):
            repl.say(f"warning: {warning}", "yellow")
    return rule


def _choice(value: str, allowed: list[str], command: str) -> str:
    if value not in allowed:
        raise ValueError(f"{command}: '{value}' is not one of {', '.join(allowed)}")
    return value


COMMANDS: dict[str, Command] = {
    "help": Command("", "this list", _help),
    "exit": Command("", "leave saikish", _exit),
    "clear": Command("", "forget the conversation (a new session starts)", daily.clear),
    "compact": Command("[FOCUS]", "summarise the older turns now (what to keep in view)",
                       daily.compact),
    "cost": Command("", "tokens and dollars so far; how full the context is", daily.cost),
    "transcript": Command("", "the whole conversation, calls and all, in a pager",
                          daily.transcript),
    "resume": Command("[ID]", "go on with another stored session of this workspace",
                      daily.resume),
    "init": Command("", "write a starter AGENTS.md (shown first)", daily.init),
    "model": Command("[PROVIDER:MODEL]", "show or switch the model", _model),
    "tools": Command("", "the tools the model can call", _tools),
    "allowlist": Command("", "every rule in force and where it comes from", _allowlist),
    "hooks": Command("", "the hooks in force and where each comes from", _hooks),
    "mcp": Command("", "MCP servers, their state and their tools", _mcp),
    "config": Command("", "the effective settings and the file each came from", _config),
    "allow": Command("RULE", "allow a rule for this session", _allow),
    "deny": Command("RULE", "deny a rule for this session", _deny),
    "forget": Command("RULE", "drop a rule from the session and the allowlist file", _forget),
    "mode": Command("[MODE]", "event-based | auto-approve | auto-deny", _mode),
    "autonomy": Command("[LEVEL]", "full-auto | supervised | cautious | manual", _autonomy),
    "auto": Command("N", "approve the next N calls that would ask", _auto),
    "audit": Command("[N]", "the last N decisions", _audit),
    "remote": Command("[HOST:PORT|off]", "approve from a web page too (127.0.0.1 unless given)",
                      _remote),
    "undo": Command("[N]", "put back what the last N unasked calls changed", _undo),
}
