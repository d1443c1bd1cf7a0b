"""Attacks on the approval engine by paths: tricks with `..`, `~`, links and globs never lead a
read or a write out of the workspace (docs/SPEC.md §4.1-4.4, §4.7-4.8).

Rows, holes and what each asserts: tests/support/attacks.py.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from saikish.types import Autonomy, Verdict
from saikish.types import ReasonKind as Why
from tests.support.attacks import (
    RUNS,
    A,
    Attack,
    assert_blocked,
    assess,
    blocking_part,
    context,
    explain,
    params,
)

# -- path tricks -----------------------------------------------------------------------

PATHS = [
    A("patch -d / -p1 < x.patch", "writes /", Why.WRITES, "cs"),
    A("patch --directory=/etc -p1 < x.patch", "writes /etc", Why.WRITES, "cs"),
    A("cpio -idm < a.cpio", "cpio -idm", Why.WRITES, "cs"),
    # ~- is $OLDPWD (often the home directory the person came from), ~+ is $PWD, ~N the
    # directory stack; bash expands them after = and : too (dd if=~-/x): run-time places.
    A("ls ~-", "reads ~-", Why.DYNAMIC, RUNS),
    A("cat ~-/.ssh/id_rsa", "reads ~-/.ssh/id_rsa", Why.DYNAMIC, RUNS),
    A("echo x >> ~-/.bashrc", "> ~-/.bashrc", Why.DYNAMIC, RUNS),
    A("dd if=~-/.ssh/id_rsa of=k", "reads ~-/.ssh/id_rsa", Why.DYNAMIC, RUNS),
    A("tar czf out.tgz ~+1", "reads ~+1", Why.DYNAMIC, RUNS),
    # .git holds the hooks git runs and the config naming more programs (core.fsmonitor
    # runs at the next `git status`): a write there is code, whatever the command's rule.
    A("cp x .git/hooks/pre-commit", "writes .git/hooks/pre-commit",
      Why.WRITES, "cs"),
    A("printf '[core]\\n\\tfsmonitor = ./x\\n' >> .git/config", "> .git/config",
      Why.WRITES, "cs"),
    A("cd .git && cp ../x hooks/post-checkout", "writes .git/hooks/post-checkout",
      Why.WRITES, "cs"),
    A("cp x vendor/lib/.git", "writes vendor/lib/.git", Why.WRITES, "cs"),
    A("cp x .GIT/config", "writes .GIT/config", Why.WRITES, "cs"),
    A("tee -a .git/config < f", "writes .git/config", Why.WRITES, "cs"),
    A("sed -i s/a/b/ .git/config", "writes .git/config", Why.WRITES,
      "cs"),
    A("cat ../../etc/passwd", "reads ../../etc/passwd", Why.READS_OUTSIDE, RUNS),
    A("cat ../secret.txt", "reads ../secret.txt", Why.READS_OUTSIDE, RUNS),
    A("cat ~/.bashrc", "reads ~/.bashrc", Why.READS_OUTSIDE, RUNS),
    A("cat $HOME/.profile", "reads ~/.profile", Why.READS_OUTSIDE, RUNS),
    A("cd /etc && cat shadow", "reads /etc/shadow", Why.SECRET, RUNS),
    A("cd .. && echo x > pwned", "> ../pwned", Why.WRITES),
    A("cd .. && touch x", "writes ../x", Why.WRITES),
    A("cd /tmp; cp a b", "writes /tmp/b", Why.WRITES),
    A("cp a ../../x", "writes ../../x", Why.WRITES),
    A("cd docs && cd .. && cd .. && cat x", "reads ../x", Why.READS_OUTSIDE, RUNS),
    A("cd $DIR && echo x > f", "> ", Why.DYNAMIC, RUNS),
    A("cd - && echo x > f", "> ", Why.DYNAMIC, "c"),
    A("pushd /etc && cat passwd", "reads passwd", Why.DYNAMIC, RUNS),
    A("cat /etc/passwd", "reads /etc/passwd", Why.READS_OUTSIDE, RUNS),
    A("head -1 /var/log/syslog", "reads /var/log/syslog", Why.READS_OUTSIDE, RUNS),
    A("grep -r x /", "reads /", Why.READS_OUTSIDE, RUNS),
    A("ls ~", "reads ~", Why.READS_OUTSIDE, RUNS),
    A("rg -n password /etc", "reads /etc", Why.READS_OUTSIDE, RUNS),
    A("tar czf - ~/.ssh", "reads ~/.ssh", Why.SECRET, RUNS),
    A("find / -name id_rsa", "reads /", Why.READS_OUTSIDE, RUNS),
    A("diff /etc/passwd x", "reads /etc/passwd", Why.READS_OUTSIDE, RUNS),
    A("echo x > /srv/project/../other/f", "> /srv/project/../other/f", Why.WRITES),
    A("cat /srv/project/../other/secret", "reads /srv/project/../other/secret",
      Why.READS_OUTSIDE, RUNS),
    A('wc -l ./../../etc/passwd', 'reads ./../../etc/passwd', Why.READS_OUTSIDE, RUNS),
]

# -- symlinks in a real workspace: 'conf' -> /etc, 'home' -> the home directory -----------

SYMLINKS = [
    A("cat conf/passwd", "reads conf/passwd", Why.READS_OUTSIDE, RUNS),
    A("ls conf", "reads conf", Why.READS_OUTSIDE, RUNS),
    A("cd conf && cat passwd", "reads conf/passwd", Why.READS_OUTSIDE, RUNS),
    A("cat src/../conf/hosts", "reads src/../conf/hosts", Why.READS_OUTSIDE, RUNS),
    A("echo x > home/.bashrc", "> home/.bashrc", Why.WRITES, "cs"),
    A("cp a home/.bashrc", "writes home/.bashrc", Why.WRITES, "cs"),
    A("echo x > conf/x", "> conf/x", Why.WRITES, "cs"),
    A("ln -s ~/.ssh s && cat s/id_rsa", "reads s/id_rsa", Why.SECRET, "s"),
    A("cat conf/../etc/shadow", "etc/shadow", Why.SECRET, RUNS),
    A("cat conf/../root/.bashrc", "root/.bashrc", Why.SECRET, RUNS),
    A("cat home/../../etc/passwd", "passwd", Why.READS_OUTSIDE, RUNS),
]

# -- symlinks from a cloned project: 'home' -> the home directory, 'h=' -> / ------------------

SYMLINKS3 = [
    # bash expands ~ after the '=' of a word that looks like an assignment, even as an
    # argument (printf: h=~/x -> h=/home/.../x); through the link 'h=' that is the home.
    A("cat h=~/.gitconfig", "reads h=~/.gitconfig", Why.DYNAMIC, RUNS),
    A("cp x h=~/.bashrc", "writes", Why.DYNAMIC, "s"),
    # grep -R and rg -L follow the links they meet while recursing.
    # Left open: asking for every grep -R would also stop rules covering `xargs grep` (its
    # input could spell -R); links named as paths are resolved (below).
    A("grep -R KEY .", "grep -R", Why.READS_OUTSIDE, RUNS,
      hole="MEDIUM: grep -R follows home -> the home directory"),
    A("rg -L KEY", "rg -L", Why.READS_OUTSIDE, RUNS,
      hole="MEDIUM: rg -L follows home -> the home directory"),
    # regression: a link named as a path is resolved
    A("cat home/.bashrc", "reads home/.bashrc", Why.READS_OUTSIDE, RUNS),
]


@pytest.mark.parametrize(("row", "autonomy"), params(PATHS))
def test_attack_is_blocked_by_the_part_it_names(row: Attack, autonomy: Autonomy) -> None:
    """Under the permissive prefix rules people write (tests/support/attacks.py)."""
    assert_blocked(row, context(autonomy))


@pytest.mark.parametrize(("row", "autonomy"),
                         [row.param(level) for row in SYMLINKS for level in row.levels])
def test_symlinks_in_the_workspace_do_not_lead_out(row: Attack, autonomy: Autonomy,
                                                   tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "src").mkdir(parents=True)
    (workspace / "conf").symlink_to("/etc")
    (workspace / "home").symlink_to(tmp_path / "home")
    (tmp_path / "home" / ".ssh").mkdir(parents=True, exist_ok=True)
    os.chdir(workspace)
    ctx = replace(context(autonomy, allow=[]), workspace=str(workspace))
    found = assess(row.command, ctx)
    assert found.verdict is not Verdict.ALLOW, explain(found)
    where = blocking_part(found, row.part, row.why)
    assert where is not None, (f"expected {row.part!r} to block"
                               f" for a reason of kind {row.why.value}\n"
                               + explain(found))


@pytest.mark.parametrize(("row", "autonomy"),
                         [row.param(level) for row in SYMLINKS3 for level in row.levels])
def test_links_in_a_cloned_project_do_not_lead_out(row: Attack, autonomy: Autonomy,
                                                  tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "home").symlink_to(tmp_path / "home")
    (workspace / "h=").symlink_to("/")
    (tmp_path / "home" / ".ssh").mkdir(parents=True)
    monkeypatch.chdir(workspace)
    assert_blocked(row, replace(context(autonomy, allow=[]), workspace=str(workspace)))
