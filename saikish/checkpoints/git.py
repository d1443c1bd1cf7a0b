"""The shadow git store: git run on the workspace's files with everything else its own.

Every command runs with GIT_DIR, GIT_INDEX_FILE and the config of the store in
the state dir, GIT_WORK_TREE at the workspace, no global or system config, no
hooks, no fsmonitor and a scrubbed environment. The workspace's own `.git` is
never read nor written: git skips every path named `.git`, a nested repository
is never added, and no config of the project's is read, so a `core.fsmonitor`
or hook planted there never runs.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

from saikish.checkpoints.values import CheckpointError
from saikish.tools.sandbox.childenv import child_environment

# Set on every command too, so a store whose config was tampered with still runs no code.
SAFE_FLAGS = ("-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null")
# What the store's own config says (written whole when the store is made).
CONFIG = """\
[core]
\trepositoryformatversion = 0
\tbare = false
\tfilemode = true
\tsymlinks = true
\tautocrlf = false
\tsafecrlf = false
\tfsmonitor = false
\tuntrackedCache = true
\thooksPath = /dev/null
\texcludesFile = /dev/null
\tattributesFile = /dev/null
\tlogAllRefUpdates = false
\tpreloadIndex = true
[index]
\tversion = 4
[gc]
\tauto = 0
[maintenance]
\tauto = false
[protocol]
\tallow = never
[commit]
\tgpgSign = false
[user]
\tname = saikish
\temail = saikish@localhost
"""
# Files are stored byte for byte: no end-of-line conversion, filter or ident, whatever the
# workspace's .gitattributes say ($GIT_DIR/info/attributes comes first).
ATTRIBUTES = "* -text -filter -ident -working-tree-encoding\n"
# From the environment saikish's children get, only what running git needs.
KEPT_VARIABLES = ("PATH", "TMPDIR", "SYSTEMROOT")
_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def store_path(state_dir: Path, workspace: str) -> Path:
    """`<state>/checkpoints/<name>-<hash>`: one store per workspace, keyed by its realpath."""
    real = os.path.realpath(workspace)
    digest = hashlib.sha256(os.fsencode(real)).hexdigest()[:16]
    name = _NAME.sub("_", os.path.basename(real))[:40] or "root"
    return state_dir / "checkpoints" / f"{name}-{digest}"


def default_excludes() -> str:
    """The directories and files never copied (gitignore syntax; checkpoints/exclude.txt)."""
    from importlib import resources

    return resources.files("saikish.checkpoints").joinpath("exclude.txt").read_text("utf-8")


class ShadowGit:
    """git on one workspace, with its repository, index and config in `store`."""

    def __init__(self, workspace: str, store: Path, program: str) -> None:
        self.workspace, self.store, self.program = os.path.realpath(workspace), store, program
        self.git_dir, self.index = store / "git", store / "index"
        self.held: int | None = None  # the lock's descriptor while `locked` holds it
        kept = child_environment()
        self.env = {k: kept[k] for k in KEPT_VARIABLES if k in kept}
        self.env.update({
            "GIT_DIR": str(self.git_dir), "GIT_WORK_TREE": self.workspace,
            "GIT_INDEX_FILE": str(self.index), "GIT_CONFIG_GLOBAL": "/dev/null",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_ATTR_NOSYSTEM": "1", "GIT_TERMINAL_PROMPT": "0",
            "GIT_NO_REPLACE_OBJECTS": "1", "GIT_LITERAL_PATHSPECS": "1",
            # No user file is read: ~/.gitconfig, ~/.config/git/{config,ignore,attributes}.
            "HOME": str(store), "XDG_CONFIG_HOME": str(store), "LC_ALL": "C"})

    @classmethod
    def find(cls, workspace: str, store: Path) -> ShadowGit:
        """The store's git; CheckpointError when git is not installed."""
        program = shutil.which("git")
        if program is None:
            raise CheckpointError("git is not installed, so saikish keeps no checkpoints "
                                  "(undo is unavailable)")
        return cls(workspace, store, program)

    def run(self, *args: str, data: bytes | None = None, index: Path | None = None,
            timeout: float | None = None, env: dict[str, str] | None = None) -> bytes:
        """git's output; CheckpointError with git's first line when it fails."""
        env = env or self.env
        if index is not None:
            env = {**env, "GIT_INDEX_FILE": str(index)}
        try:
            done = subprocess.run([self.program, *SAFE_FLAGS, *args], input=data, env=env,
                                  cwd=self.workspace, capture_output=True, timeout=timeout,
                                  pass_fds=() if self.held is None else (self.held,),
                                  check=False)
        except subprocess.TimeoutExpired:
            raise CheckpointError(f"git could not list {self.workspace} within {timeout:g} s: "
                                  f"too many files for checkpoints (undo is unavailable)"
                                  ) from None
        except OSError as exc:
            raise CheckpointError(f"cannot run git in {self.workspace}: "
                                  f"{exc.strerror or exc}") from None
        if done.returncode != 0:
            raise CheckpointError(self._failure(args[0], done.stderr))
        return done.stdout

    def _failure(self, command: str, stderr: bytes) -> str:
        lines = [line for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
        detail = lines[0].removeprefix("fatal: ").removeprefix("error: ") if lines else "failed"
        return (f"the checkpoint store {self.store} is broken (git {command}: {detail}); "
                f"remove it to start afresh (its checkpoints are lost)")

    def create(self) -> None:
        """Make the store: a repository without templates, our config, excludes and attributes."""
        self.store.mkdir(parents=True, exist_ok=True, mode=0o700)
        plain = {k: v for k, v in self.env.items()
                 if k not in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE")}
        self.run("init", "--bare", "--quiet", "--template=", str(self.git_dir), env=plain)
        (self.git_dir / "config").write_text(CONFIG, encoding="utf-8")
        (self.store / "workspace").write_text(self.workspace + "\n", encoding="utf-8")

    def write_info(self, extra_excludes: str = "") -> None:
        """info/exclude and info/attributes, rewritten when they differ (a newer saikish)."""
        info = self.git_dir / "info"
        info.mkdir(exist_ok=True)
        for name, text in (("exclude", default_excludes() + extra_excludes),
                           ("attributes", ATTRIBUTES)):
            path = info / name
            with contextlib.suppress(OSError):
                if path.read_text(encoding="utf-8") == text:
                    continue
            path.write_text(text, encoding="utf-8")

    def head(self) -> str | None:
        """The commit HEAD names, or None before the first one."""
        try:
            text = (self.git_dir / "HEAD").read_text(encoding="utf-8").strip()
        except OSError:
            return None
        return None if text.startswith("ref:") else text

    def index_entries(self) -> int:
        """How many files the index holds (its header says; 0 without an index)."""
        try:
            with open(self.index, "rb") as file:
                header = file.read(12)
        except OSError:
            return 0
        return int.from_bytes(header[8:12], "big") if header[:4] == b"DIRC" else 0

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """One saikish at a time changes this store (several sessions may share a workspace)."""
        try:
            handle = open(self.store / "lock", "a")  # noqa: SIM115 (held for the block)
        except OSError as exc:
            raise CheckpointError(f"cannot use the checkpoint store {self.store}: "
                                  f"{exc.strerror or exc}") from None
        with handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            # Every git started under the lock holds it too (pass_fds), also one that outlives
            # a killed saikish: a lock file git left behind is stale once the lock is ours.
            for stale in self.store.glob("*index.lock"):
                stale.unlink(missing_ok=True)
            self.held = handle.fileno()
            try:
                yield
            finally:
                self.held = None
