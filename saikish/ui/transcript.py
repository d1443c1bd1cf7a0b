"""A whole session as the person reads it (docs/SPEC.md §10.2): for /transcript (in a pager)
and `saikish sessions show`. Prompts, answers, every call with who decided it and its
result, compactions and costs, all from the session file's records, shown inert."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from rich.text import Text

from saikish.cost import dollars
from saikish.inert import inert

RESULT_LINES = 200  # of one result; the rest is counted
Record = Mapping[str, Any]


def transcript(records: Sequence[Record]) -> list[Text]:
    """Lines for the whole session, in order."""
    lines: list[Text] = []
    calls: list[Record] = []  # of the last answer, waiting for their results
    decisions: dict[str, Record] = {}
    loose: dict[str, Record] = {}  # results recorded one by one (a batch cut short)
    for record in records:
        kind = record.get("type")
        if kind == "decision":
            decisions[str(_map(record.get("call")).get("id"))] = record
        elif kind == "call_result":
            loose[str(record.get("id"))] = record
        elif kind == "results":
            lines += _batch(calls, decisions, {str(r.get("id")): r
                                               for r in _list(record.get("results"))})
            calls, decisions, loose = [], {}, {}
        elif kind in ("session", "user", "assistant", "compact", "clear", "spend"):
            if calls and kind != "spend":
                lines += _batch(calls, decisions, loose)
                calls, decisions, loose = [], {}, {}
            lines += list(_record(record))
            if kind == "assistant":
                calls = [c for c in _list(record.get("calls")) if isinstance(c, Mapping)]
    if calls:
        lines += _batch(calls, decisions, loose)
    return lines


def _record(record: Record) -> Iterator[Text]:
    kind = record.get("type")
    if kind == "session":
        yield Text(inert(f"session {record.get('id')} · {record.get('workspace')} · "
                         f"{record.get('model')} · started {record.get('created', '?')}"),
                   style="dim")
    elif kind == "user":
        yield Text("")
        yield Text("› " + inert(str(record.get("text", ""))), style="bold")
    elif kind == "assistant" and record.get("text"):
        yield Text(inert(str(record["text"])))
    elif kind == "compact":
        yield Text(f"── {record.get('kept', 0)} recent messages kept; the older turns "
                   f"were compacted into this summary ──", style="cyan")
        yield Text(inert(str(record.get("summary", ""))), style="cyan")
    elif kind == "clear":
        yield Text("── the conversation was cleared ──", style="cyan")
    elif kind == "spend":
        usage = _map(record.get("usage"))
        cached = usage.get("cached_tokens") or 0
        cost = record.get("cost")
        yield Text(f"  ↑ {usage.get('input_tokens', 0):,}"
                   + (f" ({cached:,} cached)" if cached else "")
                   + f" ↓ {usage.get('output_tokens', 0):,} tokens"
                   + (f" · {dollars(cost)}" if isinstance(cost, (int, float)) else ""),
                   style="dim")


def _batch(calls: Sequence[Record], decisions: Mapping[str, Record],
           results: Mapping[str, Record]) -> list[Text]:
    lines = []
    for call in calls:
        call_id = str(call.get("id"))
        lines.append(Text.assemble(("  ⏺ ", "bold"), (inert(str(call.get("name"))), "bold"),
                                   " ", inert(_arguments(call))))
        decided = decisions.get(call_id)
        if decided is not None:
            lines.append(_decision(decided))
        result = results.get(call_id)
        lines += _result(result) if result is not None else \
            [Text("    (no result: saikish ended while it ran)", style="yellow")]
    return lines


def _decision(record: Record) -> Text:
    decision = str(record.get("decision"))
    approved = decision == "approved"
    words = [decision.replace("_", " "), f"by {record.get('source')}"]
    if record.get("rule"):
        words.append(f"rule {record['rule']}")
    if record.get("edited"):
        words.append("edited")
    if record.get("feedback"):
        words.append(f"feedback: {record['feedback']}")
    return Text(("    ✓ " if approved else "    ✗ ") + inert(" · ".join(words)),
                style="green" if approved else "red")


def _result(record: Record) -> list[Text]:
    text = inert(str(record.get("content", "")))
    rows = text.splitlines() or [""]
    style = "red" if record.get("error") else "dim"
    lines = [Text("    │ " + row, style=style) for row in rows[:RESULT_LINES]]
    if len(rows) > RESULT_LINES:
        lines.append(Text(f"    … {len(rows) - RESULT_LINES} more lines", style="dim"))
    return lines


def _arguments(call: Record) -> str:
    raw = call.get("raw_arguments")
    arguments = raw if isinstance(raw, str) else call.get("arguments")
    if isinstance(arguments, Mapping) and set(arguments) == {"command"}:
        return str(arguments["command"])
    return arguments if isinstance(arguments, str) else json.dumps(arguments,
                                                                   ensure_ascii=False)


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
