"""Why a call is asked, as values an approver can act on (docs/SPEC.md §7.3).

The policy explains a question in words for the person; an approver written
in code needs kinds. `ask_reasons` reads them off the policy's Assessment
(its risk, its per-command checks, who forced the question) and the call,
without deciding anything again: it never makes a call look safer than the
policy judged it.
"""

from __future__ import annotations

import enum

import saikish.engine.boundary as boundary
from saikish.tools.base import Tool
from saikish.tools.sandbox.launcher import wants_outside
from saikish.types import Assessment, CommandCheck, Risk, Source, ToolCall, Verdict


class AskReason(enum.Enum):
    """One reason a call is asked; a call may have several (`ApprovalRequest.reasons`)."""

    HOOK = "hook"  # a PreToolUse hook asks a person to look (no flag answers it)
    RULE = "rule"  # an ask: rule matches (no flag answers it)
    CHANGED = "changed"  # an MCP tool changed its definition since it was approved
    QUESTION = "question"  # a running tool asks through ctx.confirm
    SANDBOX = "sandbox"  # approving runs it outside the sandbox, which it asked for
    SECRET = "secret"  # reads a file or the environment that may hold secrets
    READS_OUTSIDE = "reads_outside"  # reads outside the workspace (or where, only at run time)
    DESTRUCTIVE = "destructive"  # deletes, forces, writes outside the workspace
    UNKNOWN = "unknown"  # a command or option saikish does not know, or cannot read
    EXEC = "exec"  # runs the project's code (tests, builds)
    NETWORK = "network"
    WRITES = "writes"  # writes inside the workspace
    READS = "reads"  # a plain read inside the workspace (autonomy manual asks even these)


_BY_RISK = {Risk.DESTRUCTIVE: AskReason.DESTRUCTIVE, Risk.UNKNOWN: AskReason.UNKNOWN,
            Risk.BUILD_TEST: AskReason.EXEC, Risk.NETWORK: AskReason.NETWORK,
            Risk.WRITE: AskReason.WRITES, Risk.READ_ONLY: AskReason.READS,
            Risk.ESCALATION: AskReason.DESTRUCTIVE}
_ORDER = {reason: index for index, reason in enumerate(AskReason)}


def ask_reasons(call: ToolCall, assessment: Assessment, workspace: str,
                tool: Tool | None = None, message: str = "") -> tuple[AskReason, ...]:
    """Every reason the call is asked, most serious first (AskReason's order).

    READS comes alone or not at all: a read with any other reason is not a plain read.
    """
    found = set(_forced(assessment, tool))
    if message:
        found.add(AskReason.QUESTION)
    if wants_outside(call) or _sandbox_question(assessment):
        found.add(AskReason.SANDBOX)
    found.update(_reads(call, assessment, workspace))
    found.update(_risks(assessment))
    if assessment.risk is Risk.UNKNOWN or not found:
        # Something the parts do not show (code that cannot be analysed, a deny rule that
        # cannot be checked): fails closed, never a plain read.
        found.add(AskReason.UNKNOWN)
    if found - {AskReason.READS}:
        found.discard(AskReason.READS)
    return tuple(sorted(found, key=_ORDER.__getitem__))


def _forced(assessment: Assessment, tool: Tool | None) -> list[AskReason]:
    if not assessment.forced:
        return []
    if assessment.source is Source.HOOK:
        return [AskReason.HOOK]
    changed = tool is not None and tool.definition_change is not None and \
        tool.definition_change() is not None
    return [AskReason.CHANGED if changed or assessment.rule is None else AskReason.RULE]


def _sandbox_question(assessment: Assessment) -> bool:
    """A rule, autonomy or a hook allowed it, and it is asked all the same: it cannot run
    inside the sandbox (the executor keeps the allowing source, docs/SPEC.md §4.9)."""
    return assessment.verdict is Verdict.ASK and not assessment.forced and \
        assessment.source not in (Source.UNDECIDED, Source.USER)


def _reads(call: ToolCall, assessment: Assessment, workspace: str) -> list[AskReason]:
    found = []
    path = boundary.read_path(call.name, dict(call.arguments))
    if path is not None and boundary.read_concern(path, workspace) is not None:
        found.append(_read_reason(path, workspace))
    # The policy found a concern with each of these (else they would be permitted).
    found += [_read_reason(c.argv[1], workspace) for c in _unpermitted(assessment)
              if c.is_redirect and c.argv[:1] == ("reads",)]
    if any(c.caveat and c.caveat.endswith(boundary.SECRET_VALUES) for c in _commands(assessment)):
        found.append(AskReason.SECRET)
    return found


def _read_reason(path: str, workspace: str) -> AskReason:
    """SECRET, or READS_OUTSIDE for every other concern (outside, known only at run time)."""
    if boundary.read_concern(path, workspace) == boundary.SECRET or \
            boundary.is_secret(path, workspace):
        return AskReason.SECRET
    return AskReason.READS_OUTSIDE


def _risks(assessment: Assessment) -> list[AskReason]:
    parts = [c for c in _unpermitted(assessment) if c.argv[:1] != ("reads",)]
    risks = [c.risk for c in parts] if assessment.commands else [assessment.risk]
    found = [_BY_RISK[risk] for risk in risks]
    if any(c.is_redirect for c in parts):
        found.append(AskReason.WRITES)
    return found


def _unpermitted(assessment: Assessment) -> list[CommandCheck]:
    return [c for c in assessment.commands if not c.permitted]


def _commands(assessment: Assessment) -> list[CommandCheck]:
    return [c for c in assessment.commands if not c.is_redirect]
