"""Ending every process a tool call started, even those that tried to get away
(docs/SPEC.md §3: bash is killed whole).

A call runs in its own session (process group = its pid) with a marker variable
unique to the call in its environment. A process that calls setsid leaves the
group but keeps the variable, so the call's processes are: the group, plus
every process whose environment carries the marker. They get SIGTERM, and
SIGKILL after a short grace period if they ignore it. Only a process started
after the call's own (`since`, in the kernel's clock ticks) can be one of them,
so only those have their environment read: one file per process, not two.

Known limit: a process that also clears its environment (env -i) and calls
setsid cannot be told apart from the person's own processes, so it is left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from pathlib import Path

MARKER_VARIABLE = "SAIKISH_CALL"
GRACE_S = 1.0
_PROC = Path("/proc")


def end_all(group: int | None, marker: str, grace: float = GRACE_S, since: int = 0) -> None:
    """SIGTERM to the call's processes; SIGKILL to those still there after `grace` seconds.

    `group` None: the call was cut short while starting (its pid never known); its
    processes are found by the marker alone.
    """
    if not survivors(group, marker, since):
        return
    _send(group, marker, signal.SIGTERM, since)
    try:
        if _gone_within(group, marker, grace, since):
            return
    except KeyboardInterrupt:  # a second Ctrl-C: no more grace, but still nothing left
        _send(group, marker, signal.SIGKILL, since)
        raise
    _send(group, marker, signal.SIGKILL, since)
    _gone_within(group, marker, grace, since)  # SIGKILL cannot be ignored: this is brief


def start_time(pid: int) -> int:
    """When `pid` started, in clock ticks since boot; 0 when it cannot be read (then every
    process is looked at)."""
    fields = _fields(str(pid))
    return int(fields[19]) if len(fields) > 19 and fields[19].isdigit() else 0


def end_late_ones(group: int, marker: str, delays: tuple[float, ...] = (0.05, 0.25),
                  since: int = 0) -> None:
    """In the background, look again a little later and end what is found.

    A child forked just as the call ended (`setsid cmd &` racing the shell's exit) is not
    there for the first look; it carries the marker all the same, so a later look finds it.
    """
    def sweep() -> None:
        for delay in delays:
            time.sleep(delay)
            if survivors(group, marker, since):
                end_all(group, marker, since=since)

    # Not a daemon: saikish ending (SIGTERM, a closed terminal) waits for the second look.
    threading.Thread(target=sweep, name="saikish-reaper").start()


def survivors(group: int | None, marker: str, since: int = 0) -> set[int]:
    """Live (not zombie) processes in `group`, or started at `since` or later and carrying
    `marker`; never saikish itself."""
    if not _PROC.is_dir():  # no /proc (macOS): the process group is all we can see
        return {group} if group is not None and _group_alive(group) else set()
    tag = f"{MARKER_VARIABLE}={marker}".encode()
    found = set()
    for name in os.listdir(_PROC):  # raw reads: this runs after every call, on every process
        if not name.isdigit() or int(name) == os.getpid():
            continue
        fields = _fields(name)
        if len(fields) < 20 or fields[0] == b"Z":
            continue
        if (group is not None and int(fields[2]) == group) or (
                int(fields[19]) >= since and tag in _read(f"{_PROC}/{name}/environ").split(b"\0")):
            found.add(int(name))
    return found


def _send(group: int | None, marker: str, sig: signal.Signals, since: int = 0) -> None:
    if group is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, sig)
    for pid in survivors(group, marker, since):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _gone_within(group: int | None, marker: str, seconds: float, since: int = 0) -> bool:
    deadline = time.monotonic() + seconds
    while survivors(group, marker, since):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def _fields(pid: str) -> list[bytes]:
    """/proc/PID/stat after the name: [state, ppid, pgrp, ...]; [] when it is gone."""
    return _read(f"{_PROC}/{pid}/stat").rsplit(b")", 1)[-1].split()  # the name may hold spaces


def _read(path: str) -> bytes:
    """A /proc file's bytes; b"" when it cannot be read (another user's process, or gone)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return b""
    try:
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
