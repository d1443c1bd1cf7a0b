"""A bash string -> every simple command it will run (docs/SPEC.md §4.2, §4.7). Fails closed.

bashlex gives the tree; the words themselves are re-read from the source span, because
bashlex's own quote removal is wrong for cases such as 'r''m' and $'\\x72m'. What bashlex
cannot parse but models write every day (quoted here-documents, `$(( ))`, `[[ ]]`, `time`
mid-pipeline) is rewritten first by the preparse module. Each simple command is read with
its catalogue grammar, which also says what it runs (wrappers, runners, `-exec`, `-c`
scripts): those are followed. Anything not understood is reported in
`ShellAnalysis.opaque`, and the policy then asks instead of allowing.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from saikish.engine.bash.bounded import ParserFault, shared
from saikish.engine.bash.hijack import is_hijack_var
from saikish.engine.bash.preparse import Preparsed, preparse
from saikish.engine.commands.catalogue import Catalogue
from saikish.engine.commands.grammar import RUN_TIME_TILDE, Parse, Word, parse
from saikish.engine.rules import in_git_dir

CATALOGUE = Catalogue()
# Programs that run something as another user or group (docs/SPEC.md §4.1 step 2): the
# catalogue's `risk escalation` entries.
ESCALATORS = CATALOGUE.escalators()
_SUBST = re.compile(r"\$\(|`|<\(|>\(")
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
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
MAX_DEPTH = 12
MAX_COMMANDS = 2_000  # simple commands in one call; past it the call is asked, not analysed
# Longer than this, a command is asked without being parsed: bashlex's time grows fast.
# MAX_COMMAND bounds the whole text (here-document bodies included), MAX_PARSE what is
# left for bashlex once quoted here-document bodies are cut out.
MAX_COMMAND = 200_000
MAX_PARSE = 20_000


@dataclass(frozen=True)
class Target:
    """A file a command writes or reads."""

    path: str
    # False when the path is only known at run time, or is relative after an unknown `cd`.
    known: bool = True
    # An output redirection: a Bash rule for the command never covers it (§4.2).
    redirect: bool = False
    # The path is a glob (`*.py`): its place is known, the names it matches are not.
    glob: bool = False
    # An appending redirection (`>> f`): what is written comes after what is there.
    append: bool = False


@dataclass(frozen=True)
class SimpleCommand:
    """One command bash will run, as the words it will see."""

    argv: tuple[str, ...]
    # Files written: output redirections, and operands or option values the grammar
    # says are written.
    writes: tuple[Target, ...] = ()
    # A hijacking variable (PATH, LD_PRELOAD...) set for this command or the rest of the
    # script, however it was set.
    hijack: str | None = None
    # The command name is not a literal word ($CMD, a glob, an ANSI-C string).
    dynamic_name: bool = False
    # Run by xargs or find -exec: more arguments are appended when it runs.
    open_ended: bool = False
    # The wrappers it was found behind, outermost first (env, timeout, bash -c...).
    via: tuple[str, ...] = ()
    # Where its stdin comes from: "pipe", "heredoc", "herestring", "file" or None.
    stdin: str | None = None
    # A wrapper (env, timeout, xargs, uv run...) whose inner command is listed too.
    wrapper: bool = False
    # What the catalogue grammar found; None for bare assignments and redirections.
    parse: Parse | None = None
    # Files read (path operands), resolved against the `cd`s before it.
    reads: tuple[Target, ...] = ()
    # A function of this name is defined in the same command: it runs that instead.
    shadowed: bool = False
    # The whole simple command this one sits in (a wrapper's full argv) and where this
    # command's words start in it: a rule that names the runner and the command matches.
    outer: tuple[str, ...] = ()
    offset: int = 0
    # Inside an ssh command line: runs on another host.
    remote: bool = False

    @property
    def name(self) -> str:
        """The command name as written ('' for a bare assignment)."""
        return self.argv[0] if self.argv else ""

    @functools.cached_property
    def basename(self) -> str:
        """The command name without its directory (asked for many times per command)."""
        return os.path.basename(self.name)

    @property
    def piped_into(self) -> bool:
        """True when its stdin is another command's output."""
        return self.stdin == "pipe"


@dataclass(frozen=True)
class ShellAnalysis:
    """Every simple command found, and why the analysis may be incomplete."""

    commands: tuple[SimpleCommand, ...]
    # Reasons the string holds something not understood; non-empty means ask.
    opaque: tuple[str, ...] = ()
    # An escalation word seen in text that could not be parsed.
    raw_escalation: bool = False
    # Here-documents written to a file (`cat > f <<'EOF'`): the target and the content.
    heredoc_writes: tuple[tuple[Target, str], ...] = ()
    # The parser itself was stopped (it looped or grew past its bounds): nothing of the
    # text was read, so it needs a person, not only the sandbox (docs/SPEC.md §4.1).
    parser_fault: bool = False


