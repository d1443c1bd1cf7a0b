"""Ending every process a tool call started, even those that tried to get away
(docs/SPEC.md §3: bash is killed whole).

A call runs in its own session (process group = its pid) with a marker variable
unique to the call in its environment. The call's processes are: the group; every
process whose environment carries the marker (it called setsid, which leaves the
group); everything under bash or under one of those by ancestry; and, when saikish is
the subreaper (saikish.tools.sandbox.orphans), every process adopted since the call started (its
parent ended, say after `env -i setsid -f cmd`, which clears the marker and the group
both). They get SIGTERM, and SIGKILL after a short grace period if they ignore it. Only a
process started after the call's own (`since`, in the kernel's clock ticks) can carry
the marker, so only those have their environment read: one file per process, not two.

Known limit: without a subreaper (not Linux, or saikish used as a library), a process
that clears its environment, calls setsid and loses its parent is left.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from saikish.tools.sandbox.orphans import (
    Row,
    adopted,
    descendants,
    read_proc,
    read_row,
    reap,
    snapshot,
)

MARKER_VARIABLE = "SAIKISH_CALL"
GRACE_S = 1.0
_PROC = Path("/proc")


@dataclass(frozen=True)
class Call:
    """What tells a call's processes apart: its group (bash's pid), its marker, and the
    clock ticks since boot between which they started (`until` None: no end yet)."""

    group: int | None
    marker: str | None
    since: int = 0
    until: int | None = None

    def within(self, row: Row) -> bool:
        """Started before the call ended: a pid or group id used again later is not it."""
        return self.until is None or row.start <= self.until


def end_all(group: int | None, marker: str | None, grace: float = GRACE_S,
            since: int = 0, until: int | None = None) -> None:
    """SIGTERM to the call's processes; SIGKILL to those still there after `grace` seconds.

    `group` None: the call was cut short while starting (its pid never known); its
    processes are found by the marker alone. `until` (clock ticks since boot, `now()`
    when the call ended): a process found by its group or ancestry that started later is
    not the call's (its pid was used again).
    """
    try:
        _end(Call(group, marker, since, until), grace)
    finally:
        reap()  # the adopted ones that ended are saikish's children: collect them


def _end(call: Call, grace: float) -> None:
    if not survivors(call.group, call.marker, call.since, call.until):
        return
    _send(call, signal.SIGTERM)
    try:
        if _gone_within(call, grace):
            return
    except KeyboardInterrupt:  # a second Ctrl-C: no more grace, but still nothing left
        _send(call, signal.SIGKILL)
        raise
    _send(call, signal.SIGKILL)
    _gone_within(call, grace)  # SIGKILL cannot be ignored: this is brief


def now() -> int:
    """Clock ticks since boot now, as /proc counts a process's start (one tick ahead)."""
    return int(time.clock_gettime(time.CLOCK_BOOTTIME) * os.sysconf("SC_CLK_TCK")) + 1


def start_time(pid: int) -> int:
    """When `pid` started, in clock ticks since boot; 0 when it cannot be read (then every
    process is looked at)."""
    row = read_row(pid)
    return row.start if row is not None else 0


def end_late_ones(group: int, marker: str, delays: tuple[float, ...] = (0.05, 0.25),
                  since: int = 0, until: int | None = None) -> None:
    """In the background, look again a little later and end what is found.

    A child forked just as the call ended (`setsid cmd &` racing the shell's exit) is not
    there for the first look; it carries the marker all the same, so a later look finds it.
    """
    def sweep() -> None:
        for delay in delays:
            time.sleep(delay)
            end_all(group, marker, since=since, until=until)  # and reaps adopted ones

    # Not a daemon: saikish ending (SIGTERM, a closed terminal) waits for the second look.
    threading.Thread(target=sweep, name="saikish-reaper").start()


def survivors(group: int | None, marker: str | None, since: int = 0,
              until: int | None = None) -> set[int]:
    """Live (not zombie) processes of the call: in `group`, or started at `since` or later
    and carrying `marker`, or adopted since `since`, and everything under those and under
    the group's leader; never saikish itself. `marker` None: a process tree that has no
    marker (an MCP server): the group and what is under its leader only. Found by group,
    ancestry or adoption, a process must have started by `until`."""
    if not _PROC.is_dir():  # no /proc (macOS): the process group is all we can see
        return {group} if group is not None and _group_alive(group) else set()
    call = Call(group, marker, since, until)
    tag = f"{MARKER_VARIABLE}={marker}".encode()
    rows = snapshot()
    marked = {pid for pid, row in rows.items() if not row.zombie and marker is not None
              and row.start >= since and tag in read_proc(f"{_PROC}/{pid}/environ").split(b"\0")}
    grouped = {pid for pid, row in rows.items() if row.pgrp == group and call.within(row)}
    if marker is not None:  # bash itself is saikish's own child, not an adopted one
        grouped |= {pid for pid in adopted({p: r for p, r in rows.items() if p != group},
                                           since) if call.within(rows[pid])}
    roots = marked | grouped
    under = {pid for pid in descendants(rows, roots | ({group} if group is not None else set()))
             if call.within(rows[pid]) or pid in marked}
    return {pid for pid in roots | under if not rows[pid].zombie} - {os.getpid()}


def _send(call: Call, sig: signal.Signals) -> None:
    if call.group is not None and not _PROC.is_dir():  # else each one, by what /proc shows
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(call.group, sig)
    for pid in survivors(call.group, call.marker, call.since, call.until):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, sig)


def _gone_within(call: Call, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while survivors(call.group, call.marker, call.since, call.until):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)
    return True


def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True
