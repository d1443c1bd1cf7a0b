"""The command catalogue: what saikish knows about each command, read from *.cat data files.

The format is documented in README.md beside this file (docs/SPEC.md §4.7). Files are
split into entries once; an entry is parsed the first time a command needs it, so a
`check` of one command pays only for the entries it uses. The nouns are in entries.py,
the reading of lines in syntax.py.
"""

from __future__ import annotations

import bisect
import dataclasses
import re
from dataclasses import dataclass, field
from pathlib import Path

from saikish.engine.commands.catalogue.entries import (
    CHECKS_DIR,
    EXAMPLES,
    FLAGS,
    HERE,
    PRINTS_ENV,
    ROLES,
    TERMINAL_ROLES,
    VALUE_EFFECTS,
    CatalogueError,
    Effect,
    Entry,
    Option,
    Role,
    ValueRule,
)
from saikish.engine.commands.catalogue.syntax import parse_entry, parse_option, strip_comment
from saikish.types import Risk

__all__ = ["CHECKS_DIR", "EXAMPLES", "FLAGS", "HERE", "PRINTS_ENV", "ROLES", "TERMINAL_ROLES",
           "VALUE_EFFECTS", "Catalogue", "CatalogueError", "Effect", "Entry", "Option",
           "Role", "ValueRule", "parse_entry", "parse_option"]

# Headers and aka lines start at the beginning of a line, so a plain scan finds them.
# Searched with a leading newline, not `^` and MULTILINE: a literal prefix lets the regex
# engine skip ahead, which makes reading the ~900 KB catalogue at start several times faster.
_AKA = re.compile(r"\naka[ \t]+([^\n]*)")
_HEADERS = re.compile(r"\n\[([^\]\n]+)\]")
_ESCALATION = re.compile(r"\n[ \t]*risk[ \t]+escalation\b")


@dataclass(frozen=True)
class _Block:
    """An entry's text, not yet parsed: text[start:end] of one file."""

    filename: str
    text: str = field(repr=False)
    start: int
    end: int
    words: tuple[str, ...]

    @property
    def line(self) -> int:
        """The line number of the entry's header (the text starts with an added newline)."""
        return self.text.count("\n", 0, self.start)

    @property
    def lines(self) -> list[str]:
        """The entry's lines after its header."""
        return self.text[self.start:self.end].split("\n")[1:]


class Catalogue:
    """Every entry of the *.cat files in a folder, parsed on first use."""

    def __init__(self, folder: Path = HERE) -> None:
        self.folder = folder
        self._blocks: dict[str, _Block] | None = None
        self._entries: dict[str, Entry | None] = {}
        self.errors: list[str] = []

    def get(self, *words: str) -> Entry | None:
        """The entry for a command (`get("sort")`) or subcommand (`get("git", "push")`)."""
        key = " ".join(words)
        if key in self._entries:
            return self._entries[key]
        block = self.blocks().get(key)
        entry = None
        if block is not None:
            try:
                entry = parse_entry(block.filename, block.line, block.lines, block.words)
            except CatalogueError as exc:  # a broken entry: the command is simply unknown
                self.errors.append(str(exc))
            if entry is not None and entry.like:
                self._entries[key] = None  # a loop of `like`s ends unknown, not recursing
                target = self.get(*entry.like.split())
                # A target with subcommands keeps its words: they name its subcommand
                # entries (`python -m pip list` is `[pip list]`). The entry's own
                # `runs-project` holds too (`python -m` looks in the working directory).
                project = entry.project or (target.project if target else None)
                entry = None if target is None else \
                    dataclasses.replace(target, project=project) \
                    if target.has("subcommands") else \
                    dataclasses.replace(target, words=entry.words, project=project)
        self._entries[key] = entry
        return entry

    def blocks(self) -> dict[str, _Block]:
        """Entry name (and aka names) -> (file, first line, lines)."""
        if self._blocks is None:
            self._blocks = {}
            for path in sorted(self.folder.glob("*.cat")):
                self._split(path)
        return self._blocks

    def escalators(self) -> frozenset[str]:
        """Every command name (akas too) whose entry runs as another user (`risk
        escalation`: sudo, su, doas...): the one list of escalation (docs/SPEC.md §4.1)."""
        names = set()
        for name, block in self.blocks().items():
            if " " not in name and block.text.find("escalation", block.start, block.end) >= 0 \
                    and _ESCALATION.search(block.text, block.start, block.end):
                entry = self.get(name)
                # A broken entry that says escalation stays on the list (fail closed).
                if entry is None or entry.risk is Risk.ESCALATION:
                    names.add(name)
        return frozenset(names)

    def names(self) -> list[str]:
        """Every entry's name (not its aliases), in file order."""
        return list(dict.fromkeys(" ".join(b.words) for b in self.blocks().values()))

    def _split(self, path: Path) -> None:
        # Runs once per process over every file, so only regexes run over the whole text;
        # an entry's lines are cut out when it is first used.
        assert self._blocks is not None
        text = "\n" + path.read_text(encoding="utf-8")  # every header follows a newline
        headers = list(_HEADERS.finditer(text))
        positions = [m.start() for m in headers]
        blocks = []
        for index, match in enumerate(headers):
            end = positions[index + 1] if index + 1 < len(headers) else len(text)
            block = _Block(path.name, text, match.end(), end, tuple(match.group(1).split()))
            blocks.append(block)
            self._blocks.setdefault(" ".join(block.words), block)
        for aka in _AKA.finditer(text):
            index = bisect.bisect_right(positions, aka.start()) - 1
            if index < 0:
                continue
            words = list(blocks[index].words)
            for alias in strip_comment(aka.group(1)).split():
                self._blocks.setdefault(" ".join(words[:-1] + [alias]), blocks[index])
