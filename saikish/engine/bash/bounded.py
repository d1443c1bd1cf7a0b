"""bashlex bounded in CPU time and memory (docs/SPEC.md §4.2): a parse that runs away fails.

bashlex 0.18 never returns on some inputs: `echo $'${'` (a `${` with no `}` after it in
the word) sends its word expansion back to the start of the word for ever, growing a
string by ~30 MB/s (docs/upstream/bashlex-loop.md). No check before parsing can promise
to catch every such input, so every parse runs under a watchdog: a thread that looks at
the parsing thread's CPU time and the process's memory while a parse runs, and stops the
parse past either bound by raising an exception in that thread. The caller gets
`ParserFault`, and the shell module makes the call opaque (asked, never allowed).

Why in-process: bashlex 0.18 (pinned) is pure Python, so an exception raised into the
thread always lands within a few bytecodes. A worker process with RLIMIT_AS was measured
first: pickling the trees back cost 1.4-1.5x bashlex's own time on the NL2Bash corpus;
this costs nothing measurable.
"""

from __future__ import annotations

import functools
import os
import resource
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

CPU_SECONDS = 3.0  # one parse; bashlex reads 20,000 characters of shell in ~0.2 s
MEMORY_BYTES = 512 << 20  # growth of the process's resident memory during one parse
# Where a thread's CPU time cannot be read (no pthread_getcpuclockid), wall time, longer.
WALL_SECONDS = 30.0
POLL_SECONDS = 0.25  # each look costs the parse a switch of the GIL: seldom
_LANDING_JUMPS = 64  # backward jumps for a pending raise to land on (the first one does)
T = TypeVar("T")


class ParserFault(Exception):
    """The parser did not finish within its bounds: nothing was read."""


class _Stopped(BaseException):
    """Raised into the parsing thread by the watchdog (a BaseException: no `except
    Exception` in the parser can swallow it)."""


@dataclass
class _Parse:
    """One parse being watched."""

    thread: int
    clock: Callable[[], float]
    started: float
    # The process's resident memory when the watchdog first saw the parse (-1: not yet).
    memory: int = -1
    # Why the watchdog stopped it; set once, under the lock.
    stopped: str | None = None


class Watchdog:
    """Runs functions with a CPU-time and memory bound; one thread watches every caller."""

    def __init__(self, cpu_seconds: float = CPU_SECONDS,
                 memory_bytes: int = MEMORY_BYTES) -> None:
        self.cpu_seconds, self.memory_bytes = cpu_seconds, memory_bytes
        self._lock = threading.Lock()
        self._running: dict[int, _Parse] = {}
        self._busy = threading.Event()
        self._watcher: threading.Thread | None = None
        self._pid = 0

    def run(self, function: Callable[[str], T], text: str) -> T:
        """function(text), or ParserFault when it passes a bound (fail closed)."""
        watched = self._arm()
        try:
            try:
                return function(text)
            finally:
                self._disarm(watched)
        except _Stopped:
            self._disarm(watched)  # the exception may have landed inside the first one
            raise ParserFault(watched.stopped or "the shell parser was stopped") from None

    def _arm(self) -> _Parse:
        thread = threading.get_ident()
        watched = _Parse(thread, _thread_clock(thread), 0.0)
        watched.started = watched.clock()
        with self._lock:
            self._running[thread] = watched
            self._start_watcher()
        self._busy.set()
        return watched

    def _disarm(self, watched: _Parse) -> None:
        with self._lock:
            if self._running.get(watched.thread) is watched:
                del self._running[watched.thread]
        if watched.stopped is not None:
            _land()  # the watchdog raised into this thread: the raise lands here, in run()

    def _start_watcher(self) -> None:
        if self._watcher is not None and self._pid == os.getpid():
            return
        self._pid = os.getpid()  # a forked child has no watcher thread: start its own
        self._watcher = threading.Thread(target=self._watch, name="saikish-parse-watchdog",
                                         daemon=True)
        self._watcher.start()

    def _watch(self) -> None:
        while True:
            self._busy.wait()
            time.sleep(POLL_SECONDS)
            with self._lock:
                for watched in self._running.values():
                    self._check(watched)
                if not self._running:
                    self._busy.clear()

    def _check(self, watched: _Parse) -> None:
        """Stop `watched` if it passed a bound (called under the lock)."""
        if watched.stopped is not None:
            return
        if watched.memory < 0:
            watched.memory = _resident()
        spent = watched.clock() - watched.started
        limit = self.cpu_seconds if watched.clock is not time.monotonic else WALL_SECONDS
        if spent > limit:
            watched.stopped = f"the shell parser did not finish within {limit:g} s"
        elif _resident() - watched.memory > self.memory_bytes:
            watched.stopped = (f"the shell parser used more than "
                               f"{self.memory_bytes >> 20} MB of memory")
        if watched.stopped is not None:
            _raise_in(watched.thread, _Stopped)


@functools.cache
def shared() -> Watchdog:
    """The process's watchdog (its thread starts with the first parse)."""
    return Watchdog()


def _thread_clock(thread: int) -> Callable[[], float]:
    """The CPU clock of `thread` (so that load on the machine cannot fail a parse)."""
    try:
        clock = time.pthread_getcpuclockid(thread)
    except (AttributeError, OSError):  # not on every platform: wall time, with more time
        return time.monotonic
    return functools.partial(time.clock_gettime, clock)


def _resident() -> int:
    """The process's resident memory in bytes (its peak where the current is not known)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak if sys.platform == "darwin" else peak * 1024


def _raise_in(thread: int, exception: type[BaseException]) -> None:
    """Raise `exception` in `thread` at its next backward jump or call.

    A raise is never withdrawn (`PyThreadState_SetAsyncExc(id, NULL)`): CPython 3.11 then
    keeps the interpreter's "asynchronous exception" signal set with nothing to deliver,
    and every later loop and call in every thread goes through its slow path for good (a
    hypothesis run was seen spinning in it for ever). `_land` lets it land instead."""
    import ctypes  # deferred: only a parse that runs away needs it

    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread),
                                               ctypes.py_object(exception))


def _land() -> None:
    """Run a few bytecodes in this thread, where a raise the watchdog made into it lands
    (CPython delivers one at the next backward jump): inside `Watchdog.run`, never in its
    caller. Nothing lands when it already has."""
    for _ in range(_LANDING_JUMPS):
        pass
