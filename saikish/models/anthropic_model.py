"""Claude through the official `anthropic` SDK (imported only when used).

The SDK does the HTTP, the auth and the SSE framing; raw events are
assembled by AnthropicAssembler. Thinking blocks are sent back unchanged,
with their signatures, as the API requires.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping, Sequence
from typing import Any

from saikish.config.layers import Config, llm_value
from saikish.errors import UsageError
from saikish.models.anthropic_stream import AnthropicAssembler, consume, feed_whole
from saikish.models.base import AssistantMessage, Message, TextSink, ToolResults, UserMessage
from saikish.models.http_errors import HttpProblem
from saikish.models.remote import (
    Remote,
    StreamFailure,
    attempt_problem,
    client_timeout,
    no_key,
    read_answer,
    truncated_problem,
    waited_problem,
)
from saikish.models.sse import events
from saikish.models.waiting import HOSTED, Waits, is_local, shut_down, waits_for
from saikish.tools.base import Tool
from saikish.types import ToolResult, Turn

MAX_TOKENS = 8192
# Anthropic's prompt caching: a breakpoint after the stable prefix (tools, system prompt,
# the conversation so far); the next request reads that prefix at a tenth of the price.
EPHEMERAL = {"type": "ephemeral"}
ANTHROPIC_DEFAULT = "https://api.anthropic.com"


class AnthropicModel:
    """A Claude model behind the Messages API."""

    def __init__(self, model: str, api_key: str, base_url: str | None,
                 waits: Waits = HOSTED) -> None:
        self.name = f"anthropic:{model}"
        self.model, self.api_key = model, api_key
        self.base_url = (base_url or ANTHROPIC_DEFAULT).rstrip("/")
        self.remote = Remote("anthropic", model, self.base_url,
                             key_hint="Set ANTHROPIC_API_KEY (or llm.apiKey) to a valid key.",
                             timeout=waits.idle, first_token=waits.first_token)
        self._client: Any = None

    @property
    def client(self) -> Any:
        """The SDK client, made (and the SDK imported) on first use, not at start-up."""
        if self._client is None:
            import anthropic

            self._client = anthropic.Anthropic(api_key=self.api_key, base_url=self.base_url,
                                               max_retries=0,
                                               timeout=client_timeout(self.remote))
        return self._client

    @classmethod
    def create(cls, model: str, config: Config) -> AnthropicModel:
        """From -m / agent.yml: keys and URLs from the config, then the environment."""
        key = llm_value(config, "anthropic", "api_key") or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise UsageError(no_key("ANTHROPIC_API_KEY", "anthropic"))
        base_url = llm_value(config, "anthropic", "base_url") or \
            os.environ.get("ANTHROPIC_BASE_URL")
        return cls(model, key, base_url,
                   waits_for(config, local=is_local(base_url or ANTHROPIC_DEFAULT)))

    def complete(self, system: str, messages: Sequence[Message], tools: Sequence[Tool],
                 on_text: TextSink) -> Turn:
        """One streamed call, retried by policy."""
        body: dict[str, Any] = {"model": self.model, "max_tokens": MAX_TOKENS,
                                "messages": cached(wire_messages(messages)), "stream": True}
        if system:
            body["system"] = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
        if tools:
            body["tools"] = [{"name": t.name, "description": t.description,
                              "input_schema": dict(t.schema)} for t in tools]
            body["tools"][-1]["cache_control"] = EPHEMERAL
        return self.remote.run(lambda sink: self._attempt(body, sink), on_text)

    def _attempt(self, body: dict[str, Any], on_text: TextSink) -> Turn:
        import anthropic
        from anthropic._streaming import SSEDecoder  # the SDK's own SSE framing

        assembler = AnthropicAssembler()
        watch = self.remote.watchdog()
        try:
            stream = self.client.post("/v1/messages", body=body, cast_to=object, stream=True,
                                      stream_cls=anthropic.Stream[object])
            with contextlib.closing(stream.response) as response:
                watch.start(lambda: shut_down(response))
                read_answer(response, lambda chunks: consume(
                    assembler, events(chunks, SSEDecoder()), on_text, watch.beat),
                    lambda data: feed_whole(assembler, data, on_text))
        except Exception as exc:
            problem = attempt_problem(exc, anthropic, watch)
            if problem is None:
                raise
            raise StreamFailure(problem, assembler.text) from None
        finally:
            watch.stop()
        if watch.expired and not assembler.ended:  # the watchdog ended a silent stream
            raise StreamFailure(waited_problem(watch), assembler.text)
        if assembler.error is not None:  # event: error inside the stream
            raise StreamFailure(_stream_problem(assembler.error), assembler.text)
        if not assembler.ended:  # a cut connection looks like a short answer: never run it
            raise StreamFailure(truncated_problem(len(assembler.tool_calls()[0])),
                                assembler.text)
        return to_turn(assembler)


def to_turn(assembler: AnthropicAssembler) -> Turn:
    """The Turn the loop acts on; thinking blocks ride along for the next request."""
    complete, incomplete = assembler.tool_calls()
    return Turn(text=assembler.text, tool_calls=tuple(complete),
                usage=assembler.usage_counts(),
                stop=assembler.effective_stop(), incomplete_calls=tuple(incomplete),
                provider_blocks=tuple(assembler.thinking()))


def _stream_problem(error: Mapping[str, Any]) -> HttpProblem:
    kind = str(error.get("type") or "api_error")
    message = str(error.get("message") or "stream error")
    return HttpProblem("overloaded" if kind == "overloaded_error" else "server",
                       kind in ("api_error", "overloaded_error"), message)


def wire_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The conversation as Messages API turns; consecutive user content is merged."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, UserMessage):
            _add(out, "user", [{"type": "text", "text": message.text}])
        elif isinstance(message, ToolResults):
            _add(out, "user", [{"type": "tool_result", "tool_use_id": r.call_id,
                                "content": _result_content(r), "is_error": r.is_error}
                               for r in message.results])
        elif isinstance(message, AssistantMessage):
            turn = message.turn
            blocks: list[dict[str, Any]] = [dict(b) for b in turn.provider_blocks]
            if turn.text:
                blocks.append({"type": "text", "text": turn.text})
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name,
                        "input": dict(c.arguments)} for c in turn.tool_calls]
            _add(out, "assistant", blocks or [{"type": "text", "text": "(no answer)"}])
    return out


def _result_content(result: ToolResult) -> str | list[dict[str, Any]]:
    """A tool result's content: its text, and after it the images it returned (§7.1)."""
    if not result.images:
        return result.content
    return [{"type": "text", "text": result.content}, *(
        {"type": "image", "source": {"type": "base64", "media_type": image.mime,
                                     "data": image.data}} for image in result.images)]


def cached(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation with a cache breakpoint on its last block: the next request starts
    with all of it, so the provider reads it from its prompt cache (docs/SPEC.md §10.4).
    With the tools' and the system prompt's, three of the four breakpoints allowed."""
    if not messages:
        return messages
    blocks = messages[-1]["content"]
    for index in range(len(blocks) - 1, -1, -1):
        if blocks[index].get("type") not in ("thinking", "redacted_thinking"):  # never cached
            blocks[index] = {**blocks[index], "cache_control": EPHEMERAL}
            break
    return messages


def _add(out: list[dict[str, Any]], role: str, content: list[dict[str, Any]]) -> None:
    if out and out[-1]["role"] == role:
        out[-1]["content"].extend(content)
    else:
        out.append({"role": role, "content": content})
