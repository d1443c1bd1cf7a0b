"""Undo: put the files the chosen calls changed back as they were before the oldest of them.

A file takes its content from before the oldest chosen call that changed it,
so what the person changed between calls, in files no chosen call touched, is
kept. The plan is a target tree built beside the current one; the diff shown
is git's diff between the two, and restoring writes exactly that.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from saikish.checkpoints.git import ShadowGit
from saikish.checkpoints.ledger import mapping_lines, raw_changes
from saikish.checkpoints.values import Checkpoint, CheckpointError, UndoPlan, undone

UNDO_INDEX = "undo-index"
DIFF = ("diff-tree", "-r", "-p", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color")


def choose(history: Sequence[Checkpoint], count: int = 1,
           number: int | None = None) -> tuple[Checkpoint, ...]:
    """The checkpoints to undo: the last `count` calls not undone yet, or checkpoint `number`."""
    done = undone(tuple(history))
    if number is not None:
        chosen = [c for c in history if c.number == number]
        if not chosen:
            raise CheckpointError(f"there is no checkpoint {number} (saikish undo --list)")
        if number in done:
            raise CheckpointError(f"checkpoint {number} was undone already, by checkpoint "
                                  f"{done[number]}")
        return tuple(chosen)
    if count < 1:
        raise CheckpointError(f"undo {count}: give how many calls to undo, 1 or more")
    calls = [c for c in history if not c.is_undo and c.number not in done]
    if not calls:
        raise CheckpointError("nothing to undo: no call changed files since the last undo "
                              "(saikish undo --list)")
    if len(calls) < count:
        raise CheckpointError(f"only {len(calls)} call{'s' if len(calls) > 1 else ''} can be "
                              f"undone (saikish undo --list)")
    return tuple(calls[:count])


def targets(git: ShadowGit, chosen: Sequence[Checkpoint], big_now: Mapping[str, object]
            ) -> tuple[dict[str, tuple[str, str] | None], dict[str, str]]:
    """path -> (mode, object) to restore or None to remove; path -> why it is left alone."""
    decided: dict[str, tuple[str, str] | None | str] = {}
    for checkpoint in chosen:  # newest first: the oldest call that changed a file decides
        for path, (mode, sha, _) in raw_changes(git, checkpoint.before, checkpoint.after).items():
            decided[path] = None if set(mode) == {"0"} else (mode, sha)
        for path in checkpoint.too_big:
            decided[path] = f"it was too big to copy at checkpoint {checkpoint.number}"
    restore: dict[str, tuple[str, str] | None] = {}
    skipped: dict[str, str] = {}
    for path, decision in decided.items():
        if isinstance(decision, str):
            skipped[path] = decision
        elif path in big_now:  # its present content has no copy: restoring would lose it
            skipped[path] = "it is too big to keep a copy of as it is now"
        else:
            restore[path] = decision
    return restore, skipped


def plan(git: ShadowGit, chosen: tuple[Checkpoint, ...], current: str,
         big_now: Mapping[str, object]) -> UndoPlan:
    """What undoing `chosen` would change, from the tree `current` (the files now)."""
    wanted, skipped = targets(git, chosen, big_now)
    scratch = git.store / UNDO_INDEX
    try:
        git.run("read-tree", current, index=scratch)
        null = "0" * len(current)
        git.run("update-index", "-z", "--index-info", data=mapping_lines(wanted, null),
                index=scratch)
        target = git.run("write-tree", index=scratch).decode().strip()
    finally:
        scratch.unlink(missing_ok=True)
    effect = raw_changes(git, current, target)
    diff = git.run(*DIFF, current, target).decode("utf-8", "replace")
    return UndoPlan(chosen, current, target, diff,
                    restore=tuple(sorted(p for p, e in effect.items() if e[2] != "D")),
                    remove=tuple(sorted(p for p, e in effect.items() if e[2] == "D")),
                    skipped=tuple(sorted(skipped.items())))


def restore(git: ShadowGit, plan: UndoPlan) -> None:
    """Write the plan into the workspace: removals first (a file may become a directory)."""
    for path in plan.remove:
        remove(git.workspace, path)
    if not plan.restore:
        return
    scratch = git.store / UNDO_INDEX
    try:
        git.run("read-tree", plan.target, index=scratch)
        # checkout-index replaces a symlink on the way rather than writing through it.
        git.run("checkout-index", "-f", "-z", "--stdin", index=scratch,
                data=b"".join(os.fsencode(p) + b"\0" for p in plan.restore))
    finally:
        scratch.unlink(missing_ok=True)


def remove(workspace: str, path: str) -> None:
    """Delete one file a call created, and the directories that leaves empty."""
    full = os.path.join(workspace, path)
    parent = os.path.realpath(os.path.dirname(full))
    if parent != workspace and not parent.startswith(workspace + os.sep):
        return  # a directory on the way became a symlink out of the workspace: not ours
    try:
        os.unlink(full)
    except FileNotFoundError:
        return
    while parent != workspace:
        try:
            os.rmdir(parent)
        except OSError:  # not empty (or not ours to remove)
            return
        parent = os.path.dirname(parent)
