"""OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, llama.cpp, TGI, gateways).

The official `openai` SDK does the HTTP, the auth and the SSE framing; its
raw chunk dicts are assembled by OpenAIAssembler, which knows the servers'
quirks. The SDK is imported only when this provider is used.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Sequence
from typing import Any

from saikish.config.layers import Config, llm_value
from saikish.context.probe import ask_server, http_fetch
from saikish.context.window import OLLAMA_DEFAULT as OLLAMA_WINDOW
from saikish.errors import UsageError
from saikish.models.base import AssistantMessage, Message, TextSink, ToolResults, UserMessage
from saikish.models.http_errors import HttpProblem
from saikish.models.openai_stream import OpenAIAssembler, consume, feed_whole
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
from saikish.models.text_calls import TextCallFilter, with_text_calls
from saikish.models.waiting import HOSTED, Waits, is_local, shut_down, waits_for
from saikish.tools.base import Tool
from saikish.types import ToolResult, Turn

OLLAMA_DEFAULT = "http://127.0.0.1:11434"
OPENAI_DEFAULT = "https://api.openai.com/v1"


class OpenAICompatModel:
    """A model behind an OpenAI-compatible /chat/completions endpoint."""

    def __init__(self, provider: str, model: str, api_key: str, base_url: str | None,
                 waits: Waits = HOSTED, text_calls: bool = False) -> None:
        self.name = f"{provider}:{model}"
        self.provider = provider
        # Read <tool_call> blocks in the answer text as calls (docs/SPEC.md §10.5).
        self.text_calls = text_calls
        self.model, self.api_key = model, api_key
        self.base_url = (base_url or OPENAI_DEFAULT).rstrip("/")
        self.remote = Remote(provider, model, self.base_url,
                             key_hint="Set OPENAI_API_KEY (or llm.apiKey) to a valid key."
                             if provider == "openai" else "", pull_hint=provider == "ollama",
                             timeout=waits.idle, first_token=waits.first_token)
        self._client: Any = None

    @property
    def client(self) -> Any:
        """The SDK client, made (and the SDK imported) on first use, not at start-up."""
        if self._client is None:
            import openai

            self._client = openai.OpenAI(api_key=self.api_key, base_url=self.base_url,
                                         max_retries=0,
                                         timeout=client_timeout(self.remote))
        return self._client

    @classmethod
    def create(cls, provider: str, model: str, config: Config) -> OpenAICompatModel:
        """From -m / agent.yml: keys and URLs from the config, then the environment."""
        base_url = llm_value(config, provider, "base_url")
        if provider == "ollama":  # no key needed: an unset $VAR in apiKey is not an error
            return cls(provider, model, "ollama", base_url or ollama_url(),
                       waits_for(config, local=True), text_calls_on(config, local=True))
        key = llm_value(config, provider, "api_key") or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise UsageError(no_key("OPENAI_API_KEY", "openai"))
        base_url = base_url or os.environ.get("OPENAI_BASE_URL")
        local = is_local(base_url or OPENAI_DEFAULT)
        return cls(provider, model, key, base_url, waits_for(config, local),
                   text_calls_on(config, local))

    @property
    def local(self) -> bool:
        """True for Ollama and servers on this machine or network."""
        return self.provider == "ollama" or is_local(self.base_url)

    def server_window(self) -> tuple[int, str] | None:
        """The context window a local server runs this model with (docs/SPEC.md §10.3):
        (tokens, where the figure came from), or None to use the table."""
        if not self.local:
            return None
        ollama = self.provider == "ollama"
        found = ask_server(self.base_url, self.model, ollama, http_fetch)
        if found:
            return found, "server"
        # Ollama cuts a longer prompt silently: its own default is the safe guess.
        return (OLLAMA_WINDOW, "default") if ollama else None

    def complete(self, system: str, messages: Sequence[Message], tools: Sequence[Tool],
                 on_text: TextSink) -> Turn:
        """One streamed call, retried by policy."""
        body = {
            "model": self.model,
            "messages": wire_messages(system, messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            body["tools"] = [{"type": "function", "function": t.wire_spec()} for t in tools]
        return self.remote.run(lambda sink: self._attempt(body, sink), on_text)

    def _attempt(self, body: dict[str, Any], on_text: TextSink) -> Turn:
        import openai
        from openai._streaming import SSEDecoder  # the SDK's own SSE framing

        assembler = OpenAIAssembler()
        found = TextCallFilter(on_text) if self.text_calls else None
        sink: TextSink = found or on_text
        watch = self.remote.watchdog()
        try:
            stream = self.client.post("/chat/completions", body=body, cast_to=object,
                                      stream=True, stream_cls=openai.Stream[object])
            with contextlib.closing(stream.response) as response:
                watch.start(lambda: shut_down(response))
                read_answer(response, lambda chunks: consume(
                    assembler, events(chunks, SSEDecoder()), sink, watch.beat),
                    lambda data: feed_whole(assembler, data, sink))
        except Exception as exc:
            problem = attempt_problem(exc, openai, watch)
            if problem is None:
                raise
            raise StreamFailure(problem, _shown(assembler, found)) from None
        finally:
            watch.stop()
        if watch.expired and not assembler.ended:  # the watchdog ended a silent stream
            raise StreamFailure(waited_problem(watch), _shown(assembler, found))
        if assembler.error is not None:  # old vLLM: {"object": "error", ...}
            raise StreamFailure(_stream_problem(assembler.error, "stream error"),
                                _shown(assembler, found))
        if not assembler.ended:  # a cut connection looks like a short answer: never run it
            raise StreamFailure(truncated_problem(len(assembler.tool_calls()[0])),
                                _shown(assembler, found))
        if found is None:
            return to_turn(assembler)
        found.finish()
        return with_text_calls(to_turn(assembler), found)


def _shown(assembler: OpenAIAssembler, found: TextCallFilter | None) -> str:
    """The answer text the person saw (tool call blocks kept off the screen are not)."""
    return found.visible if found is not None else assembler.text


def text_calls_on(config: Config, local: bool) -> bool:
    """llm.textToolCalls: on, off, or auto (on for Ollama and servers on this network)."""
    setting = config.llm.text_tool_calls
    return setting == "on" or (setting == "auto" and local)


def to_turn(assembler: OpenAIAssembler) -> Turn:
    """The Turn the loop acts on."""
    complete, incomplete = assembler.tool_calls()
    text = assembler.text or (assembler.refusal or "")
    return Turn(text=text, tool_calls=tuple(complete), usage=assembler.usage_counts(),
                stop=assembler.effective_stop(), incomplete_calls=tuple(incomplete),
                reasoning=assembler.reasoning)


def _stream_problem(error: Any, fallback: str) -> HttpProblem:
    data = error if isinstance(error, dict) else {}
    kind = str(data.get("type") or data.get("code") or "server_error")
    message = str(data.get("message") or fallback)
    retryable = kind in ("server_error", "api_error", "overloaded_error", "internal_error") \
        or "overload" in message.lower()
    return HttpProblem("server", retryable, message)


def wire_messages(system: str, messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The conversation as chat-completions messages: one tool message per call id."""
    out: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        if isinstance(message, UserMessage):
            out.append({"role": "user", "content": message.text})
        elif isinstance(message, AssistantMessage):
            out.append(_assistant(message))
        elif isinstance(message, ToolResults):
            out.extend({"role": "tool", "tool_call_id": r.call_id, "content": _result_text(r)}
                       for r in message.results)
    return out


