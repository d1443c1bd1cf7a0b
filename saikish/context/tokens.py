"""Token estimates for a request, before the server counts it (docs/SPEC.md §10.3).

About four characters make a token in English prose and code; a ratio learned from
the server's own count of each request (ContextWindow.learn) corrects the rest.
Pure functions.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from saikish.models.base import Message, ToolResults, UserMessage
from saikish.tools.base import Tool

CHARS_PER_TOKEN = 4
PER_MESSAGE = 4  # role and framing tokens every message costs
PER_CALL = 12  # id, type and framing of one tool call or result


def text_tokens(text: str) -> int:
    """Estimated tokens of `text`."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def message_tokens(message: Message) -> int:
    """Estimated tokens of one message as the provider receives it."""
    if isinstance(message, UserMessage):
        return PER_MESSAGE + text_tokens(message.text)
    if isinstance(message, ToolResults):
        return PER_MESSAGE + sum(PER_CALL + text_tokens(r.content) for r in message.results)
    turn = message.turn
    calls = sum(PER_CALL + text_tokens(c.name) + text_tokens(
        c.raw_arguments if c.raw_arguments is not None else json.dumps(dict(c.arguments)))
        for c in turn.tool_calls)
    blocks = sum(text_tokens(json.dumps(dict(b))) for b in turn.provider_blocks)
    return PER_MESSAGE + text_tokens(turn.text) + calls + blocks


def messages_tokens(messages: Sequence[Message]) -> int:
    """Estimated tokens of `messages`."""
    return sum(message_tokens(m) for m in messages)


def fixed_tokens(system: str, tools: Sequence[Tool]) -> int:
    """Estimated tokens every request pays before its messages: system prompt and tools."""
    return text_tokens(system) + sum(text_tokens(json.dumps(t.wire_spec())) for t in tools)

