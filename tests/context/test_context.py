"""The context window (docs/SPEC.md §10.3): known from agent.yml, the server or the table;
older turns compacted near the limit with calls kept beside their results; a result too
big on its own cut; a request the server refuses compacted and sent once more."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from saikish.config.layers import Config, LLMConfig
from saikish.context.compaction import HEADER, SUMMARY_SYSTEM, cut_result, plan
from saikish.context.probe import window_from_models, window_from_ollama, window_from_props
from saikish.context.tokens import messages_tokens
from saikish.context.window import ContextWindow, window_from_error
from saikish.errors import ModelError
from saikish.events import Compacted, Notice
from saikish.models.base import (
    AssistantMessage,
    Message,
    TextSink,
    ToolResults,
    UserMessage,
)
from saikish.models.openai_compat import OpenAICompatModel
from saikish.runtime.agent import Agent
from saikish.sessions.log import SessionLog
from saikish.sessions.records import message_record
from saikish.sessions.replay import read_records, repair, replay
from saikish.tools.base import Tool
from saikish.types import Mode, StopReason, ToolCall, ToolResult, Turn, Usage
from tests.models.test_providers import chunk, sse
from tests.support.harness import SHARED
from tests.support.wire_server import Reply, serve


def asked(text: str, answer: str) -> list[Message]:
    return [UserMessage(text), AssistantMessage(Turn(text=answer))]


def step(call_id: str, content: str) -> list[Message]:
    call = ToolCall(call_id, "bash", {"command": "ls"})
    return [AssistantMessage(Turn(tool_calls=(call,), stop=StopReason.TOOL_USE)),
            ToolResults((ToolResult(call_id, "bash", content),))]


def test_a_plan_never_parts_a_call_from_its_result() -> None:
    messages = [*asked("q1", "a" * 400), UserMessage("q2"), *step("c1", "x" * 400),
                *step("c2", "y" * 400), AssistantMessage(Turn(text="done"))]
    for keep in range(1, messages_tokens(messages) + 50, 7):
        chosen = plan(messages, keep)
        assert chosen is not None and chosen.older and chosen.kept
        assert not isinstance(chosen.kept[0], ToolResults), keep
        assert repair([*chosen.kept])[1] == 0  # every kept call has its result after it
        assert list(chosen.older) + list(chosen.kept) == messages or chosen.shortened


def test_a_plan_keeps_at_least_the_last_step_and_cuts_its_results_to_fit() -> None:
    messages = [*asked("q1", "short"), UserMessage("q2"), *step("c1", "z" * 40_000)]
    chosen = plan(messages, 500)
    assert chosen is not None
    assert [type(m).__name__ for m in chosen.kept] == ["AssistantMessage", "ToolResults"]
    content = chosen.shortened["c1"]
    assert len(content) < 4000 and "characters cut here (compacting)" in content
    assert content.startswith("zzz") and content.endswith("zzz")  # head and tail kept


def test_nothing_older_means_no_plan() -> None:
    assert plan([UserMessage("only this")], 10) is None
    assert plan([], 10) is None


def test_a_cut_result_says_how_much_went_and_why() -> None:
    cut = cut_result("a" * 100 + "b" * 100, 90, "too long on its own")
    assert cut.startswith("a" * 60) and cut.endswith("b" * 30)
    assert "[saikish: 110 characters cut here (too long on its own)" in cut


ERRORS = SHARED / "wire" / "errors"


@pytest.mark.parametrize(("fixture", "window"), [
    ("openai_400_context_length", 272000), ("anthropic_400_prompt_too_long", 200000),
    ("llamacpp_400_exceed_context", 16384), ("deepseek_400_context_length", 131072),
])
def test_the_window_named_in_a_servers_error(fixture: str, window: int) -> None:
    body = json.loads((ERRORS / f"{fixture}.error.json").read_text())["body"]
    assert window_from_error(json.loads(body)["error"]["message"]) == window


def test_what_local_servers_say_about_their_window() -> None:
    assert window_from_props({"default_generation_settings": {"n_ctx": 4096}}) == 4096
    assert window_from_props({"n_ctx": 2048}) == 2048
    assert window_from_props({"n_ctx": "big"}) is None
    models = {"data": [{"id": "other", "max_model_len": 1}, {"id": "m", "max_model_len": 8192}]}
    assert window_from_models(models, "m") == 8192
    assert window_from_models({"data": [{"id": "m", "meta": {"n_ctx": 512}}]}, "m") == 512
    assert window_from_models(models, "absent") is None
    assert window_from_ollama({"models": [{"name": "qwen3:8b", "context_length": 8192}]},
                              None, "qwen3:8b") == 8192
    assert window_from_ollama({"models": []}, {"parameters": "stop x\nnum_ctx 16384\n"},
                              "qwen3:8b") == 16384
    assert window_from_ollama(None, {"parameters": 5}, "qwen3:8b") is None


def test_the_limit_leaves_room_for_the_answer() -> None:
    assert ContextWindow(200_000, "table").limit == 170_000  # 85%
    assert ContextWindow(4096, "server").limit == 3481
    small = ContextWindow(1000, "server")
    small.learn(estimate=100, counted=200)  # the server counts twice what we guessed
    assert small.full(450) and not small.full(400)


# -- compaction in a running agent --------------------------------------------------------

@dataclass
class Chatty:
    """A model that answers at length, runs `ls` once, and writes scripted summaries."""

    answer_chars: int = 2000
    name: str = "chatty"
    summaries: list[str] = field(default_factory=list)  # the prompts it summarised
    fail_summary: bool = False
    calls: int = 0

    def complete(self, system: str, messages: Sequence[Message], tools: Sequence[Tool],
                 on_text: TextSink) -> Turn:
        if system == SUMMARY_SYSTEM:
            assert tools == [], "a summary is written without tools"
            self.summaries.append(str(getattr(messages[0], "text", "")))
            if self.fail_summary:
                raise ModelError("chatty: the summariser is down")
            return Turn(text=f"SUMMARY {len(self.summaries)}", usage=Usage(300, 20))
        self.calls += 1
        last = messages[-1]
        if isinstance(last, UserMessage) and "list" in last.text:
            call = ToolCall(f"c{self.calls}", "bash", {"command": "seq 1 6000"})
            return Turn(tool_calls=(call,), stop=StopReason.TOOL_USE)
        text = f"answer {self.calls} " + "w" * self.answer_chars
        on_text(text)
        return Turn(text=text, usage=Usage(0, 500))  # no prompt count: estimates stand


def chatty_agent(ws: Path, model: Chatty, window: int = 4096) -> tuple[Agent, list[Any]]:
    config = Config(llm=LLMConfig(context_window=window))
    agent = Agent.create(model, workspace=ws, config=config, mode=Mode.AUTO_APPROVE)
    seen: list[Any] = []
    agent.subscribe(seen.append)
    return agent, seen


def test_older_turns_are_compacted_before_the_window_fills(ws: Path, tmp_path: Path) -> None:
    model = Chatty()
    agent, seen = chatty_agent(ws, model)
    agent.record_to(SessionLog.new(tmp_path / "sessions", "s1", {"workspace": str(ws)}))
    assert agent.transcript_path == tmp_path / "sessions" / "s1.jsonl"
    for number in range(1, 9):
        assert agent.send(f"question {number}").exit_reason == "finished"
        keeper = agent.calls.keeper
        assert keeper is not None and not keeper.full(keeper.estimated)  # no request too big
    compactions = [e for e in seen if isinstance(e, Compacted)]
    assert compactions and all(e.reason == "auto" for e in compactions)
    assert compactions[0].after_tokens < compactions[0].before_tokens
    assert any("the context window is" in e.text for e in seen if isinstance(e, Notice))
    first = agent.messages[0]
    assert isinstance(first, UserMessage) and first.text.startswith(HEADER)
    assert "SUMMARY" in first.text
    assert "question 1" in model.summaries[0]  # the older turns went to the summariser
    assert agent.messages[-2] == UserMessage("question 8")  # the recent turn stays as it was
    # The session file replays to the very conversation the model is given.
    replayed = replay(read_records(tmp_path / "sessions" / "s1.jsonl"))
    assert [message_record(m) for m in replayed.messages] == \
        [message_record(m) for m in agent.messages]
    # The summaries were model calls too: counted in tokens (and dollars where priced).
    assert sum(1 for s in agent.meter.calls if s.usage == Usage(300, 20)) == len(compactions)


def test_compact_on_request_with_a_focus(ws: Path) -> None:
    model = Chatty(answer_chars=100)
    agent, seen = chatty_agent(ws, model, window=200_000)
    assert agent.compact() is None  # nothing yet
    for number in range(3):
        agent.send(f"q{number}")
    done = agent.compact("the database schema")
    assert done is not None and done.summarized >= 2
    assert "focus on: the database schema" in model.summaries[-1]
    assert [e.reason for e in seen if isinstance(e, Compacted)] == ["request"]


def test_a_result_too_big_on_its_own_is_cut_with_a_note(ws: Path) -> None:
    agent, _ = chatty_agent(ws, Chatty(), window=4096)
    agent.send("list the numbers")
    results = [m for m in agent.messages if isinstance(m, ToolResults)]
    content = results[0].results[0].content
    assert "too long on its own" in content and "the model's context window" in content
    assert len(content) < 0.3 * 4096 * 4 + 300  # about 30% of the window at most
    assert content.startswith("1\n2\n3\n") and "6000" in content  # head and tail


def test_a_summariser_that_fails_never_ends_the_session(ws: Path) -> None:
    model = Chatty(fail_summary=True)
    agent, seen = chatty_agent(ws, model)
    for number in range(8):
        assert agent.send(f"question {number}").exit_reason == "finished"
    failed = [e for e in seen if isinstance(e, Compacted)]
    assert failed and "the summariser is down" in failed[0].failure
    first = agent.messages[0]
    assert isinstance(first, UserMessage) and "- question 0" in first.text  # goals kept


# -- real servers -------------------------------------------------------------------------

TOO_LONG = json.dumps({"error": {
    "code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": 1500, "n_ctx": 1024,
    "message": "request (1500 tokens) exceeds the available context size (1024 tokens), "
               "try increasing it"}}).encode()
JSON = {"content-type": "application/json"}


def said(text: str) -> Reply:
    return Reply(sse(chunk(content=text), chunk(finish="stop")))


def http_agent(url: str, ws: Path) -> tuple[Agent, list[Any]]:
    model = OpenAICompatModel("openai", "test-model", "sk-test", f"{url}/v1")
    model.remote.sleep = lambda seconds: None
    agent = Agent.create(model, workspace=ws, mode=Mode.AUTO_APPROVE)
    seen: list[Any] = []
    agent.subscribe(seen.append)
    return agent, seen


def test_a_request_the_server_refuses_as_too_long_is_compacted_and_sent_again(
        ws: Path) -> None:
    with serve(said("first answer"), Reply(TOO_LONG, status=400, headers=JSON),
               said("what was said before"), said("second answer")) as s:
        agent, seen = http_agent(s.url, ws)
        agent.send("one")
        result = agent.send("two")
        requests = s.requests
    assert (result.exit_reason, result.text) == ("finished", "second answer")
    assert len(requests) == 4
    summary_request = requests[2]
    assert summary_request["messages"][0]["content"] == SUMMARY_SYSTEM
    assert "tools" not in summary_request and "one" in summary_request["messages"][1]["content"]
    retried = requests[3]["messages"]
    assert retried[1]["content"].startswith(HEADER) and retried[-1]["content"] == "two"
    assert [e.reason for e in seen if isinstance(e, Compacted)] == ["overflow"]
    keeper = agent.calls.keeper
    assert keeper is not None and (keeper.window.tokens, keeper.window.source) == (1024,
                                                                                  "learned")


def test_a_server_that_reports_a_small_window_is_believed(ws: Path) -> None:
    pages = {"/props": {"default_generation_settings": {"n_ctx": 4096}}}
    answers = [said(f"answer {n} " + "v" * 2400) for n in range(12)]
    with serve(*answers, pages=pages) as s:
        agent, seen = http_agent(s.url, ws)
        for number in range(8):
            assert agent.send(f"question {number}").exit_reason == "finished"
        requests, paths = s.requests, s.paths
    keeper = agent.calls.keeper
    assert keeper is not None and (keeper.window.tokens, keeper.window.source) == (4096,
                                                                                  "server")
    assert paths.count("/props") == 1  # asked once
    summaries = [r for r in requests if r["messages"][0]["content"] == SUMMARY_SYSTEM]
    assert summaries and any(isinstance(e, Compacted) for e in seen)
    for request in requests:  # nothing the server would refuse was ever sent
        assert len(json.dumps(request["messages"])) / 4 < 4096 * 0.85
