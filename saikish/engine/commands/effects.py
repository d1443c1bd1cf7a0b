"""What an option does, as a table: one small function per catalogue effect (docs/SPEC.md §4.7).

The grammar (saikish/engine/commands/grammar.py) finds an option and its values; `use`
records it on the walk: the finding a rule must name, then each of the option's effects
through OPTION_EFFECTS. An effect that hands the rest of the words to what the command
runs stops the walk (it returns STOP).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from saikish.engine.commands.catalogue import Effect, Entry, Option, Role
from saikish.engine.commands.parsed import STDIN_NAMES, Finding, Inner, Word, word_flags
from saikish.records import quick
from saikish.types import ReasonKind, Risk

STOP = -1  # an effect's answer: the rest of the words are not this command's


@dataclass
class Walk:
    """One command's walk: the words, where the grammar is, and everything found so far."""

    words: Sequence[Word]
    entry: Entry
    tables: list[Entry]
    path: tuple[str, ...]
    options_done: bool = False
    end: int = 0
    findings: list[Finding] = field(default_factory=list)
    options: list[tuple[str, str | None]] = field(default_factory=list)
    # Every option value with the index of its option's word (for `if-value`).
    values: list[tuple[int, Word]] = field(default_factory=list)
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
    # Operand roles an option gave (`jobs -x`: the operands are a command).
    roles: tuple[Role, ...] = ()
    # An option prints environment variables (`declare -p`, `make -p`).
    prints_env: bool = False
    # A value makes it print every one (`npm run env`: `if-value ... prints-env`).
    prints_all: bool = False

    @property
    def name(self) -> str:
        """The command (and subcommands) as one string, for messages."""
        return " ".join(self.path)

    def variable(self, name: str) -> None:
        """A variable the command sets; a subscript in its name is code bash evaluates."""
        self.variables.append(name)
        if "[" in name:
            self.findings.append(Finding(
                Risk.UNKNOWN, f"{self.path[0]} sets {name}: bash evaluates the subscript as "
                              f"code", hard=True, kind=ReasonKind.EXEC))


@quick
@dataclass(frozen=True)
class Use:
    """One use of an option: where it stands, its values and the words they span."""

    option: Option
    index: int
    values: tuple[Word, ...]
    next_index: int
    span: tuple[int, int] | None = None

    @property
    def value(self) -> Word | None:
        """The first value, or None for a flag."""
        return self.values[0] if self.values else None


def use(walk: Walk, used: Use) -> int:
    """Record an option's use; the next word to read, or STOP."""
    option = used.option
    value = used.value
    walk.options.append((option.name, value.value if value else None))
    walk.values.extend((used.index, w) for w in used.values)
    walk.other_option |= Effect.VERSION not in option.effects
    if option.risk is not None and (walk.entry.raised_by(option) or any(
            t.raised_by(option) for t in walk.tables if option in t.options)):
        # A rule must name it (docs/SPEC.md §4.7).
        why = option.why or f"{walk.name} {option.name} is {risk_name(option.risk)}"
        walk.findings.append(Finding(option.risk, why, used.index, kind=option.kind))
    answer = used.next_index
    for effect in option.ordered_effects:
        if OPTION_EFFECTS[effect](walk, used) == STOP:
            answer = STOP
    return answer


def risk_name(risk: Risk) -> str:
    """'build-test' for Risk.BUILD_TEST: how findings name a risk."""
    return risk.name.replace("_", "-").lower()


def _reads_writes(walk: Walk, used: Use) -> int:
    files = [used.values[k] for k in used.option.file_values(len(used.values))]
    if Effect.WRITES in used.option.effects:
        walk.writes.extend(files)
    if Effect.READS in used.option.effects:  # both: tar -C DIR is read from or written to
        walk.reads.extend(files)
    return 0


def _gives_pattern(walk: Walk, used: Use) -> int:
    walk.pattern_given = True
    walk.has_code = True  # dc -e SCRIPT: the program is given, not read from stdin
    return 0


def _set(attribute: str) -> Callable[[Walk, Use], int]:
    def handler(walk: Walk, used: Use) -> int:
        setattr(walk, attribute, True)
        return 0
    return handler


def _chdir(walk: Walk, used: Use) -> int:
    if used.value is not None:
        walk.chdir = used.value
    return 0


