"""One snapshot: `git status` says what changed since the last, only that is copied.

The index of the shadow store remembers every file's stat data, so a
snapshot of a workspace where one file changed reads one file. Files above
the size cap are never copied: they are named in the snapshot instead.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from saikish.checkpoints.git import ShadowGit
from saikish.checkpoints.values import CheckpointError, Limits, Snapshot

STATUS = ("status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames",
          "--ignore-submodules=all")


def parse_status(output: bytes) -> list[tuple[str, str]]:
    """(XY code, path) for each entry of `git status --porcelain=v1 -z` (no renames)."""
    entries = []
    for item in output.split(b"\0"):
        if len(item) > 3:
            entries.append((item[:2].decode("ascii", "replace"), os.fsdecode(item[3:])))
    return entries


@dataclass
class Scan:
    """What a status means for the index: paths to copy, to drop, and files too big."""

    add: list[str] = field(default_factory=list)
    drop: list[str] = field(default_factory=list)  # tracked, now too big: out of the index
    added: list[str] = field(default_factory=list)
    modified: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    big: dict[str, tuple[int, int]] = field(default_factory=dict)
    new_bytes: int = 0


def scan(entries: Iterable[tuple[str, str]], workspace: str, limits: Limits,
         lstat: Callable[[str], os.stat_result] = os.lstat) -> Scan:
    """Sort status entries: untracked (`??`) are added, worktree changes (`_M`, `_T`,
    `_D`) updated; a directory (`?? dir/`: a nested repository) is never added."""
    result = Scan()
    for code, path in entries:
        untracked = code == "??"
        if (not untracked and code[1] not in "MTD") or path.endswith("/"):
            continue
        try:
            info = lstat(os.path.join(workspace, path))
        except FileNotFoundError:
            info = None
        if info is None or code[1] == "D":
            if not untracked:
                result.deleted.append(path)
                result.add.append(path)  # --remove drops a file that is gone
            continue
        if stat.S_ISREG(info.st_mode) and info.st_size > limits.max_file_bytes:
            result.big[path] = (info.st_size, info.st_mtime_ns)
            if not untracked:
                result.drop.append(path)
            continue
        result.add.append(path)
        (result.added if untracked else result.modified).append(path)
        result.new_bytes += info.st_size
    return result


def look(git: ShadowGit, limits: Limits) -> Scan:
    """What changed since the index was last updated (nothing is copied yet)."""
    found = scan(parse_status(git.run(*STATUS, timeout=limits.walk_timeout_s)),
                 git.workspace, limits)
    _check_size(git, found, limits)
    return found


def update(git: ShadowGit, found: Scan) -> Snapshot:
    """Copy what `look` found into the index; the snapshot it makes."""
    if found.add:
        git.run("update-index", "--add", "--remove", "-z", "--stdin", data=_paths(found.add))
    if found.drop:
        git.run("update-index", "--force-remove", "-z", "--stdin", data=_paths(found.drop))
    return Snapshot(found.big, tuple(found.added), tuple(found.modified),
                    tuple(found.deleted))


def take(git: ShadowGit, limits: Limits) -> Snapshot:
    """Bring the shadow index in line with the workspace; the lock must be held."""
    return update(git, look(git, limits))


def _check_size(git: ShadowGit, found: Scan, limits: Limits) -> None:
    """Refuse a workspace too big to copy (a home directory, a data set) before copying."""
    files = git.index_entries() + len(found.added)
    if files > limits.max_files:
        raise CheckpointError(f"{git.workspace} holds {files:,} files outside the ignore "
                              f"lists, more than checkpoints keep ({limits.max_files:,}): "
                              f"undo is unavailable here")
    if found.new_bytes > limits.max_snapshot_bytes:
        raise CheckpointError(f"{git.workspace} has {found.new_bytes / 2**20:,.0f} MiB of new "
                              f"files, more than one checkpoint copies "
                              f"({limits.max_snapshot_bytes / 2**20:,.0f} MiB): undo is "
                              f"unavailable here")


def _paths(paths: Iterable[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)