def analyse(command: str) -> ShellAnalysis:
    """Every simple command `command` runs; never raises."""
    walker = _Walker()
    try:
        walker.script(Word(command), depth=0, via=())
    except RecursionError:
        walker.opaque.append("nesting too deep to analyse")
    if set(walker.bodies) - walker.used:  # a quoted here-document bashlex never saw
        walker.opaque.append("a here-document saikish could not place")
    if _subscript_code(command):
        # x='a[$(id)]'; echo $((x)): arithmetic, ${!x}, ${s:x}, b[x] evaluate the value a
        # name holds, and the subscript in it runs; quoting hides it from every parser.
        walker.opaque.append(SUBSCRIPT_CODE)
    if "=~" in command:
        walker.tainted.add("BASH_REMATCH")  # [[ $(<f) =~ (.*) ]]: the match is data
    tainted = _closure(walker.tainted, walker.names)
    evaluated = tainted & arithmetic_names(command) if tainted else set()
    if evaluated:
        # read i < f; echo $((i)): bash evaluates i's value, and f may hold 'a[$(cmd)]'.
        name = sorted(evaluated)[0].replace(POSITIONAL, "1")
        walker.opaque.append(f"arithmetic evaluates ${name}, which holds data only known "
                             f"at run time: an array subscript in it would run")
    commands = [replace(c, shadowed=True) if c.basename in walker.functions and not c.via
                else c for c in walker.commands]
    return ShellAnalysis(tuple(commands), tuple(dict.fromkeys(walker.opaque)),
                         walker.raw_escalation, tuple(walker.heredoc_writes),
                         walker.parser_fault)


# Builtins that read no file where they run (cd itself moves; the rest print or test words).
_TOUCHES_NO_FILES = frozenset({"cd", "pushd", "popd", "dirs", "echo", "printf", "true",
                               "false", ":", "exit", "return", "set", "unset", "export",
                               "shift", "sleep", "pwd", "read", "local", "declare", "wait"})
SUBSCRIPT_CODE = "an array subscript holding a command, which bash runs wherever it " \
                 "evaluates the value"


def _closure(tainted: set[str], names: dict[str, set[str]]) -> set[str]:
    """Tainted names, and every name whose value names a tainted one (x=n; n from a file)."""
    result = set(tainted)
    changed = bool(result)
    while changed:
        changed = False
        for name, targets in names.items():
            if name not in result and targets & result:
                result.add(name)
                changed = True
    return result


