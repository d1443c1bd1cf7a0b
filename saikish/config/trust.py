"""The trust store (docs/SPEC.md §4.8): which project agent.yml files the person trusted.

A file is trusted by its absolute path *and* the SHA-256 of its bytes, so
any change to a trusted file makes it untrusted again until the person
looks at it. What the file runs from inside the workspace (a hook's
`./hooks/check.sh`, an MCP server's `server.js`) is part of what was trusted:
their digests are kept with the answer, and a change to one asks again. The
store lives in the state dir, never in a repository; every change to it is a
read-modify-write under a lock, so concurrent sessions never undo each other.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from saikish.config.file import Setting
from saikish.config.layers import Config, Ignored, Layer, merge, project_layers, read_layers
from saikish.errors import SaikishError
from saikish.hooks.config import HookTable
from saikish.inert import inert
from saikish.mcp.config import ServerTable
from saikish.store import paths
from saikish.store.atomic import atomic_write, file_lock, sweep_stale
from saikish.store.readfile import sha256_regular

Entries = dict[str, object]


class TrustError(SaikishError):
    """The trust store could not be written."""


@dataclass(frozen=True)
class TrustStore:
    """`<state dir>/trusted.json`: {absolute path: {"sha256": hex, "trusted": bool,
    "runs": {file the config runs, relative to the workspace: its SHA-256}}}."""

    path: Path

    @classmethod
    def default(cls) -> TrustStore:
        """The store in the state dir."""
        return cls(paths.trust_path())

    def answer(self, layer: Layer) -> bool | None:
        """True/False when the person answered for exactly these bytes and exactly the
        files they run, else None."""
        entry = self._read().get(_key(layer.path))
        if not isinstance(entry, dict) or entry.get("sha256") != digest(layer.data):
            return None
        if entry.get("runs", {}) != run_files(layer):
            return None
        return entry.get("trusted") is True

    def record(self, layer: Layer, trusted: bool) -> None:
        """Remember the person's answer for these exact bytes and the files they run."""
        entry = {"sha256": digest(layer.data), "trusted": trusted, "runs": run_files(layer)}

        def put(entries: Entries) -> bool:
            entries[_key(layer.path)] = entry
            return True

        self._update(put)

    def revoke(self, file: Path) -> bool:
        """Forget any answer for `file`; True when there was one."""
        return self._update(lambda entries: entries.pop(_key(file), None) is not None)

    def _update(self, change: Callable[[Entries], bool]) -> bool:
        """Apply `change` to the entries under the lock; written when it returns True."""
        try:
            with file_lock(self.path):
                entries = self._read()
                changed = change(entries)
                if changed:
                    atomic_write(self.path, json.dumps(entries, indent=1, sort_keys=True),
                                 private=True)
                return changed
        except OSError as exc:
            raise TrustError(f"{self.path}: cannot save the trust answer: "
                             f"{exc.strerror or exc}") from None

    def _read(self) -> Entries:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError, RecursionError):
            return {}  # a lost or broken store trusts nothing: the person is asked again
        return data if isinstance(data, dict) else {}


def digest(data: bytes) -> str:
    """The SHA-256 a trust answer is tied to."""
    return hashlib.sha256(data).hexdigest()


def _key(file: Path) -> str:
    # Where the file is found, not where a link points: another repository's agent.yml
    # linking to a trusted file must not inherit that trust.
    return os.path.abspath(file)


# -- what a project file runs from inside its workspace --------------------------------

_PROJECT_DIR = ("$CLAUDE_PROJECT_DIR", "${CLAUDE_PROJECT_DIR}", "$SAIKISH_PROJECT_DIR",
                "${SAIKISH_PROJECT_DIR}")


def run_files(layer: Layer) -> dict[str, str]:
    """{path relative to the workspace: SHA-256, or why it cannot be read} for every file
    inside the workspace that the layer's hook commands or MCP servers name.

    Known limit: files named as words only; a directory (`node .`) or a module
    (`python -m pkg`) a command loads is not followed.
    """
    workspace = layer.path.parent
    found: dict[str, str] = {}
    for base, word in _run_words(layer.settings, workspace):
        for candidate in (word, word.rpartition("=")[2]):  # --config=hooks/x.py
            relative = _inside(Path(base, os.path.expanduser(candidate)), workspace)
            if relative is not None and os.path.isfile(Path(workspace, relative)):
                found[relative] = _file_digest(Path(workspace, relative))
    return found


