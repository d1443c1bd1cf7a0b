"""Assemble an OpenAI-compatible chat completion stream from its raw chunks.

The SDK's own stream helpers assume OpenAI's exact format; real servers
differ (Ollama, vLLM, llama.cpp, TGI, gateways), so tool calls are merged
here from raw chunk dicts, following tests/fixtures/wire's client contract.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from saikish.models.base import TextSink
from saikish.models.http_errors import HttpProblem
from saikish.models.sse import BadStream, Event, json_object
from saikish.types import StopReason, ToolCall, Usage

# Delta fields that hold what the model generated (a role alone is no token).
GENERATED = ("content", "reasoning_content", "reasoning", "refusal", "tool_calls")


@dataclass
class _Call:
    order: tuple[int, int] = (0, 0)  # (index, arrival): calls come out in index order
    id: str = ""
    name: str = ""
    arguments: str = ""
    object_arguments: Mapping[str, Any] | None = None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class OpenAIAssembler:
    """Feed raw chunk dicts in order; read the assembled answer at the end.

    Any JSON object is accepted: fields of the wrong type are ignored, never raised on.
    """

    text: str = ""
    reasoning: str | None = None
    refusal: str | None = None
    finish_reason: str | None = None
    usage: Mapping[str, Any] | None = None
    error: Mapping[str, Any] | None = None
    done: bool = False  # the stream's end marker ([DONE]) arrived
    generated: int = 0  # deltas that carried generated content (text, reasoning, calls)
    _calls: list[_Call] = field(default_factory=list)
    _by_index: dict[int, _Call] = field(default_factory=dict)

    def feed(self, chunk: Mapping[str, Any]) -> str:
        """Take one chunk; returns the answer text it adds (for streaming to the screen)."""
        if chunk.get("object") == "error" or chunk.get("error"):  # old vLLM / in-stream errors
            error = chunk.get("error")
            self.error = error if isinstance(error, Mapping) else chunk
            return ""
        if isinstance(chunk.get("usage"), Mapping):
            self.usage = chunk["usage"]
        added = []
        # With n=1 every choice is ours, whatever index a server gives it (TGI).
        for choice in _list(chunk.get("choices")):
            if isinstance(choice, Mapping):
                added.append(self._choice(choice))
        return "".join(added)

    def _choice(self, choice: Mapping[str, Any]) -> str:
        reason = choice.get("finish_reason")
        if reason and isinstance(reason, str):  # sglang sends "" on every chunk
            self.finish_reason = reason
        delta = _map(choice.get("delta")) or _map(choice.get("message"))
        if any(delta.get(key) for key in GENERATED):
            self.generated += 1
        for key in ("reasoning_content", "reasoning"):
            if isinstance(delta.get(key), str) and delta[key]:
                self.reasoning = (self.reasoning or "") + delta[key]
        if isinstance(delta.get("refusal"), str) and delta["refusal"]:
            self.refusal = (self.refusal or "") + delta["refusal"]
        calls = delta.get("tool_calls")
        if isinstance(calls, Mapping):  # TGI 2.x sends one object, not a list
            calls = [calls]
        for fragment in _list(calls):
            if isinstance(fragment, Mapping):
                self._merge(fragment)
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.text += content
            return content
        return ""

    def _merge(self, fragment: Mapping[str, Any]) -> None:
        index = fragment.get("index")
        index = index if isinstance(index, int) and not isinstance(index, bool) else None
        fid = fragment.get("id") if isinstance(fragment.get("id"), str) else ""
        call = self._by_index.get(index) if isinstance(index, int) else (
            self._calls[-1] if self._calls else None)
        if call is None or (fid and call.id and fid != call.id):
            # A new index, or an index reused with a new id (Ollama); no index sorts last.
            position = index if isinstance(index, int) else 1 << 30
            call = _Call(order=(position, len(self._calls)))
            self._calls.append(call)
            if isinstance(index, int):
                self._by_index[index] = call
        if fid and not call.id:
            call.id = fid
        function = _map(fragment.get("function"))
        name = function.get("name")
        # Later fragments may repeat the name, or send null.
        if name and isinstance(name, str) and not call.name:
            call.name = name
        arguments = function.get("arguments")
        if isinstance(arguments, Mapping):
            call.object_arguments = arguments
        elif isinstance(arguments, str):
            call.arguments += arguments
        for field_name, value in fragment.items():
            if field_name not in ("index", "id", "type", "function"):
                call.extra[field_name] = value  # e.g. Gemini's extra_content: sent back unchanged

    def tool_calls(self) -> tuple[list[ToolCall], list[ToolCall]]:
        """(complete calls, incomplete calls): JSON that does not parse is never run."""
        complete, incomplete = [], []
        for call in sorted(self._calls, key=lambda c: c.order):
            call_id = call.id or f"call_{uuid.uuid4().hex[:16]}"
            if call.object_arguments is not None and call.name:
                complete.append(ToolCall(call_id, call.name, dict(call.object_arguments),
                                         extra=call.extra))
                continue
            parsed = _parse_arguments(call.arguments)
            if parsed is None or not call.name:
                incomplete.append(ToolCall(call_id, call.name, {}, raw_arguments=call.arguments,
                                           extra=call.extra))
            else:
                complete.append(ToolCall(call_id, call.name, parsed, extra=call.extra))
        return complete, incomplete

    def effective_stop(self) -> StopReason:
        """What the loop acts on: errors, truncation, then tool calls over finish_reason."""
        if self.error is not None:
            return StopReason.ERROR
        complete, incomplete = self.tool_calls()
        if self.finish_reason in ("length", "max_tokens") or (incomplete and not complete):
            return StopReason.MAX_TOKENS
        return StopReason.TOOL_USE if complete else StopReason.END_TURN


    @property
    def ended(self) -> bool:
        """True when the answer is known to be whole: an end marker or a finish reason."""
        return self.done or self.finish_reason is not None or self.error is not None

    def usage_counts(self) -> Usage:
        """Prompt (cached ones among them) and completion tokens; never raises."""
        usage = self.usage or {}
        details = _map(usage.get("prompt_tokens_details"))
        # DeepSeek says prompt_cache_hit_tokens; OpenAI and llama.cpp the details' cached_tokens.
        cached = _count(details.get("cached_tokens")) or \
            _count(usage.get("prompt_cache_hit_tokens"))
        prompt = _count(usage.get("prompt_tokens"))
        return Usage(prompt, _count(usage.get("completion_tokens")), min(cached, prompt))


def consume(assembler: OpenAIAssembler, stream: Iterable[Event], on_text: TextSink,
            on_event: Callable[[int], None] = lambda generated: None) -> None:
    """Feed every chunk of `stream`, streaming text to `on_text`, up to [DONE] or an error;
    `on_event` hears how many generated pieces have arrived after each chunk."""
    for event in stream:
        if event.data.strip().startswith("[DONE]"):
            assembler.done = True
            return
        chunk = json_object(event.data)
        if chunk is None:
            continue  # keep-alive noise, or JSON that is not an object
        piece = assembler.feed(chunk)
        on_event(assembler.generated)
        if piece:
            on_text(piece)
        if assembler.error is not None:
            return


def feed_whole(assembler: OpenAIAssembler, data: Any, on_text: TextSink) -> None:
    """A non-streamed chat completion (a server that ignored stream: true)."""
    if not isinstance(data, Mapping) or not (isinstance(data.get("choices"), list)
                                             or data.get("error")):
        raise BadStream(HttpProblem("bad_stream", False,
                                    "the server answered with JSON that is not a completion"))
    choices = []
    for choice in _list(data.get("choices")):
        if not isinstance(choice, Mapping):
            continue
        message = _map(choice.get("message"))
        calls = [{**call, "index": i} for i, call in enumerate(_list(message.get("tool_calls")))
                 if isinstance(call, Mapping)]  # whole calls: no index, one entry each
        choices.append({**choice, "message": {**message, "tool_calls": calls}})
    text = assembler.feed({**data, "choices": choices})
    if text:
        on_text(text)
    assembler.done = True


def _parse_arguments(text: str) -> dict[str, Any] | None:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _map(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
