"""A bash string -> every simple command it will run (docs/SPEC.md §4.2). Fails closed.

bashlex gives the tree; the words themselves are re-read from the source
span, because bashlex's own quote removal is wrong for cases such as
'r''m' and $'\\x72m'. Anything this module does not understand is reported
in `ShellAnalysis.opaque`, and the policy then asks instead of allowing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from saikish.wrappers import inline_script, is_hijack_var, unwrap

ESCALATORS = frozenset({"sudo", "su", "doas", "pkexec", "run0"})
_SUBST = re.compile(r"\$\(|`|<\(|>\(")
_RAW_ESCALATION = re.compile(
    r"(?:^|[\s;&|(`{!])(?:sudo|su|doas|pkexec|run0)(?=$|[\s;&|)`}])")
_SPECIAL_CHARS = re.compile(r"[\\'\"$`*?\[{~]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_LEADING_TIME = re.compile(r"\s*time(?:\s+-p)?\s+(?=\S)")
MAX_DEPTH = 12


@dataclass(frozen=True)
class SimpleCommand:
    """One command bash will run, as the words it will see."""

    argv: tuple[str, ...]
    # Output redirections of this command to real files (not /dev/null, not 2>&1).
    writes: tuple[str, ...] = ()
    # A variable from HIJACK_VARS set for this command (or the rest of the script).
    hijack: str | None = None
    # The command name is not a literal word ($CMD, a glob, an ANSI-C string).
    dynamic_name: bool = False
    # Run by xargs or find -exec: more arguments are appended when it runs.
    open_ended: bool = False
    # The wrappers it was found behind, outermost first (env, timeout, bash -c...).
    via: tuple[str, ...] = ()
    # The command is fed by a pipe (its stdin is another command's output).
    piped_into: bool = False
    # A wrapper (env, timeout, xargs, bash -c ...) whose inner command is listed too.
    wrapper: bool = False

    @property
    def name(self) -> str:
        """The command name as written ('' for a bare assignment)."""
        return self.argv[0] if self.argv else ""

    @property
    def basename(self) -> str:
        """The command name without its directory."""
        return os.path.basename(self.name)


@dataclass(frozen=True)
class ShellAnalysis:
    """Every simple command found, and why the analysis may be incomplete."""

    commands: tuple[SimpleCommand, ...]
    # Reasons the string holds something not understood; non-empty means ask.
    opaque: tuple[str, ...] = ()
    # An escalation word seen in text that could not be parsed.
    raw_escalation: bool = False


@dataclass(frozen=True)
class Word:
    """One shell word after quote removal."""

    value: str
    dynamic: bool = False   # holds $var, $(...), `...`: its value is known only at run time
    globbing: bool = False  # unquoted * ? [ or {a,b}: may expand to other words
    ansi_c: bool = False    # $'...' or $"...": not decoded here, so not trusted


def analyse(command: str) -> ShellAnalysis:
    """Every simple command `command` runs; never raises."""
    walker = _Walker(command)
    try:
        walker.script(command, depth=0, via=())
    except RecursionError:
        walker.opaque.append("nesting too deep to analyse")
    return ShellAnalysis(tuple(walker.commands), tuple(dict.fromkeys(walker.opaque)),
                         walker.raw_escalation)


def unquote(raw: str) -> Word:
    """Bash quote removal on one word's source text."""
    if not _SPECIAL_CHARS.search(raw):
        return Word(raw)  # the common case: nothing to remove, nothing to expand
    out: list[str] = []
    dynamic = globbing = ansi_c = False
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
            dynamic = True
            out.append(c)
            i += 1
        else:
            if c in "*?" or (c == "[" and "]" in raw[i + 2:]) or (
                    c == "{" and "," in raw[i:]) or (c == "~" and i == 0):
                globbing = True
            out.append(c)
            i += 1
    return Word("".join(out), dynamic, globbing, ansi_c)


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
        if c in "$`":
            dynamic = True
        out.append(c)
        i += 1
    return i + 1, "".join(out), dynamic


