"""SQL and client dot-commands that run programs or reach files (sqlite3, mysql)
(catalogue: `check sql`).
"""

from __future__ import annotations

import re

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk

_SQL_UNSAFE = re.compile(r"^\s*\.(shell|system|output|once|import|load|read|open|save|backup|"
                         r"restore|excel|cd|log|trace|dump)\b|load_extension|writefile|readfile|"
                         r"\battach\b|\bedit\s*\(|\\!|\bsystem\b|load_file|into\s+(out|dump)file",
                         re.IGNORECASE | re.MULTILINE)


def check(found: Parse) -> list[Finding]:
    if any(_SQL_UNSAFE.search(w) for w in found.operands) or any(
            v and _SQL_UNSAFE.search(v) for _, v in found.options):
        return [Finding(Risk.UNKNOWN, "the SQL runs programs or reads or writes files", hard=True,
        kind=ReasonKind.EXEC)]
    return []
