"""One simple command's words, read the way the real program reads them (docs/SPEC.md §4.7).

The catalogue entry of the command gives the grammar: which options cluster, which take a
value (attached or separate), which long options a unique prefix may abbreviate, where
subcommands and operands start. What an option does is a table (effects.py); what the
operands are comes from the entry's roles, or from an option that changes them. What is
found (risk raised, and why), write and read targets, and the commands and scripts it runs
are collected in a Parse (parsed.py). Anything the grammar does not know, or a word only
known at run time where an option could stand, is a finding too: parsing never guesses in
the permissive direction.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Sequence

from saikish.engine.commands.catalogue import TERMINAL_ROLES, Catalogue, Effect, Entry, Option
from saikish.engine.commands.conclude import conclude
from saikish.engine.commands.effects import STOP, Use, Walk, use
from saikish.engine.commands.parsed import (
    RUN_TIME_TILDE,
    STDIN_NAMES,
    Finding,
    Inner,
    Parse,
    Word,
    assign_roles,
    word_flags,
)
from saikish.types import ReasonKind, Risk

__all__ = ["RUN_TIME_TILDE", "STDIN_NAMES", "Finding", "Inner", "Parse", "Word",
           "assign_roles", "parse"]


def parse(words: Sequence[Word], catalogue: Catalogue, module_of: str | None = None) -> Parse:
    """Parse `words` (argv, the command name first) with the command's catalogue entry.

    With `module_of` ("python"), words[0] names a module run by `python -m`: its entry is
    `[python -m NAME]`, and a module with none is unknown whatever command shares its name.
    """
    return _parse(tuple(words), catalogue, module_of)


def forget() -> None:
    """Drop the parses kept below (a benchmark times a cold start)."""
    _parse.cache_clear()


# A Parse depends on the words and the catalogue alone, and is frozen: the same command
# (`git status`, `wc -l` after a pipe: 41% of the parts on NL2Bash) is read once.
@functools.lru_cache(maxsize=4096)
def _parse(words: tuple[Word, ...], catalogue: Catalogue, module_of: str | None) -> Parse:
    name = os.path.basename(words[0].value)
    entry = catalogue.get(module_of, "-m", words[0].value) if module_of else catalogue.get(name)
    if entry is None:
        return Parse((name,), known=False, end=len(words))
    return _Parser(words, entry, catalogue).run()


class _Parser:
    """Walks the words of one command with its entry's grammar."""

    def __init__(self, words: Sequence[Word], entry: Entry, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self.walk = Walk(words, entry, [entry],
                         (entry.words[0] if entry.words else words[0].value,),
                         options_done=entry.style == "none", end=len(words))
        self.sub_pending = entry.has("subcommands")
        self.sub_end = 0
        self.visited: list[Entry] = [entry]

    @property
    def entry(self) -> Entry:
        """The entry of the (sub)command being read."""
        return self.walk.entry

    def run(self) -> Parse:
        words = self.walk.words
        i = 1
        while i < len(words):
            step = self.word(i)
            if step is None:
                self.walk.end = i
                break
            i = step
        self.finish_subcommand()
        return conclude(self.walk, self.visited, self.sub_end)

    # -- one word ------------------------------------------------------------------

    def word(self, i: int) -> int | None:
        """Handle words[i]; the index of the next word, or None to stop."""
        w = self.walk.words[i]
        if i == 1 and self.entry.has("bundled") and w.literal and w.value[:1].isalpha():
            return self.short_cluster(i, "-" + w.value)  # tar xzf, ps aux
        if not self.walk.options_done and w.literal and w.value == "--":
            self.walk.options_done = True
            return i + 1
        if not self.walk.options_done and w.may_be_option:
            if not w.literal:
                return self.dynamic_option(i)
            if len(w.value) > 1:
                return self.option(i)
        return self.operand(i)

    def dynamic_option(self, i: int) -> int | None:
        """A word built at run time where an option could stand."""
        w = self.walk.words[i]
        if w.globbing and not w.dynamic and not w.ansi_c and not self.sub_pending and \
                not self.entry.has("open") and not w.value.startswith("-") and \
                not self.glob_may_name_option(w.value):
            return self.operand(i)  # *.py cannot expand to any option that matters
        if self.sub_pending or self.entry.has("open") or \
                any(t.changing for t in self.walk.tables):
            self.hard(i, f"'{w.value}' is built at run time and could be any option of "
                         f"{self.walk.name}")
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
        letters = {k for t in self.walk.tables for k in t.shorts}
        flags_tail = bool(tail) and all(c in letters for c in tail)
        out: list[str] = []
        for option in (o for t in self.walk.tables for o in t.changing):
            for spelling in option.spellings:
                arity, optional = option.form(spelling)
                # A glob's match is a name in the current directory: as the value of an
                # option that only writes or reads there, it stays inside.
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
        text = self.walk.words[i].value
        if self.entry.style == "single" or text.startswith("--"):
            return self.long_option(i, text)
        return self.short_cluster(i, text)

    def long_option(self, i: int, text: str) -> int | None:
        name, eq, attached = text.lstrip("-").partition("=")
        found = self.lookup_long(name)
        if found is None and self.entry.has("underscores"):  # node: --inspect_brk
            found = self.lookup_long(name.replace("_", "-"))
        if found is None and self.entry.has("glued"):
            glued = self.lookup_glued(text)
            if glued is not None:  # gcc -B/tmp, -ofile: the value follows the name
                option, spelling = glued
                return self.apply(option, i, (self.cut(i, len(spelling)),), i + 1)
        if found is None:
            return self.unknown(i, text.split("=", 1)[0])
        option, spelling = found
        arity, optional = option.form(spelling)
        if eq and self.entry.has("separate"):
            return self.unknown(i, text, f"{spelling} takes its value as the next word")
        if eq:
            if arity == 0 and not optional:
                return self.unknown(i, text, f"option {spelling} takes no value")
            return self.apply(option, i, (Word(attached, *self.flags(i)),), i + 1)
        if arity == 0 or optional:
            return self.apply(option, i, (), i + 1)
        return self.take_values(option, i, arity, i + 1)

    def short_cluster(self, i: int, text: str) -> int | None:
        j = 1
        while j < len(text):
            letter = text[j]
            option = self.lookup_short(letter)
            if option is None:
                if self.entry.has("numbers") and letter in "0123456789":
                    j += 1
                    continue
                return self.unknown(i, f"-{letter}")
            arity, optional = option.form("-" + letter)
            rest = text[j + 1:]
            if (arity or optional) and rest:
                return self.apply(option, i, (Word(rest, *self.flags(i)),), i + 1)
            if arity:
                return self.take_values(option, i, arity, i + 1)
            step = self.apply(option, i, (), i + 1)
            if step is None or self.walk.options_done and j + 1 < len(text):
                return step
            j += 1
        return i + 1

    def take_values(self, option: Option, i: int, arity: int, start: int) -> int | None:
        words = self.walk.words
        if arity < 0:  # up to a ';' or '+' word (find -exec ... ;)
            end = start
            while end < len(words) and words[end].value not in (";", "+"):
                end += 1
            if end >= len(words):
                return self.unknown(i, words[i].value,
                                    f"{words[i].value} is not ended by ';' or '+'")
            self.apply(option, i, tuple(words[start:end]), end + 1, span=(start, end))
            return end + 1
        values = tuple(words[start:start + arity])
        if len(values) < arity:
            return self.unknown(i, words[i].value, f"option {words[i].value} needs a value")
        return self.apply(option, i, values, start + arity, span=(start, start + arity))

    def apply(self, option: Option, i: int, values: tuple[Word, ...], next_i: int,
              span: tuple[int, int] | None = None) -> int | None:
        """Record the option's effects (effects.py); the next word, or None to stop."""
        several = next((v for v in values if v.splits or span and v.globbing and
                        self.glob_may_name_option(v.value)), None)
        if several is not None:
            # find -name $y with y="x -delete": bash splits the value into more words,
            # which the program reads as more options and operands. The words after it
            # are still read (what they do is judged too).
            self.hard(i, f"'{several.value}' may be several words, read as more options or "
                         f"operands of {self.walk.name}")
        step = use(self.walk, Use(option, i, values, next_i, span))
        return None if step == STOP else step

    # -- operands and subcommands ----------------------------------------------------

    def operand(self, i: int) -> int | None:
        walk = self.walk
        w = walk.words[i]
        if self.sub_pending:
            return self.subcommand(i)
        walk.operand_seen = True
        if walk.code_operand:  # bash -c SCRIPT: the script, then its own arguments
            walk.code_operand = False
            self.code(w)
            return None
        role = self.streaming_role(len(walk.operands), w, i)
        if role in ("cmd", "script") and (walk.lists or role == "script" and walk.has_code):
            # command -v NAME, python --version; python -c CODE ARGS: arguments, no script
            walk.operands.append((i, w))
            return i + 1
        if role == "cmd":
            walk.inner.append(Inner(i, len(walk.words), appends=self.entry.has("appends")))
            walk.has_code = True  # a command given: no shell reading the input
            return None
        if role == "remote":
            rest = walk.words[i:]
            walk.inner.append(Inner(script=Word(" ".join(x.value for x in rest),
                                                any(not x.literal for x in rest)), remote=True))
            return None
        if role == "script":
            self.script_operand(w)
            return None
        walk.operands.append((i, w))
        if self.entry.style == "posix" or self.entry.has("operand-ends-options"):
            walk.options_done = True
        return i + 1

    def subcommand(self, i: int) -> int | None:
        w = self.walk.words[i]
        if not w.literal:
            self.hard(i, f"the subcommand of {self.walk.name} is built at run time")
            return None
        sub = self.catalogue.get(*self.entry.words, w.value)
        if sub is None:
            self.walk.findings.append(Finding(
                Risk.UNKNOWN, f"{self.walk.name} {w.value} is not a known subcommand", i))
            self.sub_pending = False
            self.walk.entry = Entry(words=self.entry.words + (w.value,), origin="",
                                    style="none")
            self.walk.options_done = True
            return None
        self.enter(sub)
        self.sub_end = i + 1
        return i + 1

    def enter(self, sub: Entry) -> None:
        walk = self.walk
        anywhere = self.entry.global_options_anywhere
        walk.path = walk.path + (sub.words[-1],)
        walk.tables = [sub] + (walk.tables if anywhere else [])
        walk.entry = sub
        self.visited.append(sub)
        self.sub_pending = sub.has("subcommands")
        walk.options_done = sub.style == "none"

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

    def streaming_role(self, k: int, w: Word, i: int) -> str | None:
        """The role of operand k (words[i]) when the pattern ends in a terminal role."""
        roles = self.walk.roles or self.entry.operands
        if self.entry.has("first-word-operand") and i > 1 and not self.walk.operands:
            roles = roles[1:]  # setarch -R CMD: no architecture word after an option
        if not roles or roles[-1].name not in TERMINAL_ROLES:
            return None
        position = 0
        for role in roles[:-1]:
            if role.quantity in ("*", "+") and role.name == "assign":
                if _is_assignment(w) and all(_is_assignment(o) for _, o in
                                             self.walk.operands[position:]):
                    return "assign"
                position = len(self.walk.operands)
                continue
            if position == k:
                return role.name
            position += 1
        return roles[-1].name if k >= position else None

    def code(self, w: Word) -> None:
        self.walk.has_code = True
        if self.entry.has("shell"):
            self.walk.inner.append(Inner(script=w))
        else:
            self.walk.findings.append(Finding(
                Risk.UNKNOWN, f"{self.walk.path[0]} runs code given on the command line",
                hard=True, kind=ReasonKind.EXEC))

    def script_operand(self, w: Word) -> None:
        if w.value in STDIN_NAMES:
            return  # the code comes from stdin: judged with the stdin it is fed
        walk = self.walk
        walk.has_code = True
        if w.value.startswith(("<(", "/dev/fd/", "/proc/self/fd/")) or not w.literal:
            # bash <(curl URL): the script is another command's output, seen by nobody.
            walk.findings.append(Finding(
                Risk.UNKNOWN, f"{walk.path[0]} runs code that another command prints",
                hard=True, kind=ReasonKind.EXEC))
            return
        walk.findings.append(Finding(Risk.BUILD_TEST, f"{walk.path[0]} runs the script "
                                                      f"{w.value}"))
        walk.reads.append(w)

    # -- lookups and failures --------------------------------------------------------

    def lookup_long(self, name: str) -> tuple[Option, str] | None:
        """Exact spelling first, then a unique prefix (getopt_long, git parse-options)."""
        for table in self.walk.tables:
            if name in table.longs:
                return table.longs[name], _spelling(table.longs[name], name)
        if self.entry.style == "single":
            return None
        matches = {id(o): (o, k) for t in self.walk.tables for k, o in t.longs.items()
                   if k.startswith(name) and _spelling(o, k).startswith("--")}
        if len(matches) == 1:
            option, key = next(iter(matches.values()))
            return option, _spelling(option, key)
        return None

    def lookup_glued(self, text: str) -> tuple[Option, str] | None:
        """The longest value-taking spelling `text` starts with (gcc's -Bprefix)."""
        best: tuple[Option, str] | None = None
        for table in self.walk.tables:
            for key, option in table.longs.items():
                spelling = _spelling(option, key)
                arity, optional = option.form(spelling)
                if (arity or optional) and len(text) > len(spelling) and \
                        text.startswith(spelling) and (best is None or
                                                       len(spelling) > len(best[1])):
                    best = (option, spelling)
        return best

    def lookup_short(self, letter: str) -> Option | None:
        for table in self.walk.tables:
            if letter in table.shorts:
                return table.shorts[letter]
        return None

    def unknown(self, i: int, spelling: str, why: str | None = None) -> int | None:
        """An option the grammar does not know: UNKNOWN, unless the entry is open."""
        if self.entry.has("open") and why is None:
            self.walk.findings.append(Finding(
                Risk.BUILD_TEST, f"{self.walk.name} runs with option {spelling}", None))
            return i + 1
        self.walk.findings.append(Finding(
            Risk.UNKNOWN, why or f"option {spelling} of {self.walk.name} is not known", i))
        return None

    def hard(self, i: int, why: str) -> None:
        """A word built at run time where the grammar needs to know it."""
        self.walk.findings.append(Finding(Risk.UNKNOWN, why, i, hard=True,
                                          kind=ReasonKind.DYNAMIC))

    def flags(self, i: int) -> tuple[bool, bool, bool, bool]:
        return word_flags(self.walk.words[i])

    def cut(self, i: int, start: int) -> Word:
        """words[i] from `start` on: a value glued to its option's name."""
        return Word(self.walk.words[i].value[start:], *self.flags(i))


def _writes_in_place(option: Option) -> bool:
    plain = {Effect.WRITES, Effect.READS, Effect.GIVES_PATTERN, Effect.WRITES_OPERANDS}
    return (option.risk is None or option.risk.rank <= Risk.WRITE.rank) and \
        option.effects <= plain


def _is_assignment(w: Word) -> bool:
    name, eq, _ = w.value.partition("=")
    return bool(eq) and name.replace("_", "a").isalnum() and not name[:1].isdigit()


def _spelling(option: Option, key: str) -> str:
    for spelling in option.spellings:
        if spelling.lstrip("-+") == key or spelling == key:
            return spelling
    return option.spellings[0]


