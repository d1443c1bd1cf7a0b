"""The rules an "always" answer proposes (docs/SPEC.md §4.4)."""

from __future__ import annotations

from collections.abc import Sequence

from saikish.engine import boundary
from saikish.engine.bash.shell import SimpleCommand
from saikish.engine.commands.risk import Classification
from saikish.engine.context import READ_TOOL, WRITE_TOOL, Context
from saikish.engine.rules import (
    _GLOBBY,
    Rule,
    bash_rule_for,
    parse_rule,
)
from saikish.types import CommandCheck, Risk, ToolCall


def _tool_proposals(call: ToolCall, path: str | None, concern: str | None,
                    ctx: Context) -> tuple[Rule, ...]:
    """A tool with a path argument is allowed for that path only, never as a whole."""
    if path is not None and concern is not None:
        return (_path_rule(call.name, boundary.proposal_glob(path, ctx.workspace, concern)),)
    if "path" in call.arguments:
        return (_path_rule(call.name, str(call.arguments["path"])),)
    return (parse_rule(call.name, "proposed"),)


def _proposals(blocking: Sequence[CommandCheck],
               found: Sequence[tuple[SimpleCommand, Classification]],
               workspace: str) -> tuple[Rule, ...]:
    """The narrowest rules that would let this call through next time, if rules can."""
    by_argv = {cmd.argv: (cmd, kind) for cmd, kind in found}
    out: dict[str, Rule] = {}
    for check in blocking:
        if check.argv[0] == "writes" and check.risk is Risk.WRITE and len(blocking) > 1:
            continue  # inside the workspace: the rule for the command that writes covers it
        if check.is_redirect:
            rule = _target_rule(check, workspace)
            if rule is None:
                return ()
        else:
            cmd, kind = by_argv[check.argv]
            if kind.hard:
                return ()  # a word built at run time: no rule can cover it
            rule = parse_rule(_bash_proposal(cmd, kind), "proposed")
        out.setdefault(rule.text, rule)
    return tuple(out.values())


def _target_rule(check: CommandCheck, workspace: str) -> Rule | None:
    kind, path = check.argv
    if check.caveat and "only known at run time" in check.caveat:
        return None
    if kind == "reads":
        if _GLOBBY.search(path):
            return None  # a glob that may match secrets: no rule names each file
        concern = boundary.SECRET if boundary.SECRET in (check.caveat or "") \
            else boundary.OUTSIDE
        return _path_rule(READ_TOOL, boundary.proposal_glob(path, workspace, concern))
    return _path_rule(WRITE_TOOL, path)


def _bash_proposal(command: SimpleCommand, found: Classification) -> str:
    """Risky commands exactly; others by name (and subcommand) plus any words.

    Through a runner (`uv run`, `npx`) the rule names the runner and what it runs, never
    the runner alone (docs/SPEC.md §4.7).
    """
    argv = command.argv
    lead = command.outer[:command.offset] if command.offset else ()
    if found.named or found.risk.level >= Risk.DESTRUCTIVE.level:
        return bash_rule_for(lead + argv, prefix=command.open_ended)
    if command.wrapper:
        return bash_rule_for(command.outer[:command.offset + len(argv) + 1], prefix=True)
    if command.open_ended:  # xargs / find -exec append words: only a prefix rule can match
        return bash_rule_for(lead + argv, prefix=True)
    parsed = command.parse
    keep = parsed.sub_end if parsed is not None and parsed.sub_end else 1
    if argv[1:2] == ("-m",):
        keep = 3
    return bash_rule_for(lead + argv[:keep], prefix=True)


def _path_rule(tool: str, path: str) -> Rule:
    return parse_rule({"tool": tool, "when": {"path": path}}, "proposed")