POSITIONAL = "#positional"  # $1, $@ after `set --` with words only known at run time
_DEFAULT_VARIABLE = {"read": "REPLY", "mapfile": "MAPFILE", "readarray": "MAPFILE"}
# Commands whose variables hold what they read (read NAME, mapfile NAME, printf -v NAME).
_READS_DATA = frozenset({"read", "mapfile", "readarray", "printf"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Where bash evaluates words as arithmetic, beside (( )), $(( )) and [[ -eq ]]: let, $[ ],
# ${a[i]}, ${s:i:n}, a[i]=v, declare -i; and ${!x}, whose value names a variable. No
# pattern scans past a bracket or brace it does not close (long hostile text must not make
# them backtrack).
_ARITH_PLACES = re.compile(
    r"\blet\s+([^;&|\n]*)|\$\[([^\][]*)\]|"
    r"\$\{[#!]?[A-Za-z_][A-Za-z0-9_]*\[([^\][]*)\](?::(?![-=?+])([^{}]*)\})?|"
    r"\$\{[#!]?(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*]):(?![-=?+])([^{}]*)\}|"
    r"\b[A-Za-z_][A-Za-z0-9_]*\[([^\][]*)\]\+?=|"
    r"\b(?:declare|typeset|local)\s+(?:-\w+\s+)*-\w*i\w*\s+([^;&|\n]*)|"
    r"\$\{!([A-Za-z_][A-Za-z0-9_]*)")
# $1 ${1} $@ in an arithmetic place: the positional parameters.
_POSITIONAL_REF = re.compile(r"\$\{?(?:[0-9]+|[@*])")
_ARITH_TEST = re.compile(r"-(?:eq|ne|lt|le|gt|ge)\b")


def arithmetic_names(text: str) -> set[str]:
    """Every name bash may evaluate as arithmetic in `text` (a superset: it fails closed)."""
    regions = [r for match in _ARITH_PLACES.finditer(text) for r in match.groups() if r]
    start = text.find("((")
    while start >= 0:  # (( )) and $(( )), nested parentheses counted
        depth, j = 0, start
        while j < len(text):
            depth += (text[j] == "(") - (text[j] == ")")
            j += 1
            if depth == 0:
                break
        regions.append(text[start + 2:j])
        start = text.find("((", j)
    start = text.find("[[")
    while start >= 0:  # [[ $x -gt 3 ]]: the operands of -eq and the like
        end = text.find("]]", start + 2)
        region = text[start + 2:] if end < 0 else text[start + 2:end]
        if _ARITH_TEST.search(region):
            regions.append(region)
        start = -1 if end < 0 else text.find("[[", end + 2)
    names = {name for region in regions for name in _NAME.findall(region)}
    if any(_POSITIONAL_REF.search(region) for region in regions):
        names.add(POSITIONAL)
    return names


def _subscript_code(text: str) -> bool:
    """`name[...$(...)...]` or a backtick inside `name[...]` anywhere in the text, quoted or
    not (an arithmetic index, `a[$((i + 1))]`, runs nothing). One pass: a regex for this
    backtracks quadratically on long text."""
    if "[" not in text or ("$(" not in text and "`" not in text):
        return False
    opened = closed = -1
    for i, c in enumerate(text):
        if c == "[" and i and (text[i - 1].isalnum() or text[i - 1] == "_"):
            opened = i
        elif c == "]":
            closed = i
        elif opened > closed and (c == "`" or (c == "$" and text[i + 1:i + 2] == "(" and
                                               text[i + 2:i + 3] != "(")):
            return True
    return False


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
            if c in "*?" or (c == "[" and "]" in raw[i + 2:]) or (c == "{" and "," in raw[i:]):
                globbing = True
            elif c == "~" and i and raw[i - 1] == "=" and _ASSIGNMENT_PREFIX.match(raw[:i]):
                dynamic = True  # h=~/x is h=/home/me/x to bash (an assignment-like word)
            elif c == "~" and (i == 0 or raw[i - 1] in "=:") and RUN_TIME_TILDE.match(raw, i):
                dynamic = True  # ~+ is $PWD, ~- $OLDPWD, ~N the directory stack (also after
                # = or : in words like if=~-/x, which bash expands too): run-time places
            out.append(c)
            i += 1
    return Word("".join(out), dynamic, globbing, ansi_c)


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
        if c in "$`":
            dynamic = True
        out.append(c)
        i += 1
    return i + 1, "".join(out), dynamic


@dataclass
class _Cwd:
    """Where relative paths point: a path relative to the workspace, or None if unknown."""

    path: str | None = "."
    # Loop variables bound to words whose place is known: `for f in *.py` -> f: "*.py".
    loops: dict[str, str] = field(default_factory=dict)

    def loop_word(self, word: Word) -> Word:
        """`$f` bound by `for f in *.py` is the glob `*.py`, to the grammar and the policy."""
        loop = _LOOP_VAR.fullmatch(word.value) if word.dynamic and not word.globbing else None
        if loop and loop.group(1) in self.loops:
            return Word(self.loops[loop.group(1)] + loop.group(2), globbing=True)
        return word

    def resolve(self, word: Word) -> Target:
        word = self.loop_word(word)
        value = word.value
        home = _HOME.match(value)
        if home and _home_relative(word):
            return Target("~" + value[home.end():])
        if not word.literal and not (word.globbing and not word.dynamic and not word.ansi_c):
            return Target(value, known=False)
        glob = word.globbing
        if value.startswith(("~", "/")):
            return Target(value, glob=glob)
        if self.path is None:
            return Target(value, known=False)
        joined = value if self.path == "." else posixpath.join(self.path, value)
        # '..' is left for the policy to resolve after symlinks: conf/../x is not ./x
        # when conf links elsewhere.
        return Target(joined if ".." in value.split("/") else posixpath.normpath(joined),
                      glob=glob)


_HOME = re.compile(r"\$HOME|\$\{HOME\}")
# A loop variable, alone or with a plain suffix: "$f", ${f}, $f.bak.
_LOOP_VAR = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?([A-Za-z0-9_.\-]*)")


def _home_relative(word: Word) -> bool:
    # $HOME/x is no mystery: it is ~/x, outside the workspace.
    value = word.value
    return not word.globbing and not word.ansi_c and (
        re.fullmatch(r"(\$HOME|\$\{HOME\})(/[^$`]*)?", value) is not None)


@dataclass
class _Walker:
    """Collects simple commands from bashlex trees, recording what it cannot see."""

    commands: list[SimpleCommand] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)
    raw_escalation: bool = False
    parser_fault: bool = False
    functions: set[str] = field(default_factory=set)
    heredoc_writes: list[tuple[Target, str]] = field(default_factory=list)
    cwd: _Cwd = field(default_factory=_Cwd)
    hijack: str | None = None
    bodies: dict[str, tuple[str, bool]] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)
    # Variables holding data only known at run time (read from a file or a command's
    # output, a file name): arithmetic that names one evaluates that data as code.
    tainted: set[str] = field(default_factory=set)
    # x=n: x's value names n, and arithmetic on x evaluates n too (resolved at the end).
    names: dict[str, set[str]] = field(default_factory=dict)
    # How many times a cd/pushd/popd changed the directory: a change inside a wrapper
    # (`builtin cd`, `eval 'cd ~'`) or a pipeline's last part (lastpipe) leaves it unknown.
    moves: int = 0
    moved_to: str | None = None

    # -- scripts and nodes ------------------------------------------------------

    def script(self, word: Word, depth: int, via: tuple[str, ...], remote: bool = False) -> None:
        """Analyse `word` as a bash script run by the command(s) in `via`."""
        text = word.value
        if depth > MAX_DEPTH:
            self.opaque.append("nesting too deep to analyse")
            return
        if not word.literal:
            what = via[-1] if via else "the shell"
            self.opaque.append(f"{what} runs a script that is only known at run time")
            self._raw_escalation(text)
            return
        if len(text) > MAX_COMMAND:
            self.opaque.append(f"the command is too long to analyse ({len(text):,} characters)")
            self._raw_escalation(text[:MAX_COMMAND])
            return
        if "\x00" in text:
            self.opaque.append("NUL byte in command")
        if _CONTROL.search(text):
            self.opaque.append("control character in command")
        if not text.strip():
            return
        if "find" in via and "{}" in text:
            # find pastes each file name into the script: a name like '$(rm -rf ~)' runs.
            self.opaque.append("find puts file names into the script it runs")
            return
        segments = _plain_segments(text)
        if segments is not None:  # plain words and | && || ; only: no parser needed
            self.plain(segments, depth, via, remote)
            return
        pre = preparse(text, len(self.bodies))
        self.opaque.extend(pre.opaque)
        self.bodies.update(pre.heredocs)
        if len(pre.text) > MAX_PARSE:
            self.opaque.append(f"the command is too long to analyse ({len(text):,} characters)")
            self._raw_escalation(text)
            return
        self.parsed(pre, depth, via, remote)

    def parsed(self, pre: Preparsed, depth: int, via: tuple[str, ...], remote: bool) -> None:
        from saikish.engine.bash.bashlex_tables import (
            load,  # deferred: bashlex costs ~15 ms to load
        )

        try:
            trees = shared().run(load().parse, pre.text)
        except ParserFault as fault:  # bashlex loops on some inputs: bounded, fail closed
            self.opaque.append(str(fault))
            self.parser_fault = True
            self._raw_escalation(pre.text)
            return
        except Exception:  # bashlex raises many kinds; all mean "not understood"
            self.opaque.append("it uses shell syntax saikish cannot read")
            self._raw_escalation(pre.text)
            return
        for tree in trees:
            self.node(tree, pre.text, depth, via, None, remote)

    def plain(self, segments: list[tuple[list[str], str]], depth: int, via: tuple[str, ...],
              remote: bool) -> None:
        """Commands split by `_plain_segments`: each is a simple command."""
        previous = ""
        moves = self.moves
        for raw, operator in segments:
            piped = "|" in (previous, operator)
            if previous != "|":
                moves = self.moves  # a pipeline (or a lone command) starts here
            stdin = "pipe" if previous == "|" else None
            words = [unquote(w) for w in raw]
            if piped:
                with self.subshell():
                    self.simple(words, (), self.hijack, depth, via, stdin, remote)
                if operator != "|" and self.moves != moves:  # lastpipe: the last part of
                    self.cwd.path = None  # a pipeline may run in this shell
            else:
                self.simple(words, (), self.hijack, depth, via, stdin, remote)
            previous = operator

    def _raw_escalation(self, text: str) -> None:
        self.raw_escalation |= mentions_escalation(text) is not None

    def node(self, node: Any, src: str, depth: int, via: tuple[str, ...], stdin: str | None,
             remote: bool) -> None:
        kind = node.kind
        if kind == "command":
            self.command(node, src, depth, via, stdin, remote)
        elif kind == "pipeline":
            parts = [p for p in node.parts if p.kind not in ("pipe", "reservedword")]
            moves = self.moves
            for index, part in enumerate(parts):
                with self.subshell():  # every part of a pipeline runs in its own subshell
                    self.node(part, src, depth, via, "pipe" if index else stdin, remote)
            if self.moves != moves:  # with lastpipe the last part's cd is the shell's own
                self.cwd.path = None
        elif kind == "compound" and _is_subshell(node):
            with self.subshell():
                self.children(node, src, depth, via, stdin, remote)
        elif kind in ("for", "while", "until"):
            before = self.cwd.path
            if kind == "for":
                self.loop_variable(node, src)
            self.children(node, src, depth, via, stdin, remote)
            if self.cwd.path != before:  # a `cd` in a loop body: where it ends is unknown
                self.cwd.path = None
        elif kind == "function":
            self.function(node, src, depth, via, remote)
        elif kind in ("list", "compound", "if"):
            self.children(node, src, depth, via, stdin, remote)
        elif kind in ("commandsubstitution", "processsubstitution"):
            with self.subshell():
                self.node(node.command, src, depth, via + ("$()",), None, remote)
        else:
            self.opaque.append(f"it uses a shell construct saikish cannot read ({kind})")

    def children(self, node: Any, src: str, depth: int, via: tuple[str, ...],
                 stdin: str | None, remote: bool) -> None:
        writes: list[Target] = []
        reads: list[Target] = []
        for part in _children(node):
            if part.kind in ("operator", "reservedword", "pipe"):
                continue
            if part.kind == "word":
                self.nested(part, src, depth, via, remote)  # for-loop lists, case words
            elif part.kind == "redirect":
                self.redirection(part, src, depth, via, remote, writes, reads)
            else:
                self.node(part, src, depth, via, stdin, remote)
        if writes or reads:  # `{ ...; } >> ~/.bashrc`, `done < f`: of their own (§4.7)
            self.commands.append(SimpleCommand((":",), tuple(writes), via=via,
                                               reads=tuple(reads), remote=remote))

    def loop_variable(self, node: Any, src: str) -> None:
        """`for f in WORDS`: f's place is known when every word is a plain relative path."""
        parts = list(node.parts)
        names = [p for p in parts if p.kind == "word"]
        if not names:
            return
        variable = names[0].word
        index = next((i for i, p in enumerate(parts) if p.kind == "reservedword"
                      and p.word == "in"), None)
        items = [unquote(src[p.pos[0]:p.pos[1]]) for p in parts[(index or 0) + 1:]
                 if p.kind == "word"] if index is not None else []
        plain = items and all(not w.dynamic and not w.ansi_c and
                              not w.value.startswith(("/", "~", "-")) and
                              ".." not in w.value.split("/") for w in items)
        self.cwd.loops.pop(variable, None)
        if index is None or not items or any(not w.literal for w in items):
            self.tainted.add(variable)  # for f in *, for l in $(cat f), for a: data
        if plain and len(items) == 1:
            self.cwd.loops[variable] = items[0].value
        elif plain:
            self.cwd.loops[variable] = "*"  # several words: any of them

    def function(self, node: Any, src: str, depth: int, via: tuple[str, ...],
                 remote: bool) -> None:
        name = next((p.word for p in node.parts if p.kind == "word"), "")
        self.functions.add(os.path.basename(name))
        with self.subshell():
            for part in node.parts:
                if part.kind not in ("word", "reservedword"):
                    self.node(part, src, depth, via + (f"{name}()",), None, remote)

    def directory(self, chdir: Word | None) -> _Restore:
        """A block run in another directory (env -C DIR, git -C DIR), then back."""
        restore = _Restore(self)
        if chdir is not None:
            target = self.cwd.resolve(chdir)
            self.cwd.path = target.path if target.known and not target.glob else None
        return restore

    def working_directory(self, name: str, remote: bool) -> tuple[Target, ...]:
        """After `cd DIR` (or inside `env -C DIR`), a command also reads DIR: `grep -r x`
        with no path searches it, `ls` lists it. Nothing to add in the workspace itself."""
        if self.cwd.path == "." or remote or name in _TOUCHES_NO_FILES:
            return ()
        if self.cwd.path is None:
            return (Target("$PWD", known=False),)
        return (Target(self.cwd.path),)

    def subshell(self) -> _Restore:
        """A block after which the working directory is what it was before."""
        return _Restore(self)

    # -- simple commands ---------------------------------------------------------

    def command(self, node: Any, src: str, depth: int, via: tuple[str, ...],
                stdin: str | None, remote: bool) -> None:
        words: list[Word] = []
        writes: list[Target] = []
        redirect_reads: list[Target] = []
        hijack = None
        feeds: list[tuple[str, Word]] = []
        for part in node.parts:
            if part.kind == "assignment":
                self.nested(part, src, depth, via, remote)
                target = part.word.split("=", 1)[0]
                value = unquote(src[part.pos[0]:part.pos[1]].split("=", 1)[-1])
                if _subscript_code(value.value):  # x=a[\$\(cmd\)]: escapes hide it
                    self.opaque.append(SUBSCRIPT_CODE)
                name = target.split("[", 1)[0].rstrip("+")
                if not value.literal:
                    self.tainted.add(name)
                elif _NAME.fullmatch(value.value):
                    self.names.setdefault(name, set()).add(value.value)
                if "[" in target and any(c in target for c in "$`'\""):
                    # bash evaluates an array subscript as arithmetic: a[$(cmd)], a['$x']
                    self.opaque.append("an array subscript that bash evaluates as code")
                name = target.split("[", 1)[0].rstrip("+")
                if is_hijack_var(name):
                    hijack = name
            elif part.kind == "word":
                self.nested(part, src, depth, via, remote)
                words.append(unquote(src[part.pos[0]:part.pos[1]]))
            elif part.kind == "redirect":
                feed = self.stdin_feed(part, src)
                if feed is not None:
                    feeds.append(feed)
                self.redirection(part, src, depth, via, remote, writes, redirect_reads)
            else:
                self.opaque.append(f"it uses a shell construct saikish cannot read ({part.kind})")
        if feeds:
            stdin = feeds[-1][0]
        if not words:
            if hijack:  # 'PATH=/tmp/x; git status' changes the rest of the script
                self.hijack = hijack
                self.commands.append(SimpleCommand((f"{hijack}=...",), tuple(writes), hijack,
                                                   via=via, remote=remote))
            elif writes or redirect_reads:  # `> f`, `$(< f)`
                self.commands.append(SimpleCommand((":",), tuple(writes), via=via,
                                                   reads=tuple(redirect_reads),
                                                   remote=remote))
            return
        self.heredoc_write(words, writes, feeds)
        self.simple(words, tuple(writes), hijack or self.hijack, depth, via, stdin, remote,
                    feeds=feeds, redirect_reads=tuple(redirect_reads))

    def simple(self, words: list[Word], writes: tuple[Target, ...], hijack: str | None,
               depth: int, via: tuple[str, ...], stdin: str | None, remote: bool,
               open_ended: bool = False, outer: tuple[str, ...] = (), offset: int = 0,
               feeds: list[tuple[str, Word]] | None = None,
               found_under: Word | None = None,
               redirect_reads: tuple[Target, ...] = (), module_of: str | None = None,
               input_words: bool = False) -> None:
        """Record one simple command, looking through what it runs."""
        if not words:
            return
        if len(self.commands) >= MAX_COMMANDS:
            self.opaque.append(f"it runs more than {MAX_COMMANDS:,} commands, too many to "
                               f"analyse")
            self._raw_escalation(" ".join(w.value for w in words))
            return
        head = words[0]
        argv = tuple(w.value for w in words)
        outer = outer or argv
        if any(w.ansi_c for w in words):
            self.opaque.append("$'...' quoting is not decoded")
        if not head.literal:
            self.commands.append(SimpleCommand(argv, writes, hijack, True, open_ended, via,
                                               stdin, reads=redirect_reads, outer=outer,
                                               offset=offset, remote=remote))
            return
        # xargs appends words read from its input: they can be options, code or any path.
        appended = [XARGS_INPUT] if input_words else []
        words = words + appended  # what runs is sliced from the words the grammar read
        found = parse([self.cwd.loop_word(w) for w in words], CATALOGUE, module_of)
        if found.variables and (found.path[0] in _READS_DATA or not all(w.literal
                                                                     for w in words)):
            self.tainted.update(v.split("[", 1)[0] for v in found.variables)
        elif found.path[0] in _DEFAULT_VARIABLE:  # read < f fills REPLY, mapfile MAPFILE
            self.tainted.add(_DEFAULT_VARIABLE[found.path[0]])
        if found.path[0] == "set" and not all(w.literal for w in words):
            self.tainted.add(POSITIONAL)  # set -- *, set -- $(<f): $1 holds data
        variables = [v for v in found.variables if v == "$dynamic" or is_hijack_var(v)]
        if variables:
            self.hijack = hijack = variables[0] if variables[0] != "$dynamic" else \
                "a variable named at run time"
        moves = self.moves
        with self.directory(found.chdir):
            reads = redirect_reads + tuple(self.cwd.resolve(_name_found(w, found_under))
                                           for w in found.reads)
            reads = tuple(dict.fromkeys(reads + self.working_directory(found.path[0], remote)))
            own_writes = writes + tuple(self.cwd.resolve(_name_found(w, found_under))
                                        for w in found.writes)
            if own_writes and any(in_git_dir(r.path) for r in reads):
                # cp -r x/.git . writes ./.git: copying a git dir puts its hooks in place
                own_writes += (self.cwd.resolve(Word(".git")),)
            runs = [i for i in found.inner if i.script is None and i.end > i.start]
            own = runs or any(i.remote for i in found.inner)
            command = SimpleCommand(
                argv[:found.end] if own else argv, own_writes, hijack, False, open_ended, via,
                stdin, bool(runs), found, reads, outer=outer, offset=offset, remote=remote)
            self.commands.append(command)
            name = found.path[0]
            for inner in found.inner:
                if inner.script is not None:
                    self.script(inner.script, depth + 1, via + (name,), remote or inner.remote)
                elif inner.end > inner.start:
                    names = _found_names(found) if inner.appends and name == "find" else None
                    self.simple(words[inner.start:inner.end], (), hijack, depth + 1,
                                via + (name,), stdin, remote, open_ended or inner.appends,
                                outer, offset + inner.start, found_under=names,
                                module_of=name if inner.module else None,
                                input_words=inner.appends and name != "find")
        if self.moves != moves:  # `builtin cd ~`, `eval 'cd ~'`: the move is the shell's own
            self.cwd.path = self.moved_to
        self.change_directory(found, words)
        if found.stdin_code:
            self.stdin_code(found, feeds or [], depth, via, remote)

    def stdin_code(self, found: Parse, feeds: list[tuple[str, Word]], depth: int,
                   via: tuple[str, ...], remote: bool) -> None:
        """A shell fed a here-document or here-string: its script is analysed."""
        code = [w for kind, w in feeds if kind in ("heredoc", "herestring")]
        if code and found.shell:
            for word in code:
                self.script(word, depth + 1, via + (found.path[0],), remote)

    def change_directory(self, found: Parse, words: list[Word]) -> None:
        if found.path[0] not in ("cd", "pushd", "popd"):
            return
        self.moves += 1
        self.moved_to = None  # set below when the new place is known
        operands = found.operands
        if found.path[0] == "cd" and not operands and len(words) == 1:
            self.cwd.path = "~"  # cd alone goes home
        elif found.path[0] == "cd" and len(operands) == 1 and words[-1].literal and \
                operands[0] not in ("-",):
            target = self.cwd.resolve(Word(operands[0]))
            self.cwd.path = target.path if target.known and not target.glob else None
        else:
            self.cwd.path = None
        self.moved_to = self.cwd.path

    def heredoc_write(self, words: list[Word], writes: list[Target],
                      feeds: list[tuple[str, Word]]) -> None:
        """`cat > f <<'EOF'`: remember f's new content, for a preview with a diff."""
        bodies = [w for kind, w in feeds if kind == "heredoc"]
        if [w.value for w in words] == ["cat"] and len(writes) == 1 and bodies and \
                bodies[0].literal and writes[0].known:
            self.heredoc_writes.append((writes[0], bodies[0].value))

    # -- words and redirections --------------------------------------------------

    def nested(self, node: Any, src: str, depth: int, via: tuple[str, ...],
               remote: bool) -> None:
        """Commands hidden inside a word: $( ), backticks, <( ), and ${...} text."""
        for part in getattr(node, "parts", None) or ():
            if part.kind in ("commandsubstitution", "processsubstitution"):
                with self.subshell():
                    self.node(part.command, src, depth, via + ("$()",), None, remote)
            elif part.kind == "parameter" and _SUBST.search(part.value):
                # bashlex leaves ${x:-$(cmd)} as raw text: the command is unseen.
                self.opaque.append("a command substitution inside ${...}")
            else:
                self.nested(part, src, depth, via, remote)

    def stdin_feed(self, node: Any, src: str) -> tuple[str, Word] | None:
        """What a `<<`, `<<<` or `<` redirection feeds to the command's stdin."""
        if node.type in ("<<", "<<-"):
            heredoc = getattr(node, "heredoc", None)
            delimiter = src[node.output.pos[0]:node.output.pos[1]] if hasattr(
                node.output, "pos") else ""
            if delimiter in self.bodies:
                body, _quoted = self.bodies[delimiter]
                if heredoc is None or heredoc.value.strip() != delimiter:
                    # bashlex placed our placeholder elsewhere: the quoting was misread.
                    self.opaque.append("a here-document saikish could not place")
                self.used.add(delimiter)
                return "heredoc", Word(body)
            value = heredoc.value.rsplit("\n", 1)[0] if heredoc is not None else ""
            return "heredoc", Word(value, dynamic="$" in value or "`" in value)
        if node.type == "<<<":
            return "herestring", unquote(src[node.output.pos[0]:node.output.pos[1]])
        if node.type == "<" and hasattr(node.output, "pos"):
            return "file", unquote(src[node.output.pos[0]:node.output.pos[1]])
        return None

    def redirection(self, node: Any, src: str, depth: int, via: tuple[str, ...], remote: bool,
                    writes: list[Target], reads: list[Target]) -> None:
        """Add what one redirection writes (`> f`) or reads (`< f`) to the lists."""
        target = self.redirect_target(node, src, depth, via, remote)
        if target is not None:
            writes.append(target)
        read = self.read_target(node, src)
        if read is not None:
            reads.append(read)

    def read_target(self, node: Any, src: str) -> Target | None:
        """The file an input redirection (`< f`, `3< f`, `<> f`) reads, or None."""
        output = node.output
        if node.type not in ("<", "<>") or not hasattr(output, "pos"):
            return None
        return self.cwd.resolve(unquote(src[output.pos[0]:output.pos[1]]))

    def redirect_target(self, node: Any, src: str, depth: int, via: tuple[str, ...],
                        remote: bool) -> Target | None:
        """The file an output redirection writes, or None."""
        heredoc = getattr(node, "heredoc", None)
        if heredoc is not None and _SUBST.search(heredoc.value):
            # An unquoted here-doc body is expanded by bash; bashlex keeps it raw.
            self.opaque.append("a command substitution inside a here-document")
        output = node.output
        if not hasattr(output, "kind"):
            return None  # a descriptor copy such as 2>&1
        self.nested(output, src, depth, via, remote)
        if node.type in ("<", "<<", "<<<", "<&", "<<-"):
            return None
        word = unquote(src[output.pos[0]:output.pos[1]])
        if node.type in (">&", "<&") and word.value.isdigit() or word.value == "-":
            return None
        if word.literal and word.value in ("/dev/null", "/dev/stdout", "/dev/stderr",
                                           "/dev/tty", "/dev/fd/1", "/dev/fd/2"):
            return None
        return replace(self.cwd.resolve(word), redirect=True,
                       append=node.type in (">>", "&>>"))


