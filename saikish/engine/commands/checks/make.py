"""make VAR=VALUE operands that name programs make runs (catalogue: `check make`)."""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.engine.commands.variables import is_hijack_var
from saikish.types import ReasonKind, Risk


def check(found: Parse) -> list[Finding]:
    for word in found.operands:
        name = word.split("=", 1)[0]
        if "=" in word and (is_hijack_var(name) or name in ("SHELL", "MAKE", "MAKESHELL")):
            return [Finding(Risk.UNKNOWN, f"make {name}=... names a program make runs", hard=True,
            kind=ReasonKind.EXEC)]
    return []
