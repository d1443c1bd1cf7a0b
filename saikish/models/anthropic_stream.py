"""Assemble an Anthropic Messages stream from raw events (tests/fixtures/wire/README.md, 5)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from saikish.models.base import TextSink
from saikish.models.http_errors import HttpProblem
from saikish.models.sse import BadStream, Event, json_object
from saikish.types import StopReason, ToolCall, Usage

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
    """Feed raw event dicts in order; read the assembled answer at the end.

    Any JSON object is accepted: fields of the wrong type are ignored, never raised on.
    """

    stop_reason: str | None = None
    usage: dict[str, Any] | None = None
    error: Mapping[str, Any] | None = None
    done: bool = False  # message_stop arrived
    generated: int = 0  # content blocks and deltas: what the model generated (no pings)
    _blocks: dict[int, _Block] = field(default_factory=dict)

    def feed(self, event: Mapping[str, Any]) -> str:
        """Take one event; returns the answer text it adds."""
        kind = event.get("type")
        if kind == "message_start":
            self._usage(_map(event.get("message")).get("usage"))
        elif kind == "content_block_start":
            self.generated += 1
            return self._start(_index(event.get("index"), len(self._blocks)),
                               dict(_map(event.get("content_block"))))
        elif kind == "content_block_delta":
            self.generated += 1
            return self._delta(_index(event.get("index"), 0), _map(event.get("delta")))
        elif kind == "content_block_stop":
            stopped = self._blocks.get(_index(event.get("index"), 0))
            if stopped is not None:
                stopped.closed = True
        elif kind == "message_delta":
            reason = _map(event.get("delta")).get("stop_reason")
            self.stop_reason = reason if isinstance(reason, str) and reason else self.stop_reason
            self._usage(event.get("usage"))
        elif kind == "message_stop":
            self.done = True
        elif kind == "error":
            error = event.get("error")
            self.error = error if isinstance(error, Mapping) else {
                "type": "error", "message": str(error or "stream error")}
        return ""  # ping and unknown events are ignored

    def _start(self, index: int, block: dict[str, Any]) -> str:
        kind = block.get("type")
        if kind == "text" and not isinstance(block.get("text"), str):
            block["text"] = ""
        self._blocks[index] = _Block(kind if isinstance(kind, str) else "unknown", block)
        return str(block["text"]) if kind == "text" else ""

    def _delta(self, index: int, delta: Mapping[str, Any]) -> str:
        block = self._blocks.setdefault(index, _Block("text", {"type": "text", "text": ""}))
        kind = delta.get("type")
        if kind == "text_delta":
            text = _text(delta.get("text"))
            if block.type == "text":
                _append(block.data, "text", text)
                return text
        elif kind == "input_json_delta":
            block.partial_json += _text(delta.get("partial_json"))
        elif kind in ("thinking_delta", "signature_delta"):
            key = kind.removesuffix("_delta")
            _append(block.data, key, _text(delta.get(key)))
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

    @property
    def ended(self) -> bool:
        """True when the answer is known to be whole: message_stop or a stop reason."""
        return self.done or self.stop_reason is not None or self.error is not None

    def usage_counts(self) -> Usage:
        """Every prompt token (Anthropic counts cache reads and writes apart), and output."""
        usage = self.usage or {}
        written, read = (int(usage.get(key) or 0) for key in USAGE_KEYS[2:])
        return Usage(int(usage.get("input_tokens") or 0) + read + written,
                     int(usage.get("output_tokens") or 0), read, written)


def consume(assembler: AnthropicAssembler, stream: Iterable[Event], on_text: TextSink,
            on_event: Callable[[int], None] = lambda generated: None) -> None:
    """Feed every event of `stream`, streaming text to `on_text`, up to message_stop or an
    error; `on_event` hears how many generated pieces have arrived after each event."""
    for event in stream:
        data = json_object(event.data)
        if data is None:
            continue  # keep-alive noise, or JSON that is not an object
        if event.name == "error" and data.get("type") != "error":
            data = {"type": "error", "error": data.get("error", data)}
        piece = assembler.feed(data)
        on_event(assembler.generated)
        if piece:
            on_text(piece)
        if assembler.done or assembler.error is not None:
            return


def feed_whole(assembler: AnthropicAssembler, data: Any, on_text: TextSink) -> None:
    """A non-streamed Message (a server that ignored stream: true), as the events it stands for."""
    if not isinstance(data, Mapping) or data.get("type") not in ("message", "error"):
        raise BadStream(HttpProblem("bad_stream", False,
                                    "the server answered with JSON that is not a message"))
    if data.get("type") == "error":
        assembler.feed(data)
        return
    assembler.feed({"type": "message_start", "message": {"usage": data.get("usage")}})
    content = data.get("content")
    for index, block in enumerate(content if isinstance(content, list) else []):
        block = dict(_map(block))
        arguments = block.pop("input", None) if block.get("type") == "tool_use" else None
        text = assembler.feed({"type": "content_block_start", "index": index,
                               "content_block": block})
        if text:
            on_text(text)
        if arguments is not None:
            assembler.feed({"type": "content_block_delta", "index": index, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(arguments)}})
        assembler.feed({"type": "content_block_stop", "index": index})
    assembler.feed({"type": "message_delta", "delta": {"stop_reason": data.get("stop_reason")},
                    "usage": data.get("usage")})
    assembler.feed({"type": "message_stop"})


def _parse(text: str) -> dict[str, Any] | None:
    if not text.strip():
        return {}  # the only partial_json was "": no arguments
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _index(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _append(data: dict[str, Any], key: str, piece: str) -> None:
    old = data.get(key)
    data[key] = (old if isinstance(old, str) else "") + piece
