"""Command names that PATH resolves to the workspace's own programs (docs/SPEC.md §4.1
Tiers): a fact the runtime reads from the PATH a call will see, and the engine weighs.

With `bin`, `.` or an activated in-repo venv on PATH, `ls` may run the repository's
`bin/ls`: code the engine has never read, however harmless `ls` is. Such a command is
judged like `./bin/ls`: never verified, so it runs contained or is asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

# Bash runs these itself, whatever PATH holds (`compgen -b`).
BASH_BUILTINS = frozenset(
    ". : [ alias bg bind break builtin caller cd command compgen complete compopt continue "
    "declare dirs disown echo enable eval exec exit export false fc fg getopts hash help "
    "history jobs kill let local logout mapfile popd printf pushd pwd read readarray "
    "readonly return set shift shopt source suspend test times trap true type typeset "
    "ulimit umask unalias unset wait".split())


@dataclass(frozen=True)
class ProgramPath:
    """Where PATH finds the workspace's own programs, as the runtime read it for one call."""

    # A command name PATH resolves inside the workspace -> where (workspace-relative).
    workspace: Mapping[str, str] = field(default_factory=dict)
    # A relative PATH entry ('.', 'bin', an empty entry): what it is, and the names an
    # absolute entry ahead of it has. Every other name may run from the directory the
    # command is in (`cd sub && ls` runs sub/ls).
    relative: str | None = None
    before_relative: frozenset[str] = frozenset()

    def workspace_program(self, name: str) -> str | None:
        """What `name` runs when that is the workspace's code ("bin/ls in the workspace"),
        else None."""
        if not name or "/" in name or name in BASH_BUILTINS:
            return None  # a path is judged by its directory; a builtin never looks
        if name in self.workspace:
            return f"{self.workspace[name]} in the workspace"
        if self.relative is not None and name not in self.before_relative:
            return f"a program in the relative PATH entry '{self.relative}'"
        return None
