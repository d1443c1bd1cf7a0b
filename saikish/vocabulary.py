"""One JSON vocabulary (docs/events.md): decisions, sources, risks, exit reasons, events.

The audit log, `check --json`, `--output-format json` and `stream-json` all
spell a decision through these functions, so a reader learns the words once.
"""

from __future__ import annotations

import re
from typing import Any

from saikish.events import (
    CallDecided,
    CallFinished,
    CallProposed,
    CallStarted,
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
    """input_tokens, output_tokens."""
    return {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens}


def event_json(event: Event) -> dict[str, Any]:
    """One `stream-json` line: {"type": ..., ...fields}."""
    return {"type": event.kind, **_event_fields(event)}


def _event_fields(event: Event) -> dict[str, Any]:  # noqa: PLR0911 - one case per type
    if isinstance(event, TurnStarted):
        return {"number": event.number}
    if isinstance(event, TextDelta):
        return {"text": event.text}
    if isinstance(event, CallProposed):
        return {"call": call_fields(event.call), "index": event.index,
                "batch_size": event.batch_size}
    if isinstance(event, CallDecided):
        return {"call": call_fields(event.call),
                **decision_fields(event.decision, event.assessment, event.edited)}
    if isinstance(event, CallStarted):
        return {"call": call_fields(event.call)}
    if isinstance(event, CallFinished):
        return {"call": call_fields(event.call), "decision": event.decision.outcome.value,
                "duration_s": round(event.duration_s, 3), **result_fields(event.result)}
    if isinstance(event, UsageReported):
        return usage_fields(event.usage)
    if isinstance(event, RetryNotice):
        return {"message": event.message, "attempt": event.attempt, "delay_s": event.delay_s}
    if isinstance(event, Notice):
        return {"text": event.text}
    if isinstance(event, ErrorOccurred):
        return {"message": event.message}
    if isinstance(event, TurnEnded):
        return {"text": event.text, "tool_calls": event.tool_calls}
    if isinstance(event, RunEnded):
        return {"result": event.text, "exit_reason": event.exit_reason,
                "message": event.message or None, "usage": usage_fields(event.usage)}
    raise TypeError(f"not an event: {event!r}")  # pragma: no cover - Event is a closed union
