"""Nothing outlives saikish, whatever it did to get away (issue 26): with the sandbox off,
processes that clear their environment and leave their session and parent
(`env -i setsid -f`, double forks, nohup + disown), an MCP server's grandchildren, a hook's
background jobs and a command running when the editor quits ACP.

saikish is their subreaper (saikish/tools/sandbox/orphans.py): orphans become its children,
so ancestry finds them. Every run here is the real CLI (`python -m saikish`) in a process of
its own; every process is named by a unique marker (tests/tools/test_processes.py) and
looked for after.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from saikish.tools.sandbox.orphans import own_children
from saikish.tools.sandbox.reaper import now, start_time, survivors
from tests.support.harness import ROOT, write_script
from tests.tools.test_processes import gone, left, marker, wait_for

DEADLINE = 120.0
FIXTURE = ROOT / "tests" / "fixtures" / "mcp_server.py"
ESCAPES = {
    "env -i setsid -f": "env -i setsid -f {m} > /dev/null 2>&1",
    "double fork": "env -i bash -c '( setsid {m} > /dev/null 2>&1 & ) &'",
    "nohup and disown": "env -i setsid nohup {m} > /dev/null 2>&1 & disown",
}


@pytest.fixture
def markers() -> Iterator[Callable[[], str]]:
    """Unique markers; whatever still carries one at the end (a failed test) is killed."""
    made: list[str] = []

    def make() -> str:
        made.append(marker())
        return made[-1]

    yield make
    for each in made:
        for line in left(each):
            os.kill(int(line.split()[0]), signal.SIGKILL)


def saikish(ws: Path, *argv: str, stdin: Any = subprocess.DEVNULL
            ) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "saikish", *argv], cwd=ws, stdin=stdin,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def one_shot(ws: Path, tmp_path: Path, *commands: str, config: str | None = None
             ) -> dict[str, Any]:
    """`saikish -p` with the sandbox off, a script model running `commands` one per turn.

    `env -i` is not verified (it clears saikish's own guards): --auto-approve with the
    sandbox off runs what would run contained, unsandboxed, as the person chose."""
    turns = [{"tool_calls": [{"name": "bash", "arguments": {"command": c}}]} for c in commands]
    model = write_script(tmp_path / "s.yml", json.dumps([*turns, {"text": "done"}]))
    proc = saikish(ws, "-p", "go", "-m", model, "--autonomy", "full-auto", "--sandbox", "off",
                   "--auto-approve", "--output-format", "json",
                   *(["-c", config] if config else []))
    out, err = proc.communicate(timeout=DEADLINE)
    assert proc.returncode == 0 and "Traceback" not in err, err
    data: dict[str, Any] = json.loads(out)
    return data


def pattern(m: str) -> str:
    """`m` as a pgrep pattern that does not match the command line looking for it."""
    return f"[{m[0]}]{m[1:]}"


@pytest.mark.parametrize("escape", ESCAPES)
def test_a_call_that_escaped_every_way_is_ended_with_the_call(
        ws: Path, tmp_path: Path, escape: str,
        markers: Callable[[], str]) -> None:
    m = markers()
    command = ESCAPES[escape].format(m=m)
    # Started, then looked for by the next call: it must be gone by then, not at the exit.
    data = one_shot(ws, tmp_path, f"{command}; until pgrep -f '{pattern(m)}' > /dev/null; "
                                  "do sleep 0.02; done; echo started",
                    f"pgrep -af '{pattern(m)}' || echo none-left")
    outputs = [call["result"]["excerpt"] for call in data["calls"]]
    assert outputs[0].startswith("started"), outputs
    assert outputs[1].startswith("none-left"), f"{escape}: {outputs[1]}"
    assert left(m) == []


def test_adopted_processes_are_reaped(ws: Path, tmp_path: Path,
                                      markers: Callable[[], str]) -> None:
    """An adopted process that ended by itself is a zombie child of saikish until reaped,
    one that was ended too: the call's end collects both."""
    m = markers()
    zombies = "ps -o stat= --ppid $PPID | grep -c Z"
    data = one_shot(ws, tmp_path,
                    f"env -i setsid -f {m} > /dev/null 2>&1; env -i setsid -f sh -c 'exit 0'; "
                    f"until [ $({zombies}) -gt 0 ]; do sleep 0.02; done; echo one-ended",
                    f"echo zombies: $({zombies})")
    outputs = [call["result"]["excerpt"] for call in data["calls"]]
    assert outputs[0].startswith("one-ended"), outputs
    assert outputs[1].startswith("zombies: 0"), outputs


def test_an_mcp_servers_grandchildren_end_with_saikish(ws: Path, tmp_path: Path,
                                                       markers: Callable[[], str]) -> None:
    m, n = markers(), markers()
    launcher = (f"env -i setsid -f {m} > /dev/null 2>&1; ( setsid {n} > /dev/null 2>&1 & ); "
                f"exec {sys.executable} {FIXTURE}")
    config = tmp_path / "cfg.yml"
    config.write_text(json.dumps({"mcpServers": {"fx": {
        "command": "bash", "args": ["-c", launcher], "env": {"FIXTURE_DIR": str(ws)}}},
        "permissions": {"allow": ["mcp__fx"]}}), encoding="utf-8")
    model = write_script(tmp_path / "s.yml", json.dumps([
        {"tool_calls": [{"name": "mcp__fx__echo", "arguments": {"text": "hi"}}]},
        {"text": "done"}]))
    proc = saikish(ws, "-p", "go", "-m", model, "-c", str(config), "--sandbox", "off",
                   "--output-format", "json")
    try:
        wait_for(m)
        wait_for(n)
        out, err = proc.communicate(timeout=DEADLINE)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert json.loads(out)["calls"][0]["decision"] == "approved"
    assert left(m) == [] and left(n) == []


def test_a_hooks_background_jobs_end_with_saikish(ws: Path, tmp_path: Path,
                                                  markers: Callable[[], str]) -> None:
    m, n = markers(), markers()
    hook = f"{m} > /dev/null 2>&1 & env -i setsid -f {n} > /dev/null 2>&1; exit 0"
    config = tmp_path / "cfg.yml"
    config.write_text(json.dumps({"hooks": {"PreToolUse": [
        {"hooks": [{"type": "command", "command": hook}]}]}}), encoding="utf-8")
    data = one_shot(ws, tmp_path, f"pgrep -f '{pattern(m)}' && pgrep -f '{pattern(n)}' "
                                  "&& echo both-running", config=str(config))
    assert "both-running" in data["calls"][0]["result"]["excerpt"]  # the hook's jobs went on
    assert left(m) == [] and left(n) == []


def test_a_command_running_when_the_editor_quits_acp_is_ended(
        ws: Path, tmp_path: Path, markers: Callable[[], str]) -> None:
    m = markers()
    model = write_script(tmp_path / "s.yml", json.dumps([
        {"tool_calls": [{"name": "bash", "arguments": {"command": f"trap '' TERM; {m}"}}]},
        {"text": "done"}]))
    proc = saikish(ws, "acp", "-m", model, "--autonomy", "full-auto", "--sandbox", "off",
                   stdin=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    try:
        for ident, method, params in [
                (1, "initialize", {"protocolVersion": 1}),
                (2, "session/new", {"cwd": str(ws), "mcpServers": []})]:
            proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                                         "params": params}) + "\n")
            proc.stdin.flush()
            session = json.loads(proc.stdout.readline())["result"].get("sessionId", "")
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
                                     "params": {"sessionId": session, "prompt": [
                                         {"type": "text", "text": "go"}]}}) + "\n")
        proc.stdin.flush()
        wait_for(m)
        proc.stdin.close()  # the editor quits
        proc.wait(timeout=DEADLINE)
    finally:
        proc.kill()
    assert proc.returncode == 0
    assert left(m) == []


