"""One simple command's words, read the way the real program reads them (docs/SPEC.md §4.7).

The catalogue entry of the command gives the grammar: which options cluster, which take a
value (attached or separate), which long options a unique prefix may abbreviate, where
subcommands and operands start. What an option or operand does is collected as findings
(risk raised, and why), write and read targets, and the commands and scripts it runs.
Anything the grammar does not know, or a word only known at run time where an option could
stand, is a finding too: parsing never guesses in the permissive direction.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from saikish.engine.commands.catalogue import TERMINAL_ROLES, Catalogue, Effect, Entry, Option, Role
from saikish.types import Risk

_GLOB_CHARS = "*?[{"

# The names that make a program read a file argument from its standard input.
STDIN_NAMES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
# A tilde-prefix bash may expand to a directory only known at run time (~+, ~-, ~2, ~-1),
# or one ending at ':' or '=' (`~:x` is `$HOME:x`), which no path check reads as the home.
RUN_TIME_TILDE = re.compile(r"~(?:[-+0-9=]|[^/]*:)")


@dataclass(frozen=True)
class Word:
    """One shell word after quote removal."""

    value: str
    dynamic: bool = False   # holds $var, $(...), `...`: its value is known only at run time
    globbing: bool = False  # unquoted * ? [ or {a,b}: may expand to other words
    ansi_c: bool = False    # $'...' or $"...": not decoded here, so not trusted

    @property
    def literal(self) -> bool:
        """True when the word is exactly its value when the command runs."""
        return not (self.dynamic or self.globbing or self.ansi_c)

    @property
    def may_be_option(self) -> bool:
        """True when the word could turn into one starting with '-' when bash expands it."""
        if self.literal:
            return self.value.startswith("-")
        stops = "$`" if self.dynamic else ""
        stops += _GLOB_CHARS if self.globbing else ""
        fixed = self.value
        for index, char in enumerate(self.value):
            if char in stops or self.ansi_c:
                fixed = self.value[:index]
                break
        return fixed == "" or fixed.startswith("-")


@dataclass(frozen=True)
class Finding:
    """Something in the command that raises its risk, and why."""

    risk: Risk
    why: str
    # The word (index into argv) a rule must name literally to cover this; None: the
    # command as a whole.
    index: int | None = None
    # True when no rule at all can cover it (a word built at run time).
    hard: bool = False


@dataclass(frozen=True)
class Inner:
    """A command this one runs: words[start:end], or a script's text."""

    start: int = 0
    end: int = 0
    # Arguments are appended when it runs (xargs, find -exec ... {}).
    appends: bool = False
    script: Word | None = None
    # The script runs on another host (ssh HOST CMD).
    remote: bool = False
    # words[start] names a Python module, not a command (python -m MODULE ARGS).
    module: bool = False


@dataclass(frozen=True)
class Parse:
    """What the grammar found in one simple command."""

    path: tuple[str, ...]
    known: bool
    risk: Risk = Risk.UNKNOWN
    findings: tuple[Finding, ...] = ()
    options: tuple[tuple[str, str | None], ...] = ()
    operands: tuple[str, ...] = ()
    reads: tuple[Word, ...] = ()
    writes: tuple[Word, ...] = ()
    inner: tuple[Inner, ...] = ()
    variables: tuple[str, ...] = ()
    # It runs code from its stdin (an interpreter or shell given no script).
    stdin_code: bool = False
    # The entry is a shell: code it is given is bash, and can be analysed.
    shell: bool = False
    # Where this command's own words end: the rest belongs to what it runs.
    end: int = 0
    # Where its subcommand words end (`git -C x push` -> 4); 0 without subcommands.
    sub_end: int = 0
    # The directory its paths and what it runs are relative to (env -C DIR).
    chdir: Word | None = None
    # argv indexes of its operands, in order (for findings about one operand).
    operand_indexes: tuple[int, ...] = ()
    # The words it read, as written (ps's BSD clusters: `ps ax e`); operand_indexes index it.
    words: tuple[str, ...] = ()
    # Its network use is fetching what it runs when missing (`fetches`, catalogue README).
    fetches: bool = False

    @property
    def caveat(self) -> str | None:
        """Why a prefix rule cannot cover this command, or None."""
        return self.findings[0].why if self.findings else None

    @property
    def hard(self) -> bool:
        """True when no rule at all can cover this command."""
        return any(f.hard for f in self.findings)


