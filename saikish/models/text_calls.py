"""Tool calls an open-weight model wrote as text (docs/SPEC.md §10.5).

Qwen, Hermes and many fine-tunes call tools by writing
`<tool_call>{"name": ..., "arguments": {...}}</tool_call>` in their answer; a server
whose chat template does not parse them (llama.cpp without --jinja, some Ollama
models) passes them on as plain text. When enabled, these blocks are kept off the
screen while the answer streams and become tool calls, which go through the same
approval as any other call. A block that does not parse becomes an invalid call:
the model is told, nothing runs.
"""

from __future__ import annotations

import json
import re
import uuid
from dataclasses import replace
from typing import Any

from saikish.models.base import TextSink
from saikish.types import StopReason, ToolCall, Turn

OPEN, CLOSE = "<tool_call>", "</tool_call>"
_NAME = re.compile(r'"name"\s*:\s*"([^"]{1,200})"')


class TextCallFilter:
    """A text sink that passes the answer on without its <tool_call> blocks, and keeps them."""

    def __init__(self, sink: TextSink) -> None:
        self.sink = sink
        self.visible = ""
        self.blocks: list[str] = []
        self._pending = ""
        self._inside = False

    def __call__(self, piece: str) -> None:
        """Take the next piece of the streamed answer."""
        self._pending += piece
        while self._step():
            pass

    def _step(self) -> bool:
        """Move what can be decided out of the pending text; True when more may follow."""
        marker = CLOSE if self._inside else OPEN
        found = self._pending.find(marker)
        if found >= 0:
            head, self._pending = self._pending[:found], self._pending[found + len(marker):]
            if self._inside:
                self.blocks.append(head)
            else:
                self._show(head)
            self._inside = not self._inside
            return True
        if not self._inside:  # hold back only what could be the start of a marker
            keep = _prefix_overlap(self._pending, OPEN)
            self._show(self._pending[:len(self._pending) - keep])
            self._pending = self._pending[len(self._pending) - keep:]
        return False

    def finish(self) -> None:
        """The answer is complete: an unclosed block still counts; held-back text is shown."""
        if self._inside:
            self.blocks.append(self._pending)
        else:
            self._show(self._pending)
        self._pending, self._inside = "", False

    def _show(self, text: str) -> None:
        if text:
            self.visible += text
            self.sink(text)


def _prefix_overlap(text: str, marker: str) -> int:
    """The length of the longest end of `text` that begins `marker`."""
    for size in range(min(len(text), len(marker) - 1), 0, -1):
        if marker.startswith(text[-size:]):
            return size
    return 0


def with_text_calls(turn: Turn, found: TextCallFilter) -> Turn:
    """`turn` without its <tool_call> blocks, which become its calls when the server sent none."""
    turn = replace(turn, text=found.visible.strip() if found.blocks else turn.text)
    if not found.blocks or turn.tool_calls:
        return turn
    calls = tuple(parse_block(block) for block in found.blocks)
    return replace(turn, tool_calls=calls, stop=StopReason.TOOL_USE)


def parse_block(block: str) -> ToolCall:
    """One block's {"name", "arguments"} as a call; one that does not parse stays invalid."""
    call_id = f"call_{uuid.uuid4().hex[:16]}"
    data = _json(block.strip())
    if isinstance(data, dict) and isinstance(data.get("name"), str):
        arguments = data.get("arguments", data.get("parameters", {}))
        if isinstance(arguments, str):  # some models write the arguments as a JSON string
            arguments = _json(arguments) if arguments.strip() else {}
        if isinstance(arguments, dict):
            return ToolCall(call_id, data["name"], arguments)
    named = _NAME.search(block)
    return ToolCall(call_id, named.group(1) if named else "", {}, raw_arguments=block.strip())


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None
