"""The walker's reading of words and redirections: what they write, read, feed and run."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any, Protocol

from saikish.engine.bash.braces import target_of
from saikish.engine.bash.cwd import _Cwd
from saikish.engine.bash.facts import Target
from saikish.engine.bash.heredocs import backquoted, substitutions
from saikish.engine.bash.words import ends_early, substitutions_in, unquote
from saikish.engine.commands.grammar import Word


class _Walker(Protocol):
    """What these functions use of the walker (walker.py), so neither imports the other."""

    opaque: list[str]
    heredoc_writes: list[tuple[Target, str]]
    cwd: _Cwd
    bodies: dict[str, tuple[str, bool]]
    used: set[str]

    def script(self, word: Word, depth: int, via: tuple[str, ...],
               remote: bool = False) -> None: ...

    def node(self, node: Any, src: str, depth: int, via: tuple[str, ...], stdin: str | None,
             remote: bool) -> None: ...

    def subshell(self) -> AbstractContextManager[Any]: ...

# bashlex leaves ${x:-$(cmd)} as raw text: the command is read from it, not from the tree.
PARAMETER_CODE = "a command substitution inside ${...}"
# bashlex drops a line continuation inside $( ) before it parses, and then gives
# positions in the shortened text: words re-read from them are wrong.
CONTINUATION = "a line continuation inside a command substitution"
_SUBST = re.compile(r"\$\(|`|<\(|>\(")
_DESCRIPTOR = re.compile(r"[0-9]+")
_COPY = re.compile(r"[0-9]*[<>]&[ \t]*(?:[0-9]+|-)")


def heredoc_write(walker: _Walker, words: list[Word], writes: list[Target],
                  feeds: list[tuple[str, Word]]) -> None:
    """`cat > f <<'EOF'`: remember f's new content, for a preview with a diff."""
    bodies = [w for kind, w in feeds if kind == "heredoc"]
    if [w.value for w in words] == ["cat"] and len(writes) == 1 and bodies and \
            bodies[0].literal and writes[0].known:
        walker.heredoc_writes.append((writes[0], bodies[0].value))


def nested(walker: _Walker, node: Any, src: str, depth: int, via: tuple[str, ...],
           remote: bool) -> None:
    """Commands hidden inside a word: $( ), backticks, <( ), and ${...} text."""
    if node.kind in ("word", "assignment"):
        _unseen(walker, node, src, depth, via, remote)
    for part in getattr(node, "parts", None) or ():
        if part.kind in ("commandsubstitution", "processsubstitution") and \
                "\\\n" in src[part.pos[0]:part.pos[1]]:
            walker.opaque.append(CONTINUATION)
        if part.kind == "commandsubstitution" and src[part.pos[0]:part.pos[0] + 1] == "`":
            # Bash removes the backslashes before $ ` \\ in `...` and reads the rest as
            # a script; bashlex's tree keeps them (`s\\\\t` runs `st`).
            with walker.subshell():
                walker.script(Word(backquoted(src[part.pos[0] + 1:part.pos[1] - 1])),
                              depth + 1, via + ("$()",), remote)
        elif part.kind in ("commandsubstitution", "processsubstitution"):
            with walker.subshell():
                walker.node(part.command, src, depth, via + ("$()",), None, remote)
        elif part.kind == "parameter" and _SUBST.search(part.value):
            # bashlex leaves ${x:-$(cmd)} as raw text: the command is unseen.
            walker.opaque.append(PARAMETER_CODE)
        else:
            nested(walker, part, src, depth, via, remote)


