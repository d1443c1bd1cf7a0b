"""The conversation the model is given, kept in step with its session file (docs/SPEC.md
§10.2): every message is written as it is added, and so is every compaction."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from saikish.context.compaction import summary_message
from saikish.models.base import Message
from saikish.sessions.log import SessionLog
from saikish.sessions.records import message_record


class Conversation:
    """The messages of one session, and the log they are written to (None: not stored)."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.log: SessionLog | None = None

    def add(self, message: Message) -> None:
        """Append a message, and write it down at once."""
        self.messages.append(message)
        self.write(message_record(message))

    def write(self, record: Mapping[str, Any]) -> None:
        """Write one record to the session file, if there is one."""
        if self.log is not None:
            self.log.append(record)

    def compact(self, summary: str, kept: Sequence[Message], shortened: Mapping[str, str],
                focus: str = "") -> None:
        """Older turns replaced by `summary`; `kept` (with results `shortened`) stays."""
        self.messages = [summary_message(summary), *kept]
        self.write({"type": "compact", "summary": summary, "kept": len(kept),
                    "shortened": dict(shortened), "focus": focus})

    def load(self, messages: Sequence[Message]) -> None:
        """Start from a resumed conversation (already in the file: nothing is written)."""
        self.messages = list(messages)
