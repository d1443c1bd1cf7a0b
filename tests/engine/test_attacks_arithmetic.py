"""Attacks on the approval engine by arithmetic: bash evaluates array subscripts and run-time
data as expressions, which can run code (docs/SPEC.md §4.1-4.4, §4.7-4.8).

Rows, holes and what each asserts: tests/support/attacks.py.
"""

from __future__ import annotations

import pytest

from saikish.types import Autonomy
from saikish.types import ReasonKind as Why
from tests.support.attacks import RUNS, A, Attack, assert_blocked, context, params

SUBSCRIPT = [
    A("x='a[`id`]'; echo ${!x}", "", Why.UNKNOWN, RUNS),
    A("printf -v x %s 'a[$(id)]'; [[ $x -gt 0 ]]", "", Why.UNKNOWN,
      RUNS),
    A("x='a[$(rm -r y)]'; echo $((x))", "", Why.UNKNOWN, RUNS),
]

SUBSCRIPT_HOLES = [
    A("x=a[\\$\\(rm\\ -r\\ y\\)]; echo $((x))", "", Why.UNKNOWN, RUNS),
    A("printf -v x 'a[%s(rm -r y)]' '$'; echo $((x))", "", Why.UNKNOWN, RUNS),
    A("x=$(printf 'a[\\x24(rm -r y)]'); echo $((x + 1))", "", Why.UNKNOWN, RUNS),
    A("read x <<< 'a[$''(rm -r y)]'; echo $((x))", "", Why.UNKNOWN, RUNS),
    A("declare -i n; n=a[\\$\\(rm\\ -r\\ y\\)]", "", Why.UNKNOWN, RUNS),
    A("x=a[\\$\\(rm\\ -r\\ y\\)]; [[ $x -gt 0 ]]", "", Why.UNKNOWN, RUNS),
    A("x=a[\\$\\(rm\\ -r\\ y\\)]; echo ${!x}", "", Why.UNKNOWN, RUNS),
]

ARITH_HOLES = [
    # read with no names sets REPLY, mapfile with none MAPFILE (man bash).
    A("read < f; echo $((REPLY))", "$REPLY", Why.UNKNOWN, RUNS),
    A("mapfile < f; echo $((MAPFILE))", "$MAPFILE", Why.UNKNOWN, RUNS),
    A("[[ $(<f) =~ (.*) ]]; echo $((BASH_REMATCH[1]))", "$BASH_REMATCH", Why.UNKNOWN, RUNS),
    # Positional parameters: file names from a cloned project, or a file's words.
    A("set -- *; echo $(($1))", "", Why.UNKNOWN, RUNS),
    A("set -- $(<f); echo $(($1))", "", Why.UNKNOWN, RUNS),
    # A literal name that names tainted data: bash evaluates values recursively.
    A("read n < f; x=n; echo $((x))", "$", Why.UNKNOWN, RUNS),
    A("declare -i n; read v < f; n=v", "$n", Why.UNKNOWN, RUNS),
    A("read v < f; declare -r -i n=v", "$v", Why.UNKNOWN, RUNS),
    # Offsets and lengths are arithmetic ("Parameter Expansion"), on ${@:...}, ${a[@]:...},
    # ${1:...} too; ${#a[n]} and ${!a[n]} evaluate the subscript.
    A("read n < f; set -- a b; echo ${@:n}", "$n", Why.UNKNOWN, RUNS),
    A("read n < f; a=(1 2); echo ${a[@]:n}", "$n", Why.UNKNOWN, RUNS),
    A("read n < f; echo ${1:n}", "$n", Why.UNKNOWN, RUNS),
    A("read n < f; a=(1 2); echo ${#a[n]}", "$n", Why.UNKNOWN, RUNS),
    A("read n < f; echo \"${!a[n]}\"", "$n", Why.UNKNOWN, RUNS),
]

ARITH_BLOCKED = [
    A("read n < f; (( n ))", "$n", Why.UNKNOWN, RUNS),
    A("read n < f; echo ${x:n}", "$n", Why.UNKNOWN, RUNS),
    A("read n < f; echo $[n]", "", Why.UNKNOWN, RUNS),
    A("read n < f; a[n]=1", "$n", Why.UNKNOWN, RUNS),
    A("while read -r line; do echo $((line)); done < f", "$line", Why.UNKNOWN, RUNS),
    A("x=$(<f) ; echo $((x))", "$x", Why.UNKNOWN, RUNS),
    A("for x in $(cat f); do echo $((x)); done", "$x", Why.UNKNOWN, RUNS),
    A("read -a a < f; echo $((a))", "$a", Why.UNKNOWN, RUNS),
    A("read n < f; a=(1 2); unset 'a[n]'", "unset a[n]", Why.EXEC, RUNS),
    A("read n < f; a=(1 2); [[ -v a[n] ]]", "test -v a[n]", Why.EXEC, RUNS),
]

ROWS = SUBSCRIPT + SUBSCRIPT_HOLES + ARITH_HOLES + ARITH_BLOCKED


@pytest.mark.parametrize(("row", "autonomy"), params(ROWS))
def test_attack_is_blocked_by_the_part_it_names(row: Attack, autonomy: Autonomy) -> None:
    """Under the permissive prefix rules people write (tests/support/attacks.py)."""
    assert_blocked(row, context(autonomy))
