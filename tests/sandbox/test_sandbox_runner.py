"""The session's sandbox runner (docs/SPEC.md §4.9): one bubblewrap per session runs every
call, and a call behaves as it would in a sandbox of its own: nothing it starts outlives it,
output and exit codes are the bash tool's, a second call at once gets a sandbox of its own,
the runner comes back when it dies or when what it hides changed, and it dies with saikish.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from saikish.tools import RunContext
from saikish.tools.sandbox.launcher import Sandbox
from saikish.tools.sandbox.state import runner_python
from tests.sandbox.test_sandbox import fake_bwrap
from tests.sandbox.test_sandbox_walls import BASH, Box, home, open_box
from tests.support.harness import ROOT

__all__ = ["home", "open_box"]  # fixtures, used by name


def token() -> str:
    """A sleep length that names this test's processes: `sleep 1000.<digits>`."""
    return f"1000.{random.randrange(10**9):09d}"


def running(pattern: str) -> list[str]:
    """Live host processes whose command line contains `pattern` (zombies are dead)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if pattern in cmdline and state != "Z" and "pgrep" not in cmdline:
            found.append(f"{entry.name} {cmdline}")
    return found


def sandbox_of(box: Box) -> Sandbox:
    assert box.setup.sandbox is not None
    return box.setup.sandbox


def runner_pid(box: Box) -> int:
    runner = sandbox_of(box).state._parts.runner  # noqa: SLF001 - the test looks, not changes
    assert runner is not None
    return runner._proc.pid  # noqa: SLF001


@pytest.mark.parametrize(("command", "why"), [
    ("sleep {t} &", "in the background"),
    ("setsid sleep {t} > /dev/null 2>&1 &", "escaped into its own session"),
    ("(trap '' TERM HUP; exec sleep {t}) > /dev/null 2>&1 &", "ignores SIGTERM"),
    ("env -i setsid nohup sleep {t} > /dev/null 2>&1 &",
     "cleared its environment and left the session: the host's reaper cannot find that one"),
])
def test_nothing_a_call_started_outlives_it(open_box: Callable[..., Box], command: str,
                                            why: str) -> None:
    box, t = open_box(), token()
    text, _ = box.run(command.format(t=t) + " echo started")
    assert text == "started\n[exit code 0]"
    assert running(t) == [], why  # at once: the runner answers only when all are gone
    text, _ = box.run("ps -eo args")
    assert t not in text and "sleep" not in text, "the next call finds nothing left"


def test_a_second_call_at_once_gets_a_sandbox_of_its_own(home: Path,
                                                         open_box: Callable[..., Box]) -> None:
    box = open_box()
    box.run("true")  # the runner is up
    first: list[str] = []
    started = box.ws / "first-started"
    thread = threading.Thread(target=lambda: first.append(box.run(
        f"readlink /proc/self/ns/mnt; touch {started}; sleep 3")[0]))
    thread.start()
    deadline = time.monotonic() + 20
    while not started.exists():
        assert time.monotonic() < deadline, "the first call never started"
        time.sleep(0.02)
    second, note = box.run("readlink /proc/self/ns/mnt; cat ~/.ssh/id_rsa")
    assert thread.is_alive(), "the second call did not wait for the first"
    thread.join()
    assert "ssh-secret" not in second and "cannot see ~/.ssh/id_rsa" in note, "contained too"
    namespaces = {first[0].split()[0], second.split()[0], os.readlink("/proc/self/ns/mnt")}
    assert len(namespaces) == 3, "two sandboxes, neither of them the host"


def test_a_runner_that_died_is_started_again(open_box: Callable[..., Box]) -> None:
    box = open_box()
    box.run("echo kept > ~/note")
    dead = runner_pid(box)
    os.kill(dead, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while running(f"--chdir {box.ws} --clearenv -- {runner_python()[0]}"):
        assert time.monotonic() < deadline, "the runner did not die"
        time.sleep(0.02)
    text, _ = box.run("readlink /proc/self/ns/net; cat ~/note")
    assert text.startswith("net:[") and text.split()[0] != os.readlink("/proc/self/ns/net")
    assert runner_pid(box) != dead, "a new runner, not a sandbox for this call alone"
    assert text.split()[1] == "kept", "the session's home outlives a runner"
    assert not (Path.home() / "note").exists(), "and it is not the person's home"


def test_a_git_created_outside_mid_session_is_protected_at_the_next_call(
        ws: Path, open_box: Callable[..., Box]) -> None:
    box = open_box()
    box.run("true")
    (ws / ".git").rmdir()  # the stand-in: the person removes it and runs git init outside
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    text, _ = box.run("mv .git x")
    assert "Device or resource busy" in text and (ws / ".git" / "HEAD").exists()


def test_a_stand_in_the_person_removed_is_made_again(ws: Path,
                                                    open_box: Callable[..., Box]) -> None:
    box = open_box()
    box.run("true")
    (ws / ".git").rmdir()  # the person, outside
    text, _ = box.run("mkdir .git")
    assert "File exists" in text and not any((ws / ".git").iterdir())


def test_a_launcher_that_contains_nothing_runs_no_call(ws: Path, tmp_path: Path,
                                                       open_box: Callable[..., Box]) -> None:
    box = open_box()
    exec_as_is = fake_bwrap(tmp_path / "bin", 'while [ "$1" != "--" ]; do shift; done; shift; '
                                              'exec "$@"')
    sandbox = replace(sandbox_of(box), launcher=str(exec_as_is))
    output = BASH.run({"command": "touch ran"}, RunContext(str(ws), sandbox=sandbox))
    assert output.is_error and output.text.startswith("bwrap: ")
    assert "without new namespaces" in output.text and not (ws / "ran").exists()
    assert sandbox.start_failure(output.text) == f"{exec_as_is} ran the probe without new " \
                                                 "namespaces", "the executor's probe agrees"


def test_the_runner_stays_up_between_calls(ws: Path, open_box: Callable[..., Box]) -> None:
    box = open_box()
    box.run("true")
    first = runner_pid(box)
    for _ in range(3):
        box.run("echo x > f; git status >/dev/null 2>&1; true")
    assert runner_pid(box) == first, "nothing it depends on changed: no new sandbox"


def test_what_the_host_replaces_under_a_mount_is_covered_again(
        ws: Path, open_box: Callable[..., Box], tmp_path: Path) -> None:
    """Removing a path on the host takes the sandbox's mount on it away, and what comes in
    its place may even get the same inode: the runner's mount table is read before each
    call, and the runner starts again when a mount is gone."""
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    visible = Path(tempfile.mkdtemp(prefix="saikish-sock-", dir="/var/tmp"))
    try:
        daemon = socket.socket(socket.AF_UNIX)
        daemon.bind(str(visible / "d.sock"))
        box = open_box()
        box.run("true")
        shutil.rmtree(ws / ".git")  # the person, outside: a fresh repository
        subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
        daemon.close()  # a daemon that restarts makes its socket again, at the same path
        (visible / "d.sock").unlink()
        daemon = socket.socket(socket.AF_UNIX)
        daemon.bind(str(visible / "d.sock"))
        daemon.listen()
        text, _ = box.run("mv .git x; python3 -c 'import socket; socket.socket(socket."
                          f"AF_UNIX).connect(\"{visible}/d.sock\")'")
        assert "Device or resource busy" in text and (ws / ".git" / "HEAD").exists()
        assert "PermissionError" in text, "the new socket is covered too"
        daemon.close()
    finally:
        shutil.rmtree(visible, ignore_errors=True)


@pytest.mark.parametrize("command", [
    "seq 1 30000; printf '\\342\\230\\203 done'; exit 3",
    "echo out; echo err >&2; kill -TERM $$",
    "no-such-command-here",
])
def test_a_call_reads_the_same_inside_and_outside(ws: Path, open_box: Callable[..., Box],
                                                  command: str) -> None:
    inside, _ = open_box().run(command, output_limit=2000)
    outside = BASH.run({"command": command}, RunContext(str(ws), output_limit=2000)).text
    assert inside == outside


def test_a_workspace_gone_mid_session_cannot_start_bash(ws: Path,
                                                        open_box: Callable[..., Box]) -> None:
    box = open_box()
    box.run("true")
    shutil.rmtree(ws)
    text, _ = box.run("true")
    assert text.startswith("cannot start bash: No such file or directory")


def test_the_session_end_ends_the_runner(open_box: Callable[..., Box]) -> None:
    box = open_box()
    box.run("true")
    pid = runner_pid(box)
    box.setup.close()
    assert running(f"{pid} ") == [] or not Path(f"/proc/{pid}").exists()
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


DIES_WITH = textwrap.dedent("""\
    import sys, threading
    from saikish.tools import RunContext, builtin_tools
    from saikish.tools.sandbox.launcher import SandboxMode, start_sandbox
    setup = start_sandbox(SandboxMode.WORKSPACE_WRITE, sys.argv[1])
    context = RunContext(sys.argv[1], sandbox=setup.sandbox)
    # From a thread that ends: the sandbox must not die with it, only with the process.
    threading.Thread(target=builtin_tools()["bash"].run,
                     args=({"command": "true"}, context)).start()
    builtin_tools()["bash"].run({"command": f"sleep {sys.argv[2]}"}, context)
