"""One JSON vocabulary (docs/events.md): decisions, sources, risks, exit reasons, events.

The audit log, `check --json`, `--output-format json` and `stream-json` all
spell a decision through these functions, so a reader learns the words once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from saikish.events import (
    CallDecided,
    CallFinished,
    CallProgress,
    CallProposed,
    CallStarted,
    Compacted,
    ErrorOccurred,
    Event,
    FilesChanged,
    Notice,
    RetryNotice,
    RunEnded,
    TextDelta,
    TurnEnded,
    TurnStarted,
    UsageReported,
)
from saikish.types import (
    Assessment,
    Decision,
    ExitReason,
    Outcome,
    Risk,
    Source,
    Tier,
    ToolCall,
    ToolResult,
    Usage,
    Verdict,
)
from saikish.view import Arguments, Command, FileChange, View

FINISHED, STOPPED, MAX_ITERATIONS, ERROR = (ExitReason.FINISHED, ExitReason.STOPPED,
                                           ExitReason.MAX_ITERATIONS, ExitReason.ERROR)
EXIT_REASONS = tuple(ExitReason)
EXCERPT_CHARS, EXCERPT_LINES = 400, 8
PATHS_SHOWN = 100  # per list of a files_changed event; the checkpoint keeps them all
DIFF_LINES_SHOWN = 2000  # of a file change's diff; the rest is counted in `more`
# bash ends its output with this line; notes may follow it (the sandbox's, an edit's).
_EXIT_CODE = re.compile(r"^\[exit code (-?\d+)\]$", re.MULTILINE)


def risk_name(risk: Risk | None) -> str | None:
    """`READ_ONLY`, `WRITE`, ... (the enum member's name), or None."""
    return risk.name if risk is not None else None


def verdict_name(assessment: Assessment) -> str:
    """What `check` says before anyone is asked: allow | ask | reject."""
    return {Verdict.ALLOW: "allow", Verdict.ASK: "ask"}.get(assessment.verdict, "reject")


def tier_name(decision: Decision, assessment: Assessment | None = None) -> str:
    """verified | contained | asked | rejected: where the call ended (docs/SPEC.md §4.1)."""
    if decision.source in _PERSON_SOURCES or (assessment is not None and
                                              assessment.verdict is Verdict.ASK):
        return Tier.ASKED.value  # a person answered, or was needed and nobody could
    if decision.outcome is not Outcome.APPROVED:
        return Tier.REJECTED.value
    if assessment is not None and assessment.contained:
        return Tier.CONTAINED.value
    return Tier.VERIFIED.value


_PERSON_SOURCES = frozenset({Source.USER, Source.TIMEOUT, Source.NO_TTY, Source.AUTO_BUDGET})


def decision_fields(decision: Decision, assessment: Assessment | None = None,
                    edited: bool = False) -> dict[str, Any]:
    """decision, tier, source, rule, edited, feedback, risk, reason: one decided call."""
    return {
        "decision": decision.outcome.value,
        "tier": tier_name(decision, assessment),
        "source": decision.source.value,
        "rule": decision.rule or (assessment.rule if assessment else None),
        "edited": edited,
        "feedback": decision.feedback,
        "risk": risk_name(assessment.risk) if assessment else None,
        "reason": _reason(decision, assessment),
        "reason_kind": reason_kind_name(assessment),
    }


def reason_kind_name(assessment: Assessment | None) -> str | None:
    """exec | writes | network | ...: the kind of reason a call was not verified for
    (docs/SPEC.md §4.1), or None for a verified one."""
    kind = assessment.reason_kind if assessment is not None else None
    return kind.value if kind is not None else None


def view_fields(view: View | None) -> dict[str, Any] | None:
    """What a call does, as its tool shows it (saikish/view.py): {"type": "command" |
    "file_change" | "arguments", ...}; None when it was not worked out."""
    if isinstance(view, Command):
        return {"type": "command", "command": view.command,
                "writes": [file_change_fields(w) for w in view.writes]}
    if isinstance(view, FileChange):
        return {"type": "file_change", **file_change_fields(view)}
    if isinstance(view, Arguments):
        return {"type": "arguments", "arguments": dict(view.arguments), "raw": view.raw}
    return None


def file_change_fields(change: FileChange) -> dict[str, Any]:
    """path, kind (new | overwrite | append | edit | edit_fails | special), the unified
    diff as `text` (cut at DIFF_LINES_SHOWN lines, the rest counted in `more`), `stat`."""
    lines = change.diff_lines()
    return {"path": change.path, "kind": change.kind.value,
            "text": "\n".join(lines[:DIFF_LINES_SHOWN]),
            "more": max(0, len(lines) - DIFF_LINES_SHOWN), "stat": change.stat() or None}


def _reason(decision: Decision, assessment: Assessment | None) -> str | None:
    """Why: the policy's reason, unless the call was not run although the policy allowed it
    (it asked to leave the sandbox, and nobody may answer): then the decision's own."""
    if assessment is None:
        return None
    if assessment.verdict is Verdict.ALLOW and not decision.approved and decision.feedback:
        return decision.feedback
    return assessment.reason


def call_fields(call: ToolCall) -> dict[str, Any]:
    """id, name and the arguments as the model sent them."""
    return {"id": call.id, "name": call.name, "arguments": call.wire_arguments}


def result_fields(result: ToolResult) -> dict[str, Any]:
    """is_error, exit_code (bash) and the first lines of the output."""
    return {"is_error": result.is_error, "exit_code": bash_exit_code(result),
            "excerpt": excerpt(result.content)}


def bash_exit_code(result: ToolResult) -> int | None:
    """The exit code bash reported for a call, or None (another tool, or no run)."""
    if result.name != "bash":
        return None
    codes = _EXIT_CODE.findall(result.content)
    return int(codes[-1]) if codes else None  # the last: the command's own output is first


def excerpt(text: str) -> str:
    """The first lines of `text`, marked when more was cut."""
    lines = text.splitlines()
    short = "\n".join(lines[:EXCERPT_LINES])[:EXCERPT_CHARS]
    return short if short == text else short + " …"


def usage_fields(usage: Usage) -> dict[str, int]:
    """input_tokens (all of them), output_tokens, and the cached and cache-written ones."""
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens,
            "cached_tokens": usage.cached_tokens,
            "cache_write_tokens": usage.cache_write_tokens}


