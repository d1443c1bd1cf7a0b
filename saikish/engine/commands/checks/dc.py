"""dc's `!` runs a shell command (catalogue: `check dc`)."""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk


def check(found: Parse) -> list[Finding]:
    scripts = found.option_values("--expression", "-e")
    if any("!" in s for s in scripts):
        return [Finding(Risk.UNKNOWN, "the dc script runs a shell command (!)", hard=True,
        kind=ReasonKind.EXEC)]
    return []
