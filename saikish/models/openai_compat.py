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

from saikish.config import Config, llm_value
from saikish.errors import UsageError
from saikish.models.base import AssistantMessage, Message, TextSink, ToolResults, UserMessage
from saikish.models.http_errors import HttpProblem, classify
from saikish.models.openai_stream import OpenAIAssembler, consume, feed_whole
from saikish.models.remote import (
    DEFAULT_CALL_TIMEOUT_S,
    DEFAULT_TIMEOUT_S,
    Remote,
    StreamFailure,
    client_timeout,
    connection_problem,
    no_key,
    read_answer,
    timeout_problem,
    transport_problem,
    truncated_problem,
)
from saikish.models.sse import BadStream, events
from saikish.tools.base import Tool
from saikish.types import Turn, Usage

OLLAMA_DEFAULT = "http://127.0.0.1:11434"
OPENAI_DEFAULT = "https://api.openai.com/v1"


class OpenAICompatModel:
    """A model behind an OpenAI-compatible /chat/completions endpoint."""

    def __init__(self, provider: str, model: str, api_key: str, base_url: str | None,
                 timeout: float = DEFAULT_TIMEOUT_S,
                 call_timeout: float = DEFAULT_CALL_TIMEOUT_S) -> None:
        self.name = f"{provider}:{model}"
        self.model, self.api_key = model, api_key
        self.base_url = (base_url or OPENAI_DEFAULT).rstrip("/")
        self.remote = Remote(provider, model, self.base_url,
                             key_hint="Set OPENAI_API_KEY (or llm.apiKey) to a valid key."
                             if provider == "openai" else "", pull_hint=provider == "ollama",
                             timeout=timeout, call_timeout=call_timeout)
        self._client: Any = None

    @property
    def client(self) -> Any:
        """The SDK client, made (and the SDK imported) on first use, not at start-up."""
        if self._client is None:
            import openai

            self._client = openai.OpenAI(api_key=self.api_key, base_url=self.base_url,
                                         max_retries=0,
                                         timeout=client_timeout(self.remote.timeout))
        return self._client

    @classmethod
    def create(cls, provider: str, model: str, config: Config) -> OpenAICompatModel:
        """From -m / agent.yml: keys and URLs from the config, then the environment."""
        base_url = llm_value(config, provider, "base_url")
        timeouts = (config.llm.timeout, config.llm.call_timeout)
        if provider == "ollama":  # no key needed: an unset $VAR in apiKey is not an error
            return cls(provider, model, "ollama", base_url or ollama_url(), *timeouts)
        key = llm_value(config, provider, "api_key") or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise UsageError(no_key("OPENAI_API_KEY", "openai"))
        return cls(provider, model, key, base_url or os.environ.get("OPENAI_BASE_URL"),
                   *timeouts)

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
        import httpx2  # the SDK's HTTP library
        import openai
        from openai._streaming import SSEDecoder  # the SDK's own SSE framing

        assembler = OpenAIAssembler()
        try:
            stream = self.client.post("/chat/completions", body=body, cast_to=object,
                                      stream=True, stream_cls=openai.Stream[object])
            with contextlib.closing(stream.response) as response:
                read_answer(response, lambda chunks: consume(
                    assembler, events(chunks, SSEDecoder()), on_text),
                    lambda data: feed_whole(assembler, data, on_text), self.remote)
        except openai.APIStatusError as exc:
            raise StreamFailure(classify(exc.status_code, dict(exc.response.headers),
                                         exc.response.text), assembler.text) from None
        except openai.APITimeoutError:
            raise StreamFailure(timeout_problem(self.remote.timeout), assembler.text) from None
        except openai.APIConnectionError as exc:
            raise StreamFailure(connection_problem(str(exc.__cause__ or exc)),
                                assembler.text) from None
        except BadStream as exc:
            raise StreamFailure(exc.problem, assembler.text) from None
        except (httpx2.TransportError, httpx2.DecodingError) as exc:  # dropped, reset, silent,
            # or a body that does not decode (bad gzip)
            raise StreamFailure(transport_problem(exc, self.remote.timeout),
                                assembler.text) from None
        if assembler.error is not None:  # old vLLM: {"object": "error", ...}
            raise StreamFailure(_stream_problem(assembler.error, "stream error"), assembler.text)
        if not assembler.ended:  # a cut connection looks like a short answer: never run it
            raise StreamFailure(truncated_problem(len(assembler.tool_calls()[0])),
                                assembler.text)
        return to_turn(assembler)


def to_turn(assembler: OpenAIAssembler) -> Turn:
    """The Turn the loop acts on."""
    complete, incomplete = assembler.tool_calls()
    text = assembler.text or (assembler.refusal or "")
    return Turn(text=text, tool_calls=tuple(complete), usage=Usage(*assembler.usage_counts()),
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
            out.extend({"role": "tool", "tool_call_id": r.call_id, "content": r.content}
                       for r in message.results)
    return out


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
    """$OLLAMA_HOST as an OpenAI-compatible base URL (host, host:port or a full URL)."""
    host = os.environ.get("OLLAMA_HOST", "").strip() or OLLAMA_DEFAULT
    if "://" not in host:
        host = f"http://{host}"
    scheme, _, rest = host.partition("://")
    netloc, _, path = rest.partition("/")
    if ":" not in netloc.rsplit("]", 1)[-1]:
        netloc += ":11434"
    netloc = netloc.replace("0.0.0.0", "127.0.0.1")
    return f"{scheme}://{netloc}/{path.strip('/') + '/' if path.strip('/') else ''}v1"
