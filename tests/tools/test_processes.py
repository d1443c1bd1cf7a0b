"""Processes never outlive their call (issue 15): setsid escapes, SIGTERM-ignoring children,
timeouts capped by tools.bashTimeout, and saikish itself ended by SIGTERM, SIGHUP or Ctrl-C.

Every test names its processes with a unique marker (`sleep 1000.NNNN`) and asks
`pgrep -f` whether any is left.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from saikish.tools import RunContext, builtin_tools
from saikish.tools.base import validate
from saikish.tools.sandbox.reaper import MARKER_VARIABLE, end_all
from tests.support.harness import Run, write_script

BASH = builtin_tools()["bash"]


def marker() -> str:
    """A sleep that is ours alone: `sleep 1000.<random digits>`."""
    return f"sleep 1000.{random.randrange(10**9):09d}"


def left(pattern: str) -> list[str]:
    found = subprocess.run(["pgrep", "-af", pattern], capture_output=True, text=True)
    return [line for line in found.stdout.splitlines() if "pgrep" not in line]


def gone(pattern: str, seconds: float = 60.0) -> list[str]:
    """What still matches after up to `seconds` (a child forked as the call ended is found
    by the reaper's second look and given the same grace)."""
    deadline = time.monotonic() + seconds
    while left(pattern) and time.monotonic() < deadline:
        time.sleep(0.05)
    return left(pattern)


def wait_for(pattern: str, count: int = 1) -> None:
    """Until `count` processes match (the command got going); fails after 120 s."""
    deadline = time.monotonic() + 120
    while len(left(pattern)) < count:
        assert time.monotonic() < deadline, f"{pattern} never started"
        time.sleep(0.02)


@pytest.mark.parametrize(("command", "why"), [
    ("setsid {m} > /dev/null 2>&1 &", "escaped into its own session"),
    ("(trap '' TERM; exec {m}) > /dev/null 2>&1 &", "ignores SIGTERM"),
    ("setsid bash -c \"trap '' TERM; exec {m}\" > /dev/null 2>&1 &", "both"),
    ("nohup {m} > /dev/null 2>&1 &", "ignores SIGHUP"),
])
def test_nothing_a_finished_command_started_is_left(ws: Path, command: str, why: str) -> None:
    m = marker()
    output = BASH.run({"command": command.format(m=m) + " echo started"}, RunContext(str(ws)))
    assert output.text.startswith("started"), why
    assert gone(m) == [], why


def test_a_timeout_ends_children_that_escaped_and_ignore_sigterm(ws: Path) -> None:
    m = marker()
    command = f"setsid bash -c \"trap '' TERM; exec {m}\" & trap '' TERM; {m}"
    output = BASH.run({"command": command, "timeout": 0.5}, RunContext(str(ws)))
    assert output.is_error and "killed after the timeout of 0.5s" in output.text
    assert left(m) == []


@pytest.mark.parametrize(("asked", "ran", "said"), [
    (1e9, 0.5, "killed after the timeout of 0.5s (tools.bashTimeout caps the 1e+09s asked"),
    (0.2, 0.2, "killed after the timeout of 0.2s]"),
    (None, 0.5, "killed after the timeout of 0.5s]"),
])
def test_the_model_cannot_ask_for_more_than_bash_timeout(ws: Path, asked: float | None,
                                                         ran: float, said: str) -> None:
    args = {"command": "sleep 30"} | ({"timeout": asked} if asked is not None else {})
    started = time.monotonic()
    output = BASH.run(args, RunContext(str(ws), bash_timeout=0.5))
    assert said in output.text and output.is_error
    assert time.monotonic() - started < 25  # not 30 s, let alone 1e9


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_a_timeout_that_is_not_finite_is_an_invalid_call(ws: Path, value: float) -> None:
    problem = validate(BASH.schema, {"command": "ls", "timeout": value})
    assert problem == f"argument 'timeout' must be a finite number, not {value}"
    output = BASH.run({"command": "touch ran", "timeout": value}, RunContext(str(ws)))
    assert output.is_error and "finite number" in output.text and not (ws / "ran").exists()


def test_a_multibyte_character_split_across_reads_survives(ws: Path) -> None:
    # 65535 ASCII bytes, then a 3-byte character: the first read ends inside it.
    command = "head -c 65535 /dev/zero | tr '\\0' a; printf '\\342\\230\\203 done'"
    output = BASH.run({"command": command}, RunContext(str(ws), output_limit=200_000))
    assert "a\u2603 done" in output.text and "\ufffd" not in output.text


def test_a_missing_workspace_is_an_error_result(tmp_path: Path) -> None:
    output = BASH.run({"command": "ls"}, RunContext(str(tmp_path / "gone")))
    assert output.is_error and output.text.startswith("cannot start bash:")


# -- saikish itself ended while a command runs ----------------------------------------

def start_saikish(tmp_path: Path, command: str) -> subprocess.Popen[str]:
    script = write_script(tmp_path / "s.yml", "- tool_calls:\n    - {name: bash, arguments: "
                                              f"{{command: {json.dumps(command)}}}}}\n")
    return subprocess.Popen(
        [sys.executable, "-m", "saikish", "-p", "go", "-m", script, "--autonomy", "full-auto",
         "--output-format", "json"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True)


@pytest.mark.parametrize(("sig", "code", "said"), [
    (signal.SIGTERM, 143, "saikish: ended by SIGTERM"),
    (signal.SIGHUP, 129, "saikish: ended by SIGHUP"),
    (signal.SIGINT, 130, "saikish: interrupted by the person"),
])
def test_saikish_ended_mid_command_leaves_nothing_running(tmp_path: Path, sig: signal.Signals,
                                                          code: int, said: str) -> None:
    m = marker()
    command = f"setsid bash -c \"trap '' TERM; exec {m}\" & trap '' TERM INT HUP; {m}"
    proc = start_saikish(tmp_path, command)
    try:
        wait_for(m, 2)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == code, err
    assert said in err and "Traceback" not in err
    assert left(m) == []
    if sig is signal.SIGINT:  # the one-shot run still reports what happened
        assert json.loads(out)["calls"][0]["decision"] == "rejected_hard"


def test_ctrl_c_in_a_one_shot_run_exits_130_with_the_record(cli: Callable[..., Run],
                                                             tmp_path: Path) -> None:
    """In-process: KeyboardInterrupt during the call, as the terminal's Ctrl-C would raise."""
    script = write_script(tmp_path / "s.yml", "- tool_calls:\n    - {name: bash, arguments: "
                                              "{command: 'kill -INT $PPID; sleep 30'}}\n")
    started = time.monotonic()
    run = cli("-p", "go", "-m", script, "--autonomy", "full-auto", "--sandbox", "off")
    assert run.code == 130 and "interrupted by the person" in run.err
    assert time.monotonic() - started < 28  # the command alone would take 30 s


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGHUP, 129), (signal.SIGTERM, 143)])
def test_closing_the_terminal_of_the_repl_ends_its_command(tmp_path: Path,
                                                           sig: signal.Signals,
                                                           code: int) -> None:
    from tests.ui.test_pty import Shell

    m = marker()
    command = f"setsid bash -c \"trap '' TERM HUP; exec {m}\" & {m}"
    shell = Shell(f"- tool_calls:\n    - {{name: bash, arguments: {{command: "
                  f"{json.dumps(command)}}}}}\n", tmp_path, "--autonomy", "full-auto")
    try:
        shell.say("go")
        wait_for(m, 2)
        shell.child.kill(sig)
        shell.ended()
    finally:
        shell.child.close(force=True)
    assert shell.child.exitstatus == code
    assert left(m) == []


