"""The trust store (docs/SPEC.md §4.8): which project agent.yml files the person trusted.

A file is trusted by its absolute path *and* the SHA-256 of its bytes, so
any change to a trusted file makes it untrusted again until the person
looks at it. The store lives in the state dir, never in a repository.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from saikish import paths
from saikish.atomic import atomic_write
from saikish.config import Config, Ignored, Layer, merge, project_layers, read_layers
from saikish.errors import SaikishError
from saikish.ui.inert import inert


class TrustError(SaikishError):
    """The trust store could not be written."""


@dataclass(frozen=True)
class TrustStore:
    """`<state dir>/trusted.json`: {absolute path: {"sha256": hex, "trusted": bool}}."""

    path: Path

    @classmethod
    def default(cls) -> TrustStore:
        """The store in the state dir."""
        return cls(paths.trust_path())

    def answer(self, file: Path, data: bytes) -> bool | None:
        """True/False when the person answered for exactly these bytes, else None."""
        entry = self._read().get(_key(file))
        if not isinstance(entry, dict) or entry.get("sha256") != digest(data):
            return None
        return entry.get("trusted") is True

    def record(self, file: Path, data: bytes, trusted: bool) -> None:
        """Remember the person's answer for these exact bytes."""
        entries = self._read()
        entries[_key(file)] = {"sha256": digest(data), "trusted": trusted}
        self._write(entries)

    def revoke(self, file: Path) -> bool:
        """Forget any answer for `file`; True when there was one."""
        entries = self._read()
        if entries.pop(_key(file), None) is None:
            return False
        self._write(entries)
        return True

    def _read(self) -> dict[str, object]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # a lost or broken store trusts nothing: the person is asked again
        return data if isinstance(data, dict) else {}

    def _write(self, entries: dict[str, object]) -> None:
        try:
            atomic_write(self.path, json.dumps(entries, indent=1, sort_keys=True), private=True)
        except OSError as exc:
            raise TrustError(f"{self.path}: cannot save the trust answer: "
                             f"{exc.strerror or exc}") from None


def digest(data: bytes) -> str:
    """The SHA-256 a trust answer is tied to."""
    return hashlib.sha256(data).hexdigest()


def _key(file: Path) -> str:
    # Where the file is found, not where a link points: another repository's agent.yml
    # linking to a trusted file must not inherit that trust.
    return os.path.abspath(file)


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
    layers = read_layers(explicit, cwd)

    def trusted(layer: Layer) -> bool:
        return store.answer(layer.path, layer.data) is True

    config = merge(layers, trusted)
    if ask is None:
        return config
    changed = False
    for project in project_layers(layers):
        if store.answer(project.path, project.data) is not None or not ignored_in(config,
                                                                                  project):
            continue
        answer = ask(config, project)
        store.record(project.path, project.data, answer)
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
