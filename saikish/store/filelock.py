"""An exclusive lock across processes that leaves no file behind (docs/SPEC.md §4.5, §4.6).

The lock is a file beside the one it guards (`allowlist.yaml.lock`), locked
with flock(2), and removed by its holder before it lets go. A process that
waited on a file that was removed meanwhile sees that the path no longer
names what it locked, and starts again; so two processes never both hold it,
and the config and state directories keep no stray `*.lock` files. (A crash
while holding it leaves one; the next holder removes it.)
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def exclusive(guarded: Path) -> Iterator[None]:
    """Hold the lock for `guarded` inside the block (OSError when it cannot be taken)."""
    lock = guarded.with_name(guarded.name + ".lock")
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = _take(lock)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(lock)  # still held: nobody can have taken it in between
        os.close(fd)  # lets go


def _take(lock: Path) -> int:
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if os.path.samestat(os.fstat(fd), os.stat(lock)):
                return fd  # the file at the path is the one locked: ours
        except FileNotFoundError:
            pass  # removed by the holder we waited for: start again
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
