"""Reading which command names the PATH a call sees resolves to the workspace's own
programs (docs/SPEC.md §4.1 Tiers), for the engine (saikish.engine.programs).

Read again for every decision: the workspace's `bin/` may have changed since the last one.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Sequence

from saikish.engine.programs import ProgramPath

# More programs than this in one PATH entry inside the workspace: it is not listed, and
# every name not found ahead of it counts as its (fails closed, stays cheap).
MAX_PROGRAMS = 4096


def read_program_path(search: str | None, workspace: str) -> ProgramPath:
    """The facts for `search` (a PATH value) in `workspace`."""
    if not search:
        return ProgramPath()  # bash's default path: system directories only
    root = os.path.realpath(workspace)
    entries = search.split(os.pathsep)
    found: dict[str, str] = {}
    for index, entry in enumerate(entries):
        ahead = entries[:index]
        if not os.path.isabs(entry):  # '.', 'bin', '' (the current directory)
            return ProgramPath(found, entry or ".", _programs_in(ahead))
        real = os.path.realpath(entry)
        if not (real == root or real.startswith(root.rstrip(os.sep) + os.sep)):
            continue
        names = _programs(entry, MAX_PROGRAMS)
        if names is None:
            return ProgramPath(found, os.path.relpath(real, root), _programs_in(ahead))
        for name in names:
            if name not in found and not any(_runnable(os.path.join(a, name)) for a in ahead):
                found[name] = os.path.relpath(os.path.join(real, name), root)
    return ProgramPath(found)


def _programs_in(entries: Sequence[str]) -> frozenset[str]:
    """Every name in the absolute `entries` (system directories, thousands of names: not
    looked at one by one; a file there that is not a program is rare and not the
    workspace's to place)."""
    names: set[str] = set()
    for entry in entries:
        if os.path.isabs(entry):
            with contextlib.suppress(OSError):
                names.update(os.listdir(entry))
    return frozenset(names)


def _programs(directory: str, limit: int | None = None) -> list[str] | None:
    """The names of the programs in `directory`; None when it has more than `limit`
    entries ([] when it cannot be read)."""
    try:
        listing = os.scandir(directory)
    except OSError:
        return []
    with listing:
        entries = list(itertools.islice(listing, None if limit is None else limit + 1))
    if limit is not None and len(entries) > limit:
        return None
    return [item.name for item in entries if _runnable(item.path)]


def _runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)
