"""Processes whose parent died come to saikish, so nothing it started can get away
(docs/SPEC.md §3).

saikish is a child subreaper (Linux's PR_SET_CHILD_SUBREAPER): a process started under it
whose parent ends (`setsid -f`, a double fork, `nohup cmd &` after the shell left) becomes
saikish's child instead of init's. Such an *adopted* process is a child saikish did not
start itself; its processes are found by ancestry (the ppid chain in /proc), whatever
environment and session they have. saikish ends and reaps the adopted ones: those of a
call when the call ends (the reaper), all of them when saikish exits (`adopting_orphans`).

A child saikish started itself is a `subprocess.Popen` that some thread waits for; it is
never counted as adopted (reaping it would steal its exit status).
"""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import sys
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, NamedTuple

PR_SET_CHILD_SUBREAPER = 36
PROC = "/proc"
LAST_LOOK_S = 5.0  # after SIGKILL: what is still there cannot be ended by us
CONFIRM_S = 0.01  # a child forked this instant may not have its Popen's pid set yet
OWN_WORK_S = 5.0  # at exit: how long saikish's own background work may take to finish


class Row(NamedTuple):  # not a dataclass: its import would slow `saikish --version`
    """One process as /proc/PID/stat shows it."""

    pid: int
    zombie: bool
    ppid: int
    pgrp: int
    start: int  # clock ticks since boot


def become_subreaper() -> bool:
    """Make this process the subreaper of everything it starts; False where it cannot be."""
    return prctl(PR_SET_CHILD_SUBREAPER, 1)


def prctl(option: int, value: int) -> bool:
    """Linux's prctl(2); False where it failed or there is none."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes  # only here: a cost at the start of the processes that need it

    try:
        libc = ctypes.CDLL(None, use_errno=True)
    except OSError:
        return False
    return bool(libc.prctl(option, value, 0, 0, 0) == 0)


@contextlib.contextmanager
def adopting_orphans() -> Iterator[None]:
    """While inside, orphans come to this process; on the way out every adopted process
    (and what it started) is ended and reaped."""
    adopting = become_subreaper()
    try:
        yield
    finally:
        if adopting:
            let_own_work_finish()
            end_adopted()


def let_own_work_finish(seconds: float = OWN_WORK_S) -> None:
    """Wait (`seconds` at most) for the children saikish started itself and did not wait
    for (a checkpoint store's `git gc`): its own work, not the agent's. What is still
    running after that is ended by the watcher above saikish (saikish.cli.supervisor)."""
    subprocess = sys.modules.get("subprocess")
    if subprocess is None:
        return
    deadline = time.monotonic() + seconds
    for each in _popens(subprocess.Popen):
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            each.wait(max(deadline - time.monotonic(), 0.0))


def snapshot() -> dict[int, Row]:
    """Every process in /proc; {} without /proc (macOS)."""
    rows = {}
    try:
        names = os.listdir(PROC)
    except OSError:
        return {}
    for name in names:  # raw reads: this runs after every call, on every process
        if name.isdigit() and (row := read_row(int(name))) is not None:
            rows[row.pid] = row
    return rows


def read_row(pid: int) -> Row | None:
    """/proc/PID/stat as a Row; None when it is gone or cannot be read."""
    fields = read_proc(f"{PROC}/{pid}/stat").rsplit(b")", 1)[-1].split()  # name: spaces
    if len(fields) < 20 or not fields[19].isdigit():
        return None
    return Row(pid, fields[0] == b"Z", int(fields[1]), int(fields[2]), int(fields[19]))


def descendants(rows: Mapping[int, Row], roots: Iterable[int]) -> set[int]:
    """The processes under `roots` (not the roots themselves), by their ppid chain."""
    children: dict[int, list[int]] = {}
    for row in rows.values():
        children.setdefault(row.ppid, []).append(row.pid)
    found: set[int] = set()
    todo = [child for root in roots for child in children.get(root, ())]
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo.extend(children.get(pid, ()))
    return found


def adopted(rows: Mapping[int, Row], since: int = 0) -> set[int]:
    """Children of this process it did not start itself, started at `since` or later."""
    me = os.getpid()
    candidates = {r.pid for r in rows.values() if r.ppid == me and r.start >= since}
    if not candidates:
        return set()
    candidates -= own_children()
    if candidates:  # one more look after a moment: a Popen may be storing its pid just now
        time.sleep(CONFIRM_S)
        candidates -= own_children()
    return candidates


def own_children() -> set[int]:
    """The pids of the children this process started (every Popen it still knows of,
    subprocess's own list of unwaited ones included, asyncio's too)."""
    subprocess = sys.modules.get("subprocess")
    if subprocess is None:  # nothing was ever started that way (`saikish --version`)
        return set()
    return {each.pid for each in _popens(subprocess.Popen) if each.returncode is None}


def _popens(kind: type[Any]) -> list[Any]:
    """Every live object of `kind` or of a subclass, found as what refers to those classes
    (an instance refers to its class). Not by gc.get_objects(): that hands out every
    object, a tuple another thread is still building included, and that thread then fails
    with SystemError when it resizes the tuple. By type(), not isinstance(): a weak proxy
    whose object is gone raises ReferenceError on isinstance()."""
    classes = _with_subclasses(kind)
    return [each for each in gc.get_referrers(*classes) if type(each) in classes]


def _with_subclasses(kind: type[Any]) -> set[type[Any]]:
    found = {kind}
    for sub in kind.__subclasses__():
        found |= _with_subclasses(sub)
    return found


def end_adopted(grace: float = 1.0) -> None:
    """End every adopted process and everything under it (SIGTERM, SIGKILL after `grace`),
    until none is left or `LAST_LOOK_S` more have passed; reap them."""
    started = time.monotonic()
    while targets := _adopted_trees():
        waited = time.monotonic() - started
        if waited > grace + LAST_LOOK_S:  # one we may not signal (another user's): leave it
            break
        for pid in targets:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGTERM if waited < grace else signal.SIGKILL)
        reap()
        time.sleep(0.02)
    reap()


def reap() -> None:
    """Collect the exit status of adopted processes that ended (they are zombies until
    then)."""
    rows = {pid: row for pid in children() if (row := read_row(pid)) and row.zombie}
    for pid in adopted(rows):
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def children() -> set[int]:
    """This process's children, as every one of its threads has them (the kernel's
    /proc/self/task/*/children, a few small reads); the process table's ppids where the
    kernel does not keep those lists."""
    tasks = f"{PROC}/self/task"
    try:
        names = os.listdir(tasks)
    except OSError:
        return set()
    if not os.path.exists(f"{tasks}/{names[0]}/children"):
        me = os.getpid()
        return {row.pid for row in snapshot().values() if row.ppid == me}
    return {int(pid) for name in names
            for pid in read_proc(f"{tasks}/{name}/children").split()}


def _adopted_trees() -> set[int]:
    rows = {pid: row for pid in children() if (row := read_row(pid)) is not None}
    if not adopted(rows):
        return set()  # the usual case: no look at the whole process table
    rows = snapshot()
    roots = adopted(rows)
    return {pid for pid in roots | descendants(rows, roots) if not rows[pid].zombie}


def read_proc(path: str) -> bytes:
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
