"""Local models (docs/SPEC.md §10.5, issue 23): a slow first token is waited for and never
sent twice, OLLAMA_HOST in every spelling, tool calls written as text. Real HTTP
servers on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from saikish.config.layers import Config, load_config
from saikish.errors import ModelError
from saikish.models.openai_compat import ollama_url
from saikish.models.waiting import HOSTED, LOCAL, Waits, is_local, waits_for
from tests.models.test_providers import anthropic_model, chunk, complete, openai_model, sse
from tests.models.test_stream_faults import answer
from tests.support.harness import Run
from tests.support.wire_server import Reply, serve

APIS = ["openai", "anthropic"]
THINKING = 0.6  # seconds a server thinks before its first token: longer than IDLE
IDLE = 0.2


def slow_model(api: str, url: str, waits: Waits) -> Any:
    made: Any = anthropic_model(url) if api == "anthropic" else openai_model(url)
    made.remote.first_token, made.remote.timeout = waits.first_token, waits.idle
    return made


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("where", ["before the headers", "after the headers"])
def test_a_slow_first_token_is_waited_for_not_retried(api: str, where: str) -> None:
    # Issue 23: a 1.5B model on llama.cpp took longer than llm.timeout for its first token,
    # and saikish gave up and sent the request again while the server was still busy.
    before = where == "before the headers"
    reply = Reply(answer(api, text="hello"), wait_headers=THINKING if before else 0.0,
                  wait_body=0.0 if before else THINKING)
    with serve(reply) as s:
        turn, streamed = complete(slow_model(api, s.url, Waits(first_token=30, idle=IDLE)))
        tries = len(s.requests)
    assert (turn.text, streamed, tries) == ("hello", "hello", 1)


@pytest.mark.parametrize("api", APIS)
def test_no_first_token_in_time_is_said_once_and_never_sent_again(api: str) -> None:
    with serve(Reply(answer(api), wait_body=30)) as s:  # headers, then nothing
        made = slow_model(api, s.url, Waits(first_token=THINKING, idle=30))
        with pytest.raises(ModelError) as raised:
            complete(made)
        tries = len(s.requests)
    assert tries == 1, "the server may still be working: a second request would queue"
    assert str(raised.value) == (f"{api}: no first token after {THINKING:g}s "
                                 f"(llm.firstTokenTimeout in agent.yml); not sent again: "
                                 f"the server may still be working on it")


@pytest.mark.parametrize("api", APIS)
def test_silence_between_tokens_ends_the_stream_even_with_a_long_first_wait(api: str) -> None:
    # The read timeout of the HTTP client is the long first-token wait here: only the
    # watchdog can notice that the tokens stopped.
    with serve(Reply(answer(api, whole=False), end="stall")) as s:
        made = slow_model(api, s.url, Waits(first_token=60, idle=IDLE))
        with pytest.raises(ModelError) as raised:
            complete(made)
    assert str(raised.value) == (f"{api}: the answer was interrupted: no data from the server "
                                 f"for {IDLE:g}s (llm.timeout in agent.yml)")
    assert raised.value.partial == "partial "


def config(text: str, tmp_path: Path) -> Config:
    path = tmp_path / "agent.yml"
    path.write_text(text)
    return load_config(path)


@pytest.mark.parametrize(("text", "local", "waits"), [
    ("", True, LOCAL),
    ("", False, HOSTED),
    ("llm:\n  timeout: 5\n", True, Waits(LOCAL.first_token, 5)),
    ("llm:\n  timeout: 1000\n", False, Waits(1000, 1000)),  # never less than the idle wait
    ("llm:\n  firstTokenTimeout: 7\n", True, Waits(7, LOCAL.idle)),
])
def test_waits_come_from_agent_yml_or_the_kind_of_server(text: str, local: bool, waits: Waits,
                                                          tmp_path: Path) -> None:
    assert waits_for(config(text, tmp_path), local) == waits
    assert waits_for(Config(), local) == (LOCAL if local else HOSTED)


@pytest.mark.parametrize(("url", "local"), [
    ("http://127.0.0.1:8080/v1", True), ("http://localhost:11434", True),
    ("http://[::1]:8000", True), ("http://192.168.1.20:8080", True),
    ("http://10.0.0.5/v1", True), ("http://gpu-box.local:8000", True),
    ("http://host.docker.internal:11434", True),
    ("https://api.openai.com/v1", False), ("https://api.anthropic.com", False),
    ("https://openrouter.ai/api/v1", False), ("http://8.8.8.8", False),
])
def test_which_servers_count_as_local(url: str, local: bool) -> None:
    assert is_local(url) is local


@pytest.mark.parametrize(("host", "url"), [
    ("", "http://127.0.0.1:11434/v1"),
    ("127.0.0.1", "http://127.0.0.1:11434/v1"),
    ("gpu:8000", "http://gpu:8000/v1"),
    ("http://gpu:8000/v1", "http://gpu:8000/v1"),
    ("http://gpu:8000/v1/", "http://gpu:8000/v1"),
    ("gpu:8000/v1", "http://gpu:8000/v1"),
    ("https://proxy.example/ollama", "https://proxy.example:11434/ollama/v1"),
    ("https://proxy.example:443/ollama/v1", "https://proxy.example:443/ollama/v1"),
    ("0.0.0.0", "http://127.0.0.1:11434/v1"),
])
def test_ollama_host_with_or_without_v1(host: str, url: str,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OLLAMA_HOST", host)
    assert ollama_url() == url


@pytest.mark.parametrize("suffix", ["", "/v1"])
def test_ollama_through_the_command_line(cli: Callable[..., Run], suffix: str,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(Reply(sse(chunk(content="hi from ollama"), chunk(finish="stop")))) as s:
        monkeypatch.setenv("OLLAMA_HOST", s.url + suffix)
        run = cli("-p", "hello", "-m", "ollama:qwen2.5:1.5b")
        paths = s.paths
    assert (run.code, run.out) == (0, "hi from ollama\n"), run.err
    assert paths[-1] == "/v1/chat/completions"



# -- tool calls written as text ---------------------------------------------------------

BLOCK = '<tool_call>\n{"name": "bash", "arguments": {"command": "ls -la"}}\n</tool_call>'
SAID = "Let me look.\n" + BLOCK


def text_stream(text: str, size: int) -> bytes:
    """An OpenAI-compatible stream whose content arrives `size` characters at a time."""
    pieces = [chunk(content=text[i:i + size]) for i in range(0, len(text), size)]
    return sse(*pieces, chunk(finish="stop"))


@pytest.mark.parametrize("size", [1, 3, 7, 200])
def test_a_tool_call_written_as_text_becomes_a_call_and_stays_off_screen(size: int) -> None:
    with serve(Reply(text_stream(SAID, size))) as s:
        model = openai_model(s.url, "ollama")
        model.text_calls = True
        turn, streamed = complete(model)
    assert streamed == "Let me look.\n" and turn.text == "Let me look."
    assert [(c.name, dict(c.arguments)) for c in turn.tool_calls] == [
        ("bash", {"command": "ls -la"})]
    assert turn.stop.value == "tool_use" and turn.tool_calls[0].id


def test_text_is_left_alone_for_hosted_providers() -> None:
    with serve(Reply(text_stream(SAID, 5))) as s:
        turn, streamed = complete(openai_model(s.url))  # text_calls is off by default
    assert streamed == turn.text == SAID and turn.tool_calls == ()


@pytest.mark.parametrize(("text", "calls", "visible"), [
    ("no calls, just <tool_ words", [], "no calls, just <tool_ words"),
    ('<tool_call>{"name": "read_file", "arguments": "{\\"path\\": \\"a\\"}"}</tool_call>',
     [("read_file", {"path": "a"}, None)], ""),  # arguments as a JSON string
    ('<tool_call>{"name": "grep", "parameters": {"pattern": "x"}}</tool_call>'
     '<tool_call>{"name": "bash", "arguments": {"command": "pwd"}}',  # the last one unclosed
     [("grep", {"pattern": "x"}, None), ("bash", {"command": "pwd"}, None)], ""),
    ('ok <tool_call>{"name": "bash", "arguments": {"command": "ls"</tool_call>',
     [("bash", {}, '{"name": "bash", "arguments": {"command": "ls"')], "ok"),
])
def test_text_call_blocks(text: str, calls: list[tuple[str, dict[str, Any], str | None]],
                          visible: str) -> None:
    with serve(Reply(text_stream(text, 4))) as s:
        model = openai_model(s.url, "ollama")
        model.text_calls = True
        turn, _ = complete(model)
    assert [(c.name, dict(c.arguments), c.raw_arguments) for c in turn.tool_calls] == calls
    assert turn.text == visible


def test_a_text_tool_call_runs_through_the_approval_pipeline(
        cli: Callable[..., Run], monkeypatch: pytest.MonkeyPatch, ws: Path) -> None:
    first = text_stream('<tool_call>{"name": "bash", "arguments": {"command": '
                        '"touch made-by-text-call"}}</tool_call>', 9)
    with serve(Reply(first), Reply(text_stream("done", 10))) as s:
        monkeypatch.setenv("OLLAMA_HOST", s.url)
        denied = cli("-p", "go", "-m", "ollama:qwen2.5:1.5b", "--auto-deny",
                     "--output-format", "json")
    call = json.loads(denied.out)["calls"][0]
    assert (call["name"], call["decision"], call["source"]) == ("bash", "rejected_soft", "mode")
    assert not (ws / "made-by-text-call").exists()  # a text call is asked like any other


@pytest.mark.parametrize(("text", "provider", "url", "on"), [
    ("", "ollama", "", True),
    ("", "openai", "http://127.0.0.1:8080/v1", True),  # llama.cpp on this machine
    ("", "openai", "", False),  # api.openai.com
    ("llm:\n  textToolCalls: on\n", "openai", "https://gateway.example/v1", True),
    ("llm:\n  textToolCalls: off\n", "ollama", "", False),
])
def test_text_calls_are_read_for_local_servers_or_when_configured(
        text: str, provider: str, url: str, on: bool, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from saikish.models.openai_compat import OpenAICompatModel

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    if url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
    assert OpenAICompatModel.create(provider, "m", config(text, tmp_path)).text_calls is on
