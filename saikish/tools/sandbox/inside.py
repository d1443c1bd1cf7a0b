"""The runner: one process inside the session's sandbox that runs each call (docs/SPEC.md §4.9).

Started as `python -I -S -c <this file> FD` by `saikish.tools.sandbox.runner`; it imports
nothing of saikish (the package is not visible inside) and nothing outside the standard
library. FD is a SOCK_SEQPACKET socket to saikish. Messages are JSON objects:

    runner -> saikish  {"ready": [net ns, mnt ns]}      once, when it is up
    saikish -> runner  {"argv", "env", "cwd"} + an fd   run this; the fd takes its output
    saikish -> runner  {"kill": true}                   timeout or Ctrl-C
    runner -> saikish  {"exit": code}                   the call and all it started are gone

No message says a call started: every hand-over between processes costs a turn of the
scheduler, which a loaded machine makes slow. A call that cannot start (no such cwd,
no bash) says why in its output, as a shell would, and exits 127.

Each call runs in a session of its own with stdin /dev/null. When it ends (or is killed),
every other process in the sandbox's PID namespace is ended too, SIGTERM then SIGKILL
after GRACE_S: the runner serves one call at a time, so whatever else is alive was
started by that call (`cmd &`, `setsid cmd`, a daemon). Nothing outlives its call.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import sys
import time
from typing import Any

GRACE_S = 1.0
KILL_WAIT_S = 5.0
NAMESPACES = ("/proc/self/ns/net", "/proc/self/ns/mnt")
MAX_MESSAGE = 1 << 20
PR_SET_DUMPABLE = 4


def main() -> None:
    """Serve calls until saikish closes the socket."""
    sock = socket.socket(fileno=int(sys.argv[1]))
    os.set_inheritable(sock.fileno(), False)
    _undumpable()
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    os.set_blocking(wake_read, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    _send(sock, {"ready": [os.readlink(path) for path in NAMESPACES]})
    while True:
        request, fds = _receive(sock)
        if request is None:
            _end_all(0.0)
            return
        _serve(sock, request, fds, wake_read)


def _undumpable() -> None:
    """A call must not ptrace the runner (same user, no capabilities needed otherwise)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)


def _serve(sock: socket.socket, request: dict[str, Any], fds: list[int], wake: int) -> None:
    if len(fds) != 1 or not isinstance(request.get("argv"), list):
        for fd in fds:
            os.close(fd)
        _send(sock, {"exit": 127})
        return
    pid = os.fork()
    if pid == 0:
        _child(request, fds[0])
    os.close(fds[0])
    status = _wait(sock, pid, wake)
    ended = _end_all(GRACE_S)  # what the call left behind: `cmd &`, `setsid cmd`
    _send(sock, {"exit": os.waitstatus_to_exitcode(status)})
    if not ended:  # unkillable (stuck in the kernel): ending the runner ends the sandbox
        os._exit(1)


def _child(request: dict[str, Any], output: int) -> None:
    """In the forked child: become the call and exec it; never returns."""
    argv = [str(word) for word in request["argv"]]
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        # As subprocess does: a child must not inherit Python's ignored SIGPIPE.
        for sig in (signal.SIGCHLD, signal.SIGPIPE, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(output, 1)
        os.dup2(output, 2)
        if output > 2:
            os.close(output)
        os.chdir(request["cwd"])
        os.execvpe(argv[0], argv, {str(k): str(v) for k, v in request["env"].items()})
    except BaseException as exc:  # noqa: BLE001 - whatever it is, the model is told
        why = getattr(exc, "strerror", None) or str(exc)
        with contextlib.suppress(OSError):
            os.write(2, f"cannot start {argv[0] if argv else 'it'}: {why}\n".encode())
    os._exit(127)


def _wait(sock: socket.socket, pid: int, wake: int) -> int:
    """The call's wait status; ends everything when saikish asks (or is gone)."""
    while True:
        ready, _, _ = select.select([sock.fileno(), wake], [], [])
        if wake in ready:
            with contextlib.suppress(BlockingIOError):
                while os.read(wake, 512):
                    pass
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                return status
        if sock.fileno() in ready:
            message, fds = _receive(sock)
            for fd in fds:
                os.close(fd)
            if message is None:  # saikish is gone: so is everything here
                _end_all(0.0)
                os._exit(0)
            if message.get("kill"):
                _end_all(GRACE_S)


def _end_all(grace: float) -> bool:
    """SIGTERM to every process here but this one and the namespace's init; SIGKILL to
    those still there after `grace` seconds; False when some outlived KILL_WAIT_S more."""
    if not _signal_all(signal.SIGTERM):
        return True
    deadline = time.monotonic() + grace
    while _others() and time.monotonic() < deadline:
        time.sleep(0.02)
    deadline = time.monotonic() + KILL_WAIT_S
    while _signal_all(signal.SIGKILL):  # again and again: a fork bomb refills the list
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def _signal_all(sig: signal.Signals) -> bool:
    """Send `sig` to the others; False when there were none."""
    others = _others()
    for pid in others:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)
    return bool(others)


def _others() -> list[int]:
    """Live processes of the namespace other than init (1) and the runner; zombies are
    dead already (init or the runner reaps them)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in (1, os.getpid()):
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                state = handle.read().rsplit(b")", 1)[-1].split()[0]
        except (OSError, IndexError):
            continue
        if state not in (b"Z", b"X"):
            found.append(int(name))
    return found


def _send(sock: socket.socket, message: dict[str, Any]) -> None:
    with contextlib.suppress(OSError):
        sock.sendmsg([json.dumps(message).encode()])


def _receive(sock: socket.socket) -> tuple[dict[str, Any] | None, list[int]]:
    """One message and the fds it carries; (None, []) when saikish closed the socket."""
    try:
        data, ancillary, _, _ = sock.recvmsg(MAX_MESSAGE, socket.CMSG_SPACE(16))
    except OSError:
        return None, []
    fds: list[int] = []
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(payload) - len(payload) % 4
            fds += [int.from_bytes(payload[i:i + 4], sys.byteorder)
                    for i in range(0, usable, 4)]
    if not data:
        for fd in fds:
            os.close(fd)
        return None, []
    try:
        message = json.loads(data)
    except ValueError:
        message = {}
    return (message if isinstance(message, dict) else {}), fds


if __name__ == "__main__":
    main()
