"""ps's BSD `e` prints every process's environment (catalogue: `check ps`)."""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk

# ps options whose value may be the next word: UNIX (-o FMT) and BSD (o FMT, U USER).
_PS_VALUE_OPTIONS = frozenset({"-C", "-g", "-G", "-k", "-n", "-o", "-O", "-p", "-q", "-s",
                               "-t", "-u", "-U", "--Group", "--group", "--pid", "--ppid",
                               "--quick-pid", "--sid", "--tty", "--user", "--User",
                               "--format", "--sort", "--cols", "--columns", "--width",
                               "--rows", "--lines"})


def check(found: Parse) -> list[Finding]:
    # BSD-style `e` (`ps auxe`, `ps ax e`, `ps -A e`: styles mix freely) prints every
    # process's environment. Every dash-less word is a BSD cluster unless it is a value;
    # one built at run time ($x, xargs' input) may be `e`.
    words = found.words
    for i in found.operand_indexes:
        word, before = words[i], words[i - 1] if i > 1 else ""
        if before in _PS_VALUE_OPTIONS or (before[:1] == "-" and before[1:2] != "-" and
                                           before[-1] in "CgGknoOpqstuU") or (
                before and before[0] != "-" and before[-1] in "oOUptk"):
            continue  # the value of -o, -eo, --sort, BSD o or U
        if "e" in word or "$" in word or "`" in word:
            return [Finding(Risk.UNKNOWN, "ps e prints every process's environment", i, hard=True,
                            kind=ReasonKind.SECRET)]
    first = words[1] if len(words) > 1 else ""
    if first and not first.startswith("-") and "e" in first:
        return [Finding(Risk.UNKNOWN, "ps e prints every process's environment", hard=True,
                        kind=ReasonKind.SECRET)]
    return []
