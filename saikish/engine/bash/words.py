"""Bash words: quote removal on a word's source text, and escalation words in raw text."""

from __future__ import annotations

import re

from saikish.engine.commands.catalogue import Catalogue
from saikish.engine.commands.grammar import RUN_TIME_TILDE, Word

CATALOGUE = Catalogue()  # loaded once for the whole engine
# Programs that run something as another user or group (docs/SPEC.md §4.1 step 2): the
# catalogue's `risk escalation` entries.
ESCALATORS = CATALOGUE.escalators()
_RAW_ESCALATION = re.compile(
    r"(?:^|[\s;&|(`{!/=])(?:" + "|".join(sorted(re.escape(e) for e in ESCALATORS))
    + r")(?=$|[\s;&|)`}'\"])")


def mentions_escalation(text: str) -> str | None:
    """The escalation word `text` holds once its quotes are taken away, or None.

    Read twice: quotes as word breaks ('sudo' id), and quotes, backslashes and empty
    substitutions as nothing, as bash joins them (s''udo, s$()udo, s``udo).
    """
    for plain in (text.replace("\\", "").replace("'", " ").replace('"', " "),
                  _NOTHING.sub("", text)):
        found = _RAW_ESCALATION.search(plain)
        if found:
            return found.group(0).strip(" \t\n;&|(`{!/=")
    return None


_NOTHING = re.compile(r"\\|'|\"|\$\(\s*\)|``")
_SPECIAL_CHARS = re.compile(r"[\\'\"$`*?\[{~]")


def unquote(raw: str) -> Word:
    """Bash quote removal on one word's source text."""
    if not _SPECIAL_CHARS.search(raw):
        return Word(raw)  # the common case: nothing to remove, nothing to expand
    out: list[str] = []
    dynamic = globbing = ansi_c = splits = False
    i, n = 0, len(raw)
    while i < n:
        c = raw[i]
        if c == "\\":
            if i + 1 < n and raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
        elif c == "'":
            end = raw.find("'", i + 1)
            end = n if end < 0 else end
            out.append(raw[i + 1:end])
            i = end + 1
        elif c == '"':
            i, part, dyn = _double_quoted(raw, i + 1)
            out.append(part)
            dynamic |= dyn
        elif c == "$" and i + 1 < n and raw[i + 1] in "'\"":
            ansi_c = True
            out.append(c)
            i += 1
        elif c == "`" or (c == "$" and i + 1 < n and (
                raw[i + 1].isalnum() or raw[i + 1] in "_{(@*#?$!-")):
            dynamic = splits = True  # unquoted: bash splits what it expands to
            # $$ $? $1...: the character after $ is the parameter's name, never a quote's
            # start (`$$"x"` is the process id, then "x")
            step = 2 if c == "$" and raw[i + 1] in _SPECIAL else 1
            out.append(raw[i:i + step])
            i += step
        else:
            if c in "*?" or (c == "[" and "]" in raw[i + 2:]) or (c == "{" and "," in raw[i:]):
                globbing = True
            elif c == "~" and i and raw[i - 1] == "=" and _ASSIGNMENT_PREFIX.match(raw[:i]):
                dynamic = True  # h=~/x is h=/home/me/x to bash (an assignment-like word)
            elif c == "~" and (i == 0 or raw[i - 1] in "=:") and RUN_TIME_TILDE.match(raw, i):
                dynamic = True  # ~+ is $PWD, ~- $OLDPWD, ~N the directory stack (also after
                # = or : in words like if=~-/x, which bash expands too): run-time places
            out.append(c)
            i += 1
    if dynamic and "$(" in raw and ("#" in raw or "\n" in raw):
        splits = True  # a comment or a line inside $( ): where it ends is not read here
    return Word("".join(out), dynamic, globbing, ansi_c, splits)


# The one-character parameters: `$` and the character after it are one expansion.
_SPECIAL = frozenset("@*#?$!-0123456789")
# A word like h=~/x, which bash expands as an assignment (`=~` also shows up in words that
# never expand, such as a sed script: asked, not wrong).
_ASSIGNMENT_PREFIX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=\Z")