def parse(words: Sequence[Word], catalogue: Catalogue, module_of: str | None = None) -> Parse:
    """Parse `words` (argv, the command name first) with the command's catalogue entry.

    With `module_of` ("python"), words[0] names a module run by `python -m`: its entry is
    `[python -m NAME]`, and a module with none is unknown whatever command shares its name.
    """
    name = os.path.basename(words[0].value)
    entry = catalogue.get(module_of, "-m", words[0].value) if module_of else catalogue.get(name)
    if entry is None:
        return Parse((name,), known=False, end=len(words))
    return _Parser(words, entry, catalogue).run()


@dataclass
class _State:
    """Everything collected while walking the words."""

    findings: list[Finding] = field(default_factory=list)
    options: list[tuple[str, str | None]] = field(default_factory=list)
    operands: list[tuple[int, Word]] = field(default_factory=list)
    reads: list[Word] = field(default_factory=list)
    writes: list[Word] = field(default_factory=list)
    inner: list[Inner] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    writes_operands: bool = False
    code_operand: bool = False
    has_code: bool = False
    # An option named stdin as the file of code it runs (make -f -, awk -f /dev/stdin).
    code_from_stdin: bool = False
    # -e PATTERN / -f FILE given: a leading `text` operand role is files instead (grep).
    pattern_given: bool = False
    # A listing or checking mode (unzip -l, git clean -n): nothing is written.
    lists: bool = False
    # An option that only prints the version when no operand (of any role) is given.
    version: bool = False
    operand_seen: bool = False
    other_option: bool = False
    # An option kept the command as the person (systemd-run --user): no escalation.
    as_user: bool = False
    # The directory it works in (env -C DIR, git -C DIR, make -C DIR).
    chdir: Word | None = None


