"""Attacks on the approval engine by writes into .git: hooks and config there are code git runs
later (docs/SPEC.md §4.1-4.4, §4.7-4.8).

Rows, holes and what each asserts: tests/support/attacks.py.
"""

from __future__ import annotations

import pytest

from saikish.types import Autonomy
from saikish.types import ReasonKind as Why
from tests.support.attacks import RUNS, A, Attack, assert_blocked, context, params

# -- regression: writes into .git are code git runs later --------------------------------------

GIT_DIR = [
    A("install -D x .git/hooks/pre-commit", "writes .git/hooks/pre-commit",
      Why.WRITES, "cs"),
    A("dd of=.git/config if=x", "writes .git/config", Why.WRITES, "cs"),
    A("git checkout-index --prefix=.git/hooks/ pre-commit", "writes .git/hooks",
      Why.WRITES, "cs"),
    A("git archive HEAD | tar -x -C .git/hooks", "writes .git/hooks",
      Why.WRITES, "cs"),
    A("unzip x.zip -d .git", "writes .git", Why.WRITES, "cs"),
    A("ln -sf ../../x .git/hooks/pre-commit", "writes .git/hooks/pre-commit",
      Why.WRITES, "cs"),
    A("cp x /srv/project/.git/config", "writes /srv/project/.git/config",
      Why.WRITES, "cs"),
    A("mv -t .git/hooks x", "writes .git/hooks", Why.WRITES, "cs"),
    A("sort -o .git/config x", "writes .git/config", Why.WRITES, "cs"),
    A("cp x src/../.git/config", "writes src/../.git/config", Why.WRITES,
      "cs"),
    # the link itself names .git: what is written through it later is .git too
    A("ln -s .git g && cp x g/hooks/pre-commit", "writes .git", Why.WRITES, "cs"),
    A("mv .git g && cp x g/config && mv g .git", "writes .git", Why.WRITES, "cs"),
    A("pushd .git && cp ../x config", "writes config", Why.DYNAMIC, RUNS),
]

GIT_HOLES = [
    A("cp -r x/.git .", "writes", Why.WRITES, "cs"),
    A("rsync -a x/.git .", "", Why.WRITES, "cs"),
    A("cp x .{git,y}/config", "writes", Why.WRITES, "cs"),
    A("cp x .gi{t,}/config", "writes", Why.WRITES, "cs"),
    A("git archive --prefix=.git/hooks/ HEAD:hooks | tar -x", "", Why.WRITES,
      "cs"),
    A("tar -cf - -C x .git | tar -xf -", "", Why.WRITES, "cs"),
    A("tar -xf x.tar", "", Why.WRITES, "cs",
      hole="MEDIUM: a project archive can hold .git/hooks/pre-commit; tar -x writes it"),
    A("unzip x.zip", "", Why.WRITES, "cs",
      hole="MEDIUM: a project zip can hold .git/config; unzip writes it"),
]

GIT_BLOCKED = [
    A("cp x .Git/config", "writes .Git/config", Why.WRITES, "cs"),
    A("cp x ./.git//hooks/pre-commit", "writes", Why.WRITES, "cs"),
    A("cp x .git/./config", "writes", Why.WRITES, "cs"),
    A("ln -s /srv/project/.git g && cp x g/config", "writes", Why.WRITES,
      "cs"),
    A("ln -sr .git g && cp x g/config", "writes", Why.WRITES, "cs"),
    A("ln -s .git/hooks h && cp x h/pre-commit", "writes", Why.WRITES, "cs"),
    A("cd .git/ && cp ../x config", "writes .git/config", Why.WRITES, "cs"),
    A("env --chdir=.git cp ../x config", "writes .git/config", Why.WRITES,
      "cs"),
    A("tar -xf x.tar -C.git", "writes .git", Why.WRITES, "cs"),
    A("cp -rT g .git", "writes .git", Why.WRITES, "cs"),
    A("rsync -a g/ .git/", "writes .git", Why.WRITES, "cs"),
    A("git format-patch -o .git/hooks HEAD~1", "writes .git/hooks", Why.WRITES,
      "cs"),
    # blocked, though the word is off: cp -t . x/.git reads x/.git and writes ./.git
    A("cp -rt . x/.git", "writes", Why.WRITES, "cs"),
]

ROWS = GIT_DIR + GIT_HOLES + GIT_BLOCKED


@pytest.mark.parametrize(("row", "autonomy"), params(ROWS))
def test_attack_is_blocked_by_the_part_it_names(row: Attack, autonomy: Autonomy) -> None:
    """Under the permissive prefix rules people write (tests/support/attacks.py)."""
    assert_blocked(row, context(autonomy))
