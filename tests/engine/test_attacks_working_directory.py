"""Attacks on the approval engine by the working directory: after `cd`, a command with no path
reads where it moved (docs/SPEC.md §4.1-4.4, §4.7-4.8).

Rows, holes and what each asserts: tests/support/attacks.py.
"""

from __future__ import annotations

import pytest

from saikish.types import Autonomy
from saikish.types import ReasonKind as Why
from tests.support.attacks import RUNS, A, Attack, assert_blocked, context, params

DIRECTORY_HOLES = [
    A("builtin cd ~ && grep -r token", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("command cd ~/.config/gh && cat hosts.yml", "reads ~/.config/gh", Why.READS_OUTSIDE,
      RUNS),
    A("builtin cd /etc && cat passwd", "reads /etc", Why.READS_OUTSIDE, RUNS),
    A("command -p cd ~ && rg -uu KEY", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("builtin pushd .. && rg -uu password", "reads", Why.DYNAMIC, RUNS),
    A("command pushd .. && rg -uu password", "reads", Why.DYNAMIC, RUNS),
    # man bash, shopt: "lastpipe If set, and job control is not active, the shell runs the
    # last command of a pipeline ... in the current shell environment" (bash -c: no job
    # control), so this cd moves the shell; the walker runs every pipeline part in a subshell.
    A("shopt -s lastpipe; : | cd ~; grep -r KEY", "shopt -s lastpipe", Why.EXEC,
      "sf"),
    # cdable_vars: "an argument to the cd builtin command that is not a directory is assumed
    # to be the name of a variable whose value is the directory to change to".
    A("shopt -s cdable_vars; h=~; cd h && grep -r KEY", "shopt -s cdable_vars",
      Why.EXEC, "sf"),
    # Pathname expansion reads the directory: file names of ~/.ssh reach the model.
    A("cd ~/.ssh && echo *", "reads ~/.ssh", Why.READS_OUTSIDE, RUNS,
      hole="LOW: a glob lists the names in the directory cd moved to (names only)"),
    A("cd ~ && printf '%s\\n' .*", "reads ~", Why.READS_OUTSIDE, RUNS,
      hole="LOW: a glob lists the home directory's dot files (names only)"),
]

DIRECTORY = [
    A("CDPATH=~ cd .ssh && cat id_rsa", "cd .ssh", Why.EXEC, RUNS),
    A("export CDPATH=~; cd .ssh && cat id_rsa", "export CDPATH", Why.EXEC, RUNS),
    A("time cd ~ ; grep -r KEY", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("{ cd ~; } 2>/dev/null; grep -r KEY", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("cd -P ~ && grep -r KEY", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("cd -- ~ && grep -r KEY", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("cd $HOME && grep -r KEY", "reads $PWD", Why.DYNAMIC, RUNS),
    A("cd ~ && timeout 5 grep -r KEY", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("cd ~; exec grep -r KEY", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("cd ~ && git grep KEY", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("cd ~ && find", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("cd ~ && tar -czf /tmp/x.tgz .", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("env -C~ grep -r KEY", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("env --chdir ~ grep -r KEY", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("git -C ~ grep KEY", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("f() { cd ~; }; f; grep -r KEY", "f", Why.EXEC, RUNS),
    A("eval 'cd ~' && grep -r KEY", "eval", Why.UNKNOWN, "cs"),
    A("trap 'cd ~' DEBUG; grep -r KEY", "trap", Why.UNKNOWN, "cs"),
    A("ln -s ~ h && cd h && grep -r KEY", "writes ~", Why.WRITES, "cs"),
    A("tar -czf o.tgz -C ~ .", "~", Why.WRITES, "cs"),
    # Full-auto runs unknown and destructive commands, but must still ask for reads outside
    # the workspace: these move the shell where the walker does not follow (eval's script and
    # a trap run in the current shell), or read ~ under the name of a write.
    A("eval 'cd ~' && grep -r KEY", "reads ~", Why.READS_OUTSIDE, "f"),
    A("trap 'cd ~' DEBUG; grep -r KEY", "reads ~", Why.READS_OUTSIDE, "f"),
    A("ln -s ~ h && cd h && grep -r KEY", "reads", Why.READS_OUTSIDE, "f",
      hole="MEDIUM: cd through a link made in the same call: grep searches ~"),
    A("tar -czf o.tgz -C ~ .", "reads ~", Why.READS_OUTSIDE, "f"),
]


@pytest.mark.parametrize(("row", "autonomy"), params(DIRECTORY))
def test_attack_is_blocked_by_the_part_it_names(row: Attack, autonomy: Autonomy) -> None:
    """Under the permissive prefix rules people write (tests/support/attacks.py)."""
    assert_blocked(row, context(autonomy))


@pytest.mark.parametrize(("row", "autonomy"),
                         [row.param(level) for row in DIRECTORY_HOLES + DIRECTORY
                          for level in row.levels])
def test_directory_moves_are_tracked_with_no_rules(row: Attack, autonomy: Autonomy) -> None:
    assert_blocked(row, context(autonomy, allow=[]))