# -- kill -9 (saikish/cli/supervisor.py) ---------------------------------------------------

def started_with_a_running_call(ws: Path, tmp_path: Path, m: str, n: str
                                ) -> subprocess.Popen[str]:
    """`saikish -p` (sandbox off) in the middle of a call that started `m` escaped every
    way and runs `n` in the foreground."""
    command = f"env -i setsid -f {m} > /dev/null 2>&1; trap '' TERM; {n}"
    model = write_script(tmp_path / "s.yml", json.dumps([
        {"tool_calls": [{"name": "bash", "arguments": {"command": command}}]},
        {"text": "done"}]))
    proc = saikish(ws, "-p", "go", "-m", model, "--autonomy", "full-auto", "--sandbox", "off",
                   "--auto-approve")  # env -i: see one_shot
    wait_for(m)
    wait_for(n)
    return proc


def test_kill_9_of_the_pid_saikish_was_started_as_leaves_nothing(
        ws: Path, tmp_path: Path, markers: Callable[[], str]) -> None:
    """An editor's SIGKILL of the process it started: saikish below it is told (SIGTERM)
    and ends everything."""
    m, n = markers(), markers()
    proc = started_with_a_running_call(ws, tmp_path, m, n)
    try:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=DEADLINE)
    finally:
        proc.kill()
    assert gone(m) == [] and gone(n) == []


