"""Here-documents: the quoted ones are cut out of the text before bashlex reads it."""

from __future__ import annotations

import re

from saikish.engine.bash.words import decode_ansi_c

PLACEHOLDER = "SAIKISH_HEREDOC_"
_HEREDOC_OP = re.compile(r"<<(-?)[ \t]*")
# One delimiter word: plain characters, escapes, '...', "...", $'...' and $"...".
_DELIMITER = re.compile(r"""(?:\$'(?:[^'\\]|\\.)*'|\$"(?:[^"\\]|\\.)*"|[^\s;&|<>()'"\\]|"""
                        r"""\\.|'[^']*'|"(?:[^"\\]|\\.)*")+""")
_DELIMITER_PART = re.compile(r"""\$'((?:[^'\\]|\\.)*)'|\$?"((?:[^"\\]|\\.)*)"|'([^']*)'|"""
                             r"""\\(.)|(.)""", re.S)
_DOUBLE_QUOTED_ESCAPE = re.compile(r"""\\([$`"\\\n])""")


def _cut_heredocs(text: str, heredocs: dict[str, tuple[str, bool]], first: int) -> str:
    """Replace quoted here-documents by placeholders; unquoted ones bashlex reads itself.

    The shell module checks that bashlex sees every placeholder as a here-document of
    its own: if this scan misread the quoting, the command is opaque, never hidden.
    """
    out: list[str] = []
    pending: list[tuple[str, bool, str]] = []  # (delimiter, strip tabs, placeholder)
    lines = text.split("\n")
    quote = ""
    i = 0
    while i < len(lines):
        new_line, found, quote = _heredoc_ops(lines[i], first + len(heredocs) + len(pending),
                                              quote)
        out.append(new_line)
        pending.extend(found)
        i += 1
        # A body starts on the line after its command line (also inside "$( )").
        while pending and quote[-1:] in ("", "("):
            delimiter, strip, placeholder = pending.pop(0)
            body: list[str] = []
            while i < len(lines) and (lines[i].lstrip("\t") if strip else lines[i]) != delimiter:
                # <<- strips leading tabs from every body line, quoted or not.
                body.append(lines[i].lstrip("\t") if strip and placeholder else lines[i])
                i += 1
            i += 1  # the delimiter line (or the end of the text, as bash does)
            if placeholder:
                heredocs[placeholder] = ("\n".join(body), True)
                out.append(placeholder)
            else:
                out.extend(body)
                out.append(delimiter)
    return "\n".join(out)


def _heredoc_ops(line: str, counter: int,
                 quote: str) -> tuple[str, list[tuple[str, bool, str]], str]:
    """Find `<<` operators outside quotes on one line; rewrite the quoted ones.

    `quote` is the stack of what the text is inside, innermost last: `'`, `"`, `$` (a
    `$'...'`), or `(` (a `$( )` inside double quotes, where quoting starts afresh: the
    `git commit -m "$(cat <<'EOF'` of many agents)."""
    found: list[tuple[str, bool, str]] = []
    out: list[str] = []
    i = 0
    while i < len(line):
        c = line[i]
        top = quote[-1:]
        if top in ("'", '"', "$"):
            if c == "\\" and top != "'":
                out.append(line[i:i + 2])
                i += 2
                continue
            if top == '"' and line.startswith("$(", i) and not line.startswith("$((", i):
                quote += "("
                out.append("$(")
                i += 2
                continue
            if c == ("'" if top == "$" else top):
                quote = quote[:-1]
            out.append(c)
            i += 1
            continue
        if top == "(" and c in "()":  # inside "$( )": its parentheses, then its end
            quote = quote + "(" if c == "(" else quote[:-1]
            out.append(c)
            i += 1
            continue
        if c == "\\":
            out.append(line[i:i + 2])
            i += 2
            continue
        if c == "$" and line.startswith("$'", i):
            quote += "$"
            out.append("$'")
            i += 2
            continue
        if c in "'\"":
            quote += c
        elif c == "#" and (i == 0 or line[i - 1] in " \t;&|("):
            out.append(line[i:])
            break
        elif line.startswith("<<<", i):  # a here-string, not a here-document
            out.append("<<<")
            i += 3
            continue
        elif line.startswith("<<", i):
            op = _HEREDOC_OP.match(line, i)
            word = _DELIMITER.match(line, op.end()) if op else None
            if op and word:
                raw = word.group(0)
                delimiter, quoted = delimiter_word(raw)
                placeholder = f"{PLACEHOLDER}{counter + len(found)}" if quoted else ""
                found.append((delimiter, bool(op.group(1)), placeholder))
                out.append(f"<<{op.group(1)}{placeholder or raw}")
                i = word.end()
                continue
        out.append(c)
        i += 1
    return "".join(out), found, quote


def delimiter_word(raw: str) -> tuple[str, bool]:
    """The delimiter bash 5.2 reads from a here-document's word, and whether it is quoted.

    Quote removal as on any word, with $'...' decoded as ANSI-C and $"..." read as "...";
    no expansion (`<<$x` ends at a line `$x`). Any quoting character quotes the body.
    """
    out: list[str] = []
    for ansi_c, double, single, escaped, plain in _DELIMITER_PART.findall(raw):
        if ansi_c:
            out.append(decode_ansi_c(ansi_c))
        elif double:
            out.append(_DOUBLE_QUOTED_ESCAPE.sub(lambda m: "" if m.group(1) == "\n"
                                                 else m.group(1), double))
        else:
            out.append(single or escaped or plain)
    return "".join(out), any(c in raw for c in "'\"\\")


_BACKQUOTE_ESCAPE = re.compile(r"\\([$`\\])")


def backquoted(text: str) -> str:
    """The script inside `...`: bash removes a backslash before $, ` and \\ first."""
    return _BACKQUOTE_ESCAPE.sub(r"\1", text)


def substitutions(body: str) -> list[str]:
    """The scripts `$(...)` and `...` in an unquoted here-document body run, outermost
    first. Quotes are literal in a body, but count inside a substitution; a substitution
    with no end runs to the end of the body (bash would refuse the whole text)."""
    found: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            i += 2
        elif body.startswith("$((", i):
            i += 3  # arithmetic: its text is words, any $( in it is found by the scan
        elif body.startswith("$(", i):
            end = _closing_paren(body, i + 2)
            found.append(body[i + 2:end])
            i = end + 1
        elif c == "`":
            end = i + 1
            while end < len(body) and body[end] != "`":
                end += 2 if body[end] == "\\" else 1
            found.append(backquoted(body[i + 1:end]))
            i = end + 1
        else:
            i += 1
    return found


def _closing_paren(text: str, j: int) -> int:
    """Index of the `)` closing a `$(` whose text starts at j (or the end of the text)."""
    depth = 1
    while j < len(text):
        c = text[j]
        if c in "'\"":
            end = text.find(c, j + 1)
            j = len(text) if end < 0 else end + 1
            continue
        if c == "\\":
            j += 2
            continue
        depth += {"(": 1, ")": -1}.get(c, 0)
        if depth == 0:
            return j
        j += 1
    return len(text)
