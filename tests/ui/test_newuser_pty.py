"""Slips a new user meets in the REPL, in a real pty (docs/SPEC.md §8.1, §9)."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.ui.test_pty import PROMPT, Shell, start

pytestmark = pytest.mark.slow  # each test starts saikish in a real pseudo-terminal

QUIET = "- text: Fine.\n"


@pytest.fixture
def shells() -> Iterator[list[Shell]]:
    """The shells a test started; none outlives it."""
    started: list[Shell] = []
    yield started
    for each in started:
        each.child.close(force=True)


def test_model_demo_never_runs_in_the_project(shells: list[Shell], ws: Path,
                                              tmp_path: Path) -> None:
    (ws / "notes.md").write_text("my own notes\n", encoding="utf-8")
    s = start(shells, QUIET, tmp_path)
    s.say("/model demo")
    index = s.child.expect_exact(["scratch directory of its own", "model: demo"])
    assert index == 0, "the demo model was switched on inside the project"
    s.say("show me around")
    s.expect("Fine.")
    assert s.quit() == 0
    assert (ws / "notes.md").read_text(encoding="utf-8") == "my own notes\n"


def test_session_start_hooks_run_when_the_repl_starts(shells: list[Shell], ws: Path,
                                                      tmp_path: Path) -> None:
    config = tmp_path / "agent.yml"
    config.write_text("hooks:\n  SessionStart:\n    - hooks:\n        - type: command\n"
                      "          command: \"echo \\\"$SAIKISH_PROJECT_DIR\\\" > started.txt\"\n",
                      encoding="utf-8")
    s = start(shells, QUIET, tmp_path, "-c", str(config))
    assert (ws / "started.txt").read_text(encoding="utf-8") == f"{ws}\n"  # nothing sent yet
    assert s.quit(at_prompt=True) == 0


def _piece(text: str) -> bytes:
    return f'data: {json.dumps({"choices": [{"delta": {"content": text}}]})}\n\n'.encode()


def test_ctrl_c_while_an_answer_streams_leaves_the_partial_line_once(
        shells: list[Shell], tmp_path: Path) -> None:
    from tests.support.wire_server import Reply, serve

    first = _piece("Thinking hard")
    stalled = Reply(first + _piece(" about it"), split=lambda b: [b[:len(first)],
                                                                  b[len(first):]], delay=30)
    with serve(stalled) as server:
        env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": f"{server.url}/v1"}
        s = Shell("", tmp_path, env=env, model="openai:test")
        shells.append(s)
        s.say("first question")
        s.expect("Thinking hard")
        s.child.sendcontrol("c")
        s.expect("cancelled")
        s.expect(PROMPT)
        shown = [line for line in s.screen() if line.strip()]
        # The terminal's own "^C" echo pushed the live line down, and it was drawn again.
        assert sum("Thinking hard" in line for line in shown) == 1, "\n".join(shown)
        assert not any("^C" in line for line in shown), "\n".join(shown)


def test_keys_typed_while_a_command_runs_stay_out_of_the_transcript(
        shells: list[Shell], ws: Path, tmp_path: Path) -> None:
    waits = "touch started; while [ ! -e go ]; do sleep 0.05; done; echo finished"
    s = start(shells, f"- tool_calls: [{{name: bash, arguments: {{command: '{waits}'}}}}]\n"
                      "- text: All done.\n", tmp_path, "--autonomy", "supervised")
    s.say("go")
    deadline = time.monotonic() + 30
    while not (ws / "started").exists():
        assert time.monotonic() < deadline, "the command never started"
        with contextlib.suppress(pexpect.TIMEOUT):
            s.child.expect(r"[\s\S]+", timeout=0.1)
    s.press("typed ahead")
    (ws / "go").touch()
    s.expect("All done.")
    s.expect(PROMPT)
    s.on_screen(f"{PROMPT} typed ahead")  # waiting at the next prompt
    shown = [line for line in s.screen() if line.strip()]
    # Kept for the next prompt, never written among the results.
    assert [line for line in shown if "typed ahead" in line and not line.startswith(PROMPT)] \
        == [], "\n".join(shown)
