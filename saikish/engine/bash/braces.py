"""Brace expansion, as bash does it before any other expansion (bash(1), Brace Expansion).

`core.{fsmonitor,x}` is two words to the program, `.en{v..v}` is `.env`, `s{u,}do id`
runs sudo: a word's source text is expanded here into the source texts of the words bash
makes of it, each then read by words.unquote. It works on source text, so quoting stays
as written: a `{`, `,` or `}` inside quotes or after a backslash is plain, as it is to bash.

It follows bash 5's braces.c (brace_expand, brace_gobbler, expand_seqterm), checked
against the real bash by tests/engine/test_attacks_braces.py. Where it is not sure (a
substitution in a word with braces, a sequence past what it models, too many words) it
says so with None, and the walker reports the call as not fully analysed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from saikish.engine.bash.words import unquote
from saikish.engine.commands.grammar import Word

MAX_WORDS = 1_000  # words one word may expand to; past it the call is not analysed
UNSURE = "a brace expansion saikish does not follow"
_WHITESPACE = " \t\n"
_SUBSTITUTION = re.compile(r"\$\(|`|<\(|>\(")
_LONG_NUMBERS = re.compile(r"[-+]?[0-9]+\.\.[-+]?[0-9]+(?:\.\.[-+]?[0-9]+)?")
# A sequence expression's ends and step: {1..5}, {-3..03}, {a..e}, {10..1..-2}.
_SEQUENCE = re.compile(r"([-+]?[0-9]{1,9})\.\.([-+]?[0-9]{1,9})(?:\.\.([-+]?[0-9]{1,9}))?|"
                       r"([A-Za-z])\.\.([A-Za-z])(?:\.\.([-+]?[0-9]{1,9}))?")


def words_of(raw: str, opaque: list[str]) -> list[Word]:
    """The words bash makes of the word whose source text is `raw`: brace expansion, then
    quote removal. One this module cannot follow is noted in `opaque` and read as written."""
    texts = expand(raw)
    if texts is None:
        opaque.append(UNSURE)
        return [unquote(raw)]
    return [unquote(text) for text in texts]


def target_of(raw: str, opaque: list[str]) -> Word:
    """A redirection's file: bash brace-expands it too, and stops with "ambiguous
    redirect" unless that makes one word."""
    texts = expand(raw)
    if texts is None or len(texts) != 1:
        opaque.append(UNSURE if texts is None else
                      "a redirection whose file brace expansion makes several words")
        return unquote(raw)
    return unquote(texts[0])


def expand(raw: str) -> list[str] | None:
    """The source texts of the words bash makes of the word `raw` by brace expansion;
    [raw] when it has none, None when this module cannot say for sure."""
    if "{" not in raw:
        return [raw]  # the common case
    if _SUBSTITUTION.search(raw):
        # bash passes over $( ) and backquotes while it looks for braces: not modelled.
        return None if _may_expand(raw) else [raw]
    try:
        words = _expand(raw)
    except _Unsure:
        return None
    # An unquoted empty word is removed (x{,} is "x x", {,} nothing at all).
    return [w for w in words if w]


class _Unsure(Exception):
    """The text holds something this module does not model."""


def _expand(text: str) -> list[str]:
    """bash's brace_expand: the first brace that closes, its alternatives (or sequence)
    times the expansion of what follows it."""
    start = _open(text, 0)
    while start is not None and _close(text, start) is None:
        start = _open(text, start + 1)  # nothing closes it: the next `{` may open one
    if start is None:
        return [text]
    end = _close(text, start)
    assert end is not None
    amble = text[start + 1:end]
    if _has_comma(amble):
        middles = [w for part in _split(amble) for w in _expand(part)]
    else:
        sequence = _sequence(amble)
        if sequence is not None:
            middles = sequence
        elif end + 1 < len(text):
            middles = ["{" + amble + "}"]  # kept as written; what follows may expand
        else:
            return [text]
    tails = _expand(text[end + 1:]) if end + 1 < len(text) else [""]
    if len(middles) * len(tails) > MAX_WORDS:
        raise _Unsure
    return [text[:start] + middle + tail for middle in middles for tail in tails]


def _open(text: str, search: int) -> int | None:
    """The first unquoted `{` from `search` that may open a brace expression."""
    return _gobble(text, search, "{")


def _close(text: str, start: int) -> int | None:
    """Where the brace opened at `start` closes; None when nothing does."""
    return _gobble(text, start + 1, "}")