def _double_quoted(raw: str, i: int) -> tuple[int, str, bool]:
    out: list[str] = []
    dynamic = False
    while i < len(raw) and raw[i] != '"':
        c = raw[i]
        if c == "\\" and i + 1 < len(raw) and raw[i + 1] in '$`"\\\n':
            if raw[i + 1] != "\n":
                out.append(raw[i + 1])
            i += 2
            continue
        if c == "$" and raw[i + 1:i + 2] in _SPECIAL:  # "$$(x)": the process id, then (x)
            out.append(raw[i:i + 2])
            dynamic = True
            i += 2
            continue
        if c == "$" and raw[i + 1:i + 2] == "(":
            end = _substitution_end(raw, i + 2)  # "$(dirname "$1")": quotes of its own
            out.append(raw[i:end])
            dynamic = True
            i = end
            continue
        if c in "$`":
            dynamic = True
        out.append(c)
        i += 1
    return i + 1, "".join(out), dynamic


def _substitution_end(raw: str, i: int) -> int:
    """Where the `$( )` whose text starts at i ends (after its `)`), skipping nested
    parentheses, quotes, comments (`$(: #)` does not end at that `)`) and here-document
    bodies (nor does `$(cat <<E` with a body line `)`); the end of `raw` when nothing
    closes it. UNSURE (past the end) when a here-document is not read here for sure: a
    delimiter spelled otherwise, no delimiter line, or a body line that only starts with
    the delimiter (inside `$( )` bash may end the body there and run the rest)."""
    depth, quote, boundary = 1, "", True  # boundary: a word may start here (a comment)
    pending: list[tuple[str, bool]] = []  # here-documents whose bodies start next line
    while i < len(raw):
        c = raw[i]
        if c == "\\" and quote != "'":
            i, boundary = i + 2, False
            continue
        if quote:
            quote = "" if c == quote else quote
        elif (after := _past_hidden(raw, i)) != i:
            i, boundary = after, False
            continue
        elif c in "'\"":
            quote = c
        elif c == "#" and boundary:
            i = raw.find("\n", i)  # a comment, to the end of its line
            if i < 0:
                return len(raw)
            continue
        elif c == "\n" and pending:
            i = _after_bodies(raw, i + 1, pending)
            if i < 0:
                return len(raw) + UNSURE
            pending, boundary = [], True
            continue
        elif raw.startswith("<<", i):
            heredoc = _HEREDOC.match(raw, i)
            if heredoc is None:
                return len(raw) + UNSURE
            pending.append((next(d for d in heredoc.group(2, 3, 4) if d is not None),
                            heredoc.group(1) == "-"))
            i, boundary = heredoc.end(), False
            continue
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        boundary = not quote and c in " \t\n;|&(<>"  # not `)`: `$(x)#y` is one word
        i += 1
    return len(raw) + UNSURE if pending else len(raw)


def _past_hidden(raw: str, i: int) -> int:
    """Past what starts at i and holds no here-document, comment or end of the
    substitution for bash (i itself when nothing does): `$'...'` (where \\' does not end
    it), `${...}` (`${x:-<<F }`), backquotes, a here-string's `<<<`."""
    if raw.startswith("$'", i):
        return _past_quote(raw, i, quoted=False)
    if raw.startswith("${", i):
        return _parameter_end(raw, i + 2)
    if raw.startswith("`", i):
        return _backquote_end(raw, i + 1)
    return i + 3 if raw.startswith("<<<", i) else i


# How far past the text's end `_substitution_end` says a substitution ends when it cannot
# be sure where (`substitutions_in` passes it on: the walker makes the call opaque).
UNSURE = 1
# `<<EOF`, `<<-'EOF'`, `<< "EOF"`: a delimiter spelled another way (E"O"F) is not read.
_HEREDOC = re.compile(r"<<(-?)[ \t]*(?:'([^'\n]*)'|\"([^\"\\\n$`]*)\"|"
                      r"([A-Za-z0-9_.,:+/=@%^~-]+))(?=[ \t\n;&|()<>]|$)")


def _after_bodies(raw: str, i: int, pending: list[tuple[str, bool]]) -> int:
    """Where the here-document bodies starting at i end (after each delimiter line);
    -1 when one has no delimiter line, or a line only starts with the delimiter."""
    for delimiter, dash in pending:
        while True:
            end = raw.find("\n", i)
            line = raw[i:] if end < 0 else raw[i:end]
            line = line.lstrip("\t") if dash else line
            if line == delimiter:
                i = len(raw) if end < 0 else end + 1
                break
            if end < 0 or line.startswith(delimiter):
                return -1
            i = end + 1
    return i


