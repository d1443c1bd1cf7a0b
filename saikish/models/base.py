"""The Model protocol and the provider-neutral conversation it is given."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from saikish.tools.base import Tool
from saikish.types import ToolResult, Turn


@dataclass(frozen=True)
class UserMessage:
    """What the person wrote."""

    text: str


@dataclass(frozen=True)
class AssistantMessage:
    """One model turn, kept whole so providers can send it back unchanged."""

    turn: Turn


@dataclass(frozen=True)
class ToolResults:
    """The results of one batch: exactly one per tool call id of the turn before."""

    results: tuple[ToolResult, ...]


Message = UserMessage | AssistantMessage | ToolResults
TextSink = Callable[[str], None]


class Model(Protocol):
    """Something that answers a conversation with text and tool calls."""

    name: str

    def complete(self, system: str, messages: Sequence[Message], tools: Sequence[Tool],
                 on_text: TextSink) -> Turn:
        """One model call; text is streamed to `on_text` as it arrives."""
        ...