def _result_text(result: ToolResult) -> str:
    """A tool message holds text only, and not every server behind this API takes images:
    the model is told that the images the text names were not sent (§7.1)."""
    if not result.images:
        return result.content
    count = len(result.images)
    return (f"{result.content}\n[{count} image{'s' if count > 1 else ''} above not shown: "
            f"images are not sent to this provider]")


def _assistant(message: AssistantMessage) -> dict[str, Any]:
    turn = message.turn
    entry: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.tool_calls:
        entry["tool_calls"] = [{
            "id": call.id, "type": "function",
            "function": {"name": call.name,
                         "arguments": call.raw_arguments if call.raw_arguments is not None
                         else json.dumps(dict(call.arguments), ensure_ascii=False)},
            **dict(call.extra),  # e.g. Gemini's extra_content must come back unchanged
        } for call in turn.tool_calls]
    return entry


def ollama_url() -> str:
    """$OLLAMA_HOST as an OpenAI-compatible base URL: host, host:port or a full URL,
    with or without /v1 (Ollama's own variable names the server, not its OpenAI API)."""
    host = os.environ.get("OLLAMA_HOST", "").strip() or OLLAMA_DEFAULT
    if "://" not in host:
        host = f"http://{host}"
    scheme, _, rest = host.partition("://")
    netloc, _, path = rest.partition("/")
    if ":" not in netloc.rsplit("]", 1)[-1]:
        netloc += ":11434"
    netloc = netloc.replace("0.0.0.0", "127.0.0.1")
    path = path.strip("/").removesuffix("v1").strip("/")
    return f"{scheme}://{netloc}/{path + '/' if path else ''}v1"