def test_kill_9_of_saikish_itself_leaves_nothing(ws: Path, tmp_path: Path,
                                                 markers: Callable[[], str]) -> None:
    """saikish's own process killed (the OOM killer, `kill -9 $(pgrep ...)`): the watcher
    above it ends what it left, then dies of the same signal."""
    m, n = markers(), markers()
    proc = started_with_a_running_call(ws, tmp_path, m, n)
    try:
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        assert len(children) == 1  # saikish, below the watcher
        os.kill(int(children[0]), signal.SIGKILL)
        proc.wait(timeout=DEADLINE)
    finally:
        proc.kill()
    assert proc.returncode == -signal.SIGKILL
    assert left(m) == [] and left(n) == []  # ended before the watcher exited


def test_a_group_or_pid_used_again_after_the_call_is_not_the_calls(
        markers: Callable[[], str]) -> None:
    """pid_max is 32,768 on many machines: a late look must not take a new process that
    got the ended bash's pid (or its group id) for part of the call."""
    m = markers()
    later = subprocess.Popen(["bash", "-c", f"{m} & wait"],
                             stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(m)
        ended_before = start_time(later.pid) - 1  # the call ended before this one started
        assert survivors(later.pid, "x", until=ended_before) == set()
        assert len(survivors(later.pid, "x", until=now())) == 2  # bash and its sleep
    finally:
        later.kill()
        later.wait()
        for line in left(m):
            os.kill(int(line.split()[0]), signal.SIGKILL)


def test_a_dead_weak_proxy_among_the_objects_does_not_break_the_look() -> None:
    """own_children() walks every object: a proxy whose object is gone raises on
    isinstance() (the --remote run exited 1 with a traceback)."""
    import weakref

    class Thing:
        pass

    thing = Thing()
    proxy = weakref.proxy(thing)
    holder = [proxy]  # a container, so the proxy is in gc's view
    del thing
    child = subprocess.Popen(["true"])
    try:
        assert child.pid in own_children() and holder
    finally:
        child.wait()


def test_looking_for_own_children_leaves_other_threads_tuples_alone() -> None:
    """A look through every object (gc.get_objects) handed out a tuple another thread was
    still building; that thread then failed with SystemError when it grew the tuple (a
    sandboxed session's mounts, in CI). The look now finds Popen objects, subclasses' too,
    by what refers to their classes."""
    import threading

    class Own(subprocess.Popen[bytes]):
        pass

    failures: list[BaseException] = []
    stop = threading.Event()

    def build() -> None:
        while not stop.is_set():
            try:
                tuple(str(n) for n in range(50))  # grows past its first guess of 10
            except SystemError as error:
                failures.append(error)

    builder = threading.Thread(target=build)
    plain, own = subprocess.Popen(["sleep", "60"]), Own(["sleep", "60"])
    builder.start()
    try:
        for _ in range(15):  # the walk through every object failed within three looks
            assert {plain.pid, own.pid} <= own_children()
    finally:
        stop.set()
        builder.join()
        for child in (plain, own):
            child.kill()
            child.wait()
    assert failures == []
