"""git 2.46+ `git config edit/set/unset...` change configuration (catalogue: `check git_config`)."""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk


def check(found: Parse) -> list[Finding]:
    # git 2.46+ subcommands: `git config edit` opens the editor on the config, `set`,
    # `unset`, `rename-section`, `remove-section` change it (a key always has a dot).
    first = found.operands[0] if found.operands else ""
    if first in ("edit", "set", "unset", "rename-section", "remove-section"):
        return [Finding(Risk.UNKNOWN, f"git config {first} changes configuration, which can name "
                           f"programs to run", found.operand_indexes[0], kind=ReasonKind.EXEC)]
    return []