""")


def test_the_sandbox_dies_with_saikish(ws: Path) -> None:
    t = token()
    proc = subprocess.Popen([sys.executable, "-c", DIES_WITH, str(ws), t])
    try:
        deadline = time.monotonic() + 30
        # The sleep itself, inside the sandbox: bwrap's own command line shows the words as
        # soon as it starts, before it asks for its parent-death signal.
        while not [p for p in running(f"sleep {t}") if p.split(" ", 1)[1].startswith("sleep ")]:
            assert proc.poll() is None and time.monotonic() < deadline, "it never started"
            time.sleep(0.05)
        proc.kill()  # no finally, no atexit: the kernel's parent-death signal does it
        proc.wait()
        deadline = time.monotonic() + 10
        while running(f"sleep {t}") and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running(f"sleep {t}") == [] and running(f"{ws}") == []
    finally:
        proc.kill()


AS_ANOTHER_USER = textwrap.dedent("""\
    import json, sys
    from saikish.tools import RunContext, builtin_tools
    from saikish.tools.sandbox.launcher import SandboxMode, start_sandbox
    setup = start_sandbox(SandboxMode.WORKSPACE_WRITE, sys.argv[1])
    context = RunContext(sys.argv[1], sandbox=setup.sandbox)
    print(json.dumps([builtin_tools()["bash"].run({"command": c}, context).text
                      for c in sys.argv[2:]]))
    setup.close()
