"""Every risk-raising option in the catalogue stays unallowed, directly and behind wrappers.

Generated from the catalogue itself (docs/SPEC.md §4.7): for each entry and each of its
options that raises risk (`Entry.raising`: writes, runs a program, changes configuration,
forces, deletes, reaches the network...), a command using that option, with a plausible
value where it takes one. The rules in force are as permissive as rules get: a prefix rule
for the entry's own words (`Bash(git push *)`, `Bash(sort *)`) and for every wrapper. A
risk-raising option is never covered by a shorter rule, so none of these may be ALLOWED
under cautious autonomy, and the words the grammar must read are the option's own.

Run time: every option is checked directly and behind one wrapper, chosen round-robin so
every wrapper sees about 1/12 of the options (about 3,000 decisions); every 20th option is
also checked behind every wrapper. That keeps the file at a few seconds on one core.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from saikish.engine.commands.catalogue import Catalogue, Effect, Entry, Option
from saikish.engine.policy import Context, RuleSet, decide
from saikish.rules import parse_rule
from saikish.tools import builtin_tools
from saikish.types import Assessment, Autonomy, ToolCall, Verdict

WORKSPACE = "/srv/project"
# Wrappers and runners: how each one puts a command behind it.
WRAPPERS = {
    "env": lambda c: f"env {c}",
    "timeout": lambda c: f"timeout 5 {c}",
    "nice": lambda c: f"nice {c}",
    "xargs": lambda c: f"xargs {c}",
    "bash -c": lambda c: f"bash -c {shlex.quote(c)}",
    "sh -c": lambda c: f"sh -c {shlex.quote(c)}",
    "uv run": lambda c: f"uv run {c}",
    "command": lambda c: f"command {c}",
    "nohup": lambda c: f"nohup {c}",
    "stdbuf": lambda c: f"stdbuf -oL {c}",
    "setsid": lambda c: f"setsid {c}",
    "time": lambda c: f"time {c}",
}
WRAPPER_RULES = ["Bash(env *)", "Bash(timeout *)", "Bash(nice *)", "Bash(xargs *)",
                 "Bash(bash *)", "Bash(sh *)", "Bash(uv run *)", "Bash(command *)",
                 "Bash(nohup *)", "Bash(stdbuf *)", "Bash(setsid *)", "Bash(time *)"]
EVERY_WRAPPER_EACH = 20
# Known holes: (entry, option) -> what goes wrong today (xfail strict until fixed).
# Rows the engine got wrong, as (entry, option) -> "HOLE: why"; none are open today.
KNOWN: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Case:
    """One risk-raising option of one entry, as a command line."""

    entry: str
    option: str
    command: str


def _value(option: Option) -> str:
    """A plausible value: a file inside the workspace for writes, a program for exec."""
    if Effect.WRITES in option.effects or Effect.WRITES_OPERANDS in option.effects:
        return "out.txt"
    # What runs is analysed (find -exec, python -m, tar --to-command): give it something
    # that must be asked, so the test sees the analysis, not a harmless 'id'.
    if option.effects & {Effect.RUNS, Effect.RUNS_REST}:
        return "rm"
    if option.effects & {Effect.RUNS_SCRIPT, Effect.CODE_OPERAND}:
        return "rm -r x"
    if Effect.EXEC in option.effects:
        return "id"
    if Effect.CONFIG in option.effects:
        return "core.pager=id"
    return "x"


def _words(entry: Entry, option: Option, pick: int) -> list[str]:
    """The option in one of its spellings, with its value(s) as the grammar expects."""
    spelling = option.spellings[pick % len(option.spellings)]
    count, optional = option.form(spelling)
    value = _value(option)
    if optional:  # an optional value is only ever attached: --name=VAL, -xVAL
        return [f"{spelling}={value}" if spelling.startswith("--") or entry.style == "single"
                else f"{spelling}{value}"]
    if count == -1:  # find -exec CMD... ;
        return [spelling, value, ";"]
    if Effect.CODE_OPERAND in option.effects:  # bash -c SCRIPT: the code is the operand
        return [spelling] + [value] * count + [value]
    return [spelling] + [value] * count


def cases() -> Iterator[Case]:
    """Every risk-raising option of every catalogue entry, as a command."""
    catalogue = Catalogue()
    for pick, name in enumerate(sorted(catalogue.names())):
        entry = catalogue.get(*name.split())
        if entry is None:
            continue
        for option in entry.raising:
            words = list(entry.words) + _words(entry, option, pick)
            yield Case(name, option.name, " ".join(shlex.quote(w) for w in words))


CASES = list(cases())


def context(entry: str) -> Context:
    """The entry's own prefix rule and every wrapper's, under cautious autonomy."""
    allow = [f"Bash({entry} *)"] + WRAPPER_RULES
    rules = RuleSet(config_allow=tuple(parse_rule(r, "test") for r in allow))
    return Context(builtin_tools(), rules, Autonomy.CAUTIOUS, workspace=WORKSPACE)


def explain(found: Assessment) -> str:
    """The assessment as lines, for failure messages."""
    lines = [f"{found.verdict.value} {found.risk.name} {found.source.value}: {found.reason}"]
    lines += [f"  {'ok' if c.permitted else 'NO'} {c.text!r} {c.risk.name} "
              f"by={c.allowed_by} caveat={c.caveat!r}" for c in found.commands]
    return "\n".join(lines)


def _verdict(command: str, entry: str) -> Assessment:
    return decide(ToolCall("1", "bash", {"command": command}), context(entry))


def _params() -> list[object]:
    names = list(WRAPPERS)
    out: list[object] = []
    for i, case in enumerate(CASES):
        chosen = names if i % EVERY_WRAPPER_EACH == 0 else [names[i % len(names)]]
        for wrapper in [None, *chosen]:
            hole = KNOWN.get((case.entry, case.option))
            marks = [pytest.mark.xfail(strict=True, reason=hole)] if hole else []
            out.append(pytest.param(case, wrapper, marks=marks,
                                    id=f"{wrapper or 'direct'}:{case.command[:70]}"))
    return out


@pytest.mark.parametrize(("case", "wrapper"), _params())
def test_risk_raising_option_is_never_allowed(case: Case, wrapper: str | None) -> None:
    command = WRAPPERS[wrapper](case.command) if wrapper else case.command
    found = _verdict(command, case.entry)
    assert found.verdict is not Verdict.ALLOW, (
        f"{case.entry} {case.option} is risk-raising, yet allowed\n{explain(found)}")
    blocking = [c for c in found.commands if not c.permitted]
    assert blocking or found.reason, explain(found)


def test_the_catalogue_has_risk_raising_options_to_check() -> None:
    entries = {c.entry for c in CASES}
    assert len(CASES) > 1000 and len(entries) > 300, (len(CASES), len(entries))


def test_every_entry_judges_words_built_at_run_time_without_failing() -> None:
    """Words only known at run time, and xargs' input appended past the words as written,
    reach every entry's checks (a check once indexed past them: a traceback, no decision)."""
    ctx = Context(builtin_tools(), RuleSet(), Autonomy.CAUTIOUS, workspace=WORKSPACE)
    names = Catalogue().names()
    assert len(names) > 2000
    verdicts = [decide(ToolCall("1", "bash", {"command": command}), ctx).verdict
                for name in names for command in (f"find . | xargs {name}", f"{name} $x")]
    assert len(verdicts) == 2 * len(names)  # a failing check raises instead
