"""Resuming and compacting a long session (docs/SPEC.md §10.2, §10.3), as ratios measured
in one run.

Writes a 1,000-turn session the way saikish does (each turn: a prompt, an answer with
a bash call, its decision and result, a final answer, two model calls counted; one
whole line per event, redacted), then times, as medians over ROUNDS:

- appending one event (what every step of a session pays to survive a crash);
- resuming the session into an agent (read, replay, repair, lock) against a bare
  json.loads of every line of the same file;
- compacting it with a scripted summariser (a Model that answers at once), so the
  time is saikish's own: choosing what to keep, rendering and chunking the older
  turns, the summary calls, and recording the compaction.
"""

from __future__ import annotations

import json
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from saikish.config.layers import Config, LLMConfig
from saikish.cost import Spend
from saikish.models.base import AssistantMessage, Message, TextSink, ToolResults, UserMessage
from saikish.runtime.agent import Agent
from saikish.runtime.resume import resume
from saikish.sessions.catalog import read_info
from saikish.sessions.log import SessionLog
from saikish.sessions.records import (
    call_result_record,
    message_record,
    spend_record,
)
from saikish.tools.base import Tool
from saikish.types import StopReason, ToolCall, ToolResult, Turn, Usage

TURNS, ROUNDS = 1000, 5
OUTPUT = "\n".join(f"line {n}: some output of the command, as a test run prints it"
                   for n in range(40))  # about 2.5 KB, a typical command result


class Summariser:
    """A scripted model: every call is answered at once with a fixed summary."""

    name = "script:summariser"

    def __init__(self) -> None:
        self.calls = 0

    def complete(self, system: str, messages: Sequence[Message], tools: Sequence[Tool],
                 on_text: TextSink) -> Turn:
        self.calls += 1
        return Turn(text="The person asked for many small fixes; all were made and tested.",
                    usage=Usage(2000, 50))


def write_session(folder: Path) -> tuple[Path, float]:
    """A TURNS-turn session file; returns it and the median seconds to append one event."""
    log = SessionLog.new(folder, "bench", {"workspace": "/bench", "model": "openai:gpt-4.1"})
    durations = []
    for number in range(TURNS):
        call = ToolCall(f"call_{number}", "bash", {"command": f"pytest tests/test_{number}.py"})
        events = [
            message_record(UserMessage(f"please fix test {number}")),
            message_record(AssistantMessage(Turn(text="I'll run it.", tool_calls=(call,),
                                                 stop=StopReason.TOOL_USE))),
            spend_record(Spend("openai:gpt-4.1", Usage(20_000, 40, 18_000), 0.02)),
            {"type": "decision", "call": {"id": call.id, "name": "bash",
                                          "arguments": dict(call.arguments)},
             "decision": "approved", "source": "rule", "rule": "Bash(pytest *)"},
            call_result_record(ToolResult(call.id, "bash", OUTPUT)),
            message_record(ToolResults((ToolResult(call.id, "bash", OUTPUT),))),
            message_record(AssistantMessage(Turn(text=f"Test {number} passes now."))),
            spend_record(Spend("openai:gpt-4.1", Usage(22_000, 12, 20_000), 0.01)),
        ]
        for event in events:
            started = time.perf_counter()
            log.append(event)
            durations.append(time.perf_counter() - started)
    log.close()
    return log.path, statistics.median(durations)


def median(action: Callable[[], object]) -> float:
    """Median seconds of `action` over ROUNDS runs."""
    times = []
    for _ in range(ROUNDS):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def fresh_agent(workspace: str, model: Summariser) -> Agent:
    config = Config(llm=LLMConfig(context_window=128_000))
    return Agent.create(model, workspace=workspace, config=config, instructions=False)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder, workspace = Path(tmp) / "sessions", Path(tmp) / "work"
        workspace.mkdir()
        path, append_s = write_session(folder)
        info = read_info(path)
        assert info is not None

        def bare() -> None:
            [json.loads(line) for line in path.read_text().splitlines()]

        def resumed() -> None:
            agent = fresh_agent(str(workspace), Summariser())
            resume(agent, info)
            assert len(agent.messages) == 4 * TURNS
            agent.close()

        summaries: list[int] = []

        def compacted() -> None:
            copy = folder / f"copy{len(summaries)}.jsonl"  # a compaction is recorded in it
            shutil.copyfile(path, copy)
            copied = read_info(copy)
            assert copied is not None
            model = Summariser()
            agent = fresh_agent(str(workspace), model)
            resume(agent, copied)
            done = agent.compact("the failing tests")
            assert done is not None and len(agent.messages) < 4
            summaries.append(model.calls)
            agent.close()

        bare_s, resume_s, compact_s = median(bare), median(resumed), median(compacted)
    print(f"session: {TURNS:,} turns, {4 * TURNS:,} messages, {info.size / 1e6:.1f} MB, "
          f"{8 * TURNS:,} events")
    print(f"append one event:     {append_s * 1e6:8.0f} µs (one whole line, redacted)")
    print(f"bare json.loads:      {bare_s * 1000:8.1f} ms")
    print(f"resume:               {resume_s * 1000:8.1f} ms  ({resume_s / bare_s:.1f}x the bare "
          f"parse)")
    print(f"resume + compact:     {compact_s * 1000:8.1f} ms  ({compact_s / resume_s:.1f}x resume;"
          f" {summaries[0]} summariser calls for the older turns)")


if __name__ == "__main__":
    main()
