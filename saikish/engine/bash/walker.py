"""The walker: bashlex trees -> simple commands, following what each command runs."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from typing import Any

from saikish.engine.bash.arithmetic import _NAME, POSITIONAL, SUBSCRIPT_CODE, _subscript_code
from saikish.engine.bash.bounded import ParserFault, shared
from saikish.engine.bash.braces import words_of
from saikish.engine.bash.cwd import _Cwd, _Restore, found_names, name_found
from saikish.engine.bash.facts import SimpleCommand, Target
from saikish.engine.bash.hijack import is_hijack_var
from saikish.engine.bash.plain import Script, Segment, _plain_segments
from saikish.engine.bash.preparse import Preparsed, preparse
from saikish.engine.bash.redirects import (
    command_redirection,
    heredoc_write,
    nested,
    plain_redirection,
    redirection,
    static_feed,
)
from saikish.engine.bash.words import CATALOGUE, XARGS_INPUT, mentions_escalation, unquote
from saikish.engine.commands.grammar import Finding, Parse, Word, parse
from saikish.rules import in_git_dir
from saikish.types import Risk

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
MAX_DEPTH = 12
MAX_COMMANDS = 2_000  # simple commands in one call; past it the call is asked, not analysed
# Longer than this, a command is asked without being parsed: bashlex's time grows fast.
# MAX_COMMAND bounds the whole text (here-document bodies included), MAX_PARSE what is
# left for bashlex once quoted here-document bodies are cut out.
MAX_COMMAND = 200_000
MAX_PARSE = 20_000

# Builtins that read no file where they run (cd itself moves; the rest print or test words).
_TOUCHES_NO_FILES = frozenset({"cd", "pushd", "popd", "dirs", "echo", "printf", "true",
                               "false", ":", "exit", "return", "set", "unset", "export",
                               "shift", "sleep", "pwd", "read", "local", "declare", "wait"})
_DEFAULT_VARIABLE = {"read": "REPLY", "mapfile": "MAPFILE", "readarray": "MAPFILE"}
# Commands whose variables hold what they read (read NAME, mapfile NAME, printf -v NAME).
_READS_DATA = frozenset({"read", "mapfile", "readarray", "printf"})


@dataclass
class _Walker:
    """Collects simple commands from bashlex trees, recording what it cannot see."""

    commands: list[SimpleCommand] = field(default_factory=list)
    opaque: list[str] = field(default_factory=list)
    raw_escalation: bool = False
    parser_fault: bool = False
    rewritten: list[str] = field(default_factory=list)
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
        self.rewritten.extend(pre.rewritten)
        self.bodies.update(pre.heredocs)
        if len(pre.text) > MAX_PARSE:
            self.opaque.append(f"the command is too long to analyse ({len(text):,} characters)")
            self._raw_escalation(text)
            return
        self.parsed(pre, depth, via, remote)
        for code in pre.scripts:  # $( ) in an array or arithmetic the rewrite replaced
            with self.subshell():
                self.script(Word(code), depth + 1, via + ("$()",), remote)

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

    def plain(self, segments: list[Segment], depth: int, via: tuple[str, ...],
              remote: bool) -> None:
        """Commands split by `_plain_segments`: each is a simple command."""
        previous = ""
        moves = self.moves
        for raw, redirects, operator, scripts in segments:
            piped = "|" in (previous, operator)
            if previous != "|":
                moves = self.moves  # a pipeline (or a lone command) starts here
            for script in scripts:  # run before the command, as bash runs them
                self.substitution(script, depth, via, remote)
            words = [w for text in raw for w in words_of(text, self.opaque)]
            writes: list[Target] = []
            reads: list[Target] = []
            feeds: list[tuple[str, Word]] = []
            for redirect, target in redirects:
                plain_redirection(self, redirect, target, writes, reads, feeds)
            stdin = feeds[-1][0] if feeds else "pipe" if previous == "|" else None
            with self.subshell() if piped else nullcontext():
                self.simple(words, tuple(writes), self.hijack, depth, via, stdin, remote,
                            feeds=feeds, redirect_reads=tuple(reads))
            if piped and operator != "|" and self.moves != moves:  # lastpipe: the last
                self.cwd.path = None  # part of a pipeline may run in this shell
            previous = operator

    def substitution(self, script: Script, depth: int, via: tuple[str, ...],
                     remote: bool) -> None:
        """A plain word's `$( )` or backquotes, read as `nested` reads the parser's."""
        with self.subshell():
            if script.opening == "`":
                self.script(Word(script.text), depth + 1, via + ("$()",), remote)
            else:
                self.plain(script.segments, depth, via + ("$()",), remote)

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
                nested(self, part, src, depth, via, remote)  # for-loop lists, case words
            elif part.kind == "redirect":
                redirection(self, part, src, depth, via, remote, writes, reads)
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
        items = [w for p in parts[index + 1:] if p.kind == "word"
                 for w in words_of(src[p.pos[0]:p.pos[1]], self.opaque)] \
            if index is not None else []
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
                nested(self, part, src, depth, via, remote)
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
                nested(self, part, src, depth, via, remote)
                words += words_of(src[part.pos[0]:part.pos[1]], self.opaque)
            elif part.kind == "redirect":
                command_redirection(self, part, src, depth, via, remote, feeds, writes,
                                    redirect_reads)
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
        heredoc_write(self, words, writes, feeds)
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
        hijack = self.variables_set(found, words) or hijack
        moves = self.moves
        with self.directory(found.chdir):
            if found.repository and self.cwd.path != "." and not remote:
                # `git -C sub status`, `cd sub && git status`: the repository found there
                # may not be the workspace's
                found = replace(found, findings=found.findings + (
                    Finding(Risk.BUILD_TEST, found.repository),))
            reads = redirect_reads + tuple(self.cwd.resolve(name_found(w, found_under))
                                           for w in found.reads)
            reads = tuple(dict.fromkeys(reads + self.working_directory(found.path[0], remote)))
            own_writes = writes + tuple(self.cwd.resolve(name_found(w, found_under))
                                        for w in found.writes)
            if own_writes and any(in_git_dir(r.path) for r in reads):
                # cp -r x/.git . writes ./.git: copying a git dir puts its hooks in place
                own_writes += (self.cwd.resolve(Word(".git")),)
            runs = [i for i in found.inner if i.script is None and i.end > i.start]
            own = runs or any(i.remote for i in found.inner)
            command = SimpleCommand(
                argv[:found.end] if own else argv, own_writes, hijack, False, open_ended, via,
                stdin, bool(runs), found, reads, outer=outer, offset=offset, remote=remote,
                feed=static_feed(feeds))
            self.commands.append(command)
            self.inner(found, words, command, depth)
        if self.moves != moves:  # `builtin cd ~`, `eval 'cd ~'`: the move is the shell's own
            self.cwd.path = self.moved_to
        self.change_directory(found, words)
        if found.stdin_code:
            self.stdin_code(found, feeds or [], depth, via, remote)

    def variables_set(self, found: Parse, words: list[Word]) -> str | None:
        """Note the variables a command sets to data (read, mapfile, set --); the
        hijacking one it sets for the rest of the script, if any."""
        if found.variables and (found.path[0] in _READS_DATA or not all(w.literal
                                                                     for w in words)):
            self.tainted.update(v.split("[", 1)[0] for v in found.variables)
        elif found.path[0] in _DEFAULT_VARIABLE:  # read < f fills REPLY, mapfile MAPFILE
            self.tainted.add(_DEFAULT_VARIABLE[found.path[0]])
        if found.path[0] == "set" and not all(w.literal for w in words):
            self.tainted.add(POSITIONAL)  # set -- *, set -- $(<f): $1 holds data
        variables = [v for v in found.variables if v == "$dynamic" or is_hijack_var(v)]
        if not variables:
            return None
        self.hijack = variables[0] if variables[0] != "$dynamic" else \
            "a variable named at run time"
        return self.hijack

    def inner(self, found: Parse, words: list[Word], command: SimpleCommand,
              depth: int) -> None:
        """What `command` runs: scripts (-c, eval) and inner commands (wrappers, -exec)."""
        name, via, remote = found.path[0], command.via, command.remote
        for inner in found.inner:
            if inner.script is not None:
                self.script(inner.script, depth + 1, via + (name,), remote or inner.remote)
            elif inner.end > inner.start:
                names = found_names(found) if inner.appends and name == "find" else None
                self.simple(words[inner.start:inner.end], (), command.hijack, depth + 1,
                            via + (name,), command.stdin, remote,
                            command.open_ended or inner.appends, command.outer,
                            command.offset + inner.start, found_under=names,
                            module_of=name if inner.module else None,
                            input_words=inner.appends and name != "find")

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
