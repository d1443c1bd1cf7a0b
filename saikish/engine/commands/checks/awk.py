"""awk's program: system(), pipes, redirections, getline from files, ENVIRON
(catalogue: `check awk`).

The program is first read as awk's lexer reads it: strings, regular-expression literals
and comments become inert, so a ';', '}' or quote inside them cannot end a statement or a
string early and hide a pipe or a redirection after it. What this reader cannot read the
way every awk does (a '/' that may be a division or a regex, a '/' inside a bracket
expression, a string or regex that does not end on its line) makes the program unknown:
asking is the safe mistake.
"""

from __future__ import annotations

import enum
import re

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk

# Checked on the program as read (plain_program): what runs commands, reaches files or the
# environment wherever it stands.
_AWK_UNSAFE = re.compile(
    r"\bsystem\b|\|\s*getline|\|&|@|\bclose\b|\bfflush\b|ENVIRON|PROCINFO|\"\s*\|")
# print/printf up to the end of its statement: any '>' or '|' counts, even a comparison
# (asking too often is the safe mistake here); getline up to the end of its with a '<'.
_AWK_OUTPUT = re.compile(r"\bprint[f]?\b")
_AWK_GETLINE = re.compile(r"\bgetline\b")
# ARGV/ARGC changed in the program name the files awk reads next: no boundary sees them.
_AWK_ARGV = re.compile(r"\bARG[VC]\b")

class _Slash(enum.Enum):
    """What a '/' is after a token: a regex literal (where an operand must start), a
    division (after an operand), or either, depending on the awk (fail closed)."""

    REGEX = "regex"
    DIVISION = "division"
    EITHER = "either"


_REGEX_AFTER_WORDS = frozenset({"print", "printf", "return", "case", "do", "else", "exit"})
_EITHER_AFTER_WORDS = frozenset({"getline", "in"})
_CONTROL_WORDS = frozenset({"if", "while", "for"})
# A statement goes on over a newline after anything but the end of an operand (',', '&&',
# '{', an operator): awk reads `print "a",<newline>"b" > "out"` as one statement.
_OPERAND_END = re.compile(r"[\w\")\]]")
_WORD = re.compile(r"[A-Za-z_]\w*|[0-9.]\w*")


def check(found: Parse) -> list[Finding]:
    if found.option_values("--file", "-f", "--source", "--include", "--load"):
        return []  # the grammar already marked these
    for text in found.operands[:1]:
        plain = plain_program(text)
        if plain is None:
            return [Finding(
                Risk.UNKNOWN, "the awk program cannot be read with confidence (a string or "
                "regular expression that awks may read differently)", hard=True,
                kind=ReasonKind.EXEC)]
        if _AWK_UNSAFE.search(plain) or _statement_has(plain, _AWK_OUTPUT, ">|") or \
                _statement_has(plain, _AWK_GETLINE, "<"):
            return [Finding(
                Risk.UNKNOWN, "the awk program runs commands or writes files", hard=True,
                kind=ReasonKind.EXEC)]
        if _AWK_ARGV.search(plain):
            return [Finding(
                Risk.UNKNOWN, "the awk program names the files it reads (ARGV)", hard=True,
                kind=ReasonKind.READS_OUTSIDE)]
    return []


def plain_program(text: str) -> str | None:
    """The program with strings as "", regex literals as //, comments and line
    continuations gone; None when it cannot be read the way every awk reads it."""
    out: list[str] = []
    parens: list[bool] = []  # for each open '(': does it hold an if/while/for header?
    slash, header, i, n = _Slash.REGEX, False, 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("\\\n", i):
            out.append(" ")  # a continued line: the statement goes on
            i += 2
            continue
        if c == "#":
            end = text.find("\n", i)
            i = n if end < 0 else end
            continue
        if c in " \t\r":
            out.append(c)
            i += 1
            continue
        if c == '"' or (c == "/" and slash is _Slash.REGEX):
            close = _string_end(text, i) if c == '"' else _regex_end(text, i)
            if close is None:
                return None
            out.append(c + c)
            i, slash, header = close, _Slash.DIVISION, False
            continue
        if c == "/" and slash is _Slash.EITHER:
            return None  # `getline /x/`, `$/x/`, `i++ /x/`: awks differ, so fail closed
        word = _WORD.match(text, i)
        if word:
            out.append(word.group())
            i, slash = word.end(), _after_word(word.group())
            header = word.group() in _CONTROL_WORDS
            continue
        out.append(c)
        i, slash = _after_symbol(text, i, parens, header)
        header = False
    return "".join(out)


def _after_word(word: str) -> _Slash:
    if word in _REGEX_AFTER_WORDS:
        return _Slash.REGEX
    return _Slash.EITHER if word in _EITHER_AFTER_WORDS else _Slash.DIVISION


def _after_symbol(text: str, i: int, parens: list[bool], header: bool) -> tuple[int, _Slash]:
    """Where the symbol at i ends, and what a '/' after it is."""
    c = text[i]
    if text.startswith(("++", "--"), i):
        return i + 2, _Slash.EITHER
    if c == "(":
        parens.append(header)
    if c == ")":
        # After `if (...)` a statement starts: a '/' there is a regex (gawk; mawk stops).
        return i + 1, _Slash.REGEX if parens and parens.pop() else _Slash.DIVISION
    if c == "$":
        return i + 1, _Slash.EITHER
    return i + 1, _Slash.DIVISION if c == "]" else _Slash.REGEX


def _string_end(text: str, i: int) -> int | None:
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\":
            j += 2
        elif c == '"':
            return j + 1
        elif c == "\n":
            return None
        else:
            j += 1
    return None


def _regex_end(text: str, i: int) -> int | None:
    j = i + 1
    while j < len(text):
        c = text[j]
        if c == "\\" and text[j + 1:j + 2] not in ("", "\n"):
            j += 2
        elif c == "/":
            return j + 1
        elif c == "[":
            end = _bracket_end(text, j)
            if end is None:
                return None
            j = end
        elif c in "\\\n":
            return None
        else:
            j += 1
    return None


def _bracket_end(text: str, i: int) -> int | None:
    """The end of a bracket expression; None when a '/', a newline or '\\]' stands in it:
    gawk and mawk read such a '/' as part of the bracket, other awks as the regex's end."""
    j = i + 1
    j += text.startswith("^", j)
    j += text.startswith("]", j)
    while j < len(text):
        c = text[j]
        if c == "[" and text[j + 1:j + 2] in (":", ".", "="):
            close = text.find(text[j + 1] + "]", j + 2)
            if close < 0 or "/" in text[j:close] or "\n" in text[j:close]:
                return None
            j = close + 2
        elif c == "]":
            return j + 1
        elif c in "/\n" or (c == "\\" and text[j + 1:j + 2] in ("]", "", "\n")):
            return None
        else:
            j += 2 if c == "\\" else 1
    return None


def _statement_has(plain: str, keyword: re.Pattern[str], chars: str) -> bool:
    """True when a statement starting with a match of keyword holds one of chars."""
    for match in keyword.finditer(plain):
        last = ""
        for c in plain[match.end():]:
            if c in ";}" or (c == "\n" and _OPERAND_END.match(last)):
                break
            if c in chars:
                return True
            if not c.isspace():
                last = c
    return False