def test_sigterm_at_the_repl_prompt_exits_cleanly(tmp_path: Path) -> None:
    from tests.ui.test_pty import Shell

    shell = Shell("- text: hi\n", tmp_path)
    try:
        shell.child.kill(signal.SIGTERM)
        shell.ended()
    finally:
        shell.child.close(force=True)
    assert shell.child.exitstatus == 143
    assert "Traceback" not in shell.log.getvalue()


@pytest.mark.parametrize("command", ["echo \x00", "echo \ud800"])
def test_a_command_that_cannot_be_passed_to_bash_is_an_error_result(ws: Path,
                                                                    command: str) -> None:
    output = BASH.run({"command": command}, RunContext(str(ws)))
    assert output.is_error and output.text.startswith("cannot start bash: ")


def test_a_call_cut_short_while_starting_is_ended_by_its_marker_alone() -> None:
    """Ctrl-C or SIGTERM inside spawn: bash's pid was never known, but what started carries
    the call's marker, and that is enough to find it (even after setsid)."""
    m, call = marker(), "cut-short-" + str(random.randrange(10**9))
    started = subprocess.Popen(["setsid", "bash", "-c", f"trap '' TERM; exec {m}"],
                               env={**os.environ, MARKER_VARIABLE: call},
                               stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(m)
        end_all(None, call, grace=0.2)
        assert left(m) == []
    finally:
        started.kill()
        started.wait()