def _run_words(settings: Mapping[str, Setting],
               workspace: Path) -> Iterator[tuple[Path, str]]:
    """(directory it is relative to, word) for every word of a hook or server command."""
    hooks, servers = settings.get("hooks"), settings.get("mcpServers")
    if hooks is not None and isinstance(hooks.value, HookTable):
        for spec in hooks.value.specs:
            for word in _words(spec.command):
                yield workspace, _project_dir(word, workspace)
    if servers is not None and isinstance(servers.value, ServerTable):
        for server in servers.value:
            base = Path(workspace, os.path.expanduser(server.cwd or "."))
            for word in (server.command or "", *server.args):
                yield base, _project_dir(word, workspace)


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:  # unbalanced quotes: bash will fail too, but hash what is named
        return command.split()


def _project_dir(word: str, workspace: Path) -> str:
    for name in _PROJECT_DIR:
        word = word.replace(name, str(workspace))
    return word


def _inside(path: Path, workspace: Path) -> str | None:
    """`path` relative to the workspace when it names something inside it, else None."""
    try:
        relative = os.path.relpath(os.path.normpath(path), workspace)
    except ValueError:
        return None
    return None if relative == "." or relative.startswith("..") else relative


def _file_digest(path: Path) -> str:
    try:
        return sha256_regular(path)
    except (OSError, ValueError) as exc:
        return f"unreadable: {getattr(exc, 'strerror', None) or exc}"


# -- applying trust to the layered config ---------------------------------------------

def load_config_trusted(explicit: str | None, cwd: Path,
                        ask: Callable[[Config, Layer], bool] | None = None,
                        store: TrustStore | None = None) -> Config:
    """The layered config, with the project file applied in full only if trusted.

    `ask` is called (in the REPL, before it starts) when a project file has
    settings that were ignored and the person never answered for these exact
    bytes; its answer is remembered. Without `ask` (`-p`, `check`) nothing is
    asked: the settings stay ignored and the config carries the warnings.
    """
    store = store or TrustStore.default()
    # Every front end reads its config here once at start: the moment to clear what a
    # killed write (kill -9) left in saikish's own directories.
    for directory in (paths.config_dir(), paths.state_dir()):
        sweep_stale(directory)
    layers = read_layers(explicit, cwd)

    def trusted(layer: Layer) -> bool:
        return store.answer(layer) is True

    config = merge(layers, trusted)
    if ask is None:
        return config
    changed = False
    for project in project_layers(layers):
        if store.answer(project) is not None or not ignored_in(config, project):
            continue
        answer = ask(config, project)
        store.record(project, answer)
        changed = changed or answer
    return merge(layers, trusted) if changed else config


def ignored_in(config: Config, project: Layer) -> list[Ignored]:
    """The settings of `project` that `config` did not apply."""
    return [item for item in config.ignored if item.origin.startswith(f"{project.path}:")]


def trust_question(config: Config, project: Layer) -> str:
    """What the person is shown before being asked to trust a project's agent.yml."""
    lines = [f"This workspace has its own {project.path.name}: {inert(str(project.path))}",
             "Until you trust it, saikish ignores these settings in it:"]
    for item in ignored_in(config, project):
        line = item.origin.rpartition(":")[2]
        lines.append(f"  line {line}: {item.key}: {inert(item.shown)}  ({item.why})")
    lines.append("Trust this file and apply them? Trust lasts until the file changes. [y/N] ")
    return "\n".join(lines)


def ask_on(stdin: TextIO, stdout: TextIO) -> Callable[[Config, Layer], bool]:
    """A plain y/N question on a terminal's streams (the REPL has not started yet)."""

    def ask(config: Config, project: Layer) -> bool:
        stdout.write(trust_question(config, project))
        stdout.flush()
        answer = stdin.readline()
        trusted = answer.strip().lower() in ("y", "yes")
        stdout.write("trusted: the project's settings apply\n" if trusted else
                      "not trusted: its loosening settings stay ignored "
                      "(saikish trust changes this)\n")
        return trusted

    return ask
