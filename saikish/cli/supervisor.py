"""A small process above saikish, so that nothing it started outlives it even when one of
the two is killed with SIGKILL (docs/SPEC.md §3).

`saikish` forks at its very start. The parent keeps the pid whoever started saikish knows
(the shell, the editor) and only watches; the child is saikish. Both are subreapers
(saikish.tools.sandbox.orphans), so every orphan stays under one of them:

- saikish itself killed (`kill -9` of its pid, the OOM killer): its processes come to the
  watcher, which ends them all and exits as saikish did;
- the watcher killed (an editor's SIGKILL of the pid it started): saikish gets SIGTERM
  (PR_SET_PDEATHSIG), ends its calls, servers and adopted processes, and exits.

Only both killed at once (a SIGKILL to the whole process group) leaves them to init. The
watcher passes on the signals meant for saikish: any sent to its pid (kill, timeout,
an editor's SIGTERM), a hangup, never the keyboard's Ctrl-C or Ctrl-\\ (the terminal sends
those to both already). Ctrl-Z stops both, as one job.
"""

from __future__ import annotations

import contextlib
import os
import signal
from typing import NoReturn

from saikish.tools.sandbox.orphans import become_subreaper, end_adopted, prctl

PR_SET_PDEATHSIG = 1
SI_KERNEL = 0x80  # si_code of a signal the kernel sent (a key on the terminal, a hangup)
PASSED_ON = frozenset({signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT,
                       signal.SIGUSR1, signal.SIGUSR2})
KEYBOARD = frozenset({signal.SIGINT, signal.SIGQUIT})


def supervise() -> None:
    """Fork; return in the child, which is saikish. The parent watches it and never
    returns. Returns at once where there are no subreapers (not Linux) or no fork."""
    if not become_subreaper():
        return
    watcher = os.getpid()
    try:
        child = os.fork()
    except OSError:
        return  # saikish runs alone: still the subreaper of what it starts
    if child == 0:
        prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != watcher:  # the watcher died before the line above
            os.kill(os.getpid(), signal.SIGTERM)
        return
    _watch(child)


def _watch(child: int) -> NoReturn:
    """Pass signals on until saikish ends; then end whatever is left, and exit as it did."""
    waited = {signal.SIGCHLD, *PASSED_ON}
    signal.pthread_sigmask(signal.SIG_BLOCK, waited)
    _let_go_of_stdin()
    status = None
    while status is None:
        info = signal.sigwaitinfo(waited)
        if info.si_signo == signal.SIGCHLD:
            status = _reap(child)
        elif info.si_signo not in KEYBOARD or info.si_code != SI_KERNEL:
            with contextlib.suppress(ProcessLookupError):  # ended: its SIGCHLD is coming
                os.kill(child, info.si_signo)
    end_adopted()  # what saikish left, if it was killed before it could end it
    _exit_as(status)


def _reap(child: int) -> int | None:
    """Collect every child that ended; saikish's wait status once it is one of them."""
    found = None
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return found
        if pid == 0:
            return found
        if pid == child:
            found = status


def _exit_as(status: int) -> NoReturn:
    """Exit with saikish's exit code, or die of the signal that killed it."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        with contextlib.suppress(OSError, ValueError):  # SIGKILL has no handler to reset
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # a signal that does not end a process (SIGCHLD...)
    os._exit(os.waitstatus_to_exitcode(status))


def _let_go_of_stdin() -> None:
    """The watcher never reads: saikish alone holds stdin (an editor's pipe, a terminal)."""
    try:
        null = os.open(os.devnull, os.O_RDONLY)
    except OSError:
        return
    os.dup2(null, 0)
    os.close(null)
