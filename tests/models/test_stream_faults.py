"""Faults of a real loopback server, for both providers: drops, resets, stalls, garbage,
truncation and non-streamed answers (issue 15). Nothing may end in a traceback or in
tool calls run from an answer that did not arrive whole."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from saikish.errors import ModelError
from saikish.events import RetryNotice
from saikish.models.remote import Remote, StreamFailure, timeout_problem
from saikish.types import StopReason, Turn
from tests.models.test_providers import anthropic_model, chunk, complete, openai_model, sse, waits
from tests.models.test_providers import call as fragment
from tests.support.harness import Run
from tests.support.wire_server import Reply, bytewise, serve

QUICK = 0.3  # the wait a stall test runs out: a stall is noticed at once
PATIENT = 60.0  # every other wait: a loaded machine may take seconds to send a byte


def anthropic_sse(*events: dict[str, Any], stop: bool = True) -> bytes:
    out = [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events]
    if stop:
        out.append('event: message_stop\ndata: {"type":"message_stop"}\n\n')
    return "".join(out).encode()


def a_text(text: str, index: int = 0) -> list[dict[str, Any]]:
    return [{"type": "content_block_start", "index": index,
             "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": index,
             "delta": {"type": "text_delta", "text": text}},
            {"type": "content_block_stop", "index": index}]


def a_tool(index: int = 1, command: str = "touch ran") -> list[dict[str, Any]]:
    return [{"type": "content_block_start", "index": index,
             "content_block": {"type": "tool_use", "id": "toolu_1", "name": "bash",
                               "input": {}}},
            {"type": "content_block_delta", "index": index, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps({"command": command})}},
            {"type": "content_block_stop", "index": index}]


START = {"type": "message_start", "message": {"usage": {"input_tokens": 5}}}
END_TOOL = {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 3}}


def answer(api: str, *, text: str = "partial ", tool: bool = False, whole: bool = True) -> bytes:
    """A text (and maybe tool call) answer, with or without its end (finish reason + marker)."""
    if api == "openai":
        chunks = [chunk(content=text)]
        if tool:
            chunks.append(chunk(fragment(0, "call_1", "bash", '{"command": "touch ran"}')))
        if whole:
            chunks.append(chunk(finish="tool_calls" if tool else "stop"))
        return sse(*chunks, done=whole)
    events = [START, *a_text(text), *(a_tool() if tool else [])]
    if whole:
        events.append(END_TOOL)
    return anthropic_sse(*events, stop=whole)


def model(api: str, url: str, idle: float = PATIENT, first: float = PATIENT) -> Any:
    """The model for `api` at `url`; `idle` is llm.timeout, `first` llm.firstTokenTimeout."""
    made: Any = anthropic_model(url) if api == "anthropic" else openai_model(url)
    made.remote.timeout, made.remote.first_token = idle, first
    return made


APIS = ["openai", "anthropic"]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(("end", "said"), [
    ("close", "the stream ended before the answer was complete"),
    ("reset", "the connection was lost mid-answer"),
    ("stall", "no data from the server for 0.3s (llm.timeout"),
])
def test_a_cut_answer_is_reported_as_interrupted_and_kept(api: str, end: str, said: str) -> None:
    with serve(Reply(answer(api, tool=True, whole=False), end=end)) as s:
        with pytest.raises(ModelError) as raised:
            complete(model(api, s.url, idle=QUICK if end == "stall" else PATIENT))
        tries = len(s.requests)
    message = str(raised.value)
    assert message.startswith(f"{api}: the answer was interrupted: ") and said in message
    assert raised.value.partial == "partial "  # what was shown is kept, not lost
    assert tries == 1  # text already on screen is never asked for twice
    assert "\n" not in message


@pytest.mark.parametrize("api", APIS)
def test_a_truncated_answer_with_only_tool_calls_never_runs_them(api: str) -> None:
    with serve(Reply(answer(api, text="", tool=True, whole=False))) as s:
        made = model(api, s.url)
        made.remote.attempts = 2
        with pytest.raises(ModelError) as raised:
            complete(made)
        tries = len(s.requests)
    assert tries == 2  # nothing was shown: trying again is safe
    assert "failed after 2 tries" in str(raised.value)
    assert "its 1 tool call(s) were not run" in str(raised.value)


@pytest.mark.parametrize("api", APIS)
def test_the_same_answer_whole_runs_its_tool_calls(api: str) -> None:
    with serve(Reply(answer(api, tool=True), split=bytewise)) as s:
        turn, streamed = complete(model(api, s.url))
    assert streamed == "partial " and turn.stop is StopReason.TOOL_USE
    assert [(c.name, dict(c.arguments)) for c in turn.tool_calls] == [
        ("bash", {"command": "touch ran"})]


@pytest.mark.parametrize("api", APIS)
def test_a_stall_before_the_first_byte_is_reported_and_never_sent_again(api: str) -> None:
    # The server may still be working on the request: sending it again would queue a
    # second one behind it (a local server with one slot), the failure of issue 23.
    with serve(Reply(b"", stall_first=True)) as s:
        made = model(api, s.url, idle=QUICK, first=QUICK)
        with pytest.raises(ModelError) as raised:
            complete(made)
        tries = len(s.requests)
    assert tries == 1 and waits(made) == []
    assert str(raised.value) == (f"{api}: no first token after 0.3s (llm.firstTokenTimeout in "
                                 f"agent.yml); not sent again: the server may still be "
                                 f"working on it")


@pytest.mark.parametrize("api", APIS)
def test_a_stall_mid_answer_with_nothing_shown_is_retried_with_a_notice(api: str) -> None:
    cut = Reply(answer(api, text="", tool=True, whole=False), end="stall")
    with serve(cut, Reply(answer(api))) as s:
        made = model(api, s.url, idle=QUICK)
        notices: list[RetryNotice] = []
        made.remote.notice = notices.append
        turn, _ = complete(made)
    notes = [n.message for n in notices]
    assert turn.text == "partial " and notices[0].attempt == 2
    assert len(notes) == 1 and notes[0].startswith(
        f"{api} timeout (no data from the server for 0.3s (llm.timeout in agent.yml)): waiting ")
    assert notes[0].endswith("before trying again (2 of 4)")


NOISE = {
    "openai": b'data: ping\n\n: comment\n\ndata: 5\n\ndata: ["x"]\n\n',
    "anthropic": b'event: ping\ndata: {"type": "ping"}\n\ndata: keep-alive\n\n'
                 b'event: content_block_delta\ndata: [1, 2]\n\n',
}


@pytest.mark.parametrize("api", APIS)
def test_noise_lines_and_invalid_utf8_are_survived(api: str) -> None:
    good = answer(api, text="caf\u00e9 ")
    body = NOISE[api] + good.replace(b"caf\\u00e9", b"caf\xff\xfe")
    assert b"\xff" in body
    with serve(Reply(body, split=bytewise)) as s:
        turn, streamed = complete(model(api, s.url))
    assert turn.text == streamed == "caf\ufffd\ufffd "


@pytest.mark.parametrize("api", APIS)
def test_a_multibyte_character_split_across_reads_survives(api: str) -> None:
    with serve(Reply(answer(api, text="caf\u00e9 \u2603"), split=bytewise)) as s:
        turn, _ = complete(model(api, s.url))
    assert turn.text == "caf\u00e9 \u2603"


@pytest.mark.parametrize("api", APIS)
def test_a_damaged_json_line_is_reported_not_raised(api: str) -> None:
    damaged = b'data: {"choices": [{"delta": {"content": "x"\n\n' if api == "openai" else \
        b'event: content_block_delta\ndata: {"type": "content_block_delta", "index"\n\n'
    with serve(Reply(answer(api, whole=False) + damaged)) as s, \
            pytest.raises(ModelError) as raised:
        complete(model(api, s.url))
    assert "the server sent a damaged event: {" in str(raised.value)
    assert raised.value.partial == "partial "


WHOLE = {
    "openai": {"id": "x", "object": "chat.completion", "choices": [{
        "index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Looking.", "tool_calls": [
                {"id": "call_a", "type": "function",
                 "function": {"name": "bash", "arguments": '{"command": "ls"}'}},
                {"id": "call_b", "type": "function",
                 "function": {"name": "read_file", "arguments": '{"path": "a"}'}}]}}],
        "usage": {"prompt_tokens": 9, "completion_tokens": 4}},
    "anthropic": {"id": "msg_1", "type": "message", "role": "assistant", "content": [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": "toolu_a", "name": "bash", "input": {"command": "ls"}},
        {"type": "tool_use", "id": "toolu_b", "name": "read_file", "input": {"path": "a"}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 9, "output_tokens": 4}},
}


@pytest.mark.parametrize("api", APIS)
def test_a_non_streamed_json_answer_is_read_whole(api: str) -> None:
    body = json.dumps(WHOLE[api]).encode()
    with serve(Reply(body, headers={"content-type": "application/json"})) as s:
        turn, streamed = complete(model(api, s.url))
    assert turn.text == "Looking." and streamed == "Looking."
    assert [(c.name, dict(c.arguments)) for c in turn.tool_calls] == [
        ("bash", {"command": "ls"}), ("read_file", {"path": "a"})]
    assert len({c.id for c in turn.tool_calls}) == 2 and turn.stop is StopReason.TOOL_USE
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (9, 4)


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(("body", "kind", "said"), [
    (b'{"unexpected": true}', "application/json", "JSON that is not a"),
    (b"[1, 2", "application/json", "neither a stream nor JSON: [1, 2"),
    (b"<html><body>Sign in to the Wi-Fi</body></html>", "text/html",
     "neither a stream nor JSON: <html><body>Sign in to the Wi-Fi"),
])
def test_a_200_that_is_no_answer_is_reported(api: str, body: bytes, kind: str,
                                             said: str) -> None:
    with serve(Reply(body, headers={"content-type": kind})) as s:
        with pytest.raises(ModelError) as raised:
            complete(model(api, s.url))
        tries = len(s.requests)
    assert said in str(raised.value) and tries == 1


def test_retries_stop_when_the_time_budget_is_spent() -> None:
    now = [0.0]
    remote = Remote("openai", "m", "http://x", timeout=60, sleep=lambda s: None,
                    clock=lambda: now[0], notice=lambda text: None)
    calls: list[int] = []

    def attempt(sink: Callable[[str], None]) -> Turn:
        calls.append(1)
        now[0] += 60  # every try stalls for the whole llm.timeout
        raise StreamFailure(timeout_problem(60))

    with pytest.raises(ModelError, match="failed after 2 tries: no data"):
        remote.run(attempt, lambda piece: None)
    assert len(calls) == 2 and remote.budget == 120  # not 4 tries of a minute each


def test_llm_timeout_in_agent_yml_reaches_the_model(cli: Callable[..., Run], ws: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(Reply(answer("openai", whole=False), end="stall")) as s:
        (ws / "agent.yml").write_text(f"llm:\n  provider: openai\n  timeout: 0.2\n"
                                      f"  baseURL: {s.url}/v1\n")
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        # Named with --config: a project's own baseURL would need trust (docs/SPEC.md §4.8).
        run = cli("-p", "hi", "-m", "openai:m", "-c", "agent.yml")
    assert run.code == 1 and run.out == "partial \n"  # what arrived, then why it stopped
    assert "saikish: openai: the answer was interrupted: no data from the server for 0.2s " \
           "(llm.timeout in agent.yml)" in run.err
    assert "Traceback" not in run.err


@pytest.mark.parametrize(("value", "said"), [
    ("0", "must be >= 0.001"), (".inf", "must be a finite number"),
    (".nan", "must be a finite number"), ("soon", "must be a number"),
])
def test_llm_timeout_must_be_a_positive_finite_number(cli: Callable[..., Run], ws: Path,
                                                      value: str, said: str) -> None:
    (ws / "agent.yml").write_text(f"llm:\n  timeout: {value}\n")
    run = cli("-p", "hi", "-m", "demo")
    assert run.code == 2 and "agent.yml:2: llm.timeout:" in run.err and said in run.err


@pytest.mark.parametrize("api", APIS)
def test_a_stream_labelled_as_json_is_still_read_as_a_stream(api: str) -> None:
    with serve(Reply(answer(api), headers={"content-type": "application/json"})) as s:
        turn, streamed = complete(model(api, s.url))
    assert turn.text == streamed == "partial "
