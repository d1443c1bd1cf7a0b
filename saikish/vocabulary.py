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
    Notice,
    RetryNotice,
    RunEnded,
    TextDelta,
    TurnEnded,
    TurnStarted,
    UsageReported,
)
from saikish.types import Assessment, Decision, Risk, ToolCall, ToolResult, Usage, Verdict

FINISHED, STOPPED, MAX_ITERATIONS, ERROR = "finished", "stopped", "max_iterations", "error"
EXIT_REASONS = (FINISHED, STOPPED, MAX_ITERATIONS, ERROR)
EXCERPT_CHARS, EXCERPT_LINES = 400, 8
_EXIT_CODE = re.compile(r"\[exit code (-?\d+)\]\s*$")


def risk_name(risk: Risk | None) -> str | None:
    """`READ_ONLY`, `WRITE`, ... (the enum member's name), or None."""
    return risk.name if risk is not None else None


def verdict_name(assessment: Assessment) -> str:
    """What `check` says before anyone is asked: allow | ask | reject."""
    return {Verdict.ALLOW: "allow", Verdict.ASK: "ask"}.get(assessment.verdict, "reject")


def decision_fields(decision: Decision, assessment: Assessment | None = None,
                    edited: bool = False) -> dict[str, Any]:
    """decision, source, rule, edited, feedback, risk, reason: one decided call."""
    return {
        "decision": decision.outcome.value,
        "source": decision.source.value,
        "rule": decision.rule or (assessment.rule if assessment else None),
        "edited": edited,
        "feedback": decision.feedback,
        "risk": risk_name(assessment.risk) if assessment else None,
        "reason": assessment.reason if assessment else None,
    }


def call_fields(call: ToolCall) -> dict[str, Any]:
    """id, name and the arguments as the model sent them."""
    return {"id": call.id, "name": call.name, "arguments": call.wire_arguments}


def result_fields(result: ToolResult) -> dict[str, Any]:
    """is_error, exit_code (bash) and the first lines of the output."""
    match = _EXIT_CODE.search(result.content)
    return {"is_error": result.is_error,
            "exit_code": int(match.group(1)) if match else None,
            "excerpt": excerpt(result.content)}


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
            **decision_fields(event.decision, event.assessment, event.edited)}


def _call_finished(event: CallFinished) -> dict[str, Any]:
    return {"call": call_fields(event.call), "decision": event.decision.outcome.value,
            "duration_s": round(event.duration_s, 3), **result_fields(event.result)}


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
    UsageReported: lambda e: {**usage_fields(e.usage), "cost": cost_field(e.cost)},
    Compacted: lambda e: {"reason": e.reason, "summarized": e.summarized,
                          "before_tokens": e.before_tokens, "after_tokens": e.after_tokens,
                          "failure": e.failure or None},
    RetryNotice: lambda e: {"message": e.message, "attempt": e.attempt, "delay_s": e.delay_s},
    Notice: lambda e: {"text": e.text},
    ErrorOccurred: lambda e: {"message": e.message},
    TurnEnded: lambda e: {"text": e.text, "tool_calls": e.tool_calls},
    RunEnded: _run_ended,
}
