"""sed's script: the e, w, W, r and R commands and the s///e and s///w flags run commands
or reach files (catalogue: `check sed`).
"""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk


def check(found: Parse) -> list[Finding]:
    scripts = found.option_values("--expression")
    if not scripts and not found.option_values("--file"):
        scripts = list(found.operands[:1])
    if any(_sed_script_unsafe(s) for s in scripts):
        return [Finding(
            Risk.UNKNOWN, "the sed script runs commands or writes files (e/w/W), or reads "
                           "them (r/R)", hard=True, kind=ReasonKind.EXEC)]
    return []


def _sed_script_unsafe(script: str) -> bool:
    """True when a sed script may run a command or write a file; unsure means True."""
    i, n = 0, len(script)
    while i < n:
        i = _skip_address(script, i)
        if i >= n:
            return False
        c = script[i]
        if c in "ewWrR":
            return True  # e runs, w/W write, r/R read a file: none is seen by the boundary
        if c in "sy":
            i, flags = _skip_replacement(script, i + 1, c == "s")
            if i < 0 or any(f in flags for f in "ewW"):
                return True
        elif c in "aic#":
            end = script.find("\n", i)  # the text (or a comment) is the rest of the line
            i = n if end < 0 else end
        elif c in ":btT":
            i = _skip_label(script, i + 1)
            if i < 0:
                return True
            continue
        elif c not in "{};\n\t !=dDgGhHnNpPxzFqQlLv":
            return True  # a command this scanner does not know: fail closed
        i += 1  # q, Q, l, L: an exit code or line length follows, then ';' (GNU sed 4.9)
    return False


def _skip_label(script: str, i: int) -> int:
    """Where a label after :, b, t or T ends; -1 when sed versions read it differently.

    GNU sed 4.9 ends a label at ';' or a blank, and opens the file of a `w` after it when
    it reads the script (`sed 'b;w out'` creates out); older versions read a label up to
    the newline. A label followed by more than blanks before ';' or the line's end is
    read one way by one and another way by the other: fail closed.
    """
    n = len(script)
    while i < n and script[i] in " \t":
        i += 1
    while i < n and script[i] not in " \t;\n}":
        i += 1
    while i < n and script[i] in " \t":
        i += 1
    return i if i >= n or script[i] in ";\n}" else -1


def _skip_address(script: str, i: int) -> int:
    while i < len(script):
        c = script[i]
        if c in " \t;\n0123456789$,~!+":
            i += 1
        elif c in "/\\":
            delim = script[i + 1] if c == "\\" and i + 1 < len(script) else "/"
            i = _end_of(script, i + (2 if c == "\\" else 1), delim) + 1
            while i < len(script) and script[i] in "IM":
                i += 1
        else:
            return i
    return i


def _skip_replacement(script: str, i: int, with_flags: bool) -> tuple[int, str]:
    if i >= len(script):
        return -1, ""
    delim = script[i]
    i = _end_of(script, i + 1, delim)
    i = _end_of(script, i + 1, delim)
    if i >= len(script):
        return -1, ""
    flags = ""
    while with_flags and i + 1 < len(script) and script[i + 1] not in ";\n}":
        i += 1
        flags += script[i]
    return i, flags


def _end_of(script: str, i: int, delim: str) -> int:
    while i < len(script) and script[i] != delim:
        i += 2 if script[i] == "\\" else 1
    return i
