"""The plain subset of bash, split into simple commands without a parser."""

from __future__ import annotations

import re
from typing import NamedTuple

# Words without expansions other than a variable's value ($NAME, ${NAME}, quoted or not),
# with backslash escapes (also inside double quotes, where bash keeps the backslash unless
# it escapes $ ` " or \) and find's `{}`, with redirections to files, joined by
# | && || ;. No substitution, grouping, keyword or assignment can occur in it, so
# splitting it needs no parser (four fifths of the commands models send are like this).
# A word holding a variable is only known at run time (words.unquote), as it is when the
# parser reads it. Only space and tab separate words, as in bash (a no-break space is part
# of a word).
_VARIABLE = r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\})"
# Redirections to a file (`> f`, `2>> f`, `>| f`, `&> f`, `< f`) and descriptor copies
# (`2>&1`, `>&-`); here-documents, here-strings, `<>`, `>&file` and process substitution
# are the parser's.
_REDIRECT = (r"(?P<redirect>[0-9]*(?:>>|>\||>(?![&(|>])|<(?![<>&(]))|&>>|&>(?![&(>|]))|"
             r"(?P<copy>[0-9]*[<>]&(?:[0-9]+|-)(?=[ \t|;&]|$))")
_PLAIN_TOKEN = re.compile(r"""[ \t]*(?:""" + _REDIRECT + r"""|(?P<op>\|\||&&|\|(?!&)|;(?![;&]))|"""
                          r"""(?P<word>(?:'[^']*'|"""
                          r""""(?:""" + _VARIABLE + r"""|[^"\\$`]|\\[^\x00-\x1f\x7f])*"|"""
                          + _VARIABLE + r"""|\\[^\x00-\x1f\x7f]|\{\}|[^ \t'"|;&\\<>(){}$`#])+)|"""
                          r"""(?P<bad>[^ \t]))""")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[|\+?=)")
_NOT_PLAIN = re.compile(r"[\n\x00-\x08\x0b-\x1f\x7f]")
_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "for", "while", "until", "do",
                       "done", "case", "esac", "function", "select", "time", "coproc", "in",
                       "[[", "]]", "!", "{", "}"})


class Segment(NamedTuple):
    """One simple command of plain text: its words and redirections as written, and the
    operator after it ("" at the end)."""

    words: list[str]
    redirects: list[tuple[str, str]]  # (operator with its descriptor, target), in order
    operator: str


def _plain_segments(text: str) -> list[Segment] | None:
    """The simple commands of plain text, or None to use the parser."""
    if _NOT_PLAIN.search(text):
        return None  # several lines or control characters: the parser's job
    segments: list[Segment] = []
    words: list[str] = []
    redirects: list[tuple[str, str]] = []
    pending = ""  # a redirection waiting for its target word
    for match in _PLAIN_TOKEN.finditer(text.rstrip(" \t")):
        kind = match.lastgroup  # every token is one of these
        if kind == "bad" or pending and kind != "word":
            return None  # a lone & (background), an unbalanced quote, `> |`
        if kind == "op":
            if not words:
                return None
            segments.append(Segment(words, redirects, match.group("op")))
            words, redirects = [], []
        elif kind == "redirect":
            pending = match.group("redirect")
        elif kind == "word" and pending:
            redirects.append((pending, match.group("word")))
            pending = ""
        elif kind == "word":
            words.append(match.group("word"))
    if pending:
        return None  # `echo >` with nothing after: let the parser say so
    if words:
        segments.append(Segment(words, redirects, ""))
    elif redirects or segments and segments[-1].operator != ";":
        return None  # `a |`, `a &&` with nothing after, `> f` alone: the parser's
    for segment in segments:
        first = segment.words[0]
        if first in _KEYWORDS or _ASSIGNMENT.match(first):
            return None  # a keyword or an assignment: the parser's job
    return segments or None