def _found_names(found: Parse) -> Word:
    """Where find -exec's '{}' points: under find's one starting point, else unknown."""
    starts = found.reads or (Word("."),)
    if len(starts) != 1 or not starts[0].literal:
        return Word("{}", dynamic=True)
    return Word(starts[0].value.rstrip("/") + "/{}")


def _name_found(word: Word, found_under: Word | None) -> Word:
    """A path operand holding find's '{}', as the file it will be."""
    if found_under is None or "{}" not in word.value:
        return word
    if found_under.dynamic:
        return Word(word.value, dynamic=True)
    return Word(word.value.replace("{}", found_under.value), word.dynamic, word.globbing)


# The plain subset of bash: words of ordinary characters, single quotes, double quotes
# without expansions, backslash escapes and find's `{}`, joined by | && || ;. No expansion,
# redirection, grouping, keyword or assignment can occur in it, so splitting it needs no
# parser (two thirds of the commands models send are like this).
# Only space and tab separate words, as in bash (a no-break space is part of a word).
_PLAIN_TOKEN = re.compile(r"""[ \t]*(?:(?P<op>\|\||&&|[|;])|(?P<word>(?:'[^']*'|"[^"\\$`]*"|"""
                          r"""\\[^\x00-\x1f\x7f]|\{\}|[^ \t'"|;&\\<>(){}$`#])+)|(?P<bad>[^ \t]))""")
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
        if match.group("bad"):
            return None  # a lone & (background), an unbalanced quote
        if match.group("op"):
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
        if first in _KEYWORDS or re.match(r"[A-Za-z_][A-Za-z0-9_]*(?:\[|\+?=)", first):
            return None  # a keyword or an assignment: the parser's job
    return segments or None


# What xargs appends: words only known at run time (and past the end of argv).
XARGS_INPUT = Word("$XARGS_INPUT", dynamic=True)


class _Restore:
    """Context manager: put the walker's working directory back on exit."""

    def __init__(self, walker: _Walker) -> None:
        self.walker, self.saved = walker, walker.cwd.path

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        self.walker.cwd.path = self.saved


def _is_subshell(node: Any) -> bool:
    first = (getattr(node, "list", None) or [None])[0]
    return first is not None and first.kind == "reservedword" and first.word == "("


def _children(node: Any) -> Iterator[Any]:
    for attr in ("parts", "list", "redirects"):
        value = getattr(node, attr, None)
        if isinstance(value, list):
            yield from value
    body = getattr(node, "command", None)
    if body is not None and hasattr(body, "kind") and node.kind != "commandsubstitution":
        yield body
