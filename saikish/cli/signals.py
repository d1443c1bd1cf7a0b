"""SIGTERM and SIGHUP end saikish the way Ctrl-C would: by unwinding, so that the running
command is ended with it (docs/SPEC.md §3, §8)."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from collections.abc import Iterator
from types import FrameType


class Terminated(SystemExit):
    """saikish got SIGTERM or SIGHUP: unwind (ending running commands), exit 128 + signal.

    A SystemExit, so that nothing on the way (the executor, asyncio under the REPL's
    prompt) mistakes it for an error to report and carry on from.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum


@contextlib.contextmanager
def signals_end_the_run() -> Iterator[None]:
    """While saikish runs, SIGTERM and SIGHUP (a closed terminal) unwind it cleanly."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    ending = (signal.SIGTERM, signal.SIGHUP)

    def handler(signum: int, frame: FrameType | None) -> None:
        for each in ending:  # a second signal must not cut the cleanup short
            signal.signal(each, signal.SIG_IGN)
        if not _end_prompt(signum):
            raise Terminated(signum)

    previous = {each: signal.getsignal(each) for each in ending}
    for each in ending:
        if previous[each] is not signal.SIG_IGN:  # e.g. under nohup: keep ignoring
            signal.signal(each, handler)
    try:
        yield
    finally:
        for each, action in previous.items():
            signal.signal(each, action)


def _end_prompt(signum: int) -> bool:
    """Ask a running prompt_toolkit application to exit with Terminated; True if there is one.

    Raising from inside its event loop would leave its pending tasks to print
    "Unhandled exception" screens; exiting the application unwinds it cleanly.
    """
    if "prompt_toolkit" not in sys.modules:
        return False
    try:
        from prompt_toolkit.application import get_app_or_none
    except ImportError:  # the signal came while prompt_toolkit is being imported: no app yet
        return False

    app = get_app_or_none()
    loop = getattr(app, "loop", None)
    if app is None or not app.is_running or loop is None:
        return False

    def leave() -> None:
        with contextlib.suppress(Exception):  # already leaving: it unwinds anyway
            app.exit(exception=Terminated(signum))

    loop.call_soon_threadsafe(leave)  # wakes the loop, which may sit in select()
    return True
