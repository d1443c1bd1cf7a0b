"""What a sandbox holds for its session (docs/SPEC.md §4.9): the files generated for it,
the stand-ins it leases, the mounts in force and the runner. The mounts are worked out
again when something they depend on changed (a `.git` appeared, a socket was created on
the host, git's config changed): a look at a few files before each call. `close` (or the
garbage collector, or the interpreter's exit) ends the runner and removes the stand-ins.
"""

from __future__ import annotations

import os
import stat
import sys
import tempfile
import threading
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field

from saikish.store import paths
from saikish.tools.sandbox.generated import prepare
from saikish.tools.sandbox.layout import Files, Mount, Op, Scene, bwrap_args, host_sockets, plan
from saikish.tools.sandbox.placeholders import Placeholders, is_stand_in
from saikish.tools.sandbox.protected import ROOT_NAMES, Guarded, protected
from saikish.tools.sandbox.runner import Runner, RunnerError, Uncontained, contained

# Loopback only; a PID namespace, so that ending bwrap ends everything inside; no way back
# to the terminal (--new-session); bwrap keeps every capability when started by root.
NAMESPACE_OPTIONS = ("--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                     "--unshare-cgroup-try", "--die-with-parent", "--new-session",
                     "--cap-drop", "ALL")
Stamp = tuple[tuple[str, tuple[int, int, int] | None], ...]


@dataclass(frozen=True)
class Place:
    """Where a sandbox is: the workspace, whether it may write there, its private /tmp."""

    workspace: str
    writable: bool
    temp_dir: str


@dataclass
class _Parts:
    """What must be released when the session ends (the finalizer holds only this)."""

    files_dir: str
    home_dir: str
    owned: tempfile.TemporaryDirectory[str] | None = None  # when no session dir was given
    placeholders: Placeholders = field(default_factory=Placeholders)
    runner: Runner | None = None

    def close(self) -> None:
        if self.runner is not None:
            self.runner.close()
            self.runner = None
        self.placeholders.close()
        if self.owned is not None:
            self.owned.cleanup()


