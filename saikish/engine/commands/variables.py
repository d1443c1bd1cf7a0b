"""Which environment variables change what a command runs: the catalogue's variables.txt.

The list is data beside the command entries (saikish/engine/commands/catalogue/), grouped
by what setting the variable does; `harmless` names exact variables a pattern would catch
but that only tune output or pick a target (NODE_ENV, GOOS, CI). Read once per process.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from saikish.engine.commands.catalogue import HERE, CatalogueError

VARIABLES = HERE / "variables.txt"
EFFECTS = frozenset({"loads-code", "picks-program", "adds-options", "reads-config",
                     "tool-settings", "shell", "harmless"})


@dataclass(frozen=True)
class Variables:
    """The hijack variables by effect: exact names, prefixes, suffixes; and harmless names."""

    exact: dict[str, str]
    prefixes: tuple[tuple[str, str], ...]
    suffixes: tuple[tuple[str, str], ...]
    harmless: frozenset[str]

    def effect(self, name: str) -> str | None:
        """What setting `name` does (an effect of variables.txt), or None: harmless."""
        if name in self.harmless:
            return None
        if name in self.exact:
            return self.exact[name]
        for prefix, effect in self.prefixes:
            if name.startswith(prefix):
                return effect
        for suffix, effect in self.suffixes:
            if name.endswith(suffix):
                return effect
        return None


def read_variables(path: Path = VARIABLES) -> Variables:
    """variables.txt as a Variables; CatalogueError naming the file and line."""
    exact: dict[str, str] = {}
    prefixes: list[tuple[str, str]] = []
    suffixes: list[tuple[str, str]] = []
    harmless: set[str] = set()
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        effect, names = words[0], words[1:]
        where = f"{path.name}:{number}"
        if effect not in EFFECTS or not names:
            raise CatalogueError(f"{where}: write EFFECT NAME..., EFFECT one of "
                                 f"{', '.join(sorted(EFFECTS))}")
        for name in names:
            _add(name, effect, where, exact, prefixes, suffixes, harmless)
    clash = sorted(harmless & set(exact))
    if clash:
        raise CatalogueError(f"{path.name}: {clash[0]} is both harmless and not")
    return Variables(exact, tuple(prefixes), tuple(suffixes), frozenset(harmless))


def _add(name: str, effect: str, where: str, exact: dict[str, str],
         prefixes: list[tuple[str, str]], suffixes: list[tuple[str, str]],
         harmless: set[str]) -> None:
    bare = name.strip("*")
    if not bare or "*" in bare or not bare.replace("_", "a").isalnum():
        raise CatalogueError(f"{where}: {name!r} is not NAME, PREFIX* or *SUFFIX")
    if effect == "harmless":
        if bare != name:
            raise CatalogueError(f"{where}: harmless names exact variables, not {name!r}")
        harmless.add(name)
    elif name.endswith("*"):
        prefixes.append((bare, effect))
    elif name.startswith("*"):
        suffixes.append((bare, effect))
    else:
        exact[name] = effect


@functools.cache
def variables() -> Variables:
    """The catalogue's variables, read on first use."""
    return read_variables()


def is_hijack_var(name: str) -> bool:
    """True for a variable whose value changes which code runs."""
    return variables().effect(name) is not None