def _gobble(text: str, i: int, wanted: str) -> int | None:
    """bash's brace_gobbler: the index of the first unquoted `wanted` (`{`, `}` or `,`) at
    level 0 from i, or None. `${...}` is a level of its own. A `{` with whitespace (or
    nothing) before it and whitespace or `}` after it opens nothing. A `}` closes only
    after a comma or a `..` at its level (`{a}b,c}` is one expression, `{a}` none)."""
    level = 0
    parameter = -1  # where the `{` of the last `${` stands
    separated = wanted != "}"
    for j, c in _unquoted_from(text, i):
        if c == "$" and text[j + 1:j + 2] == "{":
            level, parameter = level + 1, j + 1
        elif j == parameter:
            continue
        elif c == wanted and level == 0 and separated:
            if c == "{" and (j == 0 or text[j - 1] in _WHITESPACE) and \
                    (j + 1 >= len(text) or text[j + 1] in _WHITESPACE + "}"):
                continue
            return j
        elif c == "{":
            level += 1
        elif c == "}" and level:
            level -= 1
        elif wanted == "}" and level == 0 and (c == "," or text.startswith("..", j) and
                                               text[j + 2:j + 3] != "}"):
            separated = True
    return None


def _has_comma(amble: str) -> bool:
    """bash's own test for alternatives: a comma no backslash escapes (quotes or not)."""
    i = 0
    while i < len(amble):
        if amble[i] == "\\":
            i += 2
            continue
        if amble[i] == ",":
            return True
        i += 1
    return False


def _split(amble: str) -> list[str]:
    """The alternatives of a brace expression: cut at its own unquoted commas."""
    cuts = [-1]
    while (comma := _gobble(amble, cuts[-1] + 1, ",")) is not None:
        cuts.append(comma)
    cuts.append(len(amble))
    return [amble[a + 1:b] for a, b in zip(cuts, cuts[1:], strict=False)]


def _sequence(amble: str) -> list[str] | None:
    """The words of a sequence expression ({1..5}, {a..e}, {1..9..2}, {01..10}); None when
    `amble` is not one. Raises _Unsure for one this module does not model."""
    found = _SEQUENCE.fullmatch(amble)
    if found is None:
        if _LONG_NUMBERS.fullmatch(amble):
            raise _Unsure  # numbers past 9 digits: bash's overflow rules are not modelled
        return None  # a letter and a number, a word: not a sequence, as bash says
    first, last, step, letter_first, letter_last, letter_step = found.groups()
    increment = abs(int(step or letter_step or 1)) or 1
    if letter_first:
        low, high = ord(letter_first), ord(letter_last)
        if low > high:
            increment = -increment
        letters = [chr(k) for k in range(low, high + (1 if increment > 0 else -1), increment)]
        if not all(c.isalnum() for c in letters):
            raise _Unsure  # {Z..a} passes [ \ ] ^ _ `, which are not plain in source text
        return letters
    low, high = int(first), int(last)
    if abs(high - low) // increment + 1 > MAX_WORDS:
        raise _Unsure
    if low > high:
        increment = -increment
    width = max(_padded(first), _padded(last))
    numbers = range(low, high + (1 if increment > 0 else -1), increment)
    return [f"{k:0{width}d}" if width else str(k) for k in numbers]


def _padded(number: str) -> int:
    """The width bash pads a sequence to when this end starts with 0 or -0, else 0."""
    zero = len(number) > 1 and number[0] == "0" or len(number) > 2 and number[:2] == "-0"
    return len(number) if zero else 0


def _unquoted_from(text: str, i: int) -> Iterator[tuple[int, str]]:
    """(index, character) of each character from i that no quote or backslash protects."""
    quote = ""
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and quote != "'":
            i += 2
            continue
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"":
            quote = c
        else:
            yield i, c
        i += 1


def _may_expand(raw: str) -> bool:
    """True when some unquoted `{` has an unquoted `,` or `..` after it and a `}` after
    that, wherever they stand (bash passes over a `}` before the first comma): a word bash
    may expand, said without following bash's rules, to fail closed."""
    plain = _unquoted(raw)
    opened = plain.find("{")
    return opened >= 0 and re.search(r"(?:,|\.\.).*\}", plain[opened + 1:], re.S) is not None


def _unquoted(raw: str) -> str:
    """`raw` with quoted and escaped characters replaced by spaces."""
    out = [" "] * len(raw)
    for i, c in _unquoted_from(raw, 0):
        out[i] = c
    return "".join(out)