def _reads_at(walk: Walk, used: Use) -> int:
    if used.value is not None:
        walk.reads.extend(at_files(used.value))
    return 0


def _code_file(walk: Walk, used: Use) -> int:
    if used.value is not None and used.value.value in STDIN_NAMES:
        walk.code_from_stdin = True  # make -f -: the makefile is whatever stdin holds
    return 0


def _sets(walk: Walk, used: Use) -> int:
    if used.value is not None:
        walk.variable(used.value.value if used.value.literal else "$dynamic")
    return 0


def _runs(walk: Walk, used: Use) -> int:
    if used.span is not None and used.span[1] > used.span[0]:
        walk.inner.append(Inner(used.span[0], used.span[1], appends=True))
    return 0


def _runs_script(walk: Walk, used: Use) -> int:
    walk.has_code = True
    if used.value is not None:
        walk.inner.append(Inner(script=used.value))
    return 0


def _code_operand(walk: Walk, used: Use) -> int:
    walk.code_operand = walk.has_code = True
    return 0


def _runs_rest(walk: Walk, used: Use) -> int:
    if used.value is None:
        return 0
    start = used.span[0] if used.span else used.index
    walk.inner.append(Inner(start, len(walk.words),
                            module=Effect.RUNS_MODULE in used.option.effects))
    walk.has_code = True
    walk.end = start
    return STOP


def _runs_rest_only(walk: Walk, used: Use) -> int:
    return 0 if Effect.RUNS_MODULE in used.option.effects else _runs_rest(walk, used)


def _reads_only(walk: Walk, used: Use) -> int:
    return 0 if Effect.WRITES in used.option.effects else _reads_writes(walk, used)


def _ends_options(walk: Walk, used: Use) -> int:
    walk.options_done = True
    return 0


def _argv0(walk: Walk, used: Use) -> int:
    # exec -a NAME: a multi-call program (busybox) acts as whatever NAME says.
    walk.findings.append(Finding(
        Risk.UNKNOWN, used.option.why or f"{walk.name} {used.option.name} sets the name the "
                      f"program runs as, which decides what a multi-call program does",
        used.index, hard=True, kind=ReasonKind.EXEC))
    return 0


def _names_from(walk: Walk, used: Use) -> int:
    # --files0-from=-, xargs -a FILE: the names it works on are in a file nobody sees.
    where = "its input" if used.value is None or used.value.value in STDIN_NAMES else \
        used.value.value
    walk.findings.append(Finding(
        Risk.UNKNOWN, f"{walk.name} {used.option.name} reads the names it works on from "
                      f"{where}, which nobody sees", used.index, hard=True,
                      kind=ReasonKind.DYNAMIC))
    if used.value is not None and used.value.value not in STDIN_NAMES:
        walk.reads.append(used.value)
    return 0


def _operands(walk: Walk, used: Use) -> int:
    walk.roles = used.option.operands
    return 0


def _nothing(walk: Walk, used: Use) -> int:
    return 0


def at_files(value: Word) -> list[Word]:
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
    return [Word(name, *word_flags(value))] if name not in ("", "-") else []


# What each effect does to the walk (catalogue README.md, "Effects"). exec and config
# have only their finding; every effect must have a line here (tests/test_grammar.py).
OPTION_EFFECTS: dict[Effect, Callable[[Walk, Use], int]] = {
    Effect.EXEC: _set("has_code"), Effect.CONFIG: _nothing,
    Effect.WRITES: _reads_writes, Effect.READS: _reads_only,
    Effect.WRITES_OPERANDS: _set("writes_operands"), Effect.RUNS: _runs,
    Effect.RUNS_REST: _runs_rest_only, Effect.RUNS_MODULE: _runs_rest,
    Effect.RUNS_SCRIPT: _runs_script, Effect.CODE_OPERAND: _code_operand,
    Effect.ENDS_OPTIONS: _ends_options, Effect.SETS: _sets,
    Effect.GIVES_PATTERN: _gives_pattern, Effect.LISTS: _set("lists"),
    Effect.VERSION: _set("version"), Effect.CHDIR: _chdir, Effect.READS_AT: _reads_at,
    Effect.CODE_FILE: _code_file, Effect.AS_USER: _set("as_user"), Effect.ARGV0: _argv0,
    Effect.NAMES_FROM: _names_from, Effect.PRINTS_ENV: _set("prints_env"),
    Effect.OPERANDS: _operands,
}
