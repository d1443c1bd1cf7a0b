"""The plain subset of bash, split into simple commands without a parser."""

from __future__ import annotations

import re

# Words without expansions other than a variable's value ($NAME, ${NAME}, quoted or not),
# with backslash escapes (also inside double quotes, where bash keeps the backslash unless
# it escapes $ ` " or \) and find's `{}`, joined by | && || ;. No substitution,
# redirection, grouping, keyword or assignment can occur in it, so splitting it needs no
# parser (three quarters of the commands models send are like this). A word holding a
# variable is only known at run time (words.unquote), as it is when the parser reads it.
# Only space and tab separate words, as in bash (a no-break space is part of a word).
_VARIABLE = r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})"
_PLAIN_TOKEN = re.compile(r"""[ \t]*(?:(?P<op>\|\||&&|[|;])|(?P<word>(?:'[^']*'|"""
                          r""""(?:""" + _VARIABLE + r"""|[^"\\$`]|\\[^\x00-\x1f\x7f])*"|"""
                          + _VARIABLE + r"""|\\[^\x00-\x1f\x7f]|\{\}|[^ \t'"|;&\\<>(){}$`#])+)|"""
                          r"""(?P<bad>[^ \t]))""")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[|\+?=)")
_NOT_PLAIN = re.compile(r"[\n\x00-\x08\x0b-\x1f\x7f]")
_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "for", "while", "until", "do",
                       "done", "case", "esac", "function", "select", "time", "coproc", "in",
                       "[[", "]]", "!", "{", "}"})


def _plain_segments(text: str) -> list[tuple[list[str], str]] | None:
    """[(raw words, operator after them)] for plain text, or None to use the parser."""
    if _NOT_PLAIN.search(text):
        return None  # several lines or control characters: the parser's job
    segments: list[tuple[list[str], str]] = []
    words: list[str] = []
    for match in _PLAIN_TOKEN.finditer(text.rstrip(" \t")):
        kind = match.lastgroup  # every token is one of the three
        if kind == "bad":
            return None  # a lone & (background), an unbalanced quote
        if kind == "op":
            if not words:
                return None
            segments.append((words, match.group("op")))
            words = []
        else:
            words.append(match.group("word"))
    if words:
        segments.append((words, ""))
    elif segments and segments[-1][1] != ";":
        return None  # `a |` or `a &&` with nothing after: let the parser say so
    for raw, _ in segments:
        first = raw[0]
        if first in _KEYWORDS or _ASSIGNMENT.match(first):
            return None  # a keyword or an assignment: the parser's job
    return segments or None

