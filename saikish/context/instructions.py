"""Project instructions (docs/SPEC.md §10.1): AGENTS.md files in the model's system prompt.

From the repository root down to the workspace, each directory gives its AGENTS.md,
or its CLAUDE.md (else GEMINI.md) when it has none; the person's own
`<config dir>/AGENTS.md` comes first. The closer a file is to the workspace, the later
it comes, so it has the last word. The files only inform the model: the approval
engine never reads them, so nothing in them can allow a call.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

NAMES = ("AGENTS.md",)
FALLBACKS = ("CLAUDE.md", "GEMINI.md")  # read only where a directory has no AGENTS.md
MAX_BYTES = 32 * 1024  # all files together (Codex's limit): instructions, not a manual
HEADER = ("# Project instructions\n\n"
          "The people of this project wrote the files below for coding agents. Follow them "
          "where they apply. They cannot change which tool calls need the person's approval.")


@dataclass(frozen=True)
class InstructionFile:
    """One file's text as the model gets it; `cut` bytes of it did not fit."""

    path: Path
    text: str
    cut: int = 0
    own: bool = False  # the person's own file in the config dir

    @property
    def size(self) -> int:
        """Bytes of the whole file."""
        return len(self.text.encode("utf-8")) + self.cut


@dataclass(frozen=True)
class Instructions:
    """The instruction files found for a workspace, in prompt order, and what went wrong."""

    files: tuple[InstructionFile, ...] = ()
    problems: tuple[str, ...] = ()

    def section(self) -> str:
        """The system prompt's part: a header, then each file under its path."""
        if not self.files:
            return ""
        parts = [HEADER]
        for item in self.files:
            where = f"{item.path} (the person's own, for every project)" if item.own \
                else str(item.path)
            text = item.text.rstrip()
            if item.cut:
                text += (f"\n\n[saikish: the rest of this file, {item.cut} bytes, was left "
                         f"out: instructions are limited to {MAX_BYTES // 1024} KiB]")
            parts.append(f"## {where}\n\n{text}")
        return "\n\n".join(parts)

    def notes(self) -> tuple[str, ...]:
        """One line per file that was cut or could not be read, for the person."""
        cut = [f"{f.path}: only the first {f.size - f.cut} of {f.size} bytes are given to "
               f"the model (instructions are limited to {MAX_BYTES // 1024} KiB)"
               for f in self.files if f.cut]
        return (*cut, *self.problems)


def system_prompt(base: str, instructions: Instructions) -> str:
    """agent.yml's systemPrompt, then the project's instructions."""
    section = instructions.section()
    return f"{base}\n\n{section}" if section and base else section or base


def load_instructions(workspace: Path, config_dir: Path, limit: int = MAX_BYTES) -> Instructions:
    """The instruction files for `workspace`, read within `limit` bytes in all."""
    found = _candidates(workspace, config_dir)
    problems: list[str] = []
    texts: dict[Path, tuple[str, int]] = {}
    # The closest file is read first, so the limit cuts the most general ones.
    for path, root, _ in reversed(found):
        read = _read(path, root, limit - sum(len(t.encode()) for t, _ in texts.values()))
        if isinstance(read, str):
            problems.append(f"{path}: {read}")
        else:
            texts[path] = read
    files = tuple(InstructionFile(path, *texts[path], own=own)
                  for path, _, own in found if path in texts)
    return Instructions(files, tuple(reversed(problems)))


def _candidates(workspace: Path, config_dir: Path) -> list[tuple[Path, Path | None, bool]]:
    """(file, the directory it must stay inside, is the person's own), general first.

    The person's own file may link anywhere (a dotfiles repository): they wrote it.
    """
    own = config_dir / "AGENTS.md"
    out: list[tuple[Path, Path | None, bool]] = [(own, None, True)] if _exists(own) else []
    top = repository_root(workspace)
    for directory in _from(top, workspace):
        chosen = next((directory / n for n in NAMES if _exists(directory / n)), None) or \
            next((directory / n for n in FALLBACKS if _exists(directory / n)), None)
        if chosen is not None:
            out.append((chosen, top, False))
    return out


def repository_root(workspace: Path) -> Path:
    """The nearest directory at or above `workspace` holding .git; the workspace without one."""
    for directory in (workspace, *workspace.parents):
        if os.path.lexists(directory / ".git"):
            return directory
    return workspace


def _from(top: Path, workspace: Path) -> list[Path]:
    """`top`, then each directory down to `workspace`."""
    chain = [workspace, *workspace.parents]
    return list(reversed(chain[:chain.index(top) + 1]))


def _exists(path: Path) -> bool:
    return os.path.lexists(path)


def _read(path: Path, root: Path | None, room: int) -> tuple[str, int] | str:
    """(text within `room` bytes, bytes left out), or why the file is not used.

    Fails closed on what a hostile checkout could plant: a link leading out of the
    project (AGENTS.md -> ~/.ssh/id_ed25519 would hand a key to the model) or a FIFO
    (a read that never returns).
    """
    try:
        real = path.resolve(strict=True)
        if root is not None and not real.is_relative_to(root.resolve()):
            return "not read: it links outside the project"
        if not stat.S_ISREG(real.stat().st_mode):
            return "not read: not a regular file"
        with open(real, "rb") as handle:
            data = handle.read(max(room, 0) + 1)
            rest = os.fstat(handle.fileno()).st_size - len(data)
    except OSError as exc:
        return f"not read: {exc.strerror or exc}"
    if len(data) <= room:
        return data.decode("utf-8", "replace"), 0
    kept = data[:max(room, 0)]
    text = kept.decode("utf-8", "ignore")  # never half a character at the cut
    return text, len(data) - len(text.encode("utf-8")) + max(rest, 0)
