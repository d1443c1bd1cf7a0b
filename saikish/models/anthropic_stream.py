"""Assemble an Anthropic Messages stream from raw events (tests/fixtures/wire/README.md, 5)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from saikish.types import StopReason, ToolCall

USAGE_KEYS = ("input_tokens", "output_tokens", "cache_creation_input_tokens",
              "cache_read_input_tokens")


@dataclass
class _Block:
    type: str
    data: dict[str, Any]
    partial_json: str = ""
    closed: bool = False


@dataclass
class AnthropicAssembler:
    """Feed raw event dicts in order; read the assembled answer at the end."""

    stop_reason: str | None = None
    usage: dict[str, Any] | None = None
    error: Mapping[str, Any] | None = None
    _blocks: dict[int, _Block] = field(default_factory=dict)

    def feed(self, event: Mapping[str, Any]) -> str:
        """Take one event; returns the answer text it adds."""
        kind = event.get("type")
        if kind == "message_start":
            self._usage((event.get("message") or {}).get("usage"))
        elif kind == "content_block_start":
            block = dict(event.get("content_block") or {})
            self._blocks[int(event.get("index", len(self._blocks)))] = _Block(
                str(block.get("type")), block)
            if block.get("type") == "text" and block.get("text"):
                return str(block["text"])
        elif kind == "content_block_delta":
            return self._delta(int(event.get("index", 0)), event.get("delta") or {})
        elif kind == "content_block_stop":
            stopped = self._blocks.get(int(event.get("index", 0)))
            if stopped is not None:
                stopped.closed = True
        elif kind == "message_delta":
            reason = (event.get("delta") or {}).get("stop_reason")
            self.stop_reason = reason or self.stop_reason
            self._usage(event.get("usage"))
        elif kind == "error":
            self.error = event.get("error") or {"type": "error", "message": "stream error"}
        return ""  # ping and unknown events are ignored

    def _delta(self, index: int, delta: Mapping[str, Any]) -> str:
        block = self._blocks.setdefault(index, _Block("text", {"type": "text", "text": ""}))
        kind = delta.get("type")
        if kind == "text_delta":
            text = str(delta.get("text", ""))
            block.data["text"] = block.data.get("text", "") + text
            return text
        if kind == "input_json_delta":
            block.partial_json += str(delta.get("partial_json", ""))
        elif kind == "thinking_delta":
            block.data["thinking"] = block.data.get("thinking", "") + str(delta.get("thinking"))
        elif kind == "signature_delta":
            block.data["signature"] = block.data.get("signature", "") + str(delta.get("signature"))
        return ""

    def _usage(self, usage: Any) -> None:
        if not isinstance(usage, Mapping):
            return
        merged = dict(self.usage or {})
        for key in USAGE_KEYS:
            if isinstance(usage.get(key), int):  # cumulative: the latest replaces, never adds
                merged[key] = usage[key]
        self.usage = merged or self.usage

    @property
    def text(self) -> str:
        """The answer text of every text block, in order."""
        return "".join(str(b.data.get("text", "")) for _, b in sorted(self._blocks.items())
                       if b.type == "text")

    def thinking(self) -> list[dict[str, Any]]:
        """Thinking blocks (with their signatures), to be sent back unchanged."""
        return [dict(b.data) for _, b in sorted(self._blocks.items())
                if b.type in ("thinking", "redacted_thinking")]

    def tool_calls(self) -> tuple[list[ToolCall], list[ToolCall]]:
        """(complete calls, incomplete calls): an unclosed block or bad JSON never runs."""
        complete, incomplete = [], []
        for _, block in sorted(self._blocks.items()):
            if block.type != "tool_use":
                continue
            call_id, name = str(block.data.get("id") or ""), str(block.data.get("name") or "")
            parsed = _parse(block.partial_json)
            if block.closed and parsed is not None and call_id and name:
                complete.append(ToolCall(call_id, name, parsed))
            else:
                incomplete.append(ToolCall(call_id, name, {}, raw_arguments=block.partial_json))
        return complete, incomplete

    def effective_stop(self) -> StopReason:
        """What the loop acts on."""
        if self.error is not None:
            return StopReason.ERROR
        complete, _ = self.tool_calls()
        if self.stop_reason in ("max_tokens", "model_context_window_exceeded"):
            return StopReason.MAX_TOKENS
        return StopReason.TOOL_USE if complete else StopReason.END_TURN


def _parse(text: str) -> dict[str, Any] | None:
    if not text.strip():
        return {}  # the only partial_json was "": no arguments
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
