"""`Checkpoints`: one workspace's snapshots before and after calls, and undo (docs/SPEC.md §4.10).

The executor calls `before` just before a call nobody approved in the box
runs and `after` when it is done; a call that changed files becomes a
checkpoint. `plan_undo` and `undo` put files back; `prune` keeps the store small.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

from saikish.checkpoints import ledger, prune, undo
from saikish.checkpoints.git import ShadowGit, store_path
from saikish.checkpoints.snapshot import Scan, look, take, update
from saikish.checkpoints.values import (
    UNDO,
    Checkpoint,
    CheckpointError,
    Limits,
    NoCheckpoints,
    Pending,
    Snapshot,
    UndoPlan,
)


class Checkpoints:
    """The shadow store of one workspace; `available` turns False when a snapshot failed."""

    def __init__(self, git: ShadowGit, limits: Limits | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.git, self.limits, self.clock = git, limits or Limits(), clock
        self.problem: str | None = None  # why checkpoints stopped working in this session

    @classmethod
    def open(cls, workspace: str, state_dir: Path, limits: Limits | None = None,
             clock: Callable[[], float] = time.time, create: bool = True) -> Checkpoints:
        """The store for `workspace` (made when `create`); CheckpointError says why not."""
        real = os.path.realpath(workspace)
        refused = refusal(real)
        if refused:
            raise CheckpointError(refused)
        git = ShadowGit.find(real, store_path(state_dir, real))
        try:
            if not (git.git_dir / "HEAD").exists():
                if not create:
                    raise NoCheckpoints(f"no checkpoints of {real}: saikish has recorded "
                                        f"no call that changed files here")
                git.create()
            git.write_info(_own_dirs(real, state_dir))
        except OSError as exc:
            raise CheckpointError(f"cannot keep checkpoints in {git.store}: "
                                  f"{_reason(exc)}") from None
        return cls(git, limits, clock)

    @classmethod
    def find(cls, directory: str, state_dir: Path) -> Checkpoints:
        """The store of `directory` or of the nearest directory above it that has one."""
        path = os.path.realpath(directory)
        while True:
            if (store_path(state_dir, path) / "git" / "HEAD").exists():
                return cls.open(path, state_dir, create=False)
            if os.path.dirname(path) == path:
                return cls.open(directory, state_dir, create=False)  # says there is none
            path = os.path.dirname(path)

    @property
    def available(self) -> bool:
        """True while snapshots work (the tiers contain calls only then)."""
        return self.problem is None

    @property
    def workspace(self) -> str:
        """The workspace's real path."""
        return self.git.workspace

    def before(self, tool: str, summary: str) -> Pending:
        """Snapshot the files before a call; CheckpointError (and unavailable) on failure."""
        with self._store():
            snapshot = take(self.git, self.limits)
            if self.git.head() is None:
                ledger.base(self.git)
        return Pending(snapshot, tool, summary)

    def after(self, pending: Pending) -> Checkpoint | None:
        """Snapshot after the call; the checkpoint when it changed files, else None."""
        with self._store():
            found = look(self.git, self.limits)
            too_big = _big_changes(pending.before.big, found.big)
            if not (found.add or found.drop or too_big):
                return None
            return self._record(found, too_big, pending.tool, pending.summary)

    def history(self) -> tuple[Checkpoint, ...]:
        """Every checkpoint, newest first."""
        with self._store(lock=False):
            return ledger.history(self.git)

    def plan_undo(self, count: int = 1, number: int | None = None) -> UndoPlan:
        """What undoing the last `count` calls (or checkpoint `number`) would change."""
        with self._store(fail=False):
            chosen = undo.choose(ledger.history(self.git), count, number)
            now = take(self.git, self.limits)
            current = self.git.run("write-tree").decode().strip()
            return undo.plan(self.git, chosen, current, now.big)

    def undo(self, plan: UndoPlan) -> Checkpoint:
        """Restore `plan`, recorded as a checkpoint of its own (so it can be undone too)."""
        with self._store(fail=False):
            take(self.git, self.limits)
            if self.git.run("write-tree").decode().strip() != plan.current:
                raise CheckpointError("the files changed after the diff was shown: run "
                                      "undo again to see what it would do now")
            try:
                undo.restore(self.git, plan)
            except (CheckpointError, OSError) as exc:  # what was restored is recorded too
                done = self._record(look(self.git, self.limits), (), UNDO,
                                    f"undo {plan.numbers} (failed part way)")
                raise CheckpointError(f"undo failed part way ({_reason(exc)}); checkpoint "
                                      f"{done.number} holds the files as they were before "
                                      f"it") from None
            undid = tuple(c.number for c in plan.checkpoints)
            return self._record(look(self.git, self.limits), (), UNDO, f"undo {plan.numbers}",
                                undid)

    def prune(self, wait: bool = False) -> tuple[int, ...]:
        """Drop old checkpoints (at most once per `prune_every_s`); the numbers dropped."""
        now = self.clock()
        with self._store(lock=False, fail=False):
            if not prune.due(self.git, now, self.limits):
                return ()
            size, loose = prune.objects(self.git)
            with self.git.locked():
                gone = prune.expired(ledger.history(self.git), now, self.limits, size)
                ledger.drop(self.git, gone)
            if gone or loose > prune.LOOSE:
                prune.collect(self.git, wait)
            prune.sweep(self.git.store.parent, self.git.store, now, self.limits)
            return gone

    def _record(self, found: Scan, too_big: tuple[str, ...], tool: str, summary: str,
                undid: tuple[int, ...] = ()) -> Checkpoint:
        """Write the checkpoint: the tree before (the index now), then after `found`."""
        before = self.git.run("write-tree").decode().strip()
        after: Snapshot = update(self.git, found)
        tree = self.git.run("write-tree").decode().strip()
        big = set(too_big)
        added, modified, deleted = (tuple(p for p in paths if p not in big)
                                    for paths in (after.added, after.modified, after.deleted))
        draft = Checkpoint(0, self.clock(), tool, summary, added, modified, deleted, too_big,
                           undid, before)
        return ledger.write(self.git, draft, tree)

    @contextlib.contextmanager
    def _store(self, lock: bool = True, fail: bool = True) -> Iterator[None]:
        """Use the store: errors become one CheckpointError line, and when `fail` they turn
        checkpoints off for this session (a later call is then decided without undo)."""
        try:
            with self.git.locked() if lock else contextlib.nullcontext():
                yield
        except (CheckpointError, OSError) as exc:
            error = exc if isinstance(exc, CheckpointError) else CheckpointError(
                f"the checkpoint store {self.git.store} cannot be used: {_reason(exc)}")
            if fail:
                self.problem = str(error)
            raise error from None


def _big_changes(before: Mapping[str, tuple[int, int]],
                 after: Mapping[str, tuple[int, int]]) -> tuple[str, ...]:
    """Files too big to copy that appeared, changed (size or time) or went away."""
    changed = {p for p, v in after.items() if before.get(p) != v} | (before.keys() - after.keys())
    return tuple(sorted(changed))


def _reason(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)


def refusal(workspace: str) -> str | None:
    """Why no checkpoints are kept of `workspace` (the root or the home), or None."""
    real = os.path.realpath(workspace)
    if real in ("/", os.path.realpath(os.path.expanduser("~"))):
        return f"saikish keeps no checkpoints of {real} (start it in a project directory " \
               f"for undo)"
    return None


def _own_dirs(workspace: str, state_dir: Path) -> str:
    """An exclude line for saikish's state dir when it lies inside the workspace."""
    state = os.path.realpath(state_dir)
    if state.startswith(workspace + os.sep):
        return "/" + os.path.relpath(state, workspace) + "/\n"
    return ""
