"""bashlex runs bounded (saikish/engine/bash/bounded.py): a parse that never ends is asked.

bashlex 0.18 loops for ever, growing its memory, on a `${` with no `}` after it inside
an ANSI-C string (docs/upstream/bashlex-loop.md). Before the watchdog, `saikish check`,
`-p` and ACP hung on these 12-character commands.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from saikish.engine.bash.bounded import ParserFault, Watchdog
from saikish.engine.bash.shell import analyse
from tests.support.harness import write_script

# Commands bashlex never finishes (a `${` with no `}` inside an ANSI-C string).
LOOPING_TEXTS = ["echo \\'$'${'", "echo $'${'", "echo $'\n${'", "x=$'${' && ls"]
DEADLINE = 120  # generous: the bound is 3 s of CPU time, the machine may be loaded


def saikish(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "saikish", *argv], cwd=cwd, text=True,
                          capture_output=True, stdin=subprocess.DEVNULL, timeout=DEADLINE)


def test_check_answers_every_command_that_makes_bashlex_loop(ws: Path) -> None:
    # One run for them all (each waits out the bound), under full autonomy: what could not
    # be parsed is asked whatever the level.
    (ws / "looping.sh").write_text("".join(f"{c}\n" for c in LOOPING_TEXTS if "\n" not in c))
    run = saikish("check", "--batch", "looping.sh", "--autonomy", "full-auto", cwd=ws)
    records = [json.loads(line) for line in run.stdout.splitlines()]
    assert run.returncode == 0, run.stderr
    assert [r["command"] for r in records] == [c for c in LOOPING_TEXTS if "\n" not in c]
    for record in records:
        assert (record["decision"], record["risk"], record["reason_kind"]) == (
            "ask", "UNKNOWN", "unknown"), record
        assert record["reason"] == ("it cannot be fully analysed: the shell parser did not "
                                    "finish within 3 s")


def test_check_answers_a_looping_command_of_two_lines(ws: Path) -> None:
    run = saikish("check", "--json", "--", "echo $'\n${'", cwd=ws)
    data = json.loads(run.stdout)
    assert (run.returncode, data["decision"], data["risk"]) == (0, "ask", "UNKNOWN")
    assert "the shell parser did not finish" in data["reason"]


def test_a_one_shot_run_goes_on_after_the_call_that_cannot_be_analysed(
        ws: Path, tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yml", "- tool_calls:\n    - {name: bash, arguments: "
                                             "{command: \"echo $'${'\"}}\n- text: done\n")
    run = saikish("-p", "go", "-m", model, "--auto-deny", "--output-format", "json", cwd=ws)
    data = json.loads(run.stdout)
    assert (run.returncode, data["exit_reason"], data["result"]) == (0, "finished", "done")
    (call,) = data["calls"]
    assert (call["decision"], call["source"]) == ("rejected_soft", "mode")
    assert "the shell parser did not finish" in call["reason"]


def test_a_plain_command_never_waits_for_the_parser() -> None:
    # The watchdog only guards the parser; plain text is split without it.
    assert [c.argv for c in analyse("git status && ls -la | wc -l").commands] == [
        ("git", "status"), ("ls", "-la"), ("wc", "-l")]


# -- the watchdog itself -----------------------------------------------------------------

def spin(text: str) -> str:
    while True:
        text = text[:1]


def grow(text: str) -> str:
    kept = []
    while True:
        kept.append(text * 1_000_000)


def test_the_watchdog_stops_a_function_that_never_returns() -> None:
    with pytest.raises(ParserFault, match="did not finish within 0.5 s"):
        Watchdog(cpu_seconds=0.5).run(spin, "x")


def test_the_watchdog_stops_a_function_that_grows_without_bound() -> None:
    with pytest.raises(ParserFault, match="more than 64 MB of memory"):
        Watchdog(cpu_seconds=60, memory_bytes=64 << 20).run(grow, "x")


def test_one_threads_runaway_parse_does_not_stop_another_thread() -> None:
    watchdog = Watchdog(cpu_seconds=0.5)
    results: list[str] = []

    def quick() -> None:
        for _ in range(200):
            results.append(watchdog.run(str.upper, "ok"))

    helper = threading.Thread(target=quick)
    helper.start()
    with pytest.raises(ParserFault):
        watchdog.run(spin, "x")
    helper.join()
    assert results == ["OK"] * 200


def test_a_stopped_parse_leaves_nothing_behind_in_the_interpreter(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # Withdrawing a raise (PyThreadState_SetAsyncExc(id, NULL)) leaves CPython 3.11's
    # "asynchronous exception" signal set with nothing to deliver: every later loop and
    # call took the interpreter's slow path for good, and a CI run spun for ever inside
    # hypothesis after a stopped parse. The watchdog lets its raise land inside run().
    import ctypes

    real = ctypes.pythonapi.PyThreadState_SetAsyncExc
    raised: list[object] = []

    def spy(thread: object, exception: object) -> object:
        raised.append(exception)
        return real(thread, exception)

    monkeypatch.setattr(ctypes.pythonapi, "PyThreadState_SetAsyncExc", spy)
    for _ in range(3):
        with pytest.raises(ParserFault, match="did not finish within 0.2 s"):
            Watchdog(cpu_seconds=0.2).run(spin, "x")
    assert len(raised) == 3
    assert all(exception is not None for exception in raised), "a raise was withdrawn"
    landed_later = []
    try:
        for _ in range(1000):
            pass
    except BaseException as stray:  # noqa: BLE001 - any raise landing here is the defect
        landed_later.append(stray)
    assert landed_later == []