def cost_field(cost: float | None) -> float | None:
    """US dollars, rounded to a millionth of a dollar; None when the price is unknown."""
    return round(cost, 6) if cost is not None else None


def event_json(event: Event) -> dict[str, Any]:
    """One `stream-json` line: {"type": ..., ...fields}."""
    return {"type": event.kind, **EVENT_FIELDS[type(event)](event)}


def _call_decided(event: CallDecided) -> dict[str, Any]:
    return {"call": call_fields(event.call),
            **decision_fields(event.decision, event.assessment, event.edited),
            "view": view_fields(event.view)}


def _call_finished(event: CallFinished) -> dict[str, Any]:
    return {"call": call_fields(event.call), "decision": event.decision.outcome.value,
            "duration_s": round(event.duration_s, 3), **result_fields(event.result)}


def files_fields(event: FilesChanged) -> dict[str, Any]:
    """checkpoint, count, the paths added / modified / deleted / too big (each list cut at
    PATHS_SHOWN, `truncated` then true), and the line the transcript shows."""
    lists = {"added": event.added, "modified": event.modified, "deleted": event.deleted,
             "too_big": event.too_big}
    return {"checkpoint": event.checkpoint, "count": event.count,
            **{key: list(paths[:PATHS_SHOWN]) for key, paths in lists.items()},
            "truncated": any(len(paths) > PATHS_SHOWN for paths in lists.values()),
            "text": event.line}


def _run_ended(event: RunEnded) -> dict[str, Any]:
    return {"result": event.text, "exit_reason": event.exit_reason,
            "message": event.message or None, "usage": usage_fields(event.usage),
            "cost": cost_field(event.cost)}


# The fields of each event type on the wire: one row per type (docs/events.md).
EVENT_FIELDS: dict[type, Callable[[Any], dict[str, Any]]] = {
    TurnStarted: lambda e: {"number": e.number},
    TextDelta: lambda e: {"text": e.text},
    CallProposed: lambda e: {"call": call_fields(e.call), "index": e.index,
                             "batch_size": e.batch_size},
    CallDecided: _call_decided,
    CallStarted: lambda e: {"call": call_fields(e.call)},
    CallProgress: lambda e: {"call": call_fields(e.call), "text": e.text},
    CallFinished: _call_finished,
    FilesChanged: lambda e: {"call": call_fields(e.call), **files_fields(e)},
    UsageReported: lambda e: {**usage_fields(e.usage), "cost": cost_field(e.cost)},
    Compacted: lambda e: {"reason": e.reason, "summarized": e.summarized,
                          "before_tokens": e.before_tokens, "after_tokens": e.after_tokens,
                          "failure": e.failure or None},
    RetryNotice: lambda e: {"message": e.message, "attempt": e.attempt, "delay_s": e.delay_s},
    Notice: lambda e: {"text": e.text, "warning": e.warning},
    ErrorOccurred: lambda e: {"message": e.message},
    TurnEnded: lambda e: {"text": e.text, "tool_calls": e.tool_calls},
    RunEnded: _run_ended,
}
