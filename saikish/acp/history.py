"""A stored conversation told again to the editor (ACP `session/load`, docs/SPEC.md §7.4):
each message as the `session/update` it was when it happened."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from saikish.models.base import AssistantMessage, Message, ToolResults, UserMessage
from saikish.tools.base import Tool


def history_updates(messages: Sequence[Message],
                    tools: Mapping[str, Tool]) -> Iterator[dict[str, Any]]:
    """The updates that replay `messages`: prompts, answers, calls and their results (each
    call with its tool's ACP kind; a tool no longer offered is "other")."""
    for message in messages:
        if isinstance(message, UserMessage):
            yield {"sessionUpdate": "user_message_chunk", "content": text_block(message.text)}
        elif isinstance(message, AssistantMessage):
            if message.turn.text:
                yield {"sessionUpdate": "agent_message_chunk",
                       "content": text_block(message.turn.text)}
            for call in message.turn.tool_calls:
                yield {"sessionUpdate": "tool_call", "toolCallId": call.id, "title": call.name,
                       "kind": tools[call.name].kind if call.name in tools else "other",
                       "status": "pending",
                       "rawInput": call.wire_arguments}
        elif isinstance(message, ToolResults):
            for result in message.results:
                yield {"sessionUpdate": "tool_call_update", "toolCallId": result.call_id,
                       "status": "failed" if result.is_error else "completed",
                       "content": [tool_text(result.content)]}


def text_block(text: str) -> dict[str, Any]:
    """ACP's text content block."""
    return {"type": "text", "text": text}


def tool_text(text: str) -> dict[str, Any]:
    """ACP's tool call content holding text."""
    return {"type": "content", "content": text_block(text)}