""")


def test_it_contains_as_an_ordinary_user_too(tmp_path: Path) -> None:
    """We run as root; people do not: bwrap then goes through a user namespace."""
    python = shutil.which(f"python{sys.version_info.major}.{sys.version_info.minor}",
                          path="/usr/local/bin:/usr/bin:/bin")
    if os.geteuid() != 0 or python is None:
        pytest.skip("needs root to become nobody, and a system Python like this one")
    root = Path(tempfile.mkdtemp(prefix="saikish-nobody-", dir="/var/tmp"))
    try:
        for path in (root / "home" / ".ssh", root / "work", root / "elsewhere"):
            path.mkdir(parents=True)
        (root / "home" / ".ssh" / "id_rsa").write_text("nobody-secret")
        subprocess.run(["git", "init", "-q", str(root / "work")], check=True)
        subprocess.run(["chown", "-R", "nobody", str(root)], check=True)
        env = {"HOME": str(root / "home"), "PATH": "/usr/bin:/bin",
               "PYTHONPATH": f"{ROOT}:{sysconfig.get_paths()['purelib']}"}
        commands = ["cat ~/.ssh/id_rsa", f"touch {root}/elsewhere/x", "mv .git y",
                    "id -u; readlink /proc/self/ns/user"]
        done = subprocess.run(
            ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", python, "-c",
             AS_ANOTHER_USER, str(root / "work"), *commands],
            env=env, cwd=root, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        secret, write, rename, who = json.loads(done.stdout)
        assert "No such file or directory" in secret and "nobody-secret" not in secret
        assert "Read-only file system" in write and not (root / "elsewhere" / "x").exists()
        assert "Device or resource busy" in rename and (root / "work" / ".git").is_dir()
        uid, user_ns = who.split()[:2]
        assert uid == "65534" and user_ns != os.readlink("/proc/self/ns/user")
    finally:
        shutil.rmtree(root, ignore_errors=True)
