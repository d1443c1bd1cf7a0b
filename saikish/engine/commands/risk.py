"""A simple command -> its Risk, and what a rule must name to cover it (docs/SPEC.md §4.7).

The catalogue grammar did the reading (saikish/engine/commands/grammar.py); this module
adds what the words alone do not say: escalation, hijacking variables, names only known at
run time, functions shadowing a command, code fed on stdin, secrets handed to the output
(environment.py), and what the checkers the entry names find (`check NAME`: checks/).
Unknown names are UNKNOWN: only what the catalogue lists is trusted.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from saikish.engine.bash.shell import ESCALATORS, SimpleCommand
from saikish.engine.commands.checks import run_checks
from saikish.engine.commands.checks.git_push import implied_options
from saikish.engine.commands.environment import secret_findings
from saikish.engine.commands.parsed import Finding, Parse
from saikish.records import quick
from saikish.rules import in_git_dir, workspace_relative
from saikish.types import Autonomy, Level, ReasonKind, Risk

R, B, W, D, U = Risk.READ_ONLY, Risk.BUILD_TEST, Risk.WRITE, Risk.DESTRUCTIVE, Risk.UNKNOWN

# Only these directories hold the real tools; './git' or 'bin/rm' could be anything.
TRUSTED_DIRS = frozenset({"/bin", "/usr/bin", "/usr/local/bin", "/sbin", "/usr/sbin"})


@quick
@dataclass(frozen=True)
class Classification:
    """A command's risk, why a prefix rule cannot cover it, and what a rule must name."""

    risk: Risk
    caveat: str | None = None
    # No rule at all covers the command (a word built at run time, a hijacked variable).
    hard: bool = False
    # argv indexes of words (risk-raising or unknown options) a rule must name literally.
    named: tuple[int, ...] = ()
    # What kind of reason the caveat (or, without one, the risk) is; None: as the risk says.
    kind: ReasonKind | None = None

    @property
    def reason_kind(self) -> ReasonKind:
        """What kind of reason the caveat is (docs/SPEC.md §4.1)."""
        return self.kind or ReasonKind.of(self.risk)


_CEILING = {Autonomy.FULL_AUTO: Level.HIGH, Autonomy.SUPERVISED: Level.MEDIUM,
            Autonomy.CAUTIOUS: Level.LOW, Autonomy.MANUAL: None}


def auto_approves(autonomy: Autonomy, risk: Risk) -> bool:
    """The autonomy matrix (docs/SPEC.md §4.3): True where `risk` runs without asking."""
    ceiling = _CEILING[autonomy]
    return ceiling is not None and risk.level <= ceiling


def write_risk(path: str, workspace: str) -> Risk:
    """Writing `path`: WRITE inside the workspace, DESTRUCTIVE outside it or in `.git`."""
    return relative_write_risk(workspace_relative(path, workspace))


def relative_write_risk(relative: str) -> Risk:
    """write_risk of a path already made workspace-relative (rules.workspace_relative)."""
    return D if os.path.isabs(relative) or in_git_dir(relative) else W


def classify(command: SimpleCommand) -> Classification:
    """The risk of one simple command; fails closed to UNKNOWN."""
    if command.basename in ESCALATORS:
        return Classification(Risk.ESCALATION, f"{command.basename} runs as another user",
                              hard=True)
    if command.hijack:
        return Classification(U, f"sets {command.hijack}, which changes what runs", hard=True,
                              kind=ReasonKind.EXEC)
    if command.dynamic_name:
        return Classification(U, "the command name is only known at run time", hard=True,
                              kind=ReasonKind.DYNAMIC)
    if command.shadowed:
        return Classification(U, f"a function named {command.basename} is defined in this "
                                 f"command and runs instead", hard=True, kind=ReasonKind.EXEC)
    found = command.parse
    if found is None:  # a bare redirection such as '> f': its write is judged on its own
        return Classification(R)
    if _trusted_name(command.name) is None or not found.known:
        return Classification(U)  # could be anything: an explicit rule may allow it
    findings = list(found.findings) + _stdin(command, found) + run_checks(found)
    findings += secret_findings(command)
    risk = Risk.highest([found.risk] + [f.risk for f in findings])
    if risk is Risk.ESCALATION:  # an entry or option that runs as another user (setpriv)
        why = next((f.why for f in findings if f.risk is Risk.ESCALATION and f.why),
                   f"{' '.join(found.path)} runs as another user")
        return Classification(Risk.ESCALATION, why, hard=True)
    # The hard reason first: it is why no rule can cover the command at all.
    blocking = sorted((f for f in findings if f.hard or f.index is not None),
                      key=lambda f: not f.hard)
    raising = [f for f in findings if f.risk is risk]
    deciding = blocking[0] if blocking else raising[0] if raising else None
    return Classification(
        risk, blocking[0].why if blocking else None, any(f.hard for f in blocking),
        tuple(sorted({f.index for f in blocking if f.index is not None and not f.hard})),
        deciding.reason_kind if deciding else None)


def _trusted_name(name: str) -> str | None:
    """The tool a command name really names, or None when it could be anything."""
    if "/" not in name:
        return name
    directory, base = os.path.split(name)
    return base if directory in TRUSTED_DIRS else None


def _stdin(command: SimpleCommand, found: Parse) -> list[Finding]:
    """An interpreter with no script runs what its stdin holds."""
    if not found.stdin_code:
        return []
    name = found.path[0]
    if command.stdin == "pipe":
        return [Finding(U, f"a pipe into {name} runs whatever it is sent", hard=True,
                        kind=ReasonKind.EXEC)]
    if command.stdin in ("heredoc", "herestring"):
        if found.shell:
            return []  # the script was analysed command by command
        return [Finding(U, f"{name} runs code from a here-document", hard=True,
                        kind=ReasonKind.EXEC)]
    if command.stdin == "file":
        return [Finding(B, f"{name} runs a script file")]
    # No script: the code comes from wherever stdin is, which no preview shows.
    return [Finding(U, f"{name} with no script runs code from its input", hard=True,
                    kind=ReasonKind.EXEC)]


__all__ = ["Classification", "auto_approves", "classify", "implied_options",
           "relative_write_risk", "write_risk"]
