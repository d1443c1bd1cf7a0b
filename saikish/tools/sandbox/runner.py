"""The session's sandbox runner, saikish's side (docs/SPEC.md §4.9).

Starting bubblewrap costs 10-60 ms (namespaces and mounts, more on a loaded machine);
forking a call inside a sandbox that is already up costs about what a plain fork does.
So a session starts one sandbox with `inside.py` in it and sends it each call; the
protocol is in inside.py's docstring. One call at a time: a second call while one runs
gets `RunnerBusy`, and its caller starts a sandbox of its own for it.

The sandbox dies with saikish: bubblewrap's --die-with-parent is tied to the thread that
started it, so a thread of its own starts it and stays until it ends.
"""

from __future__ import annotations

import array
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from saikish.tools.sandbox import inside

START_TIMEOUT_S = 10.0
END_TIMEOUT_S = inside.GRACE_S + inside.KILL_WAIT_S + 5.0


class RunnerError(Exception):
    """The runner could not start, or is gone."""


class RunnerBusy(RunnerError):
    """The runner is running another call."""


class Uncontained(RunnerError):
    """The launcher ran the runner in saikish's own namespaces: it contains nothing."""


def contained(reported: Sequence[str]) -> bool:
    """True when the namespaces a process reported (inside.NAMESPACES) are none of ours;
    False when they cannot be compared (fail closed)."""
    ours = []
    for path in inside.NAMESPACES:
        try:
            ours.append(os.readlink(path))
        except OSError:
            return False
    return len(reported) == len(ours) and all(a != b for a, b in zip(reported, ours, strict=True))


# Reads inside.py's text from the fd named second (a pipe), and runs it as __main__.
BOOTSTRAP = "import os,sys;exec(compile(os.fdopen(int(sys.argv[2])).read(),'inside','exec'))"


def inside_command(python: str, sock: int, source: int) -> list[str]:
    """The command that starts the runner inside the sandbox (isolated: no site, no
    PYTHON* variables, no user directory)."""
    return [python, "-I", "-S", "-c", BOOTSTRAP, str(sock), str(source)]


def _source_pipe() -> int:
    """A pipe that holds inside.py's text (far less than a pipe's buffer) and is closed."""
    text = Path(inside.__file__).read_bytes()
    read, write = os.pipe()
    try:
        os.write(write, text)
    finally:
        os.close(write)
    return read


class Runner:
    """One sandbox that stays up and runs calls; `close` ends it and all in it."""

    def __init__(self, prefix: Sequence[str], python: str, log: str) -> None:
        """Start `prefix` (the launcher and its options, through "--") with the runner in it;
        raises RunnerError with the launcher's first line of error when it does not come up."""
        self.prefix = tuple(prefix)
        self._busy = threading.Lock()
        self._sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        source = _source_pipe()
        try:
            argv = [*prefix, *inside_command(python, theirs.fileno(), source)]
            self._proc = _launch(argv, (theirs.fileno(), source), log)
        finally:
            theirs.close()
            os.close(source)
        ready = self._first(log)
        self.namespaces: tuple[str, ...] = tuple(str(n) for n in ready)

    def _first(self, log: str) -> list[Any]:
        try:
            message = self.receive(START_TIMEOUT_S)
        except RunnerError:
            message = None
        if message is not None and isinstance(message.get("ready"), list):
            return list(message["ready"])
        self.close()
        raise RunnerError(_first_line(log) or
                          f"the sandbox's runner did not start (exit code {self._proc.poll()})")

    def alive(self) -> bool:
        """True while the sandbox is up: bwrap has not ended (its launcher thread sets the
        return code; poll() cannot see it while that thread waits) and the runner's end of
        the socket is still open."""
        if self._proc.returncode is not None or self._sock.fileno() < 0:
            return False
        try:
            readable, _, _ = select.select([self._sock], [], [], 0)
            if readable and not self._sock.recv(1, socket.MSG_PEEK):
                return False  # the runner is gone: its socket is at its end
        except OSError:
            return False
        return True

    def mount_points(self) -> set[str] | None:
        """Where something is mounted in the sandbox now, or None when it cannot be seen.

        A mount inside goes away when the host removes or renames what it is mounted on
        (the person's `rm -rf .git; git init`, a daemon that makes its socket again), and
        a path may come back with the very same inode: only the mount table tells.
        """
        pid = self._proc.pid
        try:
            inner = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()[0]
            table = Path(f"/proc/{inner}/mountinfo").read_text(encoding="utf-8",
                                                                  errors="replace")
        except (OSError, IndexError):
            return None
        return {_unescape(line.split()[4]) for line in table.splitlines()
                if len(line.split()) > 4}

    def start(self, argv: Sequence[str], env: Mapping[str, str], cwd: str) -> RunnerJob:
        """Run `argv` inside; raises RunnerBusy, RunnerError (gone), OSError or ValueError
        (what Popen refuses, refused the same way). A command that cannot start inside
        says why in its output and exits 127, as a shell would."""
        _check(argv, env)
        if not self._busy.acquire(blocking=False):
            raise RunnerBusy("the sandbox's runner is busy")
        read, write = os.pipe()
        try:
            self._send({"argv": list(argv), "env": dict(env), "cwd": cwd}, write)
        except BaseException:
            os.close(read)
            self._busy.release()
            raise
        finally:
            os.close(write)
        return RunnerJob(self, os.fdopen(read, "rb", buffering=0))

    def _send(self, message: Mapping[str, Any], fd: int | None = None) -> None:
        payload = [json.dumps(message).encode()]
        fds = [] if fd is None else [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                      array.array("i", [fd]))]
        try:
            self._sock.sendmsg(payload, fds)
        except OSError as exc:
            if exc.errno == 90:  # EMSGSIZE: as execve would say
                raise OSError(7, "Argument list too long") from None
            self.close()
            raise RunnerError(f"the sandbox's runner is gone ({exc})") from None

    def receive(self, timeout: float) -> dict[str, Any] | None:
        """The runner's next message, or None when none came within `timeout` seconds;
        raises RunnerError when the runner is gone."""
        try:
            ready, _, _ = select.select([self._sock], [], [], max(timeout, 0.0))
            data = self._sock.recv(inside.MAX_MESSAGE) if ready else None
        except (OSError, ValueError):
            data = b""
        if data is None:
            return None
        if not data:
            raise RunnerError("the sandbox's runner is gone")
        message = json.loads(data)
        return message if isinstance(message, dict) else {}

    def kill_call(self) -> None:
        """Ask the runner to end the running call and all it started."""
        self._send({"kill": True})

    def release(self) -> None:
        """The running call is over: the next one may start."""
        self._busy.release()

    def close(self) -> None:
        """End the sandbox and everything in it (SIGKILL: the calls have ended already)."""
        with contextlib.suppress(OSError):
            self._sock.close()
        with contextlib.suppress(OSError):
            self._proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=5)


