"""Attacks on the approval engine by deny-rule dodges: a deny rule matches the meaning of a
command, not its spelling (docs/SPEC.md §4.1-4.4, §4.7-4.8).

Rows, holes and what each asserts: tests/support/attacks.py.
"""

from __future__ import annotations

import pytest

from saikish.engine.policy import Context, RuleSet
from saikish.rules import parse_rule
from saikish.tools import builtin_tools
from saikish.types import Autonomy, Mode, Source, Verdict
from saikish.types import ReasonKind as Why
from tests.support.attacks import (
    DENY,
    LEVELS,
    RUNS,
    WORKSPACE,
    A,
    Attack,
    assert_blocked,
    assess,
    context,
    explain,
    params,
)

# -- deny-rule dodges (must be rejected by the rule) ------------------------------------

FORCE = "Bash(git push --force *)"

RMRF = "Bash(rm -rf *)"
DENY_RM, DENY_PUSH = RMRF, FORCE

DENY_DODGES = [
    ("git --no-pager push --force origin", FORCE),
    ("git push origin main --force", FORCE),
    ("git push -f origin", FORCE),
    ("git push -f", FORCE),
    ("git -C x -c k=v push --force", FORCE),
    ("git -C /tmp push -f", FORCE),
    ("git push --force", FORCE),
    ("git push -uf origin main", FORCE),
    ("git -p push -f origin", FORCE),
    ("env git push -f origin", FORCE),
    ("timeout 5 git push -f", FORCE),
    ("/usr/bin/git push -f", FORCE),
    ("bash -c 'git push -f'", FORCE),
    ("ls && git push --force", FORCE),
    ("/usr/bin/rm -rf x", RMRF),
    ("rm -r -f x", RMRF),
    ("rm --recursive --force x", RMRF),
    ("rm -fr x", RMRF),
    ("rm -Rf x", RMRF),
    ("rm --rec --for x", RMRF),
    ("command rm -rf x", RMRF),
    ("env rm -rf x", RMRF),
    ("\\rm -rf x", RMRF),
    ("'rm' -rf x", RMRF),
    ("r''m -rf x", RMRF),
    ("rm -rfv x", RMRF),
    ("rm -f -r x", RMRF),
    ("rm -rf -- x", RMRF),
    ("rm x -rf", RMRF),
    ("xargs rm -rf", RMRF),
    ("find . -exec rm -rf {} +", RMRF),
    ("ls() { rm -rf ~; }; ls", RMRF),
    ("echo $(rm -rf x)", RMRF),
    ("uv run rm -rf x", RMRF),
    ("ssh host rm -rf /", RMRF),
    ("sh -c 'rm -rf /'", RMRF),
    ("bash <<'EOF'\nrm -rf ~\nEOF", RMRF),
]

# Dodges the engine cannot prove are the denied command: asked (never allowed), by name.
DENY_UNSURE = [
    A("git push $F origin", "git push $F", Why.DYNAMIC,
      RUNS),
    A("rm $FLAGS x", "rm $FLAGS x", Why.DYNAMIC, RUNS),
    A("rm -r x", "rm -r x", Why.WRITES),
    A("git push --forc origin", "git push --forc", Why.UNKNOWN,
      RUNS),
    A("git push origin +main", "git push origin +main", Why.RULE),
]

# -- regression: the plain path splits and unquotes as bash does ------------------------------

# A backslash, a quote or a tab never hides a word from the deny rules (the words bash makes
# are `rm -rf x`, `git push -f`, ...).
DENY_PLAIN = [
    ("rm \\-rf x", DENY_RM),
    ("rm -r\\f x", DENY_RM),
    ("\\r\\m '-r'f x", DENY_RM),
    ("ls || 'rm' -r\"f\" x", DENY_RM),
    ("ls\t&&\trm -rf x", DENY_RM),
    ("ls ;rm -rf x", DENY_RM),
    ("echo a#b; rm -rf x", DENY_RM),  # '#' inside a word is no comment
    ("git pu\\sh -\\f", DENY_PUSH),
    ("git \"push\" --forc\\e", DENY_PUSH),
]

# Under --auto-approve nobody is asked: a deny rule that could match must reject (§4.7).
AUTO_APPROVE_DODGES = [
    pytest.param(c, id=c) for c, _ in DENY_DODGES
] + [pytest.param(row.command, id=row.command,
                  marks=[pytest.mark.xfail(strict=True, reason=f"HOLE: {row.hole}")]
                  if row.hole else []) for row in DENY_UNSURE] + [
    pytest.param("rm -r$x f", id="rm -r$x f"),
    pytest.param("git push -$f", id="git push -$f"),
    pytest.param("eval rm -rf x", id="eval rm -rf x"),
    pytest.param("git push --for origin", id="git push --for origin"),
    pytest.param("$'rm' -rf x", id="$'rm' -rf x"),
    pytest.param("$(echo rm) -rf x", id="$(echo rm) -rf x"),
    pytest.param("x=rm; $x -rf y", id="x=rm; $x -rf y"),
    # ':main' deletes the remote branch: the same as --delete, and as forced as --force.
    pytest.param("git push origin :main", id="git push origin :main"),
]


@pytest.mark.parametrize(("row", "autonomy"), params(DENY_UNSURE))
def test_attack_is_blocked_by_the_part_it_names(row: Attack, autonomy: Autonomy) -> None:
    """Under the permissive prefix rules people write (tests/support/attacks.py)."""
    assert_blocked(row, context(autonomy))


@pytest.mark.parametrize(("command", "rule"), DENY_DODGES)
@pytest.mark.parametrize("level", ["c", "f"])
def test_deny_rule_matches_meaning_not_spelling(command: str, rule: str, level: str) -> None:
    found = assess(command, context(LEVELS[level]))
    assert (found.verdict, found.source, found.rule) == (
        Verdict.REJECT, Source.DENY_RULE, rule), explain(found)
    assert f"is denied by rule {rule}" in found.reason


@pytest.mark.parametrize("command", AUTO_APPROVE_DODGES)
def test_deny_rules_hold_under_auto_approve(command: str) -> None:
    rules = RuleSet(config_deny=tuple(parse_rule(r, "test") for r in DENY))
    ctx = Context(builtin_tools(), rules, Autonomy.CAUTIOUS, Mode.AUTO_APPROVE, WORKSPACE)
    found = assess(command, ctx)
    assert found.verdict is Verdict.REJECT, explain(found)
    assert "denied by rule" in found.reason or "deny rules" in found.reason, explain(found)


@pytest.mark.parametrize(("command", "rule"), DENY_PLAIN)
@pytest.mark.parametrize("level", ["c", "f"])
def test_quotes_and_escapes_never_hide_a_denied_command(command: str, rule: str,
                                                        level: str) -> None:
    found = assess(command, context(LEVELS[level]))
    assert (found.verdict, found.source, found.rule) == (
        Verdict.REJECT, Source.DENY_RULE, rule), explain(found)
