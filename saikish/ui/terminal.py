"""The terminal's own echo while the agent works (docs/SPEC.md §9).

Between prompts the terminal is in its ordinary (cooked) mode, so it echoes
every key the person types into the transcript, and Ctrl-C as `^C`, which
moves the cursor off a line rich is still redrawing (the line is then drawn
twice). While an answer streams or a command runs, saikish turns the echo
off; the keys stay queued for the next prompt, and Ctrl-C still interrupts.
prompt_toolkit sets its own modes for the approval box and an editor, and
puts these back when it is done.
"""

from __future__ import annotations

import contextlib
import termios
from collections.abc import Iterator
from typing import TextIO


@contextlib.contextmanager
def echo_off(stream: TextIO) -> Iterator[None]:
    """No echo of typed keys on `stream`'s terminal inside the block; nothing off one."""
    try:
        fd = stream.fileno()
        saved = termios.tcgetattr(fd)
    except (AttributeError, OSError, ValueError, termios.error):  # not a terminal
        yield
        return
    quiet = list(saved)
    quiet[3] &= ~(termios.ECHO | termios.ECHONL)
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        with contextlib.suppress(OSError, termios.error):  # the terminal may be gone (SIGHUP)
            termios.tcsetattr(fd, termios.TCSANOW, saved)
