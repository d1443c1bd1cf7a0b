"""Providers against a real HTTP server on 127.0.0.1 sending real wire formats."""

from __future__ import annotations

import io
import json
import socket
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from saikish.errors import ModelError
from saikish.events import RetryNotice
from saikish.models.anthropic_model import AnthropicModel
from saikish.models.base import AssistantMessage, Message, ToolResults, UserMessage
from saikish.models.openai_compat import OpenAICompatModel, ollama_url
from saikish.runtime.agent import Agent
from saikish.runtime.subscribers import StreamJson
from saikish.tools import builtin_tools
from saikish.types import StopReason, ToolResult, Turn, Usage
from saikish.ui.parts import stream_console
from saikish.ui.render import ConsoleReporter
from tests.support.harness import SHARED, Run
from tests.support.wire_server import Reply, Splitter, bytewise, random_pieces, serve, whole

TOOLS = list(builtin_tools().values())
SPLITS: dict[str, Splitter] = {"whole": whole, "bytes": bytewise, "random1": random_pieces(1),
                               "random2": random_pieces(2)}


def fixtures(api: str) -> list[str]:
    folder = SHARED / "wire" / api
    return sorted(p.stem for p in folder.glob("*.sse")) if folder.exists() else []


def load(api: str, name: str) -> tuple[bytes, dict[str, Any]]:
    folder = SHARED / "wire" / api
    if not folder.exists():
        pytest.skip(f"{folder} is not here: the shared/ material sits beside the checkout")
    expect = json.loads((folder / f"{name}.expect.json").read_text())
    return (folder / f"{name}.sse").read_bytes(), expect


def openai_model(url: str, provider: str = "openai") -> OpenAICompatModel:
    model = OpenAICompatModel(provider, "test-model", "sk-test", f"{url}/v1")
    model.remote.sleep = list[float]().append  # record waits, never sleep
    model.remote.notice = lambda text: None
    return model


def anthropic_model(url: str) -> AnthropicModel:
    model = AnthropicModel("claude-test", "sk-ant-test", url)
    model.remote.sleep = list[float]().append
    model.remote.notice = lambda text: None
    return model


def waits(model: Any) -> list[float]:
    """The waits a model would have slept (its sleep is a list's append)."""
    recorded: list[float] = model.remote.sleep.__self__
    return recorded


def complete(model: Any, messages: list[Message] | None = None) -> tuple[Turn, str]:
    streamed: list[str] = []
    turn = model.complete("system", messages or [UserMessage("hi")], TOOLS, streamed.append)
    return turn, "".join(streamed)


def check_turn(turn: Turn, streamed: str, expect: dict[str, Any], anthropic: bool) -> None:
    assert turn.text == (expect["text"] or expect.get("refusal") or "")
    assert streamed == expect["text"]
    calls = [(c.name, dict(c.arguments)) for c in turn.tool_calls]
    assert calls == [(c["name"], c["arguments"]) for c in expect["tool_calls"]]
    for call, wanted in zip(turn.tool_calls, expect["tool_calls"], strict=True):
        assert call.id == wanted["id"] if wanted["id"] else call.id
        extra = {k: v for k, v in wanted.items() if k not in ("id", "name", "arguments")}
        assert dict(call.extra) == extra
    assert len({c.id for c in turn.tool_calls}) == len(turn.tool_calls)
    assert len(turn.incomplete_calls) == len(expect["incomplete_tool_calls"])
    assert turn.stop.value == expect["effective_stop"]
    assert turn.usage == expected_usage(expect["usage"] or {}, anthropic)
    if anthropic:
        assert [dict(b) for b in turn.provider_blocks] == [
            {"type": "thinking", **t} for t in expect["thinking"]]
    else:
        assert turn.reasoning == expect["reasoning"]


def expected_usage(usage: dict[str, Any], anthropic: bool) -> Usage:
    """What a fixture's recorded usage means in saikish's terms: every prompt token counted
    in input_tokens (Anthropic reports cache reads and writes apart), cached ones as such."""
    if anthropic:
        read, written = (usage.get(k, 0) for k in ("cache_read_input_tokens",
                                                     "cache_creation_input_tokens"))
        return Usage(usage.get("input_tokens", 0) + read + written,
                     usage.get("output_tokens", 0), read, written)
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0)
    return Usage(usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0), cached)


