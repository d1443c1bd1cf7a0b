"""The catalogue's nouns: an entry, its options, operand roles and effects (README.md).

What the *.cat lines mean once read (syntax.py reads them); the Catalogue in __init__.py
finds an entry by name.
"""

from __future__ import annotations

import enum
import functools
from dataclasses import dataclass, field
from pathlib import Path

from saikish.errors import SaikishError
from saikish.types import ReasonKind, Risk

HERE = Path(__file__).resolve().parent
RISKS = {"read": Risk.READ_ONLY, "build": Risk.BUILD_TEST, "write": Risk.WRITE,
          "network": Risk.NETWORK, "destructive": Risk.DESTRUCTIVE, "unknown": Risk.UNKNOWN,
          "escalation": Risk.ESCALATION}
ROLES = frozenset({"path", "text", "write", "cmd", "script", "remote", "var", "assign"})
# Roles after which every further word belongs to what runs, not to this command.
TERMINAL_ROLES = frozenset({"cmd", "script", "remote"})
# Example lines (`quiet git log`, `asks git push -f "forces"`): skipped when loading.
EXAMPLES = ("quiet ", "asks ")
FLAGS = frozenset({"numbers", "bundled", "open", "subcommands", "shell", "evaluates",
                    "appends", "separate", "glued", "fetches", "underscores",
                   "operand-ends-options", "first-word-operand"})
# The checkers a `check NAME` line may name: one module each in this folder's sibling
# package (saikish/engine/commands/checks/NAME.py), listed without importing them.
CHECKS_DIR = HERE.parent / "checks"
# `prints-env MODE`: when the command hands environment variables to its output.
PRINTS_ENV = frozenset({"always", "bare", "unless-runs", "named"})
# `if-value GLOB... EFFECT "why"`: what a matching operand or option value does.
# (`prints-env`: the value names something that prints the environment, `npm run env`.)
VALUE_EFFECTS = {"exec": Risk.UNKNOWN, "network": Risk.NETWORK, "write": Risk.WRITE,
                 "destructive": Risk.DESTRUCTIVE, "unknown": Risk.UNKNOWN,
                 "prints-env": Risk.READ_ONLY}


class CatalogueError(SaikishError):
    """A catalogue entry that does not parse: names the file and line."""


class Effect(enum.Enum):
    """What an option does besides its risk (README.md, 'Effects')."""

    EXEC = "exec"
    CONFIG = "config"
    WRITES = "writes"
    READS = "reads"
    WRITES_OPERANDS = "writes-operands"
    RUNS = "runs"
    RUNS_REST = "runs-rest"
    RUNS_SCRIPT = "runs-script"
    CODE_OPERAND = "code-operand"
    ENDS_OPTIONS = "ends-options"
    SETS = "sets"
    GIVES_PATTERN = "gives-pattern"
    LISTS = "lists"
    VERSION = "version"
    CHDIR = "chdir"
    RUNS_MODULE = "runs-module"
    READS_AT = "reads-at"
    CODE_FILE = "code-file"
    AS_USER = "as-user"
    ARGV0 = "argv0"
    NAMES_FROM = "names-from"
    PRINTS_ENV = "prints-env"
    OPERANDS = "operands"


# An option's effect -> the kind of reason its use is, the first that applies winning.
_EFFECT_KINDS = (
    (Effect.AS_USER, ReasonKind.ESCALATION),
    *((effect, ReasonKind.EXEC) for effect in (
        Effect.EXEC, Effect.RUNS, Effect.RUNS_REST, Effect.RUNS_SCRIPT, Effect.CODE_OPERAND,
        Effect.RUNS_MODULE, Effect.CODE_FILE, Effect.CONFIG, Effect.ARGV0)),
    (Effect.PRINTS_ENV, ReasonKind.SECRET),
    (Effect.WRITES, ReasonKind.WRITES),
    (Effect.WRITES_OPERANDS, ReasonKind.WRITES),
    (Effect.NAMES_FROM, ReasonKind.DYNAMIC),
)


@dataclass(frozen=True)
class Role:
    """One operand role with its quantifier ('', '*', '+', '?')."""

    name: str
    quantity: str = ""


@dataclass(frozen=True)
class ValueRule:
    """`if-value GLOB... EFFECT "why"`: an operand or option value matching one of the
    globs (case-insensitive) names a program, a remote code source or a local file."""

    globs: tuple[str, ...]
    risk: Risk
    why: str
    # The value runs a program: no rule covers it, and a value built at run time may too.
    runs: bool = False
    # The value makes the command print every environment variable (`npm run env`).
    prints_env: bool = False

    @property
    def kind(self) -> ReasonKind | None:
        """What kind of reason a matching value is; None: as its risk says."""
        return ReasonKind.EXEC if self.runs else ReasonKind.SECRET if self.prints_env else None


