"""Files written whole or not at all: a temp file beside the target, fsync, then a rename.

Used for everything saikish writes that a crash must not truncate: the file
tools' writes, the allowlist, the trust store, the record of approved MCP tools.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path


def atomic_write(path: Path, text: str, private: bool = False) -> None:
    """Write `text` to `path` through a temp file and a rename.

    The file keeps its mode; a new file gets the mode the umask gives (as `>` in a
    shell would). `private` files (saikish's own records) are always 0600. Temp files
    of this file left by a process killed mid-write (kill -9) are removed first.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    sweep_stale(path.parent, path.name)
    mode = 0o600 if private else path.stat().st_mode & 0o7777 if path.exists() else \
        0o666 & ~current_umask()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())  # the rename must not land before the data does
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# mkstemp's names: ".NAME." + 8 characters + ".tmp".
_TEMP = re.compile(r"\.(?P<name>.+)\.[A-Za-z0-9_]{8}\.tmp")
STALE_S = 3600.0  # older than any write in progress


def sweep_stale(directory: Path, name: str | None = None, now: float | None = None) -> None:
    """Remove atomic_write's temp files in `directory` (of file `name` only, when given)
    older than STALE_S: what a killed writer left. Never raises."""
    cutoff = (time.time() if now is None else now) - STALE_S
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return
    for entry in entries:
        found = _TEMP.fullmatch(entry.name)
        if found is None or (name is not None and found.group("name") != name):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False) and \
                    entry.stat(follow_symlinks=False).st_mtime < cutoff:
                os.unlink(entry.path)


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive lock on `path` + '.lock', across processes, for a read-modify-write.

    OSError when the lock file cannot be created (a read-only state dir)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def current_umask() -> int:
    """The process umask, read without changing it where /proc allows."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # the portable way: set and restore at once
    os.umask(mask)
    return mask
