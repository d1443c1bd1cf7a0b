"""`git cat-file` reads objects; asked to convert them, it runs programs (docs/SPEC.md §4.7).

`--textconv` and `--filters` are off by default in cat-file (unlike `git diff`'s
textconv): asking for them runs the textconv driver or the smudge filter that the
repository's own .gitattributes picks for the path (git-lfs smudge fetches over the
network). A broad `Bash(git *)` rule must not cover them.
"""

from __future__ import annotations

import pytest

from saikish.types import Autonomy, Verdict
from saikish.types import ReasonKind as Why
from tests.support.attacks import assess, blocking_part, context, explain

ROWS = [
    ("git cat-file --textconv HEAD:notes.pdf", "git cat-file --textconv",
     Why.EXEC),
    ("git cat-file --filters HEAD:big.bin", "git cat-file --filters",
     Why.EXEC),
    ("git cat-file --batch --textconv", "git cat-file --batch --textconv",
     Why.EXEC),
]


@pytest.mark.parametrize(("command", "part", "why"), ROWS, ids=[r[0] for r in ROWS])
def test_converting_options_run_programs(command: str, part: str, why: Why) -> None:
    for autonomy in (Autonomy.CAUTIOUS, Autonomy.FULL_AUTO):
        found = assess(command, context(autonomy, allow=["Bash(git *)"]))
        assert found.verdict is not Verdict.ALLOW, explain(found)
        assert blocking_part(found, part, why) is not None, explain(found)


@pytest.mark.parametrize("command", ["git cat-file -p HEAD:notes.pdf", "git cat-file -s HEAD:x",
                                     "git cat-file --no-textconv -p HEAD:x",
                                     "git cat-file --no-filters -p HEAD:x"])
def test_reading_objects_stays_quiet(command: str) -> None:
    assert assess(command, context(Autonomy.CAUTIOUS)).verdict is Verdict.ALLOW
