"""Pruning: checkpoints past their age or count go, and a store over its size loses the older
half; `git gc` then frees their files, in a process of its own, so no call waits for it.

Runs when a session starts, at most once an hour per workspace. The newest
checkpoint is always kept. Stores of workspaces that no longer exist are
removed once they are older than the age limit.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from saikish.checkpoints.git import SAFE_FLAGS, ShadowGit
from saikish.checkpoints.values import Checkpoint, Limits

DAY = 86400.0
# Objects younger than this survive gc even when nothing refers to them yet: a snapshot
# being written by another session at that moment is not cut from under it.
GRACE = "--prune=1.hour.ago"
# More loose objects than this are packed even when no checkpoint expired (one file each).
LOOSE = 5000


def expired(history: Sequence[Checkpoint], now: float, limits: Limits,
            store_bytes: int) -> tuple[int, ...]:
    """The checkpoints to drop from `history` (newest first); never the newest."""
    keep = [c for i, c in enumerate(history)
            if i == 0 or (i < limits.keep_count and now - c.time <= limits.keep_days * DAY)]
    if store_bytes > limits.max_store_bytes:  # too big: the older half goes too
        keep = keep[:max(1, len(keep) // 2)]
    kept = {c.number for c in keep}
    return tuple(c.number for c in history if c.number not in kept)


def objects(git: ShadowGit) -> tuple[int, int]:
    """(bytes the store's objects take on disk, how many are loose): `git count-objects -v`."""
    counts = {}
    for line in git.run("count-objects", "-v").decode().splitlines():
        key, _, value = line.partition(":")
        if value.strip().isdigit():
            counts[key.strip()] = int(value)
    size = 1024 * sum(counts.get(k, 0) for k in ("size", "size-pack", "size-garbage"))
    return size, counts.get("count", 0)


def due(git: ShadowGit, now: float, limits: Limits) -> bool:
    """True when this store was not pruned in the last `prune_every_s`; marks it pruned."""
    stamp = git.store / "pruned"
    try:
        if now - stamp.stat().st_mtime < limits.prune_every_s:
            return False
    except FileNotFoundError:
        pass
    stamp.touch()
    os.utime(stamp, (now, now))
    return True


def collect(git: ShadowGit, wait: bool = False) -> None:
    """`git gc` in its own process (waited for only when `wait`)."""
    if wait:
        git.run("gc", "--quiet", GRACE)
        return
    subprocess.Popen([git.program, *SAFE_FLAGS, "gc", "--quiet", GRACE], env=git.env,
                     cwd=git.workspace, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True)


def sweep(root: Path, keep: Path, now: float, limits: Limits) -> None:
    """Remove the stores of workspaces that are gone, unused for longer than the age limit."""
    try:
        stores = list(root.iterdir())
    except OSError:
        return
    for store in stores:
        if store == keep or not (store / "git").is_dir():
            continue
        try:
            workspace = (store / "workspace").read_text(encoding="utf-8").strip()
            used = max(p.stat().st_mtime for p in (store, store / "git"))
        except (OSError, ValueError):
            continue
        if not os.path.isdir(workspace) and now - used > limits.keep_days * DAY:
            shutil.rmtree(store, ignore_errors=True)