def ends_early(raw: str, spans: list[tuple[int, int]]) -> bool:
    """True when bash ends the word whose source text a parser gave as `raw` before its
    end: an unquoted blank, newline or operator character outside quotes, substitutions
    (`spans`, from `substitutions_in`) and `${...}`. What the parser read past that point
    bash runs as commands."""
    ends = dict(spans)
    i, n, quoted = 0, len(raw), False
    while i < n:
        c = raw[i]
        if i in ends:
            i = ends[i]
        elif (after := _past_quote(raw, i, quoted)) != i:
            i = after
        elif raw.startswith("${", i):
            i = _parameter_end(raw, i + 2)
        elif not quoted and c in " \t\n;&|()<>":
            return True
        else:
            quoted ^= c == '"'
            i += 1
    return False


def _parameter_end(raw: str, i: int) -> int:
    """Where the `${` whose text starts at i ends (after its `}`): quotes inside it quote
    (`${x:-'}'}`), and so do nested expansions and substitutions."""
    depth = 1
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            i += 2
        elif c in "'\"":
            end = raw.find(c, i + 1)
            i = len(raw) if end < 0 else end + 1
        elif raw.startswith("$(", i):
            i = _substitution_end(raw, i + 2)
        elif raw.startswith("${", i):
            depth, i = depth + 1, i + 2
        elif c == "}":
            depth -= 1
            i += 1
            if depth == 0:
                return i
        else:
            i += 1
    return len(raw)


def substitutions_in(raw: str) -> list[tuple[int, int]]:
    """Where the command and process substitutions of one word's source text start and
    end (the outermost ones): bash runs each, whatever a parser made of the word. Single
    quotes and backslashes hide them; double quotes do not."""
    spans: list[tuple[int, int]] = []
    i, n, quoted = 0, len(raw), False
    while i < n:
        c = raw[i]
        if c == "$" and raw[i + 1:i + 2] in _SPECIAL:
            i += 2  # $$ $# $1...
        elif (after := _past_quote(raw, i, quoted)) != i:
            i = after
        elif c == "`":
            end = _backquote_end(raw, i + 1)
            spans.append((i, end))
            i = end
        elif c in "$<>" and raw.startswith("(", i + 1) and (c == "$" or not quoted):
            # `$((` left in a word is a substitution holding a subshell, `$((cmd) )`: the
            # parser's arithmetic is rewritten before it reads (preparse)
            end = _substitution_end(raw, i + 2)
            spans.append((i, end))
            i = end
        else:
            quoted ^= c == '"'
            i += 1
    return spans


def _past_quote(raw: str, i: int, quoted: bool) -> int:
    """Past a backslash escape at i, or (outside double quotes) a `'...'` or a `$'...'`
    (where \\' does not end it); i itself when none starts there."""
    if raw.startswith("\\", i):
        return i + 2
    if quoted:
        return i
    if raw.startswith("'", i):
        end = raw.find("'", i + 1)
        return len(raw) if end < 0 else end + 1
    if raw.startswith("$'", i):
        closing = _ANSI_C_END.match(raw, i + 2)
        return closing.end() if closing else len(raw)
    return i


_ANSI_C_END = re.compile(r"(?:[^\\']|\\.)*'", re.S)


def _backquote_end(raw: str, i: int) -> int:
    """Where the backquoted script whose text starts at i ends (after its backquote)."""
    while i < len(raw):
        if raw[i] == "\\":
            i += 2
        elif raw[i] == "`":
            return i + 1
        else:
            i += 1
    return len(raw)


_ANSI_C = re.compile(r"\\(?:([abeEfnrtv\\'\"?])|([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|"
                     r"u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|c(.))", re.S)
_ANSI_C_LETTERS = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n",
                   "r": "\r", "t": "\t", "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}


def decode_ansi_c(text: str) -> str:
    """The value of $'text' (bash's ANSI-C quoting); an unknown escape stays as written."""
    return _ANSI_C.sub(_ansi_c_escape, text)


def _ansi_c_escape(match: re.Match[str]) -> str:
    letter, octal, hexa, short, long, control = match.groups()
    if letter:
        return _ANSI_C_LETTERS[letter]
    if control:
        return chr(ord(control.upper()) & 0x1F) if control != "?" else "\x7f"
    number = int(octal, 8) if octal else int(hexa or short or long, 16)
    try:
        return chr(number & 0xFF) if octal or hexa else chr(number)
    except (ValueError, OverflowError):  # past the last code point: kept as written
        return match.group(0)


# What xargs appends: words only known at run time (and past the end of argv).
XARGS_INPUT = Word("$XARGS_INPUT", dynamic=True)
