"""Attacks on the approval engine by escalation: sudo and its kind, however they are wrapped,
are never run (docs/SPEC.md §4.1-4.4, §4.7-4.8).

Rows, holes and what each asserts: tests/support/attacks.py.
"""

from __future__ import annotations

import pytest

from saikish.types import Source, Verdict
from tests.support.attacks import LEVELS, assess, context, explain

# -- runners and wrappers hiding escalation or code ------------------------------------

ESCALATION = [
    "uv run sudo id", "xargs sudo id", "timeout 5 sudo id", "env sudo id", "nice -n 5 sudo id",
    "ssh host sudo id", "nohup sudo id", "stdbuf -oL sudo id", "setsid sudo id",
    "time sudo id", "command sudo id", "exec sudo id", "builtin eval sudo id",
    "find . -exec sudo id \\;", "bash -c 'sudo id'", "echo $(sudo id)", "/usr/bin/sudo id",
    "s''udo id", "poetry run sudo id", "npx sudo id", "bundle exec sudo id",
    "busybox sudo id", "sh -c \"sudo -i\"", "timeout -s KILL 5 sudo id", "env -i sudo id",
    "nice sudo id", "xargs -I{} sudo rm {}", "uv run --with x sudo id",
    "ls | sudo tee /etc/x", "(sudo id)", "{ sudo id; }", "if true; then sudo id; fi",
    "bash <<EOF\nsudo id\nEOF", "sh <<< 'sudo id'", "f() { sudo id; }; f",
]

OTHER_ESCALATORS = ["su -", "doas id", "pkexec id", "run0 id", "sh -c \"su -\""]


@pytest.mark.parametrize("command", ESCALATION + OTHER_ESCALATORS)
@pytest.mark.parametrize("level", ["c", "f"])
def test_escalation_is_rejected_however_it_is_wrapped(command: str, level: str) -> None:
    found = assess(command, context(LEVELS[level]))
    assert (found.verdict, found.source) == (Verdict.REJECT, Source.ESCALATION), explain(found)
    assert "is never run by saikish" in found.reason
    assert any(c.caveat and "runs as another user" in c.caveat for c in found.commands), \
        explain(found)
