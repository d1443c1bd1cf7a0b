"""git's ext:: URLs run a command (catalogue: `check git_clone`)."""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk


def check(found: Parse) -> list[Finding]:
    if any(w.startswith("ext::") for w in found.operands):
        return [Finding(Risk.UNKNOWN, "an ext:: URL runs a command", hard=True,
        kind=ReasonKind.EXEC)]
    return []
