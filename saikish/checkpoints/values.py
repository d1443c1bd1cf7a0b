"""The nouns of checkpoints and undo (docs/SPEC.md §4.10): limits, snapshots, checkpoints, plans."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from saikish.errors import SaikishError

# The tool name an undo is recorded under: an undo is a checkpoint too, so it can be undone.
UNDO = "undo"
MIB = 1024 * 1024


class CheckpointError(SaikishError):
    """The checkpoint store cannot be used: one line saying why (git missing, store broken)."""

    exit_code = 1


class NoCheckpoints(CheckpointError):
    """The workspace has no checkpoint store: nothing was ever recorded there."""


@dataclass(frozen=True)
class Limits:
    """How much the checkpoints copy and keep; the defaults are documented in §4.10."""

    max_file_bytes: int = 10 * MIB  # a bigger file is not copied: undo cannot restore it
    max_files: int = 100_000  # more files than this in one workspace: checkpoints are off
    max_snapshot_bytes: int = 1024 * MIB  # new content one snapshot may copy
    walk_timeout_s: float = 10.0  # a workspace git cannot list in this time is too big
    keep_days: float = 7.0
    keep_count: int = 200
    max_store_bytes: int = 2048 * MIB
    prune_every_s: float = 3600.0  # pruning runs at a session start at most this often


@dataclass(frozen=True)
class Snapshot:
    """The workspace's files at one moment, as the shadow index holds them.

    `big` names the files too big to copy (path -> size, mtime_ns); `added`,
    `modified` and `deleted` say what changed since the index was last updated.
    """

    big: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()

    @property
    def changed(self) -> bool:
        """True when the index had to be updated."""
        return bool(self.added or self.modified or self.deleted)


@dataclass(frozen=True)
class Pending:
    """A call about to run, with what the snapshot just before it saw."""

    before: Snapshot
    tool: str
    summary: str


@dataclass(frozen=True)
class Checkpoint:
    """One call (or undo) that changed files: when, what, which files, and its two trees."""

    number: int
    time: float
    tool: str
    summary: str
    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    # Changed, but too big to copy on one side: undo leaves them alone.
    too_big: tuple[str, ...] = ()
    # For an undo: the checkpoints it undid.
    undid: tuple[int, ...] = ()
    before: str = ""  # the tree before the call
    after: str = ""  # the commit whose tree is the files after the call

    @property
    def files(self) -> tuple[str, ...]:
        """Every path the call changed, sorted."""
        return tuple(sorted({*self.added, *self.modified, *self.deleted, *self.too_big}))

    @property
    def is_undo(self) -> bool:
        """True for the record of an undo."""
        return self.tool == UNDO

    def message(self) -> str:
        """The commit message that stores this checkpoint: one line of JSON."""
        return json.dumps({
            "v": 1, "time": self.time, "tool": self.tool, "summary": self.summary,
            "added": self.added, "modified": self.modified, "deleted": self.deleted,
            "too_big": self.too_big, "undid": self.undid, "before": self.before})

    @classmethod
    def parse(cls, number: int, commit: str, message: str) -> Checkpoint | None:
        """The checkpoint a commit message stores; None for one that is not ours."""
        try:
            data = json.loads(message)
            return cls(number, float(data["time"]), str(data["tool"]), str(data["summary"]),
                       _paths(data, "added"), _paths(data, "modified"), _paths(data, "deleted"),
                       _paths(data, "too_big"), tuple(int(n) for n in data.get("undid", ())),
                       str(data["before"]), commit)
        except (ValueError, KeyError, TypeError):
            return None


def _paths(data: Mapping[str, Any], key: str) -> tuple[str, ...]:
    return tuple(str(p) for p in data.get(key, ()))


@dataclass(frozen=True)
class UndoPlan:
    """What an undo would do: the files as they are now, back to before the chosen calls."""

    checkpoints: tuple[Checkpoint, ...]  # newest first
    current: str  # the tree of the files now
    target: str  # the tree after restoring
    diff: str  # unified diff, current -> target
    restore: tuple[str, ...] = ()  # written back
    remove: tuple[str, ...] = ()  # deleted (the calls created them)
    skipped: tuple[tuple[str, str], ...] = ()  # (path, why undo leaves it alone)

    @property
    def files(self) -> tuple[str, ...]:
        """Every path the undo changes."""
        return tuple(sorted({*self.restore, *self.remove}))

    @property
    def numbers(self) -> str:
        """'12, 11': the checkpoints undone, newest first."""
        return ", ".join(str(c.number) for c in self.checkpoints)


def undone(checkpoints: tuple[Checkpoint, ...]) -> dict[int, int]:
    """checkpoint number -> the undo that undid it, for `checkpoints` newest first.

    An undo that was itself undone undoes nothing: it is skipped.
    """
    result: dict[int, int] = {}
    for checkpoint in checkpoints:
        if checkpoint.number in result:
            continue
        for number in checkpoint.undid:
            result.setdefault(number, checkpoint.number)
    return result

