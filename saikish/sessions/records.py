"""Messages as the JSON lines of a session file, and back (docs/SPEC.md §10.2). Pure.

Every line is an object with a `type`: `session` (the header), `user`, `assistant`,
`results` (a batch's), `decision` and `call_result` (one call's, as it happens),
`spend` (the tokens and cost of one model call), `compact` (older turns replaced by
a summary) and `clear`. A reader skips types it does not know.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from saikish.cost import Spend
from saikish.events import CallDecided
from saikish.models.base import AssistantMessage, Message, ToolResults, UserMessage
from saikish.store.audit import head_only, redact
from saikish.types import StopReason, ToolCall, ToolResult, Turn, Usage
from saikish.vocabulary import decision_fields

VERSION = 1
RECOVERED_CHARS = 4000  # of a result kept on its own before its batch is done
USAGE_KEYS = ("input_tokens", "output_tokens", "cached_tokens", "cache_write_tokens")


def message_record(message: Message) -> dict[str, Any]:
    """One message as a line's object."""
    if isinstance(message, UserMessage):
        return {"type": "user", "text": message.text}
    if isinstance(message, ToolResults):
        return {"type": "results", "results": [
            {"id": r.call_id, "name": r.name, "content": r.content, "error": r.is_error}
            for r in message.results]}
    turn = message.turn
    return {"type": "assistant", "text": turn.text, "calls": [_call(c) for c in turn.tool_calls],
            "stop": turn.stop.value, "reasoning": turn.reasoning,
            "blocks": [dict(b) for b in turn.provider_blocks]}


def _call(call: ToolCall) -> dict[str, Any]:
    out: dict[str, Any] = {"id": call.id, "name": call.name, "arguments": dict(call.arguments)}
    if call.raw_arguments is not None:
        out["raw_arguments"] = call.raw_arguments
    if call.extra:
        out["extra"] = dict(call.extra)
    return out


def redacted(record: Mapping[str, Any]) -> dict[str, Any]:
    """`record` with secrets redacted and long strings cut, as the audit log does
    (docs/SPEC.md §4.6); a thinking block whose text changed is dropped, since its
    signature would no longer match."""
    out: dict[str, Any] = redact(head_only(dict(record)))
    if out.get("blocks") and out["blocks"] != record.get("blocks"):
        out["blocks"] = [b for b, was in zip(out["blocks"], record["blocks"], strict=True)
                         if b == was]
    return out


def decision_record(event: CallDecided) -> dict[str, Any]:
    """A decided call, for /transcript (replay skips it)."""
    return {"type": "decision", "call": {"id": event.call.id, "name": event.call.name,
                                         "arguments": event.call.wire_arguments},
            **decision_fields(event.decision, event.assessment, event.edited)}


def call_result_record(result: ToolResult) -> dict[str, Any]:
    """One call's result as it finished, kept in case saikish ends before its batch does;
    its head only (the batch's `results` line holds it whole)."""
    content = result.content
    if len(content) > RECOVERED_CHARS:
        content = (content[:RECOVERED_CHARS] + f"\n[saikish: {len(content) - RECOVERED_CHARS} "
                   f"more characters were not kept]")
    return {"type": "call_result", "id": result.call_id, "name": result.name,
            "content": content, "error": result.is_error}


def result_of(record: Mapping[str, Any]) -> ToolResult | None:
    """The result a `call_result` line holds."""
    try:
        return ToolResult(str(record["id"]), str(record["name"]), str(record["content"]),
                          bool(record.get("error")))
    except (KeyError, TypeError):
        return None


def spend_record(spend: Spend) -> dict[str, Any]:
    """One model call's tokens and cost."""
    return {"type": "spend", "model": spend.model, "usage": usage_record(spend.usage),
            "cost": spend.cost}


def usage_record(usage: Usage) -> dict[str, int]:
    """A Usage as JSON."""
    return {key: getattr(usage, key) for key in USAGE_KEYS}


def message_of(record: Mapping[str, Any]) -> Message | None:
    """The message a line holds; None for other lines and for lines that do not parse."""
    try:
        kind = record.get("type")
        if kind == "user":
            return UserMessage(str(record["text"]))
        if kind == "results":
            return ToolResults(tuple(ToolResult(str(r["id"]), str(r["name"]), str(r["content"]),
                                                bool(r.get("error"))) for r in record["results"]))
        if kind == "assistant":
            return AssistantMessage(_turn(record))
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return None


def _turn(record: Mapping[str, Any]) -> Turn:
    calls = tuple(ToolCall(str(c["id"]), str(c["name"]), dict(c.get("arguments") or {}),
                           raw_arguments=c.get("raw_arguments"), extra=dict(c.get("extra") or {}))
                  for c in record.get("calls") or ())
    reasoning = record.get("reasoning")
    return Turn(text=str(record.get("text") or ""), tool_calls=calls,
                stop=StopReason(record.get("stop") or "end_turn"),
                provider_blocks=tuple(dict(b) for b in record.get("blocks") or ()),
                reasoning=reasoning if isinstance(reasoning, str) else None)


def spend_of(record: Mapping[str, Any]) -> Spend | None:
    """The model call a `spend` line records; None when it does not parse."""
    try:
        usage = Usage(**{k: int(record["usage"].get(k) or 0) for k in USAGE_KEYS})
        cost = record.get("cost")
        return Spend(str(record["model"]), usage,
                     float(cost) if isinstance(cost, (int, float)) else None)
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
