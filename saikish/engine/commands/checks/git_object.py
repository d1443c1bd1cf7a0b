"""`git show HEAD:.env`: a path in history names a secret as much as a file does
(catalogue: `check git_object`).
"""

from __future__ import annotations

from saikish.engine.boundary import is_secret
from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk


def check(found: Parse) -> list[Finding]:
    # `git show HEAD:.env` prints a file from history: a secret is one wherever it lives.
    for word, index in zip(found.operands, found.operand_indexes, strict=False):
        path = word.split(":", 1)[1] if ":" in word else ""
        if path and is_secret(path):
            return [Finding(
                Risk.READ_ONLY, f"git prints {path} from history, which may hold secrets",
                            index, hard=True, kind=ReasonKind.SECRET)]
    return []