WIRE = [(api, name) for api in ("openai", "anthropic") for name in fixtures(api)]


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize(("api", "name"), WIRE or [("openai", "(shared/ absent)")])
def test_wire_fixtures(api: str, name: str, split: str) -> None:
    body, spec = load(api, name)
    expect = spec["expect"]
    with serve(Reply(body, headers=spec["http"]["headers"], split=SPLITS[split])) as server:
        model: Any = anthropic_model(server.url) if api == "anthropic" else \
            openai_model(server.url)
        if expect["error"]:
            with pytest.raises(ModelError) as raised:
                complete(model)
            assert "interrupted" in str(raised.value) or "failed" in str(raised.value)
            assert expect["error"]["message"].rstrip(".!") in str(raised.value)
            return
        turn, streamed = complete(model)
    check_turn(turn, streamed, expect, anthropic=api == "anthropic")


def test_openai_follow_up_answers_every_call_id() -> None:
    body, spec = load("openai", "openai_tool_parallel")
    done = b'data: {"choices":[{"delta":{"content":"ok"}}]}\n\ndata: [DONE]\n\n'
    with serve(Reply(body), Reply(done)) as s:
        model = openai_model(s.url)
        turn, _ = complete(model)
        results = tuple(ToolResult(c.id, c.name, f"result of {c.name}", True)
                        for c in turn.tool_calls)
        complete(model, [UserMessage("hi"), AssistantMessage(turn), ToolResults(results)])
        follow_up = s.requests[1]["messages"]
    assert follow_up[0] == {"role": "system", "content": "system"}
    assistant = follow_up[2]
    assert [c["id"] for c in assistant["tool_calls"]] == [c["id"] for c in
                                                          spec["expect"]["tool_calls"]]
    assert json.loads(assistant["tool_calls"][0]["function"]["arguments"]) == \
        spec["expect"]["tool_calls"][0]["arguments"]
    tool_messages = follow_up[3:]
    assert [(m["role"], m["tool_call_id"]) for m in tool_messages] == [
        ("tool", c["id"]) for c in spec["expect"]["tool_calls"]]
    assert s.requests[0]["stream"] is True
    assert [t["function"]["name"] for t in s.requests[0]["tools"]] == [t.name for t in TOOLS]