class _Parser:
    """Walks the words of one command with its entry's grammar."""

    def __init__(self, words: Sequence[Word], entry: Entry, catalogue: Catalogue) -> None:
        self.words, self.entry, self.catalogue = words, entry, catalogue
        self.tables: list[Entry] = [entry]
        self.path: tuple[str, ...] = (entry.words[0] if entry.words else words[0].value,)
        self.state = _State()
        self.options_done = entry.style == "none"
        self.sub_pending = entry.has("subcommands")
        self.end = len(words)
        self.sub_end = 0

    def run(self) -> Parse:
        i = 1
        while i < len(self.words):
            step = self.word(i)
            if step is None:
                self.end = i
                break
            i = step
        self.finish_subcommand()
        return self.result()

    # -- one word ------------------------------------------------------------------

    def word(self, i: int) -> int | None:
        """Handle words[i]; the index of the next word, or None to stop."""
        w = self.words[i]
        if i == 1 and self.entry.has("bundled") and w.literal and w.value[:1].isalpha():
            return self.short_cluster(i, "-" + w.value)  # tar xzf, ps aux
        if not self.options_done and w.literal and w.value == "--":
            self.options_done = True
            return i + 1
        if not self.options_done and w.may_be_option:
            if not w.literal:
                return self.dynamic_option(i)
            if len(w.value) > 1:
                return self.option(i)
        return self.operand(i)

    def dynamic_option(self, i: int) -> int | None:
        """A word built at run time where an option could stand."""
        w = self.words[i]
        if w.globbing and not w.dynamic and not w.ansi_c and not self.sub_pending and \
                not self.entry.has("open") and not w.value.startswith("-") and \
                not self.glob_may_name_option(w.value):
            return self.operand(i)  # *.py cannot expand to any option that matters
        if self.sub_pending or self.entry.has("open") or any(t.changing for t in self.tables):
            self.hard(i, f"'{self.words[i].value}' is built at run time and could be any "
                         f"option of {' '.join(self.path)}")
            return None
        return self.operand(i)

    def glob_may_name_option(self, pattern: str) -> bool:
        """True when a glob could expand to one of the entry's risk-raising options."""
        if "{" in pattern:
            return True  # brace expansion makes words of its own: {-delete,-true}
        tail = re.split(r"[*?\[\]{}]", pattern)[-1]
        return any(fnmatch.fnmatchcase(candidate, pattern)
                   for candidate in self.option_words(tail))

    def option_words(self, tail: str) -> list[str]:
        """Words spelling a risk-raising option, ending in `tail` where a value can.

        A cluster like `-rf.o` fails in getopt as a whole ('.' is no option), so a glob
        only matters when it can spell a raising option, or one with its value attached.
        """
        single = self.entry.style == "single"
        letters = {k for t in self.tables for k in t.shorts}
        flags_tail = bool(tail) and all(c in letters for c in tail)
        out: list[str] = []
        for table in self.tables:
            for option in table.changing:
                for spelling in option.spellings:
                    arity, optional = option.form(spelling)
                    # A glob's match is a name in the current directory: as the value of
                    # an option that only writes or reads there, it stays inside.
                    takes = bool(arity or optional) and not _writes_in_place(option)
                    out.append(spelling)
                    long_form = single or spelling.startswith("--")
                    if long_form and not single:  # unique prefixes abbreviate it (getopt)
                        out.extend(spelling[:k] for k in range(3, len(spelling)))
                    if long_form and takes and not self.entry.has("separate"):
                        out.append(f"{spelling}={tail}")
                    elif not long_form and (takes or flags_tail):
                        out.append(spelling + tail)
        return out

    def option(self, i: int) -> int | None:
        text = self.words[i].value
        if self.entry.style == "single" or text.startswith("--"):
            return self.long_option(i, text)
        return self.short_cluster(i, text)

    def long_option(self, i: int, text: str) -> int | None:
        name, eq, attached = text.lstrip("-").partition("=")
        found = self.lookup_long(name)
        if found is None and self.entry.has("glued"):
            glued = self.lookup_glued(text)
            if glued is not None:  # gcc -B/tmp, -ofile: the value follows the name
                option, spelling = glued
                return self.apply(option, i, [Word(text[len(spelling):], *self._flags(i))],
                                  i + 1)
        if found is None:
            return self.unknown(i, text.split("=", 1)[0])
        option, spelling = found
        arity, optional = option.form(spelling)
        if eq and self.entry.has("separate"):
            return self.unknown(i, text, f"{spelling} takes its value as the next word")
        if eq:
            if arity == 0 and not optional:
                return self.unknown(i, text, f"option {spelling} takes no value")
            return self.apply(option, i, [Word(attached, *self._flags(i))], i + 1)
        if arity == 0 or optional:
            return self.apply(option, i, [], i + 1)
        return self.take_values(option, i, arity, i + 1)

    def short_cluster(self, i: int, text: str) -> int | None:
        j = 1
        while j < len(text):
            letter = text[j]
            option = self.lookup_short(letter)
            if option is None:
                if self.entry.has("numbers") and letter.isdigit():
                    j += 1
                    continue
                return self.unknown(i, f"-{letter}")
            arity, optional = option.form("-" + letter)
            rest = text[j + 1:]
            if arity and rest:
                return self.apply(option, i, [Word(rest, *self._flags(i))], i + 1)
            if arity:
                return self.take_values(option, i, arity, i + 1)
            if optional and rest:
                return self.apply(option, i, [Word(rest, *self._flags(i))], i + 1)
            step = self.apply(option, i, [], i + 1)
            if step is None or self.options_done and j + 1 < len(text):
                return step
            j += 1
        return i + 1

    def take_values(self, option: Option, i: int, arity: int, start: int) -> int | None:
        if arity < 0:  # up to a ';' or '+' word (find -exec ... ;)
            end = start
            while end < len(self.words) and self.words[end].value not in (";", "+"):
                end += 1
            if end >= len(self.words):
                return self.unknown(i, self.words[i].value,
                                    f"{self.words[i].value} is not ended by ';' or '+'")
            self.apply(option, i, list(self.words[start:end]), end + 1, span=(start, end))
            return end + 1
        values = list(self.words[start:start + arity])
        if len(values) < arity:
            return self.unknown(i, self.words[i].value,
                                f"option {self.words[i].value} needs a value")
        return self.apply(option, i, values, start + arity, span=(start, start + arity))

    # -- what an option does ---------------------------------------------------------

    def apply(self, option: Option, i: int, values: list[Word], next_i: int,
              span: tuple[int, int] | None = None) -> int | None:
        """Record option's effects; the next word to look at, or None to stop."""
        state = self.state
        value = values[0] if values else None
        state.options.append((option.name, value.value if value else None))
        effects = option.effects
        state.other_option |= Effect.VERSION not in effects
        if option.risk is not None and (self.entry.raised_by(option) or any(
                t.raised_by(option) for t in self.tables if option in t.options)):
            # A rule must name it (docs/SPEC.md §4.7).
            why = option.why or f"{' '.join(self.path)} {option.name} is {_risk_name(option.risk)}"
            state.findings.append(Finding(option.risk, why, i))
        if not effects:
            return next_i
        if effects & {Effect.WRITES, Effect.READS} and values:
            files = [values[k] for k in option.file_values(len(values))]
            if Effect.WRITES in effects:
                state.writes.extend(files)
            if Effect.READS in effects:  # both: tar -C DIR is read from or written to
                state.reads.extend(files)
        if Effect.GIVES_PATTERN in effects:
            state.pattern_given = True
            state.has_code = True  # dc -e SCRIPT: the program is given, not read from stdin
        if Effect.LISTS in effects:
            state.lists = True
        if Effect.VERSION in effects:
            state.version = True
        if Effect.AS_USER in effects:
            state.as_user = True
        if Effect.CHDIR in effects and value is not None:
            state.chdir = value
        if Effect.READS_AT in effects and value is not None:
            state.reads.extend(_at_files(value))
        if Effect.CODE_FILE in effects and value is not None and value.value in STDIN_NAMES:
            state.code_from_stdin = True  # make -f -: the makefile is whatever stdin holds
        if Effect.SETS in effects and value is not None:
            self.variable(value.value if value.literal else "$dynamic")
        if Effect.WRITES_OPERANDS in effects:
            state.writes_operands = True
        if Effect.RUNS in effects and span is not None and span[1] > span[0]:
            state.inner.append(Inner(span[0], span[1], appends=True))
        if Effect.RUNS_SCRIPT in effects and value is not None:
            state.inner.append(Inner(script=value))
        if Effect.CODE_OPERAND in effects:
            state.code_operand = True
        if effects & {Effect.EXEC, Effect.CODE_OPERAND} or Effect.RUNS_SCRIPT in effects:
            state.has_code = True
        if effects & {Effect.RUNS_REST, Effect.RUNS_MODULE} and value is not None:
            start = span[0] if span else i
            state.inner.append(Inner(start, len(self.words),
                                     module=Effect.RUNS_MODULE in effects))
            state.has_code = True
            self.end = start
            return None
        if Effect.ENDS_OPTIONS in effects:
            self.options_done = True
        return next_i

    # -- operands and subcommands ----------------------------------------------------

    def operand(self, i: int) -> int | None:
        w = self.words[i]
        if self.sub_pending:
            return self.subcommand(i)
        self.state.operand_seen = True
        if self.state.code_operand:  # bash -c SCRIPT: the script, then its own arguments
            self.state.code_operand = False
            self.code(w)
            return None
        role = self.streaming_role(len(self.state.operands), w)
        if role in ("cmd", "script") and (self.state.lists or
                                          role == "script" and self.state.has_code):
            # command -v NAME, python --version; python -c CODE ARGS: arguments, no script
            self.state.operands.append((i, w))
            return i + 1
        if role == "cmd":
            self.state.inner.append(Inner(i, len(self.words), appends=self.entry.has("appends")))
            self.state.has_code = True  # a command given: no shell reading the input
            return None
        if role == "remote":
            text = " ".join(x.value for x in self.words[i:])
            dynamic = any(not x.literal for x in self.words[i:])
            self.state.inner.append(Inner(script=Word(text, dynamic), remote=True))
            return None
        if role == "script":
            self.script_operand(w)
            return None
        self.state.operands.append((i, w))
        if self.entry.style == "posix":
            self.options_done = True
        return i + 1

    def subcommand(self, i: int) -> int | None:
        w = self.words[i]
        if not w.literal:
            self.hard(i, f"the subcommand of {' '.join(self.path)} is built at run time")
            return None
        sub = self.catalogue.get(*self.entry.words, w.value)
        if sub is None:
            self.state.findings.append(Finding(
                Risk.UNKNOWN, f"{' '.join(self.path)} {w.value} is not a known subcommand", i))
            self.sub_pending = False
            self.entry = Entry(words=self.entry.words + (w.value,), origin="", style="none")
            self.options_done = True
            return None
        self.enter(sub)
        self.sub_end = i + 1
        return i + 1

    def enter(self, sub: Entry) -> None:
        anywhere = self.entry.global_options_anywhere
        self.path = self.path + (sub.words[-1],)
        self.tables = [sub] + (self.tables if anywhere else [])
        self.entry = sub
        self.sub_pending = sub.has("subcommands")
        self.options_done = sub.style == "none"

    def finish_subcommand(self) -> None:
        if not self.sub_pending:
            return
        self.sub_pending = False
        default = self.entry.default_sub
        if default:
            sub = self.catalogue.get(*self.entry.words, default)
            if sub is not None:
                self.enter(sub)
                self.sub_pending = False

    def streaming_role(self, k: int, w: Word) -> str | None:
        """The role of operand k when the pattern ends in a terminal role, else None."""
        roles = self.entry.operands
        if not roles or roles[-1].name not in TERMINAL_ROLES:
            return None
        position = 0
        for role in roles[:-1]:
            if role.quantity in ("*", "+") and role.name == "assign":
                if _is_assignment(w) and all(_is_assignment(o) for _, o in
                                             self.state.operands[position:]):
                    return "assign"
                position = len(self.state.operands)
                continue
            if position == k:
                return role.name
            position += 1
        return roles[-1].name if k >= position else None

    def code(self, w: Word) -> None:
        self.state.has_code = True
        if self.entry.has("shell"):
            self.state.inner.append(Inner(script=w))
        else:
            self.state.findings.append(Finding(
                Risk.UNKNOWN, f"{self.path[0]} runs code given on the command line", hard=True))

    def script_operand(self, w: Word) -> None:
        if w.value in STDIN_NAMES:
            return  # the code comes from stdin: judged with the stdin it is fed
        self.state.has_code = True
        if w.value.startswith(("<(", "/dev/fd/", "/proc/self/fd/")) or not w.literal:
            # bash <(curl URL): the script is another command's output, seen by nobody.
            self.state.findings.append(Finding(
                Risk.UNKNOWN, f"{self.path[0]} runs code that another command prints",
                hard=True))
            return
        self.state.findings.append(Finding(
            Risk.BUILD_TEST, f"{self.path[0]} runs the script {w.value}"))
        self.state.reads.append(w)

    # -- lookups and failures --------------------------------------------------------

    def lookup_long(self, name: str) -> tuple[Option, str] | None:
        """Exact spelling first, then a unique prefix (getopt_long, git parse-options)."""
        single = self.entry.style == "single"
        for table in self.tables:
            if name in table.longs:
                return table.longs[name], _spelling(table.longs[name], name)
        if single:
            return None
        matches = {id(o): (o, k) for t in self.tables for k, o in t.longs.items()
                   if k.startswith(name) and _spelling(o, k).startswith("--")}
        if len(matches) == 1:
            option, key = next(iter(matches.values()))
            return option, _spelling(option, key)
        return None

    def lookup_glued(self, text: str) -> tuple[Option, str] | None:
        """The longest value-taking spelling `text` starts with (gcc's -Bprefix)."""
        best: tuple[Option, str] | None = None
        for table in self.tables:
            for key, option in table.longs.items():
                spelling = _spelling(option, key)
                arity, optional = option.form(spelling)
                if (arity or optional) and len(text) > len(spelling) and \
                        text.startswith(spelling) and (best is None or
                                                       len(spelling) > len(best[1])):
                    best = (option, spelling)
        return best

    def lookup_short(self, letter: str) -> Option | None:
        for table in self.tables:
            if letter in table.shorts:
                return table.shorts[letter]
        return None

    def unknown(self, i: int, spelling: str, why: str | None = None) -> int | None:
        """An option the grammar does not know: UNKNOWN, unless the entry is open."""
        if self.entry.has("open") and why is None:
            self.state.findings.append(Finding(
                Risk.BUILD_TEST, f"{' '.join(self.path)} runs with option {spelling}", None))
            return i + 1
        self.state.findings.append(Finding(
            Risk.UNKNOWN, why or f"option {spelling} of {' '.join(self.path)} is not known", i))
        return None

    def hard(self, i: int, why: str) -> None:
        self.state.findings.append(Finding(Risk.UNKNOWN, why, i, hard=True))

    def _flags(self, i: int) -> tuple[bool, bool, bool]:
        w = self.words[i]
        return w.dynamic, w.globbing, w.ansi_c

    # -- the result ------------------------------------------------------------------

    def result(self) -> Parse:
        state, entry = self.state, self.entry
        if state.version and not state.operand_seen and not state.other_option:
            state.lists = True  # ruby -v alone: the version, nothing else (gcc -v -lc links)
        pattern = entry.operands
        if state.pattern_given and pattern and pattern[0].name == "text":
            pattern = pattern[1:]  # grep -e PATTERN FILE...: every operand is a file
        roles = assign_roles(pattern, len(state.operands))
        if roles is None and state.lists:
            roles = ["text"] * len(state.operands)
        if roles is None:
            # More operands than the entry takes: a rule must name the first extra one
            # (gh repo clone REPO -- --upload-pack=...); too few is only a caveat.
            plain = [r for r in pattern if r.name not in TERMINAL_ROLES]
            most = None if any(r.quantity in ("*", "+") for r in plain) else len(plain)
            extra = state.operands[most][0] if most is not None and \
                len(state.operands) > most else None
            state.findings.append(Finding(
                Risk.UNKNOWN, f"{' '.join(self.path)} is given operands it does not take",
                extra))
            roles = ["path"] * len(state.operands)
        if state.lists:
            roles = ["path" if r == "write" else r for r in roles]
        for (_, w), role in zip(state.operands, roles, strict=True):
            key = _KEY_OPERANDS.get((self.path[0], w.value.split("=", 1)[0]))
            if key and "=" in w.value:  # dd's if=FILE of=FILE
                value = w.value.split("=", 1)[1]
                if value.startswith("~") and not any(c in value for c in "$`") and \
                        not RUN_TIME_TILDE.match(value):
                    # if=~/x: bash expands the ~ after '=', a home path like any other
                    self.operand_role(Word(value, globbing=w.globbing), key)
                else:
                    self.operand_role(Word(value, *_word_flags(w)), key)
            else:
                self.operand_role(w, role)
        if entry.has("evaluates") and state.operands:  # eval ARGS: the joined words run
            words = [w for _, w in state.operands]
            state.inner.append(Inner(script=Word(" ".join(w.value for w in words),
                                                 any(not w.literal for w in words))))
        counted = [(i, w) for i, w in state.operands if entry.if_operands is None or
                   entry.if_operands[3] is None or not w.literal or
                   not fnmatch.fnmatchcase(w.value, entry.if_operands[3])]
        if entry.if_operands and len(counted) >= entry.if_operands[0] and not state.lists:
            _, risk, why, _except = entry.if_operands
            if risk is Risk.ESCALATION and state.as_user:  # systemd-run --user CMD
                risk = Risk.UNKNOWN
                why = f"{' '.join(self.path)} runs what it is given as the person, but outside " \
                      f"this session, where saikish cannot see it"
            first = counted[0][0] if counted else None
            state.findings.append(Finding(
                risk, why or f"{' '.join(self.path)} with operands is {_risk_name(risk)}", first))
        base = Risk.READ_ONLY if state.lists else entry.risk
        if base is Risk.ESCALATION and state.as_user:
            base = Risk.UNKNOWN
        risk = Risk.highest([base] + [f.risk for f in state.findings])
        stdin_code = (entry.stdin_code and not state.has_code and not state.lists) or \
            state.code_from_stdin
        return Parse(
            self.path, True, risk, tuple(state.findings), tuple(state.options),
            tuple(w.value for _, w in state.operands), tuple(state.reads),
            tuple(state.writes), tuple(state.inner), tuple(state.variables), stdin_code,
            entry.has("shell"), self.end, self.sub_end, state.chdir,
            tuple(i for i, _ in state.operands), tuple(w.value for w in self.words),
            entry.has("fetches"))

    def operand_role(self, w: Word, role: str) -> None:
        state = self.state
        if role == "path":
            (state.writes if state.writes_operands else state.reads).append(w)
        elif role == "write":
            state.writes.append(w)
        elif role == "var":
            self.variable(w.value if w.literal else "$dynamic")
        elif role == "assign":
            name = w.value.split("=", 1)[0] if "=" in w.value else w.value
            self.variable(name if w.literal or "=" in w.value else "$dynamic")

    def variable(self, name: str) -> None:
        """A variable the command sets; a subscript in its name is code bash evaluates."""
        self.state.variables.append(name)
        if "[" in name:
            self.state.findings.append(Finding(
                Risk.UNKNOWN, f"{self.path[0]} sets {name}: bash evaluates the subscript as "
                              f"code", hard=True))


