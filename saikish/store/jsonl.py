"""Files of JSON lines that a crash never corrupts: one write() of a whole line per entry.

Used by the audit log and the session transcripts. A line torn by a crash
(kill -9, a full disk) is closed off before the next entry is appended, and
skipped when the file is read, so it never swallows its neighbour.
"""

from __future__ import annotations

import os
from pathlib import Path


def append_line(path: Path, line: bytes) -> None:
    """One write of a whole line; a torn last line (no newline) is closed off first."""
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            line = b"\n" + line
        written = os.write(fd, line)
        while written < len(line):  # only on a nearly full disk; the reader copes
            written += os.write(fd, line[written:])
    finally:
        os.close(fd)
