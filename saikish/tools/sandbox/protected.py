"""The paths in a workspace that nothing the model runs unasked may change (docs/SPEC.md §4.9).

Git metadata runs code the next time the person uses git (hooks, core.fsmonitor); a
project's agent.yml and .saikish/ change saikish's own rules. So each of these is
protected whether it exists or not (a new `.git` with an fsmonitor is as bad as a changed
one): the workspace's `.git` (a directory, or a file naming the real one elsewhere, which
is protected too, with a worktree's common directory), the `.git` of every repository
nested below it (found by a bounded walk), the directory `core.hooksPath` names (from the
repository's config and the person's global and system ones), the enclosing repository's
metadata when the workspace is a subdirectory of one, `agent.yml` and `.saikish/`.

`protected_paths` is the one list for the sandbox and the file tools: pure apart from
reading the file system and $HOME / $XDG_CONFIG_HOME.
"""

from __future__ import annotations

import enum
import os
from collections.abc import Iterator
from dataclasses import dataclass

from saikish.tools.sandbox.gitconfig import expand, global_config_files, read_config

# At the workspace root, present or not: (name, what it is).
ROOT_NAMES: tuple[tuple[str, str], ...] = (
    (".git", "git metadata"),
    ("agent.yml", "saikish config"),
    (".saikish", "saikish config"),
)
SYSTEM_GITCONFIG = "/etc/gitconfig"
# Directories the walk for nested repositories never enters: dependencies, builds, caches.
SKIPPED_DIRS = frozenset({
    ".git", "node_modules", ".venv", "venv", "env", ".tox", ".nox", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", "target", "build", "dist", ".next",
    ".nuxt", ".gradle", ".m2", ".cache", ".terraform", "bower_components", "site-packages",
    ".cargo", ".rustup", ".npm", ".pnpm-store", ".yarn", "vendor", "Pods", ".direnv",
})
# Bounds of the walk: it runs when a sandbox starts and whenever the file tools ask.
WALK_MAX_DIRS = 4000
WALK_MAX_DEPTH = 8


class Kind(enum.Enum):
    """Why a path is protected."""

    GIT = "git metadata"
    HOOKS = "git hooks"
    CONFIG = "saikish config"


@dataclass(frozen=True)
class Guarded:
    """One protected location: its real path, and why it is protected."""

    path: str
    kind: Kind


@dataclass(frozen=True)
class Repo:
    """A repository found in or above the workspace: its worktree and metadata directories."""

    worktree: str
    gitdirs: tuple[str, ...]  # the .git entry, where it points, the common dir


def protected_paths(workspace: str) -> tuple[str, ...]:
    """The real paths of every protected location of `workspace`, existing or not, sorted.

    A path is protected with everything below it; a caller compares real paths.
    """
    return tuple(sorted({guarded.path for guarded in protected(workspace)}))


def protected(workspace: str) -> tuple[Guarded, ...]:
    """Every protected location of `workspace` (see the module docstring)."""
    root = os.path.realpath(workspace)
    home = os.path.expanduser("~")
    found: list[Guarded] = []
    for name, what in ROOT_NAMES:
        found.extend(_both(os.path.join(root, name), Kind(what)))
    repos = [*_enclosing(root), *nested_repos(root)]
    configs = (*global_config_files(home, os.environ.get("XDG_CONFIG_HOME")),
               SYSTEM_GITCONFIG)
    for repo in repos:
        found.extend(Guarded(path, Kind.GIT) for path in repo.gitdirs)
        found.extend(Guarded(hooks, Kind.HOOKS) for hooks in hooks_paths(repo, configs, home))
    unique = {guarded.path: guarded for guarded in found}
    return tuple(unique[path] for path in sorted(unique))


def _both(path: str, kind: Kind) -> list[Guarded]:
    """`path` itself and, when it is a symbolic link, where it points."""
    real = os.path.realpath(path)
    return [Guarded(path, kind)] + ([Guarded(real, kind)] if real != path else [])


def repo_at(worktree: str) -> Repo | None:
    """The repository whose `.git` entry is in `worktree`, or None."""
    entry = os.path.join(worktree, ".git")
    if os.path.isdir(entry):
        return Repo(worktree, (os.path.realpath(entry),))
    if not os.path.isfile(entry):
        return None
    gitdirs = [entry, *_pointed_to(entry, worktree)]
    return Repo(worktree, tuple(os.path.realpath(path) for path in gitdirs))


def _pointed_to(entry: str, worktree: str) -> list[str]:
    """A `.git` file's `gitdir:` target and that directory's `commondir` (worktrees)."""
    try:
        with open(entry, encoding="utf-8", errors="replace") as handle:
            first = handle.readline(4096).strip()
    except OSError:
        return []
    if not first.startswith("gitdir:"):
        return []
    target = os.path.join(worktree, first[len("gitdir:"):].strip())
    found = [target]
    try:
        with open(os.path.join(target, "commondir"), encoding="utf-8") as handle:
            found.append(os.path.join(target, handle.readline(4096).strip()))
    except OSError:
        pass
    return found


def _enclosing(root: str) -> list[Repo]:
    """The workspace's own repository, or the one it is a subdirectory of."""
    directory = root
    while True:
        repo = repo_at(directory)
        if repo is not None:
            return [repo]
        parent = os.path.dirname(directory)
        if parent == directory:
            return []
        directory = parent


def nested_repos(root: str, max_dirs: int = WALK_MAX_DIRS,
                 max_depth: int = WALK_MAX_DEPTH) -> list[Repo]:
    """Repositories (and submodule checkouts) below `root`, within the walk's bounds."""
    return [repo for path in _walk(root, max_dirs, max_depth)
            if (repo := repo_at(path)) is not None]


def _walk(root: str, max_dirs: int, max_depth: int) -> Iterator[str]:
    """Directories below `root`, breadth first, without links or skipped names, until
    `max_dirs` directories or `max_depth` levels were seen."""
    level, seen = [root], 0
    for _ in range(max_depth):
        below: list[str] = []
        for directory in level:
            try:
                with os.scandir(directory) as entries:
                    below.extend(entry.path for entry in entries
                                 if entry.name not in SKIPPED_DIRS
                                 and entry.is_dir(follow_symlinks=False))
            except OSError:
                continue
        for path in below:
            seen += 1
            if seen > max_dirs:
                return
            yield path
        level = below


def hooks_paths(repo: Repo, global_files: tuple[str, ...], home: str) -> list[str]:
    """Every directory core.hooksPath names for `repo`, in any config git would read."""
    files = [os.path.join(gitdir, name) for gitdir in repo.gitdirs
             for name in ("config", "config.worktree")]
    values = [entry.value for path in (*files, *global_files)
              for entry in read_config(path, home) if entry.key == "core.hookspath"]
    # Relative to where hooks run: the top of the worktree.
    return [os.path.realpath(expand(value, home, repo.worktree)) for value in values if value]
