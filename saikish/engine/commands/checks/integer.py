"""`declare -i x='a[$(cmd)]'`: an integer variable's value is arithmetic, its subscript code
(catalogue: `check integer`).
"""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk


def check(found: Parse) -> list[Finding]:
    # declare -i x='a[$(cmd)]': an integer variable's value is evaluated as arithmetic.
    if any(name == "-i" for name, _ in found.options) and \
            any("[" in w.split("=", 1)[1] for w in found.operands if "=" in w):
        return [Finding(
            Risk.UNKNOWN, f"{found.path[0]} -i evaluates the value as arithmetic, and its "
                           f"array subscript can run code", hard=True, kind=ReasonKind.EXEC)]
    return []
