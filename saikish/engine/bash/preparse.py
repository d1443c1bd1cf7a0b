"""Rewrite what bashlex cannot parse into what it can, keeping every command visible.

Models write quoted here-documents, `$(( ))`, `(( ))`, `[[ ]]` and `time` in the middle
of a pipeline every day; bashlex rejects all of them (docs/SPEC.md §4.7). This module
rewrites each into an equivalent that bashlex reads, and never hides a command:

- a quoted here-document's body is not expanded by bash, so it is cut out and kept
  (for `bash <<'EOF'` it is analysed as a script; for `cat > f <<'EOF'` it is the file's
  new content);
- `$(( ))` becomes a run-time word, `(( ))` the no-op `:`; arithmetic that holds a
  command substitution or an array subscript (which bash evaluates as code) is opaque;
- `[[ ... ]]` becomes `test ...`, with its operators made plain words;
- a `time` keyword where a command starts is dropped (what follows is what runs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from saikish.engine.bash.heredocs import _closing_paren, _cut_heredocs, substitutions
from saikish.engine.bash.written import arithmetic_word

_ARRAY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*\+?=)\(")
_COMMAND_KEYWORDS = frozenset({"then", "do", "else", "elif", "if", "while", "until", "!"})


@dataclass(frozen=True)
class Preparsed:
    """Text bashlex can read, the here-document bodies cut from it, and what is opaque."""

    text: str
    # Placeholder delimiter -> (body, quoted).
    heredocs: dict[str, tuple[str, bool]] = field(default_factory=dict)
    opaque: tuple[str, ...] = ()
    # What was rewritten (a construct bashlex does not read): the analysis rests on this
    # module's reading of it, so the call is never verified (docs/SPEC.md §4.1, §4.2).
    rewritten: tuple[str, ...] = ()
    # Scripts that $( ) and backticks inside a rewritten construct run (an array's
    # elements or keys, arithmetic): the rewrite hides them from bashlex, not from us.
    scripts: tuple[str, ...] = ()


def preparse(text: str, first: int = 0) -> Preparsed:
    """`text` rewritten for bashlex; never raises. Placeholders are numbered from `first`."""
    if "<<" not in text and "((" not in text and "[[" not in text and "time" not in text \
            and "case" not in text and "=(" not in text:
        return Preparsed(text)  # the common case: nothing to rewrite
    heredocs: dict[str, tuple[str, bool]] = {}
    text = _cut_heredocs(text, heredocs, first)
    opaque: list[str] = []
    rewritten = ["a quoted here-document"] if heredocs else []
    rewriter = _Rewriter(text, opaque, rewritten)
    text = rewriter.run()
    return Preparsed(text, heredocs, tuple(opaque), tuple(dict.fromkeys(rewritten)),
                     tuple(rewriter.scripts))


# -- arithmetic, [[ ]], time ---------------------------------------------------------

MAX_NESTING = 12  # case statements, or $( ) in double quotes, inside each other


class _Rewriter:
    """One quote-aware pass over the text, rewriting constructs where commands start."""

    def __init__(self, text: str, opaque: list[str], rewritten: list[str],
                 depth: int = 0) -> None:
        self.text, self.opaque, self.depth = text, opaque, depth
        self.rewritten = rewritten
        self.scripts: list[str] = []
        self.out: list[str] = []
        self.i = 0
        self.at_command = True

    def run(self) -> str:
        text = self.text
        while self.i < len(text):
            c = text[self.i]
            if c in "'":
                self.copy_until("'", self.i + 1)
            elif c == '"':
                self.double_quoted()
            elif c == "\\":
                self.emit(text[self.i:self.i + 2])
            elif text.startswith("$((", self.i):
                self.arithmetic(self.i + 3, None)
                self.at_command = False
            elif self.at_command and text.startswith("((", self.i):
                self.arithmetic(self.i + 2, ":")
            elif self.at_command and text.startswith("[[", self.i) and self.boundary(2):
                self.conditional()
            elif self.at_command and text.startswith("case", self.i) and self.boundary(4):
                self.case_statement()
            elif self.at_command and text.startswith("time", self.i) and self.boundary(4):
                self.i += 4  # exact, not a rewrite that is recorded: what follows the
                # keyword (or /usr/bin/time) is what runs, and it is read as it stands
                match = re.match(r"[ \t]+(-p[ \t]+)?", text[self.i:])
                self.i += match.end() if match else 0
            elif c in ";&|(){}\n!":
                self.emit(c)
                self.at_command = True
            elif c in " \t":
                self.emit(c)
            elif c == "#" and (not self.out or self.out[-1][-1:] in " \t\n;&|("):
                end = text.find("\n", self.i)
                self.emit(text[self.i:] if end < 0 else text[self.i:end])
            else:
                self.word()
        return "".join(self.out)

    def emit(self, piece: str) -> None:
        self.out.append(piece)
        self.i += len(piece)

    def boundary(self, length: int) -> bool:
        after = self.text[self.i + length:self.i + length + 1]
        return after == "" or after in " \t\n"

    def copy_until(self, quote: str, start: int) -> None:
        end = self.text.find(quote, start)
        end = len(self.text) if end < 0 else end + 1
        self.emit(self.text[self.i:end])
        self.at_command = False

    def double_quoted(self) -> None:
        text, j = self.text, self.i + 1
        while j < len(text) and text[j] != '"':
            if text[j] == "\\":
                j += 2
                continue
            if text.startswith("$((", j):
                self.emit(text[self.i:j])
                self.arithmetic(j + 3, None)
                j = self.i
                continue
            if text.startswith("$(", j):
                self.emit(text[self.i:j + 2])
                self.substitution()
                j = self.i
                continue
            j += 1
        self.emit(text[self.i:min(j + 1, len(text))])
        self.at_command = False

    def substitution(self) -> None:
        """The script of a `$(` inside double quotes, rewritten as a script of its own
        (`"$([[ x ]] && y)"`); it ends at its `)`, which the caller copies."""
        if self.depth >= MAX_NESTING:  # each level scans to its end: bound the work
            self.opaque.append("command substitutions nested too deep to analyse")
            self.emit(self.text[self.i:])
            return
        end = _closing_paren(self.text, self.i)
        inner = _Rewriter(self.text[self.i:end], self.opaque, self.rewritten, self.depth + 1)
        self.out.append(inner.run())
        self.scripts.extend(inner.scripts)
        self.i = end

    def word(self) -> None:
        array = _ARRAY.match(self.text, self.i)
        if array:
            self.array_literal(array)
            return
        match = re.match(r"[^\s;&|(){}'\"\\]+", self.text[self.i:])
        piece = match.group(0) if match else self.text[self.i]
        self.emit(piece)
        if piece not in _COMMAND_KEYWORDS:
            self.at_command = "=" in piece and self.at_command and not piece.startswith("=")

    def array_literal(self, head: re.Match[str]) -> None:
        """`a=(x y "$z")` -> `a=SAIKISH_ARRAY`; its words are checked for code first."""
        end = _scan_to(self.text, head.end(), (")",))
        if end < 0:
            self.emit(self.text[self.i:])  # unbalanced: bashlex will fail, and we ask
            return
        items = self.text[head.end():end]
        if "$(" in items or "`" in items or "<(" in items or ">(" in items or \
                "[" in items and "$" in items:
            self.opaque.append("an array whose elements run commands")
            self.scripts.extend(substitutions(items))
        self.out.append(head.group(1) + "SAIKISH_ARRAY")
        self.rewritten.append("an array literal")
        self.i = end + 1
        self.at_command = False

    def arithmetic(self, start: int, replacement: str | None) -> None:
        """`$(( expr ))` / `(( expr ))`: a run-time value (replacement None) / a no-op,
        unless expr runs code."""
        depth, j = 2, start
        while j < len(self.text) and depth:
            if self.text[j] in "'\"":  # quotes (in a $( ) inside) hide their parentheses
                end = self.text.find(self.text[j], j + 1)
                j = len(self.text) if end < 0 else end + 1
                continue
            depth += {"(": 1, ")": -1}.get(self.text[j], 0)
            j += 1
        if depth:
            self.emit(self.text[self.i:])  # unbalanced: bashlex will fail, and we ask
            return
        if self.text[j - 2:j] != "))":
            # `$((a) && b)`, `((a) || b)`: no `))` pair closes it, so bash reads `$(` `(`
            # (a subshell in a substitution) or `(` `(`, not arithmetic: so do we.
            self.emit("$(" if replacement is None else "(")
            self.at_command = True
            if replacement is None:
                self.substitution()
            return
        expr = self.text[start:j - 2]
        if "$(" in expr or "`" in expr or ("[" in expr and "$" in expr) or "<(" in expr:
            # bash evaluates array subscripts in arithmetic as code: a[$(cmd)], a['$x'].
            self.opaque.append("arithmetic that runs a command or evaluates a subscript")
            self.scripts.extend(substitutions(expr))
        if replacement is None:
            replacement = arithmetic_word(expr)
        self.out.append(replacement)
        self.rewritten.append("arithmetic")
        self.i = j

    def conditional(self) -> None:
        """`[[ ... ]]` -> `test ...` with its operators as plain words."""
        text, j = self.text, self.i + 2
        pieces: list[str] = ["test"]
        while j < len(text):
            if text.startswith("]]", j) and text[j - 1] in " \t" and (
                    j + 2 == len(text) or text[j + 2] in " \t\n;&|)"):
                break
            c = text[j]
            if c in "'\"":
                end = text.find(c, j + 1)
                end = len(text) if end < 0 else end + 1
                pieces.append(text[j:end])
                j = end
            elif c == "\\":
                pieces.append(text[j:j + 2])
                j += 2
            elif c == "$" and text.startswith("$(", j):
                depth, k = 0, j + 1
                while k < len(text):
                    depth += {"(": 1, ")": -1}.get(text[k], 0)
                    k += 1
                    if depth == 0:
                        break
                pieces.append(text[j:k])
                j = k
            elif text.startswith("&&", j) or text.startswith("||", j):
                pieces.append(" -a " if c == "&" else " -o ")
                j += 2
            elif c in "()<>|&;":
                pieces.append("\\" + c)
                j += 1
            else:
                pieces.append(c)
                j += 1
        if j >= len(text):
            self.emit(text[self.i:])  # no closing ]]: bashlex will fail, and we ask
            return
        body = text[self.i + 2:j]
        if "[" in body and re.search(r"(^|\s)-(eq|ne|lt|le|gt|ge|v)(\s|$)", body):
            # [[ ]] evaluates these operands as arithmetic: a subscript there is code.
            self.opaque.append("an array subscript that [[ ]] evaluates as code")
        self.out.append("".join(pieces))
        self.rewritten.append("[[ ]]")
        self.i = j + 2
        self.at_command = False

    # -- case ------------------------------------------------------------------------

    def case_statement(self) -> None:
        """`case W in P) BODY;; ... esac` -> `{ : W P ... <newline> BODY ... }`."""
        text = self.text
        head = re.compile(r"case[ \t]+((?:[^\s'\"\\]|\\.|'[^']*'|\"(?:[^\"\\]|\\.)*\")+)"
                          r"\s+in\b").match(text, self.i)
        if head is None:
            self.word()
            return
        if self.depth >= MAX_NESTING:
            self.opaque.append("case statements nested too deep to analyse")
            self.emit(text[self.i:])
            return
        j = head.end()
        words, bodies = [head.group(1)], []
        while True:
            j = _skip(text, j, " \t\n;")
            if text.startswith("esac", j) and _ends_word(text, j + 4):
                break
            if j >= len(text):
                self.emit(text[self.i:])  # no esac: bashlex will fail, and we ask
                return
            if text[j] == "(":
                j += 1
            end = _scan_to(text, j, (")",))
            if end < 0:
                self.emit(text[self.i:])
                return
            words.extend(p.strip() for p in _split_top(text[j:end], "|") if p.strip())
            body_end, j = _case_body(text, end + 1)
            inner = _Rewriter(text[end + 1:body_end], self.opaque, self.rewritten, self.depth + 1)
            bodies.append(inner.run())
            self.scripts.extend(inner.scripts)
        self.out.append("{ : " + " ".join(words) + "\n" + "\n".join(bodies) + "\n}")
        self.rewritten.append("a case statement")
        self.i = j + 4
        self.at_command = False


def _skip(text: str, j: int, chars: str) -> int:
    while j < len(text) and text[j] in chars:
        j += 1
    return j


def _ends_word(text: str, j: int) -> bool:
    return j >= len(text) or text[j] in " \t\n;&|)"


def _scan_to(text: str, j: int, stops: tuple[str, ...]) -> int:
    """Index of the first stop outside quotes and parentheses, or -1."""
    depth = 0
    while j < len(text):
        c = text[j]
        if c in "'\"":
            end = text.find(c, j + 1)
            if end < 0:
                return -1
            j = end + 1
            continue
        if c == "\\":
            j += 2
            continue
        if depth == 0 and any(text.startswith(s, j) for s in stops):
            return j
        # A case pattern's ')' has no '(': never let the depth go below zero.
        depth = max(0, depth + {"(": 1, ")": -1}.get(c, 0))
        j += 1
    return -1


def _split_top(text: str, sep: str) -> list[str]:
    parts, start, j = [], 0, 0
    while True:
        j = _scan_to(text, start, (sep,))
        if j < 0:
            parts.append(text[start:])
            return parts
        parts.append(text[start:j])
        start = j + 1


def _case_body(text: str, j: int) -> tuple[int, int]:
    """(end of the body, where the next item starts) for one case item."""
    nested, k = 0, j
    while k < len(text):
        stop = _scan_to(text, k, (";;", ";&", "esac", "case"))
        if stop < 0:
            return len(text), len(text)
        if text.startswith("case", stop) and _starts_word(text, stop) and \
                _ends_word(text, stop + 4):
            nested += 1
            k = stop + 4
            continue
        if text.startswith("esac", stop):
            if not (_starts_word(text, stop) and _ends_word(text, stop + 4)):
                k = stop + 4
                continue
            if nested:
                nested -= 1
                k = stop + 4
                continue
            return stop, stop
        if nested:
            k = stop + 2
            continue
        after = stop + 3 if text.startswith(";;&", stop) else stop + 2
        return stop, after
    return len(text), len(text)


def _starts_word(text: str, j: int) -> bool:
    return j == 0 or text[j - 1] in " \t\n;&|("
