"""Where bash evaluates text as arithmetic, and array subscripts that hold code."""

from __future__ import annotations

import re

SUBSCRIPT_CODE = "an array subscript holding a command, which bash runs wherever it " \
                 "evaluates the value"


def _closure(tainted: set[str], names: dict[str, set[str]]) -> set[str]:
    """Tainted names, and every name whose value names a tainted one (x=n; n from a file)."""
    result = set(tainted)
    changed = bool(result)
    while changed:
        changed = False
        for name, targets in names.items():
            if name not in result and targets & result:
                result.add(name)
                changed = True
    return result


POSITIONAL = "#positional"  # $1, $@ after `set --` with words only known at run time
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Where bash evaluates words as arithmetic, beside (( )), $(( )) and [[ -eq ]]: let, $[ ],
# ${a[i]}, ${s:i:n}, a[i]=v, declare -i; and ${!x}, whose value names a variable. No
# pattern scans past a bracket or brace it does not close (long hostile text must not make
# them backtrack).
_ARITH_PLACES = re.compile(
    r"\blet\s+([^;&|\n]*)|\$\[([^\][]*)\]|"
    r"\$\{[#!]?[A-Za-z_][A-Za-z0-9_]*\[([^\][]*)\](?::(?![-=?+])([^{}]*)\})?|"
    r"\$\{[#!]?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*]):(?![-=?+])([^{}]*)\}|"
    r"\b[A-Za-z_][A-Za-z0-9_]*\[([^\][]*)\]\+?=|"
    r"\b(?:declare|typeset|local)\s+(?:-\w+\s+)*-\w*i\w*\s+([^;&|\n]*)|"
    r"\$\{!([A-Za-z_][A-Za-z0-9_]*)")
# What every place above (and (( )), [[ ]]) needs somewhere in the text.
_MAY_HOLD_ARITHMETIC = re.compile(r"let|\$\{|\[|\(\(|declare|typeset|local")
# $1 ${1} $@ in an arithmetic place: the positional parameters.
_POSITIONAL_REF = re.compile(r"\$\{?(?:[0-9]+|[@*])")
_ARITH_TEST = re.compile(r"-(?:eq|ne|lt|le|gt|ge)\b")


def arithmetic_names(text: str) -> set[str]:
    """Every name bash may evaluate as arithmetic in `text` (a superset: it fails closed)."""
    if not _MAY_HOLD_ARITHMETIC.search(text):
        return set()  # none of the places below can be in it
    regions = [r for match in _ARITH_PLACES.finditer(text) for r in match.groups() if r]
    start = text.find("((")
    while start >= 0:  # (( )) and $(( )), nested parentheses counted
        depth, j = 0, start
        while j < len(text):
            depth += (text[j] == "(") - (text[j] == ")")
            j += 1
            if depth == 0:
                break
        regions.append(text[start + 2:j])
        start = text.find("((", j)
    start = text.find("[[")
    while start >= 0:  # [[ $x -gt 3 ]]: the operands of -eq and the like
        end = text.find("]]", start + 2)
        region = text[start + 2:] if end < 0 else text[start + 2:end]
        if _ARITH_TEST.search(region):
            regions.append(region)
        start = -1 if end < 0 else text.find("[[", end + 2)
    names = {name for region in regions for name in _NAME.findall(region)}
    if any(_POSITIONAL_REF.search(region) for region in regions):
        names.add(POSITIONAL)
    return names


def _subscript_code(text: str) -> bool:
    """`name[...$(...)...]` or a backtick inside `name[...]` anywhere in the text, quoted or
    not (an arithmetic index, `a[$((i + 1))]`, runs nothing). One pass: a regex for this
    backtracks quadratically on long text."""
    if "[" not in text or ("$(" not in text and "`" not in text):
        return False
    opened = closed = -1
    for i, c in enumerate(text):
        if c == "[" and i and (text[i - 1].isalnum() or text[i - 1] == "_"):
            opened = i
        elif c == "]":
            closed = i
        elif opened > closed and (c == "`" or (c == "$" and text[i + 1:i + 2] == "(" and
                                               text[i + 2:i + 3] != "(")):
            return True
    return False
