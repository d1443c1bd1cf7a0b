"""Ending every process a tool call started, even those that tried to get away
(docs/SPEC.md §3: bash is killed whole).

A call runs in its own session (process group = its pid) with a marker variable
unique to the call in its environment. A process that calls setsid leaves the
group but keeps the variable, so the call's processes are: the group, plus
every process whose environment carries the marker. They get SIGTERM, and
SIGKILL after a short grace period if they ignore it.

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


def end_all(group: int, marker: str, grace: float = GRACE_S) -> None:
    """SIGTERM to the call's processes; SIGKILL to those still there after `grace` seconds."""
    if not survivors(group, marker):
        return
    _send(group, marker, signal.SIGTERM)
    try:
        if _gone_within(group, marker, grace):
            return
    except KeyboardInterrupt:  # a second Ctrl-C: no more grace, but still nothing left
        _send(group, marker, signal.SIGKILL)
        raise
    _send(group, marker, signal.SIGKILL)
    _gone_within(group, marker, grace)  # SIGKILL cannot be ignored: this is brief


def end_late_ones(group: int, marker: str, delays: tuple[float, ...] = (0.05, 0.25)) -> None:
    """In the background, look again a little later and end what is found.

    A child forked just as the call ended (`setsid cmd &` racing the shell's exit) is not
    there for the first look; it carries the marker all the same, so a later look finds it.
    """
    def sweep() -> None:
        for delay in delays:
            time.sleep(delay)
            if survivors(group, marker):
                end_all(group, marker)

    threading.Thread(target=sweep, name="saikish-reaper", daemon=True).start()


def survivors(group: int, marker: str) -> set[int]:
    """Live (not zombie) processes in `group` or carrying `marker`; never saikish itself."""
    if not _PROC.is_dir():  # no /proc (macOS): the process group is all we can see
        return {group} if _group_alive(group) else set()
    tag = f"{MARKER_VARIABLE}={marker}".encode()
    found = set()
    for entry in _PROC.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        state, pgrp = _stat(entry)
        if state is None or state == "Z":
            continue
        if pgrp == group or tag in _environment(entry):
            found.add(int(entry.name))
    return found


def _send(group: int, marker: str, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, sig)
    for pid in survivors(group, marker):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _gone_within(group: int, marker: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while survivors(group, marker):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def _stat(entry: Path) -> tuple[str | None, int | None]:
    """(state, process group) from /proc/PID/stat; (None, None) when it is gone."""
    try:
        text = (entry / "stat").read_text()
    except OSError:
        return None, None
    fields = text.rsplit(")", 1)[-1].split()  # the name in (...) may hold spaces
    return (fields[0], int(fields[2])) if len(fields) > 2 else (None, None)


def _environment(entry: Path) -> list[bytes]:
    try:
        return (entry / "environ").read_bytes().split(b"\0")
    except OSError:  # another user's process, or gone
        return []


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
