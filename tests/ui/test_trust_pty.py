"""The trust question on a real terminal, before the REPL starts (docs/SPEC.md §4.8)."""

from __future__ import annotations

import io
import os
import sys
from pathlib import Path

import pexpect

QUESTION = "Trust this file and apply them?"


def spawn(tmp: Path) -> tuple[pexpect.spawn, io.StringIO]:
    script = tmp / "s.yml"
    script.write_text("- text: Hi.\n")
    env = {**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1"}
    child = pexpect.spawn(sys.executable, ["-m", "saikish", "-m", f"script:{script}"],
                          env=env, encoding="utf-8", timeout=120, dimensions=(40, 120))
    log = io.StringIO()
    child.logfile_read = log
    return child, log


def quit_repl(child: pexpect.spawn) -> int:
    child.expect_exact("›")
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    return int(child.exitstatus)


def test_first_start_shows_exactly_the_ignored_settings_and_asks(ws: Path,
                                                                  tmp_path: Path) -> None:
    (ws / "agent.yml").write_text("llm:\n  baseURL: http://127.0.0.1:9/v1\n"
                                  "permissions:\n  deny: [Bash(rm *)]\n  allow: [Bash(make *)]\n")
    child, log = spawn(tmp_path)
    child.expect_exact(QUESTION)
    shown = log.getvalue()
    assert "line 2: llm.baseURL: http://127.0.0.1:9/v1  (redirects credentials)" in shown
    assert "line 5: permissions.allow: Bash(make *)  (loosens approvals)" in shown
    assert "deny" not in shown  # a deny rule only tightens: applied, not asked about
    child.send("y\r")
    child.expect_exact("trusted: the project's settings apply")
    assert quit_repl(child) == 0
    # Trusted for these bytes: the next start goes straight to the REPL.
    child, log = spawn(tmp_path)
    assert quit_repl(child) == 0
    assert QUESTION not in log.getvalue() and "ignored" not in log.getvalue()


def test_answering_no_keeps_the_settings_ignored_and_is_remembered(ws: Path,
                                                                   tmp_path: Path) -> None:
    (ws / "agent.yml").write_text("toolConfirmation:\n  mode: auto-approve\n")
    child, log = spawn(tmp_path)
    child.expect_exact(QUESTION)
    child.send("\r")  # Enter: the default is No
    child.expect_exact("not trusted")
    child.expect_exact("1 setting ignored")
    assert quit_repl(child) == 0
    child, log = spawn(tmp_path)
    child.expect_exact("1 setting ignored")  # still said, no longer asked
    assert quit_repl(child) == 0
    assert QUESTION not in log.getvalue()


def test_slash_config_shows_where_each_setting_comes_from(ws: Path, tmp_path: Path) -> None:
    (ws / "agent.yml").write_text("toolConfirmation:\n  autonomy: manual\n")
    child, log = spawn(tmp_path)
    child.expect_exact("›")
    child.send("/config\r")
    child.expect_exact("toolConfirmation.autonomy")
    child.expect_exact("manual")
    child.expect_exact("./agent.yml:2")
    assert quit_repl(child) == 0
