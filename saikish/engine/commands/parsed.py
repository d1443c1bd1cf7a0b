"""What the grammar reads from one simple command: its words and what it found in them.

The nouns of saikish/engine/commands/grammar.py, apart from the walk itself: a shell word
after quote removal, a finding that raises the risk, a command run inside another, and
the Parse that sums up one command (docs/SPEC.md §4.7).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from saikish.engine.commands.catalogue import TERMINAL_ROLES, Role
from saikish.records import quick
from saikish.types import ReasonKind, Risk

_GLOB_CHARS = "*?[{"

# The names that make a program read a file argument from its standard input.
STDIN_NAMES = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})
# A tilde-prefix bash may expand to a directory only known at run time (~+, ~-, ~2, ~-1),
# or one ending at ':' or '=' (`~:x` is `$HOME:x`), which no path check reads as the home.
RUN_TIME_TILDE = re.compile(r"~(?:[-+0-9=]|[^/]*:)")


@quick
@dataclass(frozen=True)
class Word:
    """One shell word after quote removal."""

    value: str
    dynamic: bool = False   # holds $var, $(...), `...`: its value is known only at run time
    globbing: bool = False  # unquoted * ? [ or {a,b}: may expand to other words
    ansi_c: bool = False    # $'...' or $"...": not decoded here, so not trusted
    splits: bool = False    # an unquoted $var or $( ): bash may split it into several words

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


@quick
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
    # What kind of reason `why` is; None: the kind its risk stands for.
    kind: ReasonKind | None = None

    @property
    def reason_kind(self) -> ReasonKind:
        """What kind of reason this is (docs/SPEC.md §4.1)."""
        return self.kind or ReasonKind.of(self.risk)


@quick
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


@quick
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
    # The checkers its entry names (`check NAME`): saikish/engine/commands/checks/.
    checks: tuple[str, ...] = ()
    # Why it runs the project's own configuration or code (`runs-project`), or None.
    project: str | None = None
    # The environment variables it prints to its output; "*" for all of them.
    env_printed: tuple[str, ...] = ()
    # Why running it elsewhere than the workspace root is not verified (`finds-repository`).
    repository: str | None = None

    @property
    def caveat(self) -> str | None:
        """Why a prefix rule cannot cover this command, or None."""
        return self.findings[0].why if self.findings else None

    @property
    def hard(self) -> bool:
        """True when no rule at all can cover this command."""
        return any(f.hard for f in self.findings)

    def option_values(self, *names: str) -> list[str]:
        """The values given to the options named (by their long spelling, or only one)."""
        return [v for n, v in self.options if n in names and v is not None]


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


def word_flags(w: Word) -> tuple[bool, bool, bool, bool]:
    """A word's (dynamic, globbing, ansi_c, splits), for a word cut out of it."""
    return w.dynamic, w.globbing, w.ansi_c, w.splits
