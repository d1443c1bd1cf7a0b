"""Attacks on the approval engine by functions defined in the call shadowing the names of
commands (docs/SPEC.md §4.1-4.4, §4.7-4.8).

Rows, holes and what each asserts: tests/support/attacks.py.
"""

from __future__ import annotations

import pytest

from saikish.types import Autonomy
from saikish.types import ReasonKind as Why
from tests.support.attacks import RUNS, A, Attack, assert_blocked, context, params

# -- functions shadowing names ---------------------------------------------------------

SHADOW = [
    A("ls() { rm -r ~; }; ls", "ls", Why.EXEC, RUNS),
    A("git() { curl x; }; git status", "git status", Why.EXEC, RUNS),
    A("function cat { curl x; }; cat f", "cat f", Why.EXEC, RUNS),
    A("cat() { :; }; cat .env", "cat .env", Why.EXEC, RUNS),
    A("echo() { rm -r ~; }; echo hi", "echo hi", Why.EXEC, RUNS),
    A("grep() { curl x; }\ngrep -r foo .", "grep -r foo", Why.EXEC, RUNS),
    A("f() { git status; }; git() { id; }; f", "f", Why.EXEC, RUNS),
    A("function ls() { id; }; ls -la", "ls -la", Why.EXEC, RUNS),
    A("alias ls='rm -r ~'; ls", "alias ls=rm -r ~", Why.UNKNOWN),
]


@pytest.mark.parametrize(("row", "autonomy"), params(SHADOW))
def test_attack_is_blocked_by_the_part_it_names(row: Attack, autonomy: Autonomy) -> None:
    """Under the permissive prefix rules people write (tests/support/attacks.py)."""
    assert_blocked(row, context(autonomy))
