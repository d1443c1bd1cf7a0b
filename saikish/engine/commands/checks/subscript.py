"""Array subscripts bash evaluates as code: `let 'a[$(cmd)]'`, `test -v 'a[$(cmd)]'`
(catalogue: `check subscript`).
"""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk


def _let(found: Parse) -> list[Finding]:
    if any("[" in w for w in found.operands):
        return [Finding(
            Risk.UNKNOWN, "let evaluates an array subscript, which can run code", hard=True,
            kind=ReasonKind.EXEC)]
    return []


def _test(found: Parse) -> list[Finding]:
    words = found.operands
    for i, word in enumerate(words[:-1]):
        if word == "-v" and "[" in words[i + 1]:
            return [Finding(
                Risk.UNKNOWN, "test -v evaluates an array subscript, which can run code",
                            hard=True, kind=ReasonKind.EXEC)]
    return []


def check(found: Parse) -> list[Finding]:
    """let's operands, or test -v's: a subscript there is code."""
    return _let(found) if found.path[0] == "let" else _test(found)