class SandboxState:
    """A sandbox's session: mounts, stand-ins, the runner. Its files go in `directory`
    (the session's, removed by its owner after `close`), or in one of its own."""

    def __init__(self, directory: str | None = None) -> None:
        owned = None
        if directory is None:
            owned = tempfile.TemporaryDirectory(prefix="saikish-sandbox-")
            directory = owned.name
        for name in ("files", "home"):
            os.makedirs(os.path.join(directory, name), mode=0o700, exist_ok=True)
        self._parts = _Parts(os.path.join(directory, "files"), os.path.join(directory, "home"),
                             owned)
        self._lock = threading.Lock()
        self._files: Files | None = None
        self._stamp: Stamp | None = None
        self._mounts: tuple[Mount, ...] = ()
        self._guarded: tuple[Guarded, ...] = ()
        self._failed: tuple[str, ...] | None = None  # the runner that would not start
        self.runner_problem: str | None = None
        self.frozen: tuple[str, ...] = ()  # directories whose names are fixed (Scene.frozen)
        self._finalizer = weakref.finalize(self, self._parts.close)

    def close(self) -> None:
        """End the runner, remove the stand-ins and the generated files; safe to call twice."""
        self._finalizer()

    def mounts(self, place: Place) -> tuple[Mount, ...]:
        """The mounts for `place` now (worked out again when what they depend on changed)."""
        with self._lock:
            return self._current(place)

    def _current(self, place: Place) -> tuple[Mount, ...]:
        if self._mounts and _stamp(place.workspace, self._guarded) == self._stamp:
            return self._mounts
        home = os.path.realpath(os.path.expanduser("~"))
        if self._files is None:
            self._files = prepare(self._parts.files_dir, home,
                                  os.environ.get("XDG_CONFIG_HOME"))
        self._guarded = protected(place.workspace)
        if place.writable:
            self._parts.placeholders.add((g.path for g in self._guarded), place.workspace)
        existing = tuple(g.path for g in self._guarded if os.path.lexists(g.path))
        self.frozen = tuple(sorted({
            os.path.dirname(g.path) for g in self._guarded
            if place.writable and os.path.islink(g.path)
            and os.path.dirname(g.path).startswith(place.workspace)}))
        self._mounts = plan(Scene(
            place.workspace, place.writable, place.temp_dir, home, self._parts.home_dir,
            self._files, protected=existing, frozen=self.frozen, also_visible=runner_python()[1],
            also_hidden=tuple(os.path.realpath(p) for p in (paths.config_dir(),
                                                            paths.state_dir()))))
        self._stamp = _stamp(place.workspace, self._guarded)
        return self._mounts

    def prefix(self, launcher: str, place: Place) -> list[str]:
        """bwrap and its options, before the command (which follows "--")."""
        return [launcher, *bwrap_args(self.mounts(place)), *NAMESPACE_OPTIONS,
                "--chdir", place.workspace, "--clearenv"]

    def runner(self, launcher: str, place: Place) -> Runner | None:
        """The session's runner for `place`, started (again) when needed; None when it
        cannot start here (the caller starts a sandbox per call instead). Raises
        Uncontained when the launcher ran it in saikish's own namespaces."""
        prefix = (*self.prefix(launcher, place), "--")
        with self._lock:
            current = self._parts.runner
            if current is not None and current.alive() and current.prefix == prefix \
                    and self._still_mounted(current):
                return current
            if current is not None:
                current.close()
                self._parts.runner = None
            if prefix == self._failed:
                return None
            try:
                started = Runner(prefix, runner_python()[0],
                                 os.path.join(self._parts.files_dir, "runner.log"))
            except RunnerError as exc:
                self._failed, self.runner_problem = prefix, str(exc)
                return None
            if not contained(started.namespaces):  # fail closed: nothing runs in it
                started.close()
                raise Uncontained(f"{launcher} ran the sandbox without new namespaces")
            self._parts.runner = started
            return started


    def _still_mounted(self, runner: Runner) -> bool:
        """True when every bind of the plan is still a mount in the runner's sandbox."""
        held = runner.mount_points()
        wanted = {mount.dest for mount in self._mounts if mount.op in (Op.BIND, Op.RO_BIND)}
        return held is None or wanted <= held


def runner_python() -> tuple[str, tuple[str, ...]]:
    """The interpreter the runner runs on, and the directories it needs to see."""
    python = os.path.realpath(sys.executable)
    needed = {os.path.realpath(sys.base_prefix), os.path.dirname(python)}
    home = os.path.realpath(os.path.expanduser("~"))
    # Never a whole home or the root: the interpreter's own tree only.
    usable = tuple(sorted(path for path in needed
                          if path != "/" and not (home + "/").startswith(path + "/")))
    return python, usable


def _stamp(workspace: str, guarded: Sequence[Guarded]) -> Stamp:
    """What the mounts depend on, cheaply: the protected paths (and git's config files,
    which name the hooks directory), and the host's Unix sockets."""
    watched = [*(os.path.join(workspace, name) for name, _ in ROOT_NAMES),
               os.path.join(workspace, ".git", "config"), *(g.path for g in guarded)]
    stamps = [(path, _stat(path)) for path in dict.fromkeys(watched)]
    stamps += [(path, None) for path in host_sockets()]
    return tuple(stamps)


def _stat(path: str) -> tuple[int, int, int] | None:
    """A file's identity and version; a directory's identity only (git writes in .git all
    the time, and that changes nothing the mounts depend on)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if stat.S_ISDIR(info.st_mode):  # a stand-in that became a directory of the person's
        return info.st_ino, int(is_stand_in(path)), 0
    return info.st_ino, info.st_mtime_ns, info.st_size
