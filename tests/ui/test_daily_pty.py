"""Daily use in a real pseudo-terminal (docs/SPEC.md §9, §10): the status line and /cost,
/transcript, /clear and /resume, --resume's list, /init, /compact."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pytest

from tests.models.test_providers import chunk, sse
from tests.support.harness import Run, write_script
from tests.support.wire_server import Reply, serve
from tests.ui.test_pty import PROMPT, Shell, start

pytestmark = pytest.mark.slow  # each test starts saikish in a real pseudo-terminal


@pytest.fixture
def shells() -> Iterator[list[Shell]]:
    """The saikish processes a test started; none outlives it."""
    made: list[Shell] = []
    yield made
    for each in made:
        each.child.close(force=True)

ONE_CALL = """\
- text: Looking.
  tool_calls:
    - {name: bash, arguments: {command: "echo from-the-call"}}
- text: First answer.
- text: Second answer.
- text: Third answer.
- text: The summary of it all.
- text: Fourth answer.
"""


def test_the_status_line_and_cost_show_tokens_dollars_and_context(
        shells: list[Shell], tmp_path: Path) -> None:
    usage = {"prompt_tokens": 1000, "completion_tokens": 100,
             "prompt_tokens_details": {"cached_tokens": 800}}
    answer = sse(chunk(content="priced answer"), {"choices": [], "usage": usage},
                 chunk(finish="stop"))
    with serve(Reply(answer)) as server:
        env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": f"{server.url}/v1"}
        s = Shell("", tmp_path, env=env, model="openai:gpt-4.1")
        shells.append(s)
        s.say("hello")
        # gpt-4.1: 200 plain at $2, 800 cached at $0.50, 100 out at $8 per million tokens
        s.on_screen("↑ 1,000 (800 cached) ↓ 100 tokens · $0.0016 · context")
        s.say("/cost")
        s.on_screen("this session: 1 model call · ↑ 1,000 (800 cached) ↓ 100 tokens · $0.0016")
        s.on_screen("of 1,047,576 tokens (table); older turns are compacted at 85%")
        assert s.quit(at_prompt=True) == 0  # on_screen read the prompt already


def test_transcript_shows_calls_decisions_and_results_in_the_pager(
        shells: list[Shell], tmp_path: Path) -> None:
    s = start(shells, ONE_CALL, tmp_path, env={"PAGER": "cat"})
    s.say("look around")
    s.expect("First answer.")
    s.expect(PROMPT)
    s.say("/transcript")
    for part in ("› look around", "⏺ bash echo from-the-call", "✓ approved · by autonomy",
                 "│ from-the-call", "First answer."):
        s.on_screen(part)
    assert s.quit(at_prompt=True) == 0


def test_clear_starts_a_new_session_and_resume_goes_back(shells: list[Shell],
                                                          tmp_path: Path) -> None:
    s = start(shells, ONE_CALL, tmp_path)
    # Each line is typed at its prompt, as a person does (this test is about /clear and
    # /resume; a line typed ahead during a turn once went missing here under load).
    s.say("alpha question")
    s.expect("First answer.")
    s.expect(PROMPT)
    s.say("/clear")
    s.expect("conversation cleared; new session ")
    s.expect(PROMPT)
    s.say("beta question")
    s.expect("Second answer.")
    s.expect(PROMPT)
    s.say("/resume")
    s.expect("resume which session?")
    s.on_screen("alpha question")
    assert "beta question" not in "\n".join(s.screen()[-8:])  # the session going on is not listed
    s.press("1\r")
    s.expect("resumed session")
    s.on_screen("(4 messages)")
    assert s.quit(at_prompt=True) == 0
    folder = tmp_path / "state" / "sessions"
    assert len(list(folder.glob("*.jsonl"))) == 2


def test_resume_without_an_id_lists_this_workspaces_sessions(
        cli: Callable[..., Run], tmp_path: Path) -> None:
    assert cli("-p", "the earlier question", "-m",
               write_script(tmp_path / "s.yml", ONE_CALL)).code == 0
    (tmp_path / "s.yml").write_text(ONE_CALL)
    child = pexpect.spawn(sys.executable, ["-m", "saikish", "-m",
                                           f"script:{tmp_path / 's.yml'}", "--resume"],
                          env={**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"},
                          encoding="utf-8", timeout=20, dimensions=(40, 120))
    try:
        child.expect_exact("the earlier question")
        child.expect_exact("resume which session?")
        child.send("\r")  # Enter: the newest
        child.expect_exact("resumed session")
        child.expect_exact("last prompt: the earlier question")  # where it stands
        child.expect_exact("First answer.")  # the answer the -p run ended with
        child.expect_exact(PROMPT)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 0


def test_init_shows_a_starter_and_writes_it_only_on_yes(shells: list[Shell], ws: Path,
                                                        tmp_path: Path) -> None:
    (ws / "package.json").write_text(json.dumps({"scripts": {"test": "jest"}}))
    s = start(shells, ONE_CALL, tmp_path)
    s.say("/init")
    s.expect("write AGENTS.md? [y/N]")
    s.on_screen("- Test: `npm test`")
    s.press("n\r")
    s.expect("nothing written")
    s.expect(PROMPT)
    assert not (ws / "AGENTS.md").exists()
    s.say("/init")
    s.expect("write AGENTS.md? [y/N]")
    s.press("y\r")
    s.expect("the model reads it from the next message on")
    s.expect(PROMPT)
    assert "- Test: `npm test`" in (ws / "AGENTS.md").read_text()
    s.say("/init")
    s.expect("exists already")
    assert s.quit() == 0


def test_compact_summarises_on_request(shells: list[Shell], tmp_path: Path) -> None:
    s = start(shells, ONE_CALL, tmp_path)
    s.say("/compact")
    s.expect("nothing to compact yet")
    s.expect(PROMPT)  # each line at its prompt, as a person types
    for word in ("one", "two", "three"):
        s.say(word)
        s.expect("answer.")
        s.expect(PROMPT)
    s.say("/compact the tests")
    s.expect("older messages into a summary")
    s.expect(PROMPT)
    s.say("four")
    s.expect("Fourth answer.")
    assert s.quit() == 0
