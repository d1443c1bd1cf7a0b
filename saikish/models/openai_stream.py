"""Assemble an OpenAI-compatible chat completion stream from its raw chunks.

The SDK's own stream helpers assume OpenAI's exact format; real servers
differ (Ollama, vLLM, llama.cpp, TGI, gateways), so tool calls are merged
here from raw chunk dicts, following tests/fixtures/wire's client contract.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from saikish.types import StopReason, ToolCall


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
    """Feed raw chunk dicts in order; read the assembled answer at the end."""

    text: str = ""
    reasoning: str | None = None
    refusal: str | None = None
    finish_reason: str | None = None
    usage: Mapping[str, Any] | None = None
    error: Mapping[str, Any] | None = None
    _calls: list[_Call] = field(default_factory=list)
    _by_index: dict[int, _Call] = field(default_factory=dict)

    def feed(self, chunk: Mapping[str, Any]) -> str:
        """Take one chunk; returns the answer text it adds (for streaming to the screen)."""
        if chunk.get("object") == "error" or "error" in chunk:  # old vLLM / in-stream errors
            self.error = chunk.get("error") if isinstance(chunk.get("error"), Mapping) else chunk
            return ""
        if isinstance(chunk.get("usage"), Mapping):
            self.usage = chunk["usage"]
        added = []
        # With n=1 every choice is ours, whatever index a server gives it (TGI).
        for choice in chunk.get("choices") or []:
            added.append(self._choice(choice))
        return "".join(added)

    def _choice(self, choice: Mapping[str, Any]) -> str:
        reason = choice.get("finish_reason")
        if reason:  # sglang sends "" on every chunk: only a real value counts
            self.finish_reason = reason
        delta = choice.get("delta") or choice.get("message") or {}
        for key in ("reasoning_content", "reasoning"):
            if isinstance(delta.get(key), str) and delta[key]:
                self.reasoning = (self.reasoning or "") + delta[key]
        if isinstance(delta.get("refusal"), str) and delta["refusal"]:
            self.refusal = (self.refusal or "") + delta["refusal"]
        calls = delta.get("tool_calls")
        if isinstance(calls, Mapping):  # TGI 2.x sends one object, not a list
            calls = [calls]
        for fragment in calls or []:
            self._merge(fragment)
        content = delta.get("content")
        if isinstance(content, str) and content:
            self.text += content
            return content
        return ""

    def _merge(self, fragment: Mapping[str, Any]) -> None:
        index = fragment.get("index")
        fid = fragment.get("id") or ""
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
        function = fragment.get("function") or {}
        name = function.get("name")
        if name and not call.name:  # later fragments may repeat the name, or send null
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
            if call.object_arguments is not None:
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


def _parse_arguments(text: str) -> dict[str, Any] | None:
    if not text.strip():
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None
