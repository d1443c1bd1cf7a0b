"""docs/SPEC.md §4.1 as one pure function: decide(call, context) -> Assessment.

No printing, no clock, no terminal. The executor calls `decide` for every
call; when the verdict is ASK it hands the Assessment to an Approver.
"""

from __future__ import annotations

import os

from saikish.engine import boundary, tiers
from saikish.engine.bash.written import assessment_as_written
from saikish.engine.bash_verdict import decide_bash
from saikish.engine.commands.risk import auto_approves
from saikish.engine.context import BASH, READ_TOOL, WRITE_TOOL, Context, RuleSet
from saikish.engine.outcomes import (
    contain,
    forced_ask,
    mode_or_ask,
    reject_by,
    risk_name,
    rule_source,
)
from saikish.engine.permits import lifts, read_kind, tool_ask_rule, tool_covers, write_lifts
from saikish.engine.proposals import tool_proposals
from saikish.engine.toolfacts import ToolFacts, validate
from saikish.rules import one_look, parse_rule, workspace_relative
from saikish.types import Assessment, Mode, ReasonKind, Risk, Source, ToolCall, Verdict

__all__ = ["BASH", "READ_TOOL", "WRITE_TOOL", "Context", "RuleSet", "decide"]


def decide(call: ToolCall, ctx: Context) -> Assessment:
    """The pipeline of docs/SPEC.md §4.1, steps 1 to 6; the first step that decides, decides."""
    tool = ctx.tools.get(call.name)
    problem = _invalid(call, tool, ctx)
    if problem:
        return Assessment(Verdict.INVALID, Risk.UNKNOWN, Source.INVALID, problem,
                          kind=ReasonKind.INVALID)
    with one_look():  # nothing runs while a call is decided: each path is resolved once
        if call.name == BASH:
            return assessment_as_written(decide_bash(str(call.arguments["command"]), ctx))
        assert tool is not None
        return _decide_tool(call, tool, tool.risk(call.arguments, ctx.workspace), ctx)


# -- step 1 ----------------------------------------------------------------------


def _invalid(call: ToolCall, tool: ToolFacts | None, ctx: Context) -> str | None:
    if tool is None:
        return f"unknown tool '{call.name}'; available tools: {', '.join(sorted(ctx.tools))}"
    if call.raw_arguments is not None:
        return f"arguments are not a valid JSON object: {call.raw_arguments[:200]!r}"
    problem = validate(tool.schema, call.arguments)
    if problem:
        return problem
    if call.name == BASH and not str(call.arguments["command"]).strip():
        return "argument 'command' is empty"
    return None


# -- plain tools -----------------------------------------------------------------


def _decide_tool(call: ToolCall, tool: ToolFacts, risk: Risk, ctx: Context) -> Assessment:
    for rule in ctx.rules.deny:
        if tool_covers(rule, call, tool, ctx, deny=True):
            return reject_by(rule, risk, f"denied by rule {rule}")
    changed = tool.definition_change() if tool.definition_change else None
    if changed is not None:
        return _changed_tool(call, risk, changed, ctx)
    path = boundary.read_path(call.name, dict(call.arguments))
    concern = boundary.read_concern(path, ctx.workspace) if path is not None else None
    proposed = tool_proposals(call, path, concern, ctx)
    asked = tool_ask_rule(call, ctx, tool)
    if asked is not None:
        return forced_ask(asked, risk, ctx)
    written = call.arguments.get(tool.writes_argument) if tool.writes_argument else None
    for rule in ctx.rules.allow:
        if tool_covers(rule, call, tool, ctx) and lifts(rule, call.name, concern) and (
                not isinstance(written, str) or
                write_lifts(rule, str(tool.writes_argument), written, ctx)):
            return Assessment(Verdict.ALLOW, risk, rule_source(rule, ctx),
                              f"allowed by rule {rule}", rule.text)
    if concern is not None:
        # The read boundary (§4.8) is asked under every autonomy level.
        return mode_or_ask(risk, f"{call.name} reads {path}, which is {_concern(concern)}",
                            ctx, proposed, opaque=False, kind=read_kind(concern))
    if auto_approves(ctx.autonomy, risk) and not tool.requires_confirmation:
        return Assessment(Verdict.ALLOW, risk, Source.AUTONOMY,
                          f"{risk_name(risk)} is allowed under autonomy {ctx.autonomy.value}")
    reason = f"{call.name} is {risk_name(risk)}"
    if _tool_containable(call, tool, ctx):
        return contain(risk, reason, ctx, proposed)
    return mode_or_ask(risk, reason, ctx, proposed, opaque=False)


def _tool_containable(call: ToolCall, tool: ToolFacts, ctx: Context) -> bool:
    """A tool that changes one file in place, inside the workspace and not in git metadata
    or saikish's config: a checkpoint taken before it makes it undoable (§4.10)."""
    key = tool.writes_argument
    path = call.arguments.get(key) if key else None
    return (isinstance(path, str) and bool(path) and not tool.requires_confirmation
            and ctx.rules.deny_complete
            and tiers.write_contained(path, ctx.workspace, ctx.containment.protected)
            and not os.path.isabs(workspace_relative(path, ctx.workspace)))


def _changed_tool(call: ToolCall, risk: Risk, changed: str, ctx: Context) -> Assessment:
    """A tool whose definition changed since it was approved (§7.1 rug pulls): no rule,
    no autonomy level and no mode but --auto-deny answers; the person looks again."""
    reason = f"{call.name} changed since a call of it was approved: {changed}"
    if ctx.mode is Mode.AUTO_DENY:
        return Assessment(Verdict.REJECT, risk, Source.MODE, f"{reason}; --auto-deny is set",
                          kind=ReasonKind.UNKNOWN)
    return Assessment(Verdict.ASK, risk, Source.UNDECIDED, reason, forced=True,
                      proposed_rules=(parse_rule(call.name, "changed tool"),),
                      kind=ReasonKind.UNKNOWN)


def _concern(concern: str) -> str:
    return "outside the workspace" if concern == boundary.OUTSIDE else f"a file that {concern}"