def test_anthropic_follow_up_keeps_thinking_and_answers_every_id() -> None:
    body, spec = load("anthropic", "anthropic_thinking_parallel_tools")
    done = (b'event: message_start\ndata: {"type":"message_start","message":{"usage":'
            b'{"input_tokens":1}}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n')
    with serve(Reply(body), Reply(done)) as s:
        model = anthropic_model(s.url)
        turn, _ = complete(model)
        results = tuple(ToolResult(c.id, c.name, "no such file", True) for c in turn.tool_calls)
        complete(model, [UserMessage("hi"), AssistantMessage(turn), ToolResults(results),
                         UserMessage("and now?")])
        follow_up = s.requests[1]
    # Prompt caching (docs/SPEC.md §10.4): breakpoints after the tools, the system prompt
    # and the conversation so far; never on a thinking block.
    assert follow_up["system"] == [{"type": "text", "text": "system",
                                    "cache_control": {"type": "ephemeral"}}]
    assert follow_up["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert all("cache_control" not in t for t in follow_up["tools"][:-1])
    marked = [(m["role"], b["type"]) for m in follow_up["messages"] for b in m["content"]
              if "cache_control" in b]
    assert marked == [("user", "text")]  # the last block: "and now?"
    assert follow_up["messages"][-1]["content"][-1]["text"] == "and now?"
    assistant = follow_up["messages"][1]["content"]
    assert assistant[0] == {"type": "thinking", **spec["expect"]["thinking"][0]}
    assert [b["id"] for b in assistant if b["type"] == "tool_use"] == [
        c["id"] for c in spec["expect"]["tool_calls"]]
    user = follow_up["messages"][2]
    assert "cache_control" not in assistant[0]  # thinking blocks are sent back unchanged
    assert [(b["type"], b.get("tool_use_id")) for b in user["content"]] == [
        ("tool_result", c["id"]) for c in spec["expect"]["tool_calls"]] + [("text", None)]
    assert len(follow_up["messages"]) == 3  # consecutive user content merged


def test_incomplete_anthropic_tool_call_is_never_run() -> None:
    body, _ = load("anthropic", "anthropic_max_tokens_incomplete_tool")
    with serve(Reply(body)) as s:
        turn, _ = complete(anthropic_model(s.url))
    assert turn.tool_calls == () and len(turn.incomplete_calls) == 1
    assert turn.stop is StopReason.MAX_TOKENS


# -- quirks of real servers, as our own fixtures -------------------------------------

def sse(*chunks: dict[str, Any] | str, done: bool = True, crlf: bool = False) -> bytes:
    end = "\r\n" if crlf else "\n"
    lines = [f"data: {c if isinstance(c, str) else json.dumps(c)}{end}{end}" for c in chunks]
    return ("".join(lines) + (f"data: [DONE]{end}{end}" if done else "")).encode()


def call(index: int | None = None, id: str | None = None, name: str | None = None,
         args: Any = None) -> dict[str, Any]:
    fragment: dict[str, Any] = {"function": {}}
    if index is not None:
        fragment["index"] = index
    if id is not None:
        fragment["id"] = id
    if name is not None or args is not None:
        fragment["function"] = {"name": name, "arguments": args}
    return fragment


def chunk(*calls: dict[str, Any], finish: str | None = None, content: str | None = None,
          usage: dict[str, int] | None = None) -> dict[str, Any]:
    delta: dict[str, Any] = {}
    if calls:
        delta["tool_calls"] = list(calls)
    if content is not None:
        delta["content"] = content
    out: dict[str, Any] = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    if usage is not None:
        out["usage"] = usage
    return out


QUIRKS: dict[str, tuple[bytes, list[tuple[str, dict[str, Any]]], str]] = {
    "ollama: every call at index 0 with its own id, finish stop": (sse(
        chunk(call(0, "call_a", "bash", '{"command":"ls"}')),
        chunk(call(0, "call_b", "read_file", '{"path":"a"}')),
        chunk(finish="stop")), [("bash", {"command": "ls"}), ("read_file", {"path": "a"})],
        "tool_use"),
    "vllm: last argument bytes in the finish chunk": (sse(
        chunk(call(0, "c1", "bash", '{"comm')),
        chunk(call(0, None, None, 'and": "ls"}'), finish="tool_calls")),
        [("bash", {"command": "ls"})], "tool_use"),
    "no index: a new id starts a new call": (sse(
        chunk(call(None, "c1", "bash", '{"command":')), chunk(call(None, None, None, '"ls"}')),
        chunk(call(None, "c2", "read_file", '{"path":"x"}'), finish="tool_calls")),
        [("bash", {"command": "ls"}), ("read_file", {"path": "x"})], "tool_use"),
    "first index 1, null name later, empty id later": (sse(
        chunk(call(1, "c1", "bash", "")), chunk(call(1, "", None, '{"command":"pwd"}')),
        chunk(finish="tool_calls")), [("bash", {"command": "pwd"})], "tool_use"),
    "repeated name is not appended": (sse(
        chunk(call(0, "c1", "bash", '{"command"')), chunk(call(0, "c1", "bash", ':"ls"}')),
        chunk(finish="tool_calls")), [("bash", {"command": "ls"})], "tool_use"),
    "llama.cpp: arguments as an object": (sse(
        chunk(call(0, "c1", "bash", {"command": "ls"}), finish="tool_calls")),
        [("bash", {"command": "ls"})], "tool_use"),
    "empty arguments mean {}": (sse(
        chunk(call(0, "c1", "list_files", ""), finish="tool_calls")),
        [("list_files", {})], "tool_use"),
    "several indexes in one chunk, in any order": (sse(
        chunk(call(1, "c2", "read_file", '{"path":"b"}'), call(0, "c1", "bash",
                                                                '{"command":"ls"}')),
        chunk(finish="tool_calls")),
        [("bash", {"command": "ls"}), ("read_file", {"path": "b"})], "tool_use"),
    "no id at all gets a unique one": (sse(
        chunk(call(0, None, "bash", '{"command":"ls"}')),
        chunk(call(1, None, "bash", '{"command":"pwd"}'), finish="tool_calls")),
        [("bash", {"command": "ls"}), ("bash", {"command": "pwd"})], "tool_use"),
    "sglang: empty finish_reason on every chunk": (sse(
        chunk(content="hel", finish=""), chunk(content="lo", finish=""),
        chunk(finish="stop", usage={"prompt_tokens": 3, "completion_tokens": 2})),
        [], "end_turn"),
    "azure: an opening chunk with no choices": (sse(
        {"id": "", "model": "", "choices": [], "prompt_filter_results": []},
        chunk(content="hi", finish="stop")), [], "end_turn"),
    "no [DONE], CRLF framing": (sse(chunk(content="hi"), chunk(finish="stop"), done=False,
                                    crlf=True), [], "end_turn"),
    "tgi 2.x: tool_calls as one object": (sse(
        {"choices": [{"index": 0, "delta": {"tool_calls": {
            "index": 0, "id": "", "type": "function",
            "function": {"name": "bash", "arguments": '{"command":"ls"}'}}}}]},
        chunk(finish="stop")), [("bash", {"command": "ls"})], "tool_use"),
    "truncated arguments are never run": (sse(
        chunk(call(0, "c1", "bash", '{"command": "rm -rf /tmp/x')), chunk(finish="length")),
        [], "max_tokens"),
}


@pytest.mark.parametrize("name", QUIRKS)
def test_server_quirks(name: str) -> None:
    body, calls, stop = QUIRKS[name]
    for split in (whole, bytewise):
        with serve(Reply(body, split=split)) as s:
            turn, _ = complete(openai_model(s.url, "ollama"))
        assert [(c.name, dict(c.arguments)) for c in turn.tool_calls] == calls, name
        assert all(c.id for c in turn.tool_calls)
        assert len({c.id for c in turn.tool_calls}) == len(turn.tool_calls)
        assert turn.stop.value == stop


def test_usage_on_the_finish_chunk() -> None:
    body = sse(chunk(content="x"), chunk(finish="stop", usage={"prompt_tokens": 7,
                                                               "completion_tokens": 1}))
    with serve(Reply(body)) as s:
        turn, _ = complete(openai_model(s.url))
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (7, 1)


def test_old_vllm_error_object_in_the_stream() -> None:
    body = sse(chunk(content="partial "), {"object": "error", "message": "CUDA out of memory",
                                           "type": "InternalServerError"}, done=False)
    with serve(Reply(body)) as s, pytest.raises(ModelError) as raised:
        complete(openai_model(s.url))
    assert "interrupted" in str(raised.value) and raised.value.partial == "partial "


# -- HTTP errors ----------------------------------------------------------------------

def error_fixture(name: str) -> dict[str, Any]:
    path = SHARED / "wire" / "errors" / f"{name}.error.json"
    if not path.exists():
        pytest.skip(f"{path} is not here")
    data: dict[str, Any] = json.loads(path.read_text())
    return data


ERRORS = sorted(p.name.removesuffix(".error.json")
                for p in (SHARED / "wire" / "errors").glob("*.error.json")) or ["(absent)"]
HINTS = {"auth": "API key was rejected", "not_found": "not found",
         "context_length": "compacts older turns and tries once more",
         "quota": "not retrying", "rate_limit": "failed after 4",
         "server": "failed after 4", "overloaded": "failed after 4"}


@pytest.mark.parametrize("name", ERRORS)
def test_http_errors_are_classified_retried_and_explained(name: str) -> None:
    spec = error_fixture(name)
    behaviour = spec["expected_behaviour"]
    reply = Reply(spec["body"].encode(), status=spec["status"], headers=spec["headers"])
    with serve(reply) as s:
        model: Any = anthropic_model(s.url) if name.startswith("anthropic") else \
            openai_model(s.url)
        with pytest.raises(ModelError) as raised:
            complete(model)
        attempts = len(s.requests)
    message = str(raised.value)
    assert HINTS[behaviour["kind"]] in message, message
    assert "\n" not in message and "Traceback" not in message
    if behaviour["retry"]:
        assert attempts == 4
        if "retry_after_seconds" in behaviour:
            assert waits(model)[0] == pytest.approx(behaviour["retry_after_seconds"])
    else:
        assert attempts == 1


def test_a_rate_limit_is_waited_out_and_the_answer_arrives() -> None:
    limited = Reply(b'{"error":{"message":"slow down","type":"requests"}}', status=429,
                    headers={"content-type": "application/json", "retry-after-ms": "1500"})
    with serve(limited, Reply(sse(chunk(content="fine", finish="stop")))) as s:
        model = openai_model(s.url)
        notes: list[RetryNotice] = []
        model.remote.notice = notes.append
        turn, _ = complete(model)
    assert turn.text == "fine" and waits(model) == [1.5]
    assert notes == [RetryNotice("openai rate limit: waiting 2s before trying again (2 of 4)",
                                 attempt=2, delay_s=1.5)]


def test_an_agents_retry_is_an_event_of_its_stream(tmp_path: Path) -> None:
    """Issue 13: the wait before a retry is published, not printed by the models layer."""
    limited = Reply(b'{"error":{"message":"slow down","type":"requests"}}', status=429,
                    headers={"content-type": "application/json", "retry-after": "3"})
    with serve(limited, Reply(sse(chunk(content="fine", finish="stop")))) as s:
        model = OpenAICompatModel("openai", "test-model", "sk-test", f"{s.url}/v1")
        model.remote.sleep = list[float]().append
        agent = Agent.create(model, [], workspace=tmp_path)
        seen: list[Any] = []
        agent.subscribe(seen.append)
        lines = io.StringIO()
        agent.subscribe(StreamJson(lines))
        screen = io.StringIO()
        agent.subscribe(ConsoleReporter(stream_console(screen)))
        result = agent.send("hello")
    retries = [e for e in agent.events() if isinstance(e, RetryNotice)]
    assert result.text == "fine"
    assert retries == [RetryNotice("openai rate limit: waiting 3s before trying again (2 of 4)",
                                   attempt=2, delay_s=3.0)]
    assert retries[0] in seen  # every subscriber (transcript, stream-json) gets it
    written = [json.loads(line) for line in lines.getvalue().splitlines()]
    assert [{k: e[k] for k in ("message", "attempt", "delay_s")}
            for e in written if e["type"] == "retry"] == [
        {"message": retries[0].message, "attempt": 2, "delay_s": 3.0}]
    assert "openai rate limit: waiting 3s before trying again (2 of 4)" in screen.getvalue()
    assert model.remote.notice == agent.bus.publish


def test_an_nginx_502_page_is_retried_then_reported_readably() -> None:
    page = b"<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
    with serve(Reply(page, status=502, headers={"content-type": "text/html"})) as s:
        model = openai_model(s.url)
        with pytest.raises(ModelError) as raised:
            complete(model)
    assert len(s.requests) == 4 and "502 Bad Gateway" in str(raised.value)


def test_ollama_404_suggests_pulling_the_model() -> None:
    body = b'{"error":{"message":"model \\"qwen9\\" not found, try pulling it first"}}'
    reply = Reply(body, status=404, headers={"content-type": "application/json"})
    with serve(reply) as s, pytest.raises(ModelError) as raised:
        complete(openai_model(s.url, "ollama"))
    assert "ollama pull test-model" in str(raised.value)


def test_connection_refused_names_the_url() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    model = openai_model(f"http://127.0.0.1:{port}")
    with pytest.raises(ModelError) as raised:
        complete(model)
    assert f"127.0.0.1:{port}" in str(raised.value) and "cannot connect" in str(raised.value)


@pytest.mark.parametrize(("host", "url"), [
    ("", "http://127.0.0.1:11434/v1"),
    ("0.0.0.0", "http://127.0.0.1:11434/v1"),
    ("example.internal:9999", "http://example.internal:9999/v1"),
    ("https://gpu.example/ollama", "https://gpu.example:11434/ollama/v1"),
])
def test_ollama_host(monkeypatch: pytest.MonkeyPatch, host: str, url: str) -> None:
    monkeypatch.setenv("OLLAMA_HOST", host)
    assert ollama_url() == url


# -- the whole loop through the CLI ------------------------------------------------

def test_cli_against_an_openai_compatible_server(cli: Callable[..., Run],
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 ws: Path) -> None:
    first = sse(chunk(content="Let me look. "),
                chunk(call(0, "call_ls", "bash", '{"command": "ls"}'),
                      call(1, "call_rm", "bash", '{"command": "rm -rf x"}')),
                chunk(finish="tool_calls", usage={"prompt_tokens": 10, "completion_tokens": 5}))
    second = sse(chunk(content="Done."),
                 chunk(finish="stop", usage={"prompt_tokens": 20, "completion_tokens": 2}))
    (ws / "x").mkdir()
    with serve(Reply(first), Reply(second)) as s:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{s.url}/v1")
        run = cli("-p", "tidy up", "-m", "openai:test-model", "--auto-deny",
                  "--output-format", "json")
        follow_up = s.requests[1]["messages"]
    data = json.loads(run.out)
    assert run.code == 0 and data["result"] == "Done."
    assert [(c["id"], c["decision"]) for c in data["calls"]] == [
        ("call_ls", "approved"), ("call_rm", "rejected_soft")]
    assert data["usage"] == {"input_tokens": 30, "output_tokens": 7, "cached_tokens": 0,
                             "cache_write_tokens": 0}
    assert data["cost"] is None  # test-model has no known price
    tool_messages = [m for m in follow_up if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_messages] == ["call_ls", "call_rm"]
    assert "this run allows no such calls" in tool_messages[1]["content"]
    assert (ws / "x").exists()


def test_cli_model_error_exits_1_with_one_line(cli: Callable[..., Run],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    body = b'{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}'
    with serve(Reply(body, status=401, headers={"content-type": "application/json"})) as s:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{s.url}/v1")
        run = cli("-p", "hi", "-m", "openai:m", "--output-format", "json")
    assert run.code == 1
    assert json.loads(run.out)["exit_reason"] == "error"
    assert "API key was rejected" in run.err and "OPENAI_API_KEY" in run.err


def test_creating_a_provider_imports_no_sdk() -> None:
    """The REPL prompt must appear before any SDK is imported (it loads in the background)."""
    import subprocess
    import sys

    code = ("import sys\nfrom saikish.config.layers import Config\nfrom saikish.models import "
            "ModelSpec, load_model\n"
            "load_model(ModelSpec('openai', 'm'), Config())\n"
            "load_model(ModelSpec('anthropic', 'm'), Config())\n"
            "print(sorted({'openai', 'anthropic'} & set(sys.modules)))")
    env = {"OPENAI_API_KEY": "k", "ANTHROPIC_API_KEY": "k", "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env).stdout
    assert out.strip() == "[]"


def test_agent_yml_llm_settings_apply_only_to_their_provider(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from saikish.config.layers import Config, LLMConfig
    from saikish.errors import ConfigError

    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    monkeypatch.setenv("MY_KEY", "sk-from-yml")
    mine = Config(llm=LLMConfig(provider="openai", api_key="$MY_KEY",
                                base_url="http://127.0.0.1:9/v1"))
    model = OpenAICompatModel.create("openai", "m", mine)
    assert (model.api_key, model.base_url) == ("sk-from-yml", "http://127.0.0.1:9/v1")
    theirs = Config(llm=LLMConfig(provider="anthropic", api_key="$MY_KEY"))
    assert OpenAICompatModel.create("openai", "m", theirs).api_key == "sk-env"
    unset = Config(llm=LLMConfig(provider="ollama", api_key="$NOT_SET_ANYWHERE"))
    assert OpenAICompatModel.create("ollama", "m", unset).base_url.endswith(":11434/v1")
    needed = Config(llm=LLMConfig(provider="anthropic", api_key="${NOT_SET_ANYWHERE}"))
    with pytest.raises(ConfigError, match="NOT_SET_ANYWHERE is not set"):
        AnthropicModel.create("m", needed)
