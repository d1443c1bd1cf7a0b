"""A session file back into a conversation the provider accepts (docs/SPEC.md §10.2).

Lines are read whole or skipped (a line torn by a crash, a type from a newer saikish);
compactions and clears are applied as they happened; and every tool call gets its
result: a call the crash left unanswered gets one saying it was interrupted.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from saikish.context.compaction import replace_result, summary_message
from saikish.cost import Spend
from saikish.errors import SaikishError
from saikish.models.base import AssistantMessage, Message, ToolResults
from saikish.sessions.records import message_of, result_of, spend_of
from saikish.types import ToolCall, ToolResult

INTERRUPTED = ("No result: saikish ended before this call finished, and the session was "
               "resumed later. The call may or may not have run: check before relying on it.")


class SessionError(SaikishError):
    """A session file that cannot be read."""

    exit_code = 1


@dataclass(frozen=True)
class Replay:
    """A session as read: its header, the conversation to send, and its model calls."""

    header: Mapping[str, Any]
    messages: tuple[Message, ...]
    spends: tuple[Spend, ...]
    repaired: int = 0  # calls that got an "interrupted" result


def read_records(path: Path) -> list[dict[str, Any]]:
    """Every whole JSON object line of `path`, in order."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SessionError(f"cannot read the session file {path}: "
                           f"{exc.strerror or exc}") from None
    return list(_objects(data.decode("utf-8", "replace").split("\n")))


def _objects(lines: Sequence[str]) -> Iterator[dict[str, Any]]:
    for line in lines:
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            continue  # torn by a crash: what it held is lost, nothing more
        if isinstance(value, dict):
            yield value


def replay(records: Sequence[Mapping[str, Any]]) -> Replay:
    """The conversation the records describe, made valid for the provider."""
    header: Mapping[str, Any] = {}
    messages: list[Message] = []
    spends: list[Spend] = []
    loose: list[ToolResult] = []  # results of a batch that never finished
    for record in records:
        kind = record.get("type")
        if kind == "session" and not header:
            header = record
        elif kind == "spend" and (spend := spend_of(record)) is not None:
            spends.append(spend)
        elif kind == "call_result" and (result := result_of(record)) is not None:
            loose.append(result)
        elif kind in ("compact", "clear"):
            messages = _compacted(messages, record) if kind == "compact" else []
            loose = []
        elif (message := message_of(record)) is not None:
            if loose and not isinstance(message, ToolResults):
                messages.append(ToolResults(tuple(loose)))
            loose = []
            messages.append(message)
    if loose:
        messages.append(ToolResults(tuple(loose)))
    repaired, count = repair(messages)
    return Replay(header, tuple(repaired), tuple(spends), count)


def _compacted(messages: list[Message], record: Mapping[str, Any]) -> list[Message]:
    kept_count = record.get("kept")
    kept = messages[-kept_count:] if isinstance(kept_count, int) and kept_count > 0 else []
    shortened = record.get("shortened")
    for call_id, content in (shortened.items() if isinstance(shortened, dict) else ()):
        kept = [replace_result(m, str(call_id), str(content)) for m in kept]
    return [summary_message(str(record.get("summary") or "")), *kept]


def repair(messages: Sequence[Message]) -> tuple[list[Message], int]:
    """Every call answered, in order, by the message after its turn; results that answer
    no call dropped. Returns the messages and how many calls were answered here."""
    out: list[Message] = []
    pending: tuple[ToolCall, ...] = ()
    added = 0
    for message in messages:
        if isinstance(message, ToolResults):
            if pending:
                results, missing = _answer(pending, message.results)
                out.append(results)
                added += missing
            pending = ()
            continue
        if pending:
            results, missing = _answer(pending, ())
            out.append(results)
            added += missing
        out.append(message)
        pending = message.turn.tool_calls if isinstance(message, AssistantMessage) else ()
    if pending:
        results, missing = _answer(pending, ())
        out.append(results)
        added += missing
    return out, added


def _answer(calls: Sequence[ToolCall],
            given: Sequence[ToolResult]) -> tuple[ToolResults, int]:
    by_id = {r.call_id: r for r in given}
    results = tuple(by_id.get(c.id) or ToolResult(c.id, c.name, INTERRUPTED, True)
                    for c in calls)
    return ToolResults(results), sum(1 for c in calls if c.id not in by_id)