# Operands spelled KEY=VALUE whose value is a file (dd of=FILE writes, if=FILE reads).
_KEY_OPERANDS = {("dd", "of"): "write", ("dd", "if"): "path"}


def _at_files(value: Word) -> list[Word]:
    """Files an `@FILE` value reads (curl -d @f, -F x=@f, -F x=<f, -H @f)."""
    text = value.value
    if text.startswith("@"):
        name = text[1:]
    elif "=@" in text or "=<" in text:
        name = text.split("=@", 1)[-1] if "=@" in text else text.split("=<", 1)[-1]
        name = name.split(";", 1)[0]
    elif "@" in text and "=" not in text.split("@", 1)[0]:
        name = text.split("@", 1)[1]  # --data-urlencode NAME@FILE
    else:
        return []
    return [Word(name, value.dynamic, value.globbing, value.ansi_c)] if name not in ("", "-") \
        else []


def _writes_in_place(option: Option) -> bool:
    plain = {Effect.WRITES, Effect.READS, Effect.GIVES_PATTERN, Effect.WRITES_OPERANDS}
    return (option.risk is None or option.risk.rank <= Risk.WRITE.rank) and \
        option.effects <= plain


def _word_flags(w: Word) -> tuple[bool, bool, bool]:
    return w.dynamic, w.globbing, w.ansi_c


def assign_roles(roles: tuple[Role, ...], n: int) -> list[str] | None:
    """A role for each of n operands, following the pattern; None when none fits."""
    plain = tuple(r for r in roles if r.name not in TERMINAL_ROLES)
    return _fit(plain, 0, n)


def _fit(roles: tuple[Role, ...], r: int, n: int) -> list[str] | None:
    if r == len(roles):
        return [] if n == 0 else None
    role = roles[r]
    low = 1 if role.quantity in ("", "+") else 0
    high = 1 if role.quantity in ("", "?") else n
    for take in range(min(high, n), low - 1, -1):
        rest = _fit(roles, r + 1, n - take)
        if rest is not None:
            return [role.name] * take + rest
    return None


def _is_assignment(w: Word) -> bool:
    name, eq, _ = w.value.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[:1].isdigit()


def _spelling(option: Option, key: str) -> str:
    for spelling in option.spellings:
        if spelling.lstrip("-+") == key or spelling == key:
            return spelling
    return option.spellings[0]


def _risk_name(risk: Risk) -> str:
    return risk.name.replace("_", "-").lower()
