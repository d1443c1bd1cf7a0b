"""Reading a file nobody vouched for: regular files only, and never more than a bound.

A cloned repository can hold `data.bin -> /dev/zero` (endless), a FIFO (a read that
never returns) or a socket; a model can name `/dev/zero` or `/dev/stdin`. Every reader of
such paths (the file tools, the previews, ACP's diff, the config and trust stores) reads
through `read_regular`: it opens without blocking, checks what it opened (not what the
name pointed at a moment earlier, so a swap between a check and the open changes
nothing), and reads at most `limit` bytes.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from pathlib import Path

MAX_BYTES = 64 << 20  # larger than any text file a model reads or a person reviews
_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(OSError):
    """The path is a device, FIFO, socket or directory: it is not read."""


class FileTooLarge(OSError):
    """The file is larger than the reader's bound."""


def read_regular(path: Path | str, limit: int = MAX_BYTES, *, cut: bool = False) -> bytes:
    """The bytes of the regular file at `path` (symlinks followed).

    Raises FileNotFoundError and other OSErrors as open does, IsADirectoryError,
    NotRegularFile for anything else that is not a regular file, and FileTooLarge past
    `limit` bytes, or with `cut` returns the first `limit` bytes (the caller says so).
    """
    fd = _open(path)
    try:
        data = _read_up_to(fd, limit + 1)
    finally:
        os.close(fd)
    if len(data) <= limit:
        return data
    if cut:
        return data[:limit]
    raise FileTooLarge(errno.EFBIG, f"larger than {_size(limit)}", str(path))


def sha256_regular(path: Path | str) -> str:
    """The SHA-256 of the regular file at `path`, read in pieces (any size); OSErrors as
    read_regular raises them."""
    fd = _open(path)
    digest = hashlib.sha256()
    try:
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
    finally:
        os.close(fd)
    return digest.hexdigest()


def _open(path: Path | str) -> int:
    """A blocking descriptor on the regular file at `path`, checked after the open."""
    _refuse(os.stat(path).st_mode, path)  # before opening: opening a device can do things
    fd = os.open(path, _FLAGS)
    try:
        _refuse(os.fstat(fd).st_mode, path)  # what was opened, whatever the name is now
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def not_regular(path: Path | str) -> str | None:
    """What `path` is when it exists and is not a regular file ('a FIFO', 'a device'...);
    None for a regular file, a missing one, or a path that cannot be looked at."""
    try:
        return _kind(os.stat(path).st_mode) or None
    except (OSError, ValueError):
        return None


def _refuse(mode: int, path: Path | str) -> None:
    kind = _kind(mode)
    if kind == "a directory":
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
    if kind:
        raise NotRegularFile(errno.EINVAL, f"not a regular file ({kind})", str(path))


def _kind(mode: int) -> str:
    """'' for a regular file, else what it is."""
    if stat.S_ISREG(mode):
        return ""
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a special file"


def _read_up_to(fd: int, size: int) -> bytes:
    chunks: list[bytes] = []
    left = size
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def _size(limit: int) -> str:
    return f"{limit >> 20} MB" if limit >= 1 << 20 else f"{limit:,} bytes"
