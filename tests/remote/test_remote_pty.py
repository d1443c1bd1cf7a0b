"""The terminal races the web page (docs/SPEC.md §7.5): saikish in a real pty, a real client."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

import pexpect
import pytest

from saikish.ui.prompt import READY_MARK
from tests.support.remote_client import BANNER, Client, Link
from tests.ui.test_pty import PROMPT, Shell, batch, shell, start

__all__ = ["shell"]  # the fixture, imported for the tests below
pytestmark = pytest.mark.slow  # real pseudo-terminals


def link_of(s: Shell) -> Link:
    """The link from the banner in the terminal (waiting for it if it is not there yet)."""
    if BANNER.search(s.log.getvalue()) is None:
        s.child.expect(BANNER.pattern)
    return Link.find(s.log.getvalue())


def test_a_web_answer_closes_the_box_and_says_so(shell: list[Shell], ws: Path,
                                                 tmp_path: Path) -> None:
    s = start(shell, batch("touch a"), tmp_path, "--remote")
    client = Client.open(link_of(s))
    s.say("go")
    s.box()
    client.answer(client.next("approval_needed"), True)
    s.on_screen("answered from the web page")
    s.on_screen("approved from the web page, once")
    s.on_screen("Second turn here.")
    assert (ws / "a").exists()
    client.close()
    # The prompt after the answer: on_screen may have read it already, so look in the log.
    deadline = time.monotonic() + 120
    while PROMPT not in s.log.getvalue().rpartition("Second turn here.")[2]:
        assert time.monotonic() < deadline, "the prompt never came back"
        with contextlib.suppress(pexpect.TIMEOUT):
            s.child.expect(r"[\s\S]+", timeout=0.2)
    assert s.quit(at_prompt=True) == 0


def test_a_web_no_closes_the_feedback_line_the_person_was_typing(
        shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, batch("touch a", "touch b"), tmp_path, "--remote")
    client = Client.open(link_of(s))
    s.say("go")
    s.box()
    question = client.next("approval_needed")
    s.press("n")
    s.expect("Tell the model why")
    client.answer(question, False, mode="reject_soft", feedback="from the phone")
    s.on_screen("rejected from the web page: from the phone")
    # The next call of the batch: the terminal asks it as usual. Waited for on the screen:
    # the wait above may already have read the whole box from the pty.
    s.on_screen("touch b")
    s.on_screen(READY_MARK)
    s.press("y")
    assert client.next("approval_resolved")["answeredBy"]["channel"] == "remote"
    resolved = client.next("approval_resolved")
    assert (resolved["answeredBy"], resolved["outcome"]) == (
        {"channel": "terminal", "client": None}, "approved")
    s.expect("Second turn here.")
    assert not (ws / "a").exists() and (ws / "b").exists()
    client.close()
    assert s.quit() == 0


def test_a_terminal_answer_is_told_to_the_page_and_a_late_click_is_refused(
        shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, batch("touch a"), tmp_path, "--remote")
    client = Client.open(link_of(s))
    s.say("go")
    s.box()
    question = client.next("approval_needed")
    s.press("y")
    resolved = client.next("approval_resolved")
    assert (resolved["answeredBy"]["channel"], resolved["outcome"]) == ("terminal", "approved")
    client.answer(question, False)  # too late: the terminal answered first
    assert client.next("error")["code"] == "already_answered"
    s.expect("Second turn here.")
    assert (ws / "a").exists()
    client.close()
    assert s.quit() == 0


def test_slash_remote_starts_the_server_and_off_stops_it(shell: list[Shell], ws: Path,
                                                         tmp_path: Path) -> None:
    s = start(shell, batch("touch a"), tmp_path)
    s.say("/remote")
    client = Client.open(link_of(s))
    assert client.next("session_started")["autonomy"] == "cautious"
    s.say("/remote off")
    ended = client.next("session_ended")
    assert ended["reason"] == "stopped at the terminal (/remote off)"
    s.say("go")  # the terminal alone asks again
    s.box()
    s.press("y")
    s.expect("Second turn here.")
    assert (ws / "a").exists()
    client.close()
    assert s.quit() == 0
