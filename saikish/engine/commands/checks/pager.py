"""less/more +COMMAND runs a pager command at start (catalogue: `check pager`)."""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk


def check(found: Parse) -> list[Finding]:
    if any(w.startswith("+") for w in found.operands):
        return [Finding(
            Risk.UNKNOWN, f"{found.path[0]} +COMMAND runs a pager command at start", hard=True,
            kind=ReasonKind.EXEC)]
    return []