@dataclass(frozen=True)
class Option:
    """One option of a command: its spellings, how many values it takes, what it does."""

    spellings: tuple[str, ...]
    # Per spelling: the values it takes (0 for a flag; -1 for "up to a ';' or '+' word",
    # find -exec), and whether the value is optional and only ever attached (-i.bak).
    forms: tuple[tuple[int, bool], ...] = ()
    risk: Risk | None = None
    effects: frozenset[Effect] = frozenset()
    why: str = ""
    # The names of its values (FILE, NAME...): `reads`/`writes` apply to the ones naming
    # a file, path or directory, or to the first value when none does.
    metavars: tuple[str, ...] = ()
    # `operands=ROLE,...`: with this option, the operands have these roles instead.
    operands: tuple[Role, ...] = ()

    def file_values(self, count: int) -> list[int]:
        """Which of `count` values `reads`/`writes` apply to."""
        named = [i for i, m in enumerate(self.metavars[:count])
                 if any(k in m.upper() for k in ("FILE", "PATH", "DIR"))]
        return named or ([0] if count else [])

    def form(self, spelling: str) -> tuple[int, bool]:
        """(values taken, optional) for one of this option's spellings."""
        return self.forms[self.spellings.index(spelling)]

    @functools.cached_property
    def name(self) -> str:
        """The spelling used in messages and deny matching: the long one when there is one."""
        longs = [s for s in self.spellings if s.startswith("--")]
        return (longs or list(self.spellings))[0]

    @functools.cached_property
    def ordered_effects(self) -> tuple[Effect, ...]:
        """Its effects in the one order they are applied in (by their catalogue word)."""
        return tuple(sorted(self.effects, key=lambda e: e.value))

    @functools.cached_property
    def kind(self) -> ReasonKind | None:
        """What kind of reason using this option is, by what it does; None: as its risk
        says."""
        return next((kind for effect, kind in _EFFECT_KINDS if effect in self.effects), None)

    @functools.cached_property
    def raises(self) -> bool:
        """True when using this option changes what the command does beyond its base.

        A list of names read from a file (`names-from`) is no change here: the finding
        of its own use asks, and a word built at run time that could spell it is already
        a read of a place only known at run time."""
        harmless = {Effect.READS, Effect.ENDS_OPTIONS, Effect.SETS, Effect.GIVES_PATTERN,
                    Effect.LISTS, Effect.VERSION, Effect.CHDIR, Effect.READS_AT,
                    Effect.AS_USER, Effect.NAMES_FROM}
        if self.operands and all(r.name in ("path", "text") for r in self.operands):
            harmless.add(Effect.OPERANDS)
        return self.risk is not None or bool(self.effects - harmless)


@dataclass(frozen=True)
class Entry:
    """One command or subcommand, as its catalogue entry describes it."""

    words: tuple[str, ...]
    origin: str
    risk: Risk = Risk.UNKNOWN
    style: str = "gnu"
    flags: frozenset[str] = frozenset()
    global_options_anywhere: bool = False
    default_sub: str | None = None
    # (N, risk, why, operands not counted): with N or more operands the risk rises.
    if_operands: tuple[int, Risk, str, str | None] | None = None
    stdin_code: bool = False
    operands: tuple[Role, ...] = (Role("path", "*"),)
    options: tuple[Option, ...] = ()
    # Another entry whose grammar this one is (`[python -m pytest]` is like `[pytest]`).
    like: str | None = None
    # `check NAME`: checker modules that read what the words alone do not say.
    checks: tuple[str, ...] = ()
    # `if-value`: operand and option values that name programs or remote code.
    value_rules: tuple[ValueRule, ...] = ()
    # `runs-project "why"`: it runs the project's own configuration or code.
    project: str | None = None
    # `prints-env MODE`: when it prints environment variables (README.md).
    prints_env: str | None = None
    # `finds-repository "why"`: it uses the repository it finds from where it runs, whose
    # config can run programs: verified only at the workspace root.
    repository: str | None = None
    # `key-operand KEY ROLE`: operands spelled KEY=VALUE whose value has ROLE (dd of=).
    key_operands: tuple[tuple[str, str], ...] = ()
    shorts: dict[str, Option] = field(default_factory=dict, compare=False)
    longs: dict[str, Option] = field(default_factory=dict, compare=False)

    def has(self, flag: str) -> bool:
        """True when the entry sets the setting `flag` (numbers, open, subcommands...)."""
        return flag in self.flags

    @functools.cached_property
    def changing(self) -> tuple[Option, ...]:
        """The options that change what the command does in any way (effects or risk)."""
        return tuple(o for o in self.options if o.raises)

    @functools.cached_property
    def raising(self) -> tuple[Option, ...]:
        """The options a rule must name: they add a kind of effect, destroy, or run code."""
        return tuple(o for o in self.options if self.raised_by(o))

    def raised_by(self, option: Option) -> bool:
        """True when `option` adds a kind of effect this command does not have on its own
        (curl -o writes), destroys, or runs a program (docs/SPEC.md §4.7); an option of the
        command's own kind (tar -x for tar) is no raise."""
        risk = option.risk
        return risk is not None and risk is not Risk.READ_ONLY and (
            risk is not self.risk or risk.rank >= Risk.DESTRUCTIVE.rank
            or bool(option.effects & {Effect.EXEC, Effect.CONFIG}))
