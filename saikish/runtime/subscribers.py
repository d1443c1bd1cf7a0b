"""Subscribers of the event stream (docs/events.md): the audit log and the JSON outputs.

The terminal transcript is ui/render.ConsoleReporter; it is the only
subscriber that prints decision lines.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, TextIO

from saikish.events import (
    CallDecided,
    CallFinished,
    CallProposed,
    Event,
    FilesChanged,
    Notice,
    RunEnded,
    Subscriber,
)
from saikish.store.audit import AuditLog
from saikish.types import Decision, Outcome
from saikish.vocabulary import (
    ERROR,
    call_fields,
    cost_field,
    decision_fields,
    event_json,
    files_fields,
    result_fields,
    usage_fields,
    view_fields,
)


def audit_subscriber(log: AuditLog) -> Subscriber:
    """Appends every decided call to the audit log (docs/SPEC.md §4.6), and what a call
    nobody approved changed (§4.10)."""

    def record(event: Event) -> None:
        if isinstance(event, CallDecided):
            log.record(event.call, event.decision, event.assessment, edited=event.edited)
        elif isinstance(event, FilesChanged):
            log.files_changed(event.call, files_fields(event))

    return record


@dataclass
class StreamJson:
    """`--output-format stream-json`: every event as one JSON line, flushed at once."""

    stream: TextIO

    def __call__(self, event: Event) -> None:
        """Write `event` as a line."""
        self.stream.write(json.dumps(event_json(event), ensure_ascii=False) + "\n")
        self.stream.flush()


@dataclass
class JsonResult:
    """Collects one run for `--output-format json` (docs/SPEC.md §8, docs/events.md)."""

    calls: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    end: RunEnded | None = None

    def __call__(self, event: Event) -> None:
        """Fold `event` into the result."""
        if isinstance(event, CallProposed):
            self.calls.append({**call_fields(event.call), **_undecided()})
        elif isinstance(event, CallDecided):
            self._update(event.call.id, {
                **decision_fields(event.decision, event.assessment, event.edited),
                "final_arguments": event.call.wire_arguments if event.edited else None,
                "view": view_fields(event.view)})
        elif isinstance(event, CallFinished):
            self._update(event.call.id, self._finished(event))
        elif isinstance(event, FilesChanged):
            self._update(event.call.id, {"files_changed": files_fields(event)})
        elif isinstance(event, Notice) and event.warning:
            self.warnings.append(event.text)
        elif isinstance(event, RunEnded):
            self.end = event

    def _finished(self, event: CallFinished) -> dict[str, Any]:
        fields: dict[str, Any] = {"duration_s": round(event.duration_s, 3)}
        if event.decision.outcome is Outcome.NOT_RUN:
            fields.update(decision_fields(event.decision))
        elif event.decision.outcome is Outcome.REJECTED_HARD:
            # Stopped while it ran (Ctrl-C kills the command): the end holds; what the
            # decision said about it (reason, risk) stays.
            fields.update({k: v for k, v in decision_fields(event.decision).items()
                           if v is not None})
        fields["result"] = result_fields(event.result) if event.decision.approved else None
        return fields

    def _update(self, call_id: str, fields: dict[str, Any]) -> None:
        for call in reversed(self.calls):  # the latest call with this id (ids may repeat)
            if call["id"] == call_id:
                call.update(fields)
                return

    def json(self) -> dict[str, Any]:
        """The object printed at the end of the run."""
        end = self.end or RunEnded("", ERROR, "the run ended without a result")
        data: dict[str, Any] = {"result": end.text, "exit_reason": end.exit_reason,
                                "calls": self.calls, "usage": usage_fields(end.usage),
                                "cost": cost_field(end.cost), "warnings": list(self.warnings)}
        if end.exit_reason == ERROR:
            data["error"] = end.message
        return data


def _undecided() -> dict[str, Any]:
    return {**decision_fields(Decision.not_run("never reached")), "final_arguments": None,
            "view": None, "result": None, "duration_s": 0.0}
