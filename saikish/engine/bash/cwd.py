"""Where relative paths point while the walker reads a script: the working directory."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Any

from saikish.engine.bash.facts import Target
from saikish.engine.commands.grammar import Parse, Word


@dataclass
class _Cwd:
    """Where relative paths point: a path relative to the workspace, or None if unknown."""

    path: str | None = "."
    # Loop variables bound to words whose place is known: `for f in *.py` -> f: "*.py".
    loops: dict[str, str] = field(default_factory=dict)

    def loop_word(self, word: Word) -> Word:
        """`$f` bound by `for f in *.py` is the glob `*.py`, to the grammar and the policy."""
        loop = _LOOP_VAR.fullmatch(word.value) if word.dynamic and not word.globbing else None
        if loop and loop.group(1) in self.loops:
            return Word(self.loops[loop.group(1)] + loop.group(2), globbing=True)
        return word

    def resolve(self, word: Word) -> Target:
        word = self.loop_word(word)
        value = word.value
        home = _HOME.match(value)
        if home and _home_relative(word):
            return Target("~" + value[home.end():])
        if not word.literal and not (word.globbing and not word.dynamic and not word.ansi_c):
            return Target(value, known=False)
        glob = word.globbing
        if value.startswith(("~", "/")):
            return Target(value, glob=glob)
        if self.path is None:
            return Target(value, known=False)
        joined = value if self.path == "." else posixpath.join(self.path, value)
        # '..' is left for the policy to resolve after symlinks: conf/../x is not ./x
        # when conf links elsewhere.
        return Target(joined if ".." in value.split("/") else posixpath.normpath(joined),
                      glob=glob)


_HOME = re.compile(r"\$HOME|\$\{HOME\}")
# A loop variable, alone or with a plain suffix: "$f", ${f}, $f.bak.
_LOOP_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?([A-Za-z0-9_.\-]*)")


def _home_relative(word: Word) -> bool:
    # $HOME/x is no mystery: it is ~/x, outside the workspace.
    value = word.value
    return not word.globbing and not word.ansi_c and (
        re.fullmatch(r"(\$HOME|\$\{HOME\})(/[^$`]*)?", value) is not None)



class _Restore:
    """Context manager: put the walker's working directory back on exit."""

    def __init__(self, walker: Any) -> None:
        self.walker, self.saved = walker, walker.cwd.path

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        self.walker.cwd.path = self.saved


def found_names(found: Parse) -> Word:
    """Where find -exec's '{}' points: under find's one starting point, else unknown."""
    starts = found.reads or (Word("."),)
    if len(starts) != 1 or not starts[0].literal:
        return Word("{}", dynamic=True)
    return Word(starts[0].value.rstrip("/") + "/{}")


def name_found(word: Word, found_under: Word | None) -> Word:
    """A path operand holding find's '{}', as the file it will be."""
    if found_under is None or "{}" not in word.value:
        return word
    if found_under.dynamic:
        return Word(word.value, dynamic=True)
    return Word(word.value.replace("{}", found_under.value), word.dynamic, word.globbing)
