"""The plain subset of bash, split into simple commands without a parser."""

from __future__ import annotations

import re
from typing import NamedTuple

# Words without expansions other than a variable's value ($NAME, ${NAME}, $1, $@, $?...,
# quoted or not) and command substitutions whose script is itself plain ($(cmd), `cmd`),
# with backslash escapes (also inside double quotes, where bash keeps the backslash unless
# it escapes $ ` " or \) and find's `{}`, with redirections to files, joined by
# | && || ;. No grouping, keyword or assignment can occur in it, so splitting it needs no
# parser (nine tenths of the commands models send are like this).
# A word holding a variable or a substitution is only known at run time (words.unquote),
# as it is when the parser reads it. Only space and tab separate words, as in bash (a
# no-break space is part of a word).
_VARIABLE = r"\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[A-Za-z_][A-Za-z0-9_]*\}|[0-9@*#?$!-])"
_ESCAPE = r"\\[^\x00-\x1f\x7f]"
_DOUBLE_QUOTED = r'"(?:' + _VARIABLE + r'|[^"\\$`]|' + _ESCAPE + r')*"'


def _substitution(sub: str, backquoted: str) -> str:
    """A pattern for `$(script)` and `script`, the scripts in groups named as given.

    The script has no parenthesis, backquote or `#` of its own, so its first `)` (or
    backquote) outside quotes ends it, as bash's parser ends it; it is then split as plain
    text itself (or the whole text is the parser's). In backquotes no backslash or quote
    either (bash reads them there in a way of its own)."""
    return (r"\$\((?P<" + sub + r">(?:[^()'\"\\`$#\n]|'[^']*'|" + _DOUBLE_QUOTED + "|" +
            _VARIABLE + "|" + _ESCAPE + r")*)\)|`(?P<" + backquoted + r">(?:[^`'\"\\$()#\n]|" +
            _VARIABLE + r")*)`")


# Redirections to a file (`> f`, `2>> f`, `>| f`, `&> f`, `< f`) and descriptor copies
# (`2>&1`, `>&-`); here-documents, here-strings, `<>`, `>&file` and process substitution
# are the parser's.
_REDIRECT = (r"(?P<redirect>[0-9]*(?:>>|>\||>(?![&(|>])|<(?![<>&(]))|&>>|&>(?![&(>|]))|"
             r"(?P<copy>[0-9]*[<>]&(?:[0-9]+|-)(?=[ \t|;&]|$))")
# A double-quoted part of a word, which may hold variables and substitutions.
_QUOTED_PART = (r'"(?:' + _VARIABLE + "|" + _substitution("dq", "dqb") + r'|[^"\\$`]|' +
                _ESCAPE + r')*"')
_PLAIN_TOKEN = re.compile(
    r"[ \t]*(?:" + _REDIRECT + r"|(?P<op>\|\||&&|\|(?!&)|;(?![;&]))|"
    r"(?P<word>(?:'[^']*'|" + _QUOTED_PART + "|" + _substitution("sub", "bq") + "|" +
    _VARIABLE + "|" + _ESCAPE + r"""|\{\}|[^ \t'"|;&\\<>(){}$`#])+)|(?P<bad>[^ \t]))""")
# The substitutions in one word, in order (single-quoted text holds none).
# (A variable first, as in the words above: `$$(x)` is the process id, then `(x)`.)
_WORD_PART = re.compile(r"'[^']*'|" + _ESCAPE + "|" + _VARIABLE + "|" +
                        _substitution("sub", "bq") + "|" + _QUOTED_PART + "|.")
_IN_DOUBLE_QUOTES = re.compile(_ESCAPE + "|" + _VARIABLE + "|" + _substitution("sub", "bq") +
                               "|.")
_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\[|\+?=)")
_NOT_PLAIN = re.compile(r"[\n\x00-\x08\x0b-\x1f\x7f]")
_KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "for", "while", "until", "do",
                       "done", "case", "esac", "function", "select", "time", "coproc", "in",
                       "[[", "]]", "!", "{", "}"})


class Script(NamedTuple):
    """A command substitution in a plain word: `$(` or a backquote, and its script (a
    backquoted one with its text, as the walker reads those; `$( )` already split)."""

    opening: str
    text: str
    segments: list[Segment]


class Segment(NamedTuple):
    """One simple command of plain text: its words and redirections as written, the
    operator after it ("" at the end), and the substitutions in its words, in order."""

    words: list[str]
    redirects: list[tuple[str, str]]  # (operator with its descriptor, target), in order
    operator: str
    scripts: list[Script]


def _plain_segments(text: str) -> list[Segment] | None:
    """The simple commands of plain text, or None to use the parser."""
    if _NOT_PLAIN.search(text):
        return None  # several lines or control characters: the parser's job
    segments: list[Segment] = []
    words: list[str] = []
    redirects: list[tuple[str, str]] = []
    scripts: list[Script] = []
    pending = ""  # a redirection waiting for its target word
    for match in _PLAIN_TOKEN.finditer(text.rstrip(" \t")):
        kind = match.lastgroup  # every token is one of these
        if kind == "bad" or pending and kind != "word":
            return None  # a lone & (background), an unbalanced quote, `> |`
        if kind == "op":
            if not words:
                return None
            segments.append(Segment(words, redirects, match.group("op"), scripts))
            words, redirects, scripts = [], [], []
        elif kind == "redirect":
            pending = match.group("redirect")
        elif kind == "word" and pending:
            if "$(" in match.group("word") or "`" in match.group("word"):
                return None  # `> $(mktemp)`: the parser's
            redirects.append((pending, match.group("word")))
            pending = ""
        elif kind == "word":
            word = match.group("word")
            words.append(word)
            if ("$(" in word or "`" in word) and not _scripts(word, scripts):
                return None  # a substitution whose script is not plain: the parser's
    if pending:
        return None  # `echo >` with nothing after: let the parser say so
    if words:
        segments.append(Segment(words, redirects, "", scripts))
    elif redirects or segments and segments[-1].operator != ";":
        return None  # `a |`, `a &&` with nothing after, `> f` alone: the parser's
    # A keyword or an assignment first is the parser's job.
    plain = all(s.words[0] not in _KEYWORDS and not _ASSIGNMENT.match(s.words[0])
                for s in segments)
    return segments if segments and plain else None


def _scripts(word: str, found: list[Script]) -> bool:
    """Add the substitutions in `word` to `found`; False when one's script is not plain."""
    for part in _WORD_PART.finditer(word):
        if part.group(0).startswith('"'):
            inside = _IN_DOUBLE_QUOTES.finditer(part.group(0)[1:-1])
            if not all(_script(p, found) for p in inside):
                return False
        elif not _script(part, found):
            return False
    return True


def _script(part: re.Match[str], found: list[Script]) -> bool:
    for opening, group in (("$(", "sub"), ("`", "bq")):
        code = part.group(group)
        if code is not None:
            segments = _plain_segments(code)
            if segments is None:
                return False
            found.append(Script(opening, code, segments))
    return True
