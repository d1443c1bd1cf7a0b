"""A running bash call, wherever it runs (docs/SPEC.md §3): a process of our own on the
host (`HostJob`) or a call in the session's sandbox runner (saikish.tools.sandbox.runner).

The bash tool reads `output` to its end, waits with `wait`, and calls `end` in every case
(done, timed out, Ctrl-C): after `end` nothing the call started is running.
"""

from __future__ import annotations

import subprocess
from typing import IO, Protocol

from saikish.tools.sandbox.reaper import end_all, end_late_ones, now, start_time


class LaunchError(OSError):
    """The sandbox itself failed to start the call; the text is the launcher's own line
    ("bwrap: ..."), which makes the executor probe the sandbox and ask if it is broken."""


class Job(Protocol):
    """One started call."""

    @property
    def output(self) -> IO[bytes]:
        """The read end of the pipe that takes the call's stdout and stderr (the reader
        closes it at its end)."""

    @property
    def returncode(self) -> int | None:
        """The exit code once it ended (negative: killed by that signal), else None."""

    def wait(self, timeout: float) -> bool:
        """Wait up to `timeout` seconds; True when the call has ended."""

    def end(self) -> None:
        """End the call and everything it started (SIGTERM, then SIGKILL after a grace)."""


class HostJob:
    """A call run as a process of saikish's own, in its own session, ended by the reaper."""

    def __init__(self, proc: subprocess.Popen[bytes], marker: str) -> None:
        assert proc.stdout is not None
        self.proc, self.marker = proc, marker
        self._output = proc.stdout
        self._since = start_time(proc.pid)  # what the call starts, starts after it

    @property
    def output(self) -> IO[bytes]:
        return self._output

    @property
    def returncode(self) -> int | None:
        return self.proc.returncode

    def wait(self, timeout: float) -> bool:
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return False
        return True

    def end(self) -> None:
        until = now()  # what starts later under bash's pid or group is not the call's
        self.proc.poll()  # reap bash if it is done, so only live processes are waited for
        end_all(self.proc.pid, self.marker, since=self._since, until=until)
        end_late_ones(self.proc.pid, self.marker, since=self._since, until=until)
        self.proc.wait()
