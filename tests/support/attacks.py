"""The row type and helpers of the attack tables (tests/engine/test_attacks_*.py).

Every row names the command, the part of it that must block the call (a simple command's
words, a write target `> PATH` / `writes PATH`, or a read target `reads PATH`) and the kind
of reason the engine must give for it (`Why`, saikish.types.ReasonKind). So a row fails when
the mechanism it names is switched off, not only when the call goes through.

The allowlist is permissive on purpose: prefix rules for the very tools the attacks abuse
(`Bash(sort *)`, `Bash(tar *)`, `Bash(git *)`, `Bash(python3 *)`...). People write rules
like these, and with them in force an attack is blocked only by the mechanism under test
(a risk-raising option a shorter rule never covers, a write target, a hijacked variable),
never merely because the command is unknown.

Rows marked xfail(strict) with "HOLE:" (`hole=`, with a severity) are attacks the engine
lets through today: a fix turns them into failures the coordinator sees, who removes the
mark. Nothing runs the attack strings: they are only handed to `decide()`.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from saikish.engine.policy import Context, RuleSet, decide
from saikish.rules import parse_rule
from saikish.tools import builtin_tools
from saikish.types import Assessment, Autonomy, ToolCall, Verdict
from saikish.types import ReasonKind as Why

ALLOW: list[object] = [
    "Bash(cat *)", "Bash(sort *)", "Bash(tar *)", "Bash(zip *)", "Bash(unzip *)",
    "Bash(man *)", "Bash(less *)", "Bash(head *)", "Bash(tail *)", "Bash(ls *)",
    "Bash(grep *)", "Bash(rg *)", "Bash(sed *)", "Bash(awk *)", "Bash(jq *)", "Bash(yq *)",
    "Bash(find *)", "Bash(tree *)", "Bash(iconv *)", "Bash(uniq *)", "Bash(dc *)",
    "Bash(echo *)", "Bash(printf *)", "Bash(git *)", "Bash(npm *)", "Bash(pip *)",
    "Bash(env *)", "Bash(timeout *)", "Bash(xargs *)", "Bash(nice *)", "Bash(nohup *)",
    "Bash(stdbuf *)", "Bash(time *)", "Bash(uv run *)", "Bash(python3 *)", "Bash(make *)",
    "Bash(pytest *)", "Bash(rsync *)", "Bash(curl *)", "Bash(wget *)", "Bash(go *)",
    "Bash(cargo *)", "Bash(cp *)", "Bash(mv *)", "Bash(mkdir *)", "Bash(touch *)",
    "Bash(chmod *)", "Bash(dd *)", "Bash(tee *)", "Bash(diff *)", "Bash(wc *)",
    "Bash(ssh *)", "Bash(gcc *)", "Bash(cc *)", "Bash(perl *)", "Bash(node *)",
    "Bash(ruby *)", "Bash(php *)", "Bash(lua *)", "Bash(ln *)", "Bash(base64 *)",
    "Bash(fd *)", "Bash(pidstat *)",
    {"tool": "write_file", "when": {"path": "docs/**/*.md"}},
]
DENY = ["Bash(git push --force *)", "Bash(rm -rf *)"]
WORKSPACE = "/srv/project"
LEVELS = {"c": Autonomy.CAUTIOUS, "s": Autonomy.SUPERVISED, "f": Autonomy.FULL_AUTO}


def context(autonomy: Autonomy = Autonomy.CAUTIOUS, allow: list[object] | None = None,
            deny: list[str] | None = None) -> Context:
    """The permissive allowlist and the two deny rules, under `autonomy`."""
    rules = RuleSet(
        config_allow=tuple(parse_rule(r, "test") for r in (ALLOW if allow is None else allow)),
        config_deny=tuple(parse_rule(r, "test") for r in (DENY if deny is None else deny)))
    return Context(builtin_tools(), rules, autonomy, workspace=WORKSPACE)


def assess(command: str, ctx: Context) -> Assessment:
    """The engine's whole answer for one bash call."""
    return decide(ToolCall("1", "bash", {"command": command}), ctx)


def explain(found: Assessment) -> str:
    """The assessment as lines, for failure messages."""
    lines = [f"{found.verdict.value} {found.risk.name} {found.source.value}: {found.reason}"]
    lines += [f"  {'ok' if c.permitted else 'NO'} {c.text!r} {c.risk.name} "
              f"by={c.allowed_by} caveat={c.caveat!r}" for c in found.commands]
    return "\n".join(lines)


def blocking_part(found: Assessment, part: str, why: Why) -> str | None:
    """The blocking part holding `part` whose reason is of kind `why`, or None.

    A part blocks when it is not permitted (no rule, no autonomy); the kind of its reason
    is its own (CommandCheck.reason_kind). A call decided as a whole (escalation, a deny
    rule, input that cannot be analysed) names the part in `found.reason` and has the
    kind of that reason (Assessment.reason_kind). The reason's words are for people: a
    test asserts the kind, never a piece of the text.
    """
    for check in found.commands:
        if not check.permitted and part in check.text and check.reason_kind is why:
            return check.text
    if part in found.reason and found.reason_kind is why:
        return found.reason
    return None


@dataclass(frozen=True)
class Attack:
    """One attack: what it is, which part must block it, and the kind of reason why."""

    command: str
    part: str
    why: Why
    levels: str = "c"  # autonomy levels it must stay blocked under: c, s, f
    hole: str | None = None  # the engine lets it through today (xfail strict)

    def param(self, level: str) -> object:
        """A pytest parameter, xfail(strict) when it is a known hole."""
        marks = [pytest.mark.xfail(strict=True, reason=f"HOLE: {self.hole}")] if self.hole else []
        return pytest.param(self, LEVELS[level], marks=marks,
                            id=f"{level}:{self.command[:60]}")


def A(command: str, part: str, why: Why, levels: str = "c",
      hole: str | None = None) -> Attack:
    """An attack row (short name: the tables below are long)."""
    return Attack(command, part, why, levels, hole)


RUNS = "csf"  # runs code or names a program: no autonomy level may run it unasked



def assert_blocked(row: Attack, ctx: Context) -> None:
    """The row's command is not allowed under `ctx`, and its named part blocks it, why."""
    found = assess(row.command, ctx)
    assert found.verdict is not Verdict.ALLOW, explain(found)
    where = blocking_part(found, row.part, row.why)
    assert where is not None, (f"expected {row.part!r} to block"
                               f" for a reason of kind {row.why.value}\n"
                               + explain(found))


def params(rows: list[Attack]) -> list[object]:
    """One pytest parameter per row and autonomy level it must stay blocked under."""
    return [row.param(level) for row in rows for level in row.levels]
