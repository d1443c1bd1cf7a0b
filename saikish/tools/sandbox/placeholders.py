"""Stand-ins for protected names that do not exist yet (docs/SPEC.md §4.9).

A bind mount needs something to mount on, and a name that does not exist cannot be
protected from being created inside. So before the sandbox starts, each missing
protected path (`.git`, `agent.yml`, `.saikish/`, a hooks directory, or the first missing
directory on the way to one) gets a stand-in on the host: an empty directory dated
MARK_TIME, so that it can be told from the person's own. The sandbox binds it read-only
onto itself: inside it cannot be removed, renamed or filled, and nothing can be created
in its place. A directory even for `agent.yml`: git never lists or adds an empty
directory, so the stand-in shows in no `git status` and cannot be committed by mistake
(saikish's config loader skips it: `is_stand_in`).

Several sessions may share a workspace, so each holds a shared lock (flock) on the
stand-ins it uses; the last one out removes them, and only while they are still empty,
undated and the same file (the person may have put something there meanwhile). A
stand-in left by a session that crashed is recognised by its date and taken over.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field

# 2001-09-09 01:46:40 UTC: the date every stand-in carries.
MARK_TIME = 1_000_000_000


@dataclass(frozen=True)
class Lease:
    """One stand-in this session holds open (and locked) on the host."""

    path: str
    fd: int
    inode: int


@dataclass
class Placeholders:
    """The stand-ins a sandbox uses; `close` releases them and removes the unused ones."""

    leases: list[Lease] = field(default_factory=list)

    @property
    def paths(self) -> tuple[str, ...]:
        """Where the stand-ins are."""
        return tuple(lease.path for lease in self.leases)

    def add(self, wanted: Iterable[str], root: str) -> None:
        """Stand-ins for the paths below `root` that do not exist: for each, the first
        missing directory on its way (often the path itself)."""
        self._drop_stale()
        for path in wanted:
            spot = _first_missing(path, root)
            if spot is None or spot in self.paths:
                continue
            lease = _lease(spot)
            if lease is not None:
                self.leases.append(lease)

    def _drop_stale(self) -> None:
        """Forget the stand-ins the person removed or used meanwhile (their place may need a
        new one, or be protected as the person's own)."""
        kept = []
        for lease in self.leases:
            if _untouched(lease):
                kept.append(lease)
            else:
                os.close(lease.fd)
        self.leases = kept

    def close(self) -> None:
        """Release every stand-in; remove those nobody else holds and nobody has used."""
        leases, self.leases = self.leases, []
        for lease in leases:
            with contextlib.suppress(OSError):
                if _sole_holder(lease.fd) and _untouched(lease):
                    os.rmdir(lease.path)
            os.close(lease.fd)


def _first_missing(path: str, root: str) -> str | None:
    relative = os.path.relpath(path, root)
    if relative.startswith(os.pardir) or relative == os.curdir:
        return None  # only below the workspace: elsewhere is read-only anyway
    parts = relative.split(os.sep)
    for index in range(len(parts)):
        spot = os.path.join(root, *parts[:index + 1])
        if not os.path.lexists(spot) or is_stand_in(spot):
            return spot
    return None


def is_stand_in(path: str | os.PathLike[str]) -> bool:
    """True when `path` is a stand-in (this session's, another's or a crashed one's): an
    empty directory dated MARK_TIME."""
    try:
        info = os.lstat(path)
    except OSError:
        return False
    return int(info.st_mtime) == MARK_TIME and stat.S_ISDIR(info.st_mode) and \
        not os.listdir(path)


def _lease(path: str) -> Lease | None:
    """Create the stand-in (or share an existing one) and lock it shared."""
    if not os.path.lexists(path):
        try:
            os.mkdir(path, 0o755)
            os.utime(path, (MARK_TIME, MARK_TIME))
        except FileExistsError:  # appeared meanwhile: another session's, or real
            pass
        except OSError:
            return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    lease = Lease(path, fd, os.fstat(fd).st_ino)
    if not _untouched(lease):
        os.close(fd)  # the person's own: it is protected as an existing path
        return None
    fcntl.flock(fd, fcntl.LOCK_SH)
    return lease


def _sole_holder(fd: int) -> bool:
    """True when no other session holds this stand-in (our shared lock becomes exclusive)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _untouched(lease: Lease) -> bool:
    """True when the path is still a stand-in, and the one leased."""
    try:
        return os.lstat(lease.path).st_ino == lease.inode and is_stand_in(lease.path)
    except OSError:
        return False