class RunnerJob:
    """A call running in the runner (saikish.tools.sandbox.jobs.Job)."""

    def __init__(self, runner: Runner, output: IO[bytes]) -> None:
        self._runner, self._output = runner, output
        self._code: int | None = None
        self._released = False

    @property
    def output(self) -> IO[bytes]:
        return self._output

    @property
    def returncode(self) -> int | None:
        return self._code

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while self._code is None:
            try:
                message = self._runner.receive(deadline - time.monotonic())
            except RunnerError:  # the sandbox died, and everything in it
                self._code = -signal.SIGKILL
                break
            if message is None:
                return False
            if "exit" in message:
                self._code = int(message["exit"])
        return True

    def end(self) -> None:
        try:
            if self._code is None:
                with contextlib.suppress(RunnerError):
                    self._runner.kill_call()
                if not self.wait(END_TIMEOUT_S):  # a runner that does not answer: end it all
                    self._runner.close()
                    self._code = -signal.SIGKILL
        except KeyboardInterrupt:  # a second Ctrl-C: no more grace, but nothing left either
            self._runner.close()
            self._code = -signal.SIGKILL
            raise
        finally:
            if not self._released:
                self._released = True
                self._runner.release()


def _launch(argv: Sequence[str], fds: tuple[int, ...], log: str) -> subprocess.Popen[bytes]:
    """Start `argv` from a thread that lives as long as it does (--die-with-parent)."""
    started: list[subprocess.Popen[bytes] | BaseException] = []
    ready = threading.Event()

    def run() -> None:
        try:
            with open(log, "wb") as errors:
                proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=errors,
                                        pass_fds=fds, start_new_session=True)
        except (OSError, ValueError) as exc:
            started.append(exc)
            ready.set()
            return
        started.append(proc)
        ready.set()
        proc.wait()

    threading.Thread(target=run, name="saikish-sandbox", daemon=True).start()
    ready.wait()
    if isinstance(started[0], BaseException):
        raise RunnerError(f"{os.path.basename(argv[0])} cannot run: {started[0]}")
    return started[0]


def _check(argv: Sequence[str], env: Mapping[str, str]) -> None:
    """What Popen refuses, refused the same way (ValueError) before anything is sent."""
    for text in (*argv, *env, *env.values()):
        if "\0" in text:
            raise ValueError("embedded null byte")
        os.fsencode(text)  # a lone surrogate: UnicodeEncodeError


def _unescape(field: str) -> str:
    """A mountinfo path: space, tab, newline and backslash are written in octal."""
    for code, char in (("\\040", " "), ("\\011", "\t"), ("\\012", "\n"), ("\\134", "\\")):
        field = field.replace(code, char)
    return field


def _first_line(log: str) -> str:
    with contextlib.suppress(OSError):
        lines = Path(log).read_text(encoding="utf-8", errors="replace").strip().splitlines()
        return lines[0] if lines else ""
    return ""
