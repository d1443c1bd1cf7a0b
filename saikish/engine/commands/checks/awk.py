"""awk's program: system(), pipes, redirections, getline from files, ENVIRON
(catalogue: `check awk`).
"""

from __future__ import annotations

import re

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk

# Checked on the program with its string literals emptied, so a '}' or ';' inside a
# string cannot end a statement early; any '>' or '|' after print/printf counts, even a
# comparison (asking too often is the safe mistake here).
_AWK_UNSAFE = re.compile(
    r"\bsystem\b|\|\s*getline|\|&|\bprint[f]?\b[^;}\n]*[>|]|\bgetline\b[^;}\n]*<|"
    r"@|\bclose\b|\bfflush\b|ENVIRON|PROCINFO|\"\s*\|")
# ARGV/ARGC changed in the program name the files awk reads next: no boundary sees them.
_AWK_ARGV = re.compile(r"\bARG[VC]\b")
_AWK_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def check(found: Parse) -> list[Finding]:
    if found.option_values("--file", "-f", "--source", "--include", "--load"):
        return []  # the grammar already marked these
    for text in found.operands[:1]:
        if '"' in text and text.count('"') % 2:
            return [Finding(Risk.UNKNOWN, "the awk program's quotes do not balance", hard=True)]
        plain = _AWK_STRING.sub('""', text)
        if _AWK_UNSAFE.search(plain):
            return [Finding(
                Risk.UNKNOWN, "the awk program runs commands or writes files", hard=True,
                kind=ReasonKind.EXEC)]
        if _AWK_ARGV.search(plain):
            return [Finding(
                Risk.UNKNOWN, "the awk program names the files it reads (ARGV)", hard=True,
                kind=ReasonKind.READS_OUTSIDE)]
    return []