class _Walker:
    """Collects simple commands from bashlex trees, recording what it cannot see."""

    def __init__(self, source: str) -> None:
        self.commands: list[SimpleCommand] = []
        self.opaque: list[str] = []
        self.raw_escalation = False
        self.root = source

    # -- scripts and nodes ------------------------------------------------------

    def script(self, text: str, depth: int, via: tuple[str, ...]) -> None:
        if depth > MAX_DEPTH:
            self.opaque.append("nesting too deep to analyse")
            return
        if "\x00" in text:
            self.opaque.append("NUL byte in command")
        if _CONTROL.search(text):
            self.opaque.append("control character in command")
        if not text.strip():
            return
        import bashlex  # deferred: building its parser tables costs ~80 ms

        timed = _LEADING_TIME.match(text)
        if timed:  # bashlex cannot parse the 'time' keyword; what follows it is what runs
            self.script(text[timed.end():], depth + 1, via + ("time",))
            return
        try:
            trees = bashlex.parse(text)
        except Exception as exc:  # bashlex raises many kinds; all mean "not understood"
            self.opaque.append(f"cannot parse: {type(exc).__name__}: {exc}".strip())
            plain = text.replace("\\", "").replace("'", "").replace('"', "")
            self.raw_escalation |= bool(_RAW_ESCALATION.search(plain))
            return
        for tree in trees:
            self.node(tree, text, depth, via, piped=False)

    def node(self, node: Any, src: str, depth: int, via: tuple[str, ...], piped: bool) -> None:
        kind = node.kind
        if kind == "command":
            self.command(node, src, depth, via, piped)
        elif kind == "pipeline":
            parts = [p for p in node.parts if p.kind not in ("pipe", "reservedword")]
            for index, part in enumerate(parts):
                self.node(part, src, depth, via, piped=index > 0)
        elif kind in ("list", "compound", "if", "for", "while", "until", "function"):
            for part in _children(node):
                if part.kind in ("operator", "reservedword", "pipe"):
                    continue
                if part.kind == "word":
                    self.nested(part, src, depth, via)  # for-loop lists, function names
                elif part.kind == "redirect":
                    self.redirect_target(part, src, depth, via)
                else:
                    self.node(part, src, depth, via, piped)
        elif kind in ("commandsubstitution", "processsubstitution"):
            self.node(node.command, src, depth, via, piped=False)
        else:
            self.opaque.append(f"unsupported shell construct: {kind}")

    def command(self, node: Any, src: str, depth: int, via: tuple[str, ...],
                piped: bool) -> None:
        words: list[Word] = []
        writes: list[str] = []
        hijack = None
        for part in node.parts:
            if part.kind == "assignment":
                self.nested(part, src, depth, via)
                name = part.word.split("=", 1)[0].rstrip("+")
                if is_hijack_var(name):
                    hijack = name
            elif part.kind == "word":
                self.nested(part, src, depth, via)
                words.append(unquote(src[part.pos[0]:part.pos[1]]))
            elif part.kind == "redirect":
                target = self.redirect_target(part, src, depth, via)
                if target is not None:
                    writes.append(target)
            else:
                self.opaque.append(f"unsupported shell construct: {part.kind}")
        if not words:
            if hijack:  # 'PATH=/tmp/x; git status' changes the rest of the script
                self.commands.append(SimpleCommand((f"{hijack}=...",), tuple(writes),
                                                   hijack, via=via))
            elif writes:
                self.commands.append(SimpleCommand((":",), tuple(writes), via=via))
            return
        self.simple(words, tuple(writes), hijack, depth, via, piped)

    def simple(self, words: list[Word], writes: tuple[str, ...], hijack: str | None,
               depth: int, via: tuple[str, ...], piped: bool, open_ended: bool = False) -> None:
        """Record one simple command, looking through wrappers to what they run."""
        head = words[0]
        argv = tuple(w.value for w in words)
        if any(w.ansi_c for w in words):
            self.opaque.append("$'...' quoting is not decoded")
        unwrapped = None if head.dynamic or head.globbing else unwrap(argv)
        if unwrapped is not None:
            wrapper, start, end, env_hijack = unwrapped
            # find keeps its whole argv: its own -exec is judged as a dangerous argument.
            outer = argv if wrapper == "find" else argv[:start]
            self.commands.append(SimpleCommand(
                outer, writes, hijack or env_hijack, via=via, open_ended=open_ended,
                piped_into=piped, wrapper=wrapper != "find" and end > start))
            if end > start:
                self.simple(words[start:end], (), None, depth + 1, via + (wrapper,), piped,
                            open_ended or wrapper in ("xargs", "find"))
            return
        dynamic = head.dynamic or head.globbing or head.ansi_c
        script = None if dynamic else inline_script(argv)
        # A shell -c is transparent: its script is analysed instead. eval stays UNKNOWN.
        is_shell = script is not None and os.path.basename(argv[0]) != "eval"
        command = SimpleCommand(argv, writes, hijack, dynamic, open_ended, via, piped, is_shell)
        self.commands.append(command)
        if script is not None:
            index, text = script
            script_words = words[index:] if not is_shell else words[index:index + 1]
            if any(w.dynamic or w.ansi_c for w in script_words):
                self.opaque.append(f"{command.basename} runs a script built at run time")
            else:
                self.script(text, depth + 1, via + (command.basename,))

    # -- words and redirections --------------------------------------------------

    def nested(self, node: Any, src: str, depth: int, via: tuple[str, ...]) -> None:
        """Commands hidden inside a word: $( ), backticks, <( ), and ${...} text."""
        for part in getattr(node, "parts", None) or ():
            if part.kind in ("commandsubstitution", "processsubstitution"):
                self.node(part.command, src, depth, via + ("$()",), piped=False)
            elif part.kind == "parameter" and _SUBST.search(part.value):
                # bashlex leaves ${x:-$(cmd)} as raw text: the command is unseen.
                self.opaque.append("command substitution inside ${...}")
            else:
                self.nested(part, src, depth, via)

    def redirect_target(self, node: Any, src: str, depth: int,
                        via: tuple[str, ...]) -> str | None:
        """The file an output redirection writes, or None."""
        heredoc = getattr(node, "heredoc", None)
        if heredoc is not None and _SUBST.search(heredoc.value):
            # An unquoted here-doc body is expanded by bash; bashlex keeps it raw.
            self.opaque.append("command substitution inside a here-document")
        output = node.output
        if not hasattr(output, "kind"):
            return None  # a descriptor copy such as 2>&1
        self.nested(output, src, depth, via)
        if node.type in ("<", "<<", "<<<", "<&", "<<-"):
            return None
        target = unquote(src[output.pos[0]:output.pos[1]])
        if node.type in (">&", "<&") and target.value.isdigit() or target.value == "-":
            return None
        if target.value == "/dev/null" and not target.dynamic:
            return None
        return target.value


def _children(node: Any) -> Iterator[Any]:
    for attr in ("parts", "list"):
        value = getattr(node, attr, None)
        if isinstance(value, list):
            yield from value
    body = getattr(node, "command", None)
    if body is not None and hasattr(body, "kind") and node.kind != "commandsubstitution":
        yield body