def _unseen(walker: _Walker, node: Any, src: str, depth: int, via: tuple[str, ...],
            remote: bool) -> None:
    """Substitutions in the word's text that bashlex's tree lacks: it reads `'a'$(x)'b'`
    as one quoted string, and bash runs x. Each is read here, and the call is opaque."""
    start, text = node.pos[0], src[node.pos[0]:node.pos[1]]
    spans = substitutions_in(text)
    if ends_early(text, spans):  # bashlex read past a `#` in $( ) or a quoted `}` in ${ }
        walker.opaque.append("a word the shell parser read past its end")
    if "\\\n" in text:
        joined = text.replace("\\\n", "")
        joined_spans = substitutions_in(joined)
        if joined_spans:
            # bash joins the lines first (`$\⏎(cmd)` is `$(cmd)`); bashlex's positions
            # then point into the joined text: what runs is read from the joined word.
            walker.opaque.append(CONTINUATION)
            start, text, spans = -1, joined, joined_spans
    if not spans:
        return
    if any(end > len(text) for _, end in spans):  # a here-document not read for sure
        walker.opaque.append("a here-document inside a substitution saikish cannot read")
    parts = list(_substitution_parts(node))
    # Seen only where bashlex's substitution starts where bash's does and what it read
    # ends there too (its own end stops short of blanks before the `)`, `$( date )`, and
    # of a here-document's body: the furthest node inside it says how far it read).
    ends = {part.pos[0] - start: _reach(part) - start for part in parts
            if part.kind != "parameter"}
    for begin, end in spans:
        if begin in ends and ends[begin] <= end and not text[ends[begin]:end - 1].strip():
            continue
        inside = any(p.pos[0] <= start + begin < p.pos[1]  # ${x:-$(cmd)}
                     for p in parts if p.kind == "parameter")
        walker.opaque.append(PARAMETER_CODE if inside else
                             "a command substitution the shell parser did not see")
        backquote = text[begin] == "`"
        code = text[begin + (1 if backquote else 2):end].removesuffix("`" if backquote
                                                                       else ")")
        with walker.subshell():
            walker.script(Word(backquoted(code) if backquote else code), depth + 1,
                          via + ("$()",), remote)


def _reach(node: Any) -> int:
    """How far into the source bashlex read for `node`: the furthest end of it or of
    anything inside it (a here-document's body lies past its command's end)."""
    reach = node.pos[1] if hasattr(node, "pos") else 0
    for name in ("parts", "list"):
        for child in getattr(node, name, None) or ():
            reach = max(reach, _reach(child))
    for name in ("command", "heredoc", "output"):
        child = getattr(node, name, None)
        if child is not None and hasattr(child, "kind"):
            reach = max(reach, _reach(child))
    return reach


def _substitution_parts(node: Any) -> Iterator[Any]:
    """The substitutions and `${...}` bashlex found in a word (not those inside them)."""
    for part in getattr(node, "parts", None) or ():
        if part.kind in ("commandsubstitution", "processsubstitution", "parameter"):
            yield part
        else:
            yield from _substitution_parts(part)


def heredoc_may_end_early(node: Any, src: str) -> bool:
    """True when a here-document (of the parser's) has a body line that only starts with
    its delimiter: inside `$( )` bash may end the body there and run the rest of the
    line (`E cmd)`), which the parser reads as body text."""
    heredoc = getattr(node, "heredoc", None)
    if node.type not in ("<<", "<<-") or heredoc is None or not hasattr(node.output, "pos"):
        return False
    delimiter = unquote(src[node.output.pos[0]:node.output.pos[1]]).value
    lines = [line.lstrip("\t") if node.type == "<<-" else line
             for line in heredoc.value.split("\n")]
    if lines and lines[-1] == delimiter:
        lines.pop()  # the delimiter line itself
    return any(line.startswith(delimiter) for line in lines)


def command_redirection(walker: _Walker, node: Any, src: str, depth: int,
                        via: tuple[str, ...], remote: bool, feeds: list[tuple[str, Word]],
                        writes: list[Target], reads: list[Target]) -> None:
    """One redirection of a simple command: what it feeds, writes and reads."""
    if "$()" in via and heredoc_may_end_early(node, src):
        walker.opaque.append("a here-document in a substitution whose end bash may read "
                             "elsewhere")
    feed = stdin_feed(walker, node, src)
    if feed is not None:
        feeds.append(feed)
    redirection(walker, node, src, depth, via, remote, writes, reads)


def static_feed(feeds: list[tuple[str, Word]] | None) -> str | None:
    """The text the last here-document or here-string gives stdin, when it is static."""
    if not feeds or feeds[-1][0] not in ("heredoc", "herestring") or not feeds[-1][1].literal:
        return None
    return feeds[-1][1].value


