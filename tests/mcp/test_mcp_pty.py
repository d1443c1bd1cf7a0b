"""MCP tools in the REPL, in a real pseudo-terminal (docs/SPEC.md §5.1, §7.1, §9).

The box of an MCP call shows the server, the tool, its description, which
annotations set its risk and the arguments as JSON; `/mcp` lists servers and
tools; Ctrl-C during a slow call cancels it on the server and the session goes on.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Callable
from pathlib import Path

import pexpect
import pytest

from tests.mcp.test_mcp_e2e import calls_script, server_config, tag
from tests.support.harness import Run
from tests.ui.test_pty import PATIENCE, Shell, shell, start

__all__ = ["shell", "tag"]  # the fixtures

pytestmark = pytest.mark.slow  # each test starts saikish in a real pseudo-terminal


@pytest.fixture
def shells(tag: str, shell: list[Shell]) -> list[Shell]:
    """test_pty's shells, closed before `tag` checks that no server outlived them."""
    return shell


def until_ready(s: Shell, line: str = "fx ready") -> None:
    """Ask /mcp until `line` is on the screen (a server starts once the first prompt is
    drawn, and fails or gets ready when it will: on a loaded machine that takes long)."""
    deadline = time.monotonic() + 2 * PATIENCE
    while True:
        s.say("/mcp")
        s.expect("›")
        if line in "\n".join(s.screen()):
            return
        assert time.monotonic() < deadline, "\n".join(s.screen())
        time.sleep(0.25)  # between two looks, not instead of one


def at_prompt(s: Shell, seconds: float = PATIENCE) -> None:
    """Wait until the last line on the screen is an empty prompt."""
    deadline = time.monotonic() + seconds
    while [row for row in s.screen() if row.strip()][-1:] != ["›"]:
        assert time.monotonic() < deadline, "\n".join(s.screen())
        with contextlib.suppress(pexpect.TIMEOUT):
            s.child.expect(r"[\s\S]+", timeout=0.2)


def _script(tmp: Path, model: str) -> str:
    return Path(model.removeprefix("script:")).read_text()


def test_the_box_shows_server_tool_risk_basis_and_arguments(
        shells: list[Shell], tmp_path: Path, ws: Path, tag: str) -> None:
    cfg = server_config(tmp_path, ws, env={"FIXTURE_TAG": tag})
    model = calls_script(tmp_path, ("mcp__fx__write_note", {"name": "n.txt", "text": "hello"}))
    s = start(shells, _script(tmp_path, model), tmp_path, "-c", cfg)
    until_ready(s)
    s.on_screen("fx ready · 14 tools")
    s.on_screen("mcp__fx__write_note")  # the last tool: the table is whole
    rows = s.screen()
    assert any("mcp__fx__write_note" in row and " WRITE " in row for row in rows), \
        "\n".join(rows)
    assert any("mcp__fx__delete_all" in row and " DESTRUCTIVE " in row for row in rows)
    s.say("go")
    s.box()
    screen = "\n".join(s.screen())
    for part in ("mcp__fx__write_note · WRITE", "server:", "fx (stdio:", "tool:", "write_note",
                 "description:", "risk from:", "destructiveHint: false",
                 "readOnlyHint: false (trusted)", '"name": "n.txt"',
                 "always would allow: mcp__fx__write_note"):
        assert part in screen, f"{part!r} not in the box:\n{screen}"
    s.press("y")
    s.expect("All done.")
    assert (ws / "n.txt").read_text() == "hello"
    assert s.quit() == 0


def test_ctrl_c_cancels_a_slow_call_on_the_server_and_the_session_goes_on(
        shells: list[Shell], tmp_path: Path, ws: Path, tag: str) -> None:
    cfg = server_config(tmp_path, ws, allow=("mcp__fx",), env={"FIXTURE_TAG": tag})
    slow = {"name": "mcp__fx__slow", "arguments": {"steps": 200, "delay": 0.1}}
    echo = {"name": "mcp__fx__echo", "arguments": {"text": "still here"}}
    turns = [{"text": "Slow.", "tool_calls": [slow]}, {"text": "Then echo.", "tool_calls": [echo]},
             {"text": "All done."}]
    s = start(shells, json.dumps(turns), tmp_path, "-c", cfg)
    until_ready(s)
    s.say("go")
    s.on_screen("⋯ mcp__fx__slow: 2/200 step 2")  # the live progress line
    s.press("\x03")
    s.on_screen("interrupted")
    at_prompt(s)
    assert (ws / "cancelled.txt").read_text().splitlines() == ["slow"]
    s.say("again")  # the server is still there: the next call runs
    s.expect("still here")
    s.expect("All done.")
    assert s.quit(at_prompt=False) == 0


def test_a_rug_pull_is_asked_in_the_box_with_what_changed(
        shells: list[Shell], tmp_path: Path, ws: Path, tag: str,
        cli: Callable[..., Run]) -> None:
    model = calls_script(tmp_path, ("mcp__fx__echo", {"text": "hi"}))
    cfg = server_config(tmp_path, ws, allow=("mcp__fx",), env={"FIXTURE_TAG": tag})
    assert cli("-c", cfg, "-m", model, "-p", "go").code == 0  # approved once: pinned
    cfg = server_config(tmp_path, ws, allow=("mcp__fx",),
                        env={"FIXTURE_TAG": tag, "FIXTURE_VARIANT": "changed"})
    s = start(shells, _script(tmp_path, model), tmp_path, "-c", cfg)
    until_ready(s)
    s.say("go")
    s.box()
    screen = " ".join(line.strip() for line in s.screen())
    assert "mcp__fx__echo changed since a call of it was approved" in screen
    assert "input schema (+loud)" in screen
    s.press("y")  # approved again: the rule covers it from now on
    s.expect("All done.")
    assert s.quit() == 0
