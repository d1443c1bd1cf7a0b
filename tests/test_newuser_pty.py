"""Slips a new user meets in the REPL, in a real pty (docs/SPEC.md §8.1, §9)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_pty import Shell, start

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