def stdin_feed(walker: _Walker, node: Any, src: str) -> tuple[str, Word] | None:
    """What a `<<`, `<<<` or `<` redirection feeds to the command's stdin."""
    if node.type in ("<<", "<<-"):
        heredoc = getattr(node, "heredoc", None)
        delimiter = src[node.output.pos[0]:node.output.pos[1]] if hasattr(
            node.output, "pos") else ""
        if delimiter in walker.bodies:
            body, _quoted = walker.bodies[delimiter]
            if heredoc is None or heredoc.value.strip() != delimiter:
                # bashlex placed our placeholder elsewhere: the quoting was misread.
                walker.opaque.append("a here-document saikish could not place")
            walker.used.add(delimiter)
            return "heredoc", Word(body)
        value = heredoc.value.rsplit("\n", 1)[0] if heredoc is not None else ""
        return "heredoc", Word(value, dynamic="$" in value or "`" in value)
    if node.type == "<<<":
        return "herestring", unquote(src[node.output.pos[0]:node.output.pos[1]])
    if node.type == "<" and hasattr(node.output, "pos"):
        return "file", target_of(src[node.output.pos[0]:node.output.pos[1]], walker.opaque)
    return None


def redirection(walker: _Walker, node: Any, src: str, depth: int, via: tuple[str, ...],
                remote: bool, writes: list[Target], reads: list[Target]) -> None:
    """Add what one redirection writes (`> f`) or reads (`< f`) to the lists."""
    target = redirect_target(walker, node, src, depth, via, remote)
    if target is not None:
        writes.append(target)
    read = read_target(walker, node, src)
    if read is not None:
        reads.append(read)


def read_target(walker: _Walker, node: Any, src: str) -> Target | None:
    """The file an input redirection (`< f`, `3< f`, `<> f`) reads, or None."""
    output = node.output
    if node.type not in ("<", "<>") or not hasattr(output, "pos"):
        return None
    return walker.cwd.resolve(target_of(src[output.pos[0]:output.pos[1]], walker.opaque))


def redirect_target(walker: _Walker, node: Any, src: str, depth: int, via: tuple[str, ...],
                    remote: bool) -> Target | None:
    """The file an output redirection writes, or None."""
    heredoc = getattr(node, "heredoc", None)
    if heredoc is not None and _SUBST.search(heredoc.value):
        # An unquoted here-doc body is expanded by bash; bashlex keeps it raw. What
        # it runs is read from the body's text (so sudo there is still named), and
        # the call stays opaque: this reading is not bashlex's.
        walker.opaque.append("a command substitution inside a here-document")
        for code in substitutions(heredoc.value):
            with walker.subshell():
                walker.script(Word(code), depth + 1, via + ("$()",), remote)
    output = node.output
    if not hasattr(output, "kind"):
        # A descriptor copy or close such as 2>&1 or >&-; bashlex also reads `>& ２` so
        # (any Unicode digit), where bash writes a file named ２: the source says which.
        if not _COPY.fullmatch(src[node.pos[0]:node.pos[1]]):
            walker.opaque.append("a redirection to a descriptor bash does not read as one")
        return None
    nested(walker, output, src, depth, via, remote)
    if node.type in ("<", "<<", "<<<", "<&", "<<-"):
        return None
    return _written(walker, node.type, target_of(src[output.pos[0]:output.pos[1]],
                                                 walker.opaque))


def _written(walker: _Walker, kind: str, word: Word) -> Target | None:
    """The file a `kind` redirection (`>`, `>>`, `&>`, `>&`...) to `word` writes, or None."""
    if kind in (">&", "<&") and (_DESCRIPTOR.fullmatch(word.value) or word.value == "-"):
        # 2>&1, >&-: a descriptor copied or closed. `> -` writes a file named -, and `>&²`
        # one named ² (bash's descriptors are ASCII digits; str.isdigit takes any digit).
        return None
    if word.literal and word.value in ("/dev/null", "/dev/stdout", "/dev/stderr",
                                       "/dev/tty", "/dev/fd/1", "/dev/fd/2"):
        return None
    return replace(walker.cwd.resolve(word), redirect=True, append=kind in (">>", "&>>"))


def plain_redirection(walker: _Walker, redirect: str, raw: str, writes: list[Target],
                      reads: list[Target], feeds: list[tuple[str, Word]]) -> None:
    """One redirection the plain path split (`> f`, `2>> f`, `&> f`, `< f`), read as
    `redirection` and `stdin_feed` read the parser's: `< f` feeds stdin and reads f."""
    kind = redirect.lstrip("0123456789")
    word = target_of(raw, walker.opaque)
    if kind == "<":
        feeds.append(("file", word))
        reads.append(walker.cwd.resolve(word))
        return
    target = _written(walker, kind, word)
    if target is not None:
        writes.append(target)
