"""kubectl words that print cluster secrets or credentials (catalogue: `check kubectl`)."""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk


def check(found: Parse) -> list[Finding]:
    words = set(found.operands) | {n for n, _ in found.options}
    if words & {"secret", "secrets", "--raw"}:
        return [Finding(Risk.UNKNOWN, "kubectl prints cluster secrets or credentials", hard=True,
        kind=ReasonKind.SECRET)]
    return []
