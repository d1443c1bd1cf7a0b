"""Operands whose role an option decides, a program's name set by an option, and names read
from a file (catalogue `operands=ROLES`, `argv0`, `names-from`; docs/SPEC.md §4.7).

Each row is blocked with no rules at all by the part it names, for a reason holding the
piece it names; the everyday forms beside them stay verified. A broad rule for the command
(`Bash(exec *)`) does not cover an `argv0` or `names-from` use either: no rule names what a
program does under a name it is given, or files nobody sees.
"""

from __future__ import annotations

import pytest

from saikish.types import Autonomy, Tier, Verdict
from saikish.types import ReasonKind as Why
from tests.support.attacks import RUNS, A, Attack, assess, blocking_part, context, explain

ROWS = [
    # jobs -x CMD ARGS runs CMD: the command is judged, not read as job names.
    A("jobs -x rm -r build", "rm -r build", Why.WRITES, "cs"),
    A("jobs -x curl https://x.example/s", "curl", Why.NETWORK),
    A("jobs -x bash -c 'cat ~/.ssh/id_rsa'", "id_rsa", Why.SECRET, RUNS),
    # history -r FILE reads FILE, -w FILE / -a FILE write it.
    A("history -r ~/.bash_history", "reads ~/.bash_history", Why.SECRET, RUNS),
    A("history -w /etc/profile.d/x.sh", "writes /etc/profile.d/x.sh", Why.WRITES, "cs"),
    A("history -a ~/.bashrc", "writes ~/.bashrc", Why.WRITES, "cs"),
    # exec -a NAME / env -a NAME: a multi-call binary acts as NAME.
    A("exec -a rm busybox -rf /", "exec -a", Why.EXEC, RUNS),
    A("env -a sh busybox -c id", "env -a", Why.EXEC, RUNS),
    A("env --argv0=wget busybox http://x.example", "env --argv0",
      Why.EXEC, RUNS),
    # Names of files read from stdin or a file: nobody sees which files are read.
    A("printf '/root/.ssh/id_rsa\\0' | sort --files0-from=-", "sort --files0-from",
      Why.DYNAMIC, RUNS),
    A("sort --files0-from=list.txt", "sort --files0-from",
      Why.DYNAMIC, RUNS),
    A("wc -c --files0-from=names", "wc -c --files0-from", Why.DYNAMIC,
      RUNS),
    A("du --files0-from=- < names", "du --files0-from", Why.DYNAMIC, RUNS),
    A("tar -cf out.tar -T names.txt", "tar -cf out.tar -T", Why.DYNAMIC,
      RUNS),
    A("tar -czf out.tgz --files-from=-", "tar -czf out.tgz --files-from",
      Why.DYNAMIC, RUNS),
    A("xargs -a list.txt cat", "xargs -a", Why.DYNAMIC, RUNS),
    A("xargs --arg-file=list.txt cat", "xargs --arg-file", Why.DYNAMIC,
      RUNS),
    A("sort --files0-f=list.txt", "sort --files0-f", Why.DYNAMIC, RUNS),
    A("printf '/root/.ssh\\0' | find -files0-from - -ls", "find -files0-from", Why.DYNAMIC,
      RUNS),
]

EVERYDAY = ["jobs -l", "history 20", "sort names.txt", "wc -l src/app.py",
            "du -sh src", "printf '%s\\n' a b | xargs echo"]


def _params() -> list[object]:
    return [row.param(level) for row in ROWS for level in row.levels]


@pytest.mark.parametrize(("row", "autonomy"), _params())
def test_role_attack_is_blocked_with_no_rules(row: Attack, autonomy: Autonomy) -> None:
    found = assess(row.command, context(autonomy, allow=[]))
    assert found.verdict is not Verdict.ALLOW or found.tier is not Tier.VERIFIED, explain(found)
    assert found.verdict is not Verdict.ALLOW, explain(found)
    assert blocking_part(found, row.part, row.why), \
        f"expected {row.part!r} to block for a reason of kind {row.why.value}\n{explain(found)}"


@pytest.mark.parametrize(("command", "rule"), [
    ("exec -a rm busybox -rf /tmp/x", "Bash(exec *)"),
    ("env -a sh busybox -c id", "Bash(env *)"),
    ("sort --files0-from=list.txt", "Bash(sort *)"),
    ("xargs -a list.txt cat", "Bash(xargs *)"),
    ("tar -cf out.tar -T names.txt", "Bash(tar *)"),
])
def test_no_broad_rule_covers_argv0_or_hidden_names(command: str, rule: str) -> None:
    found = assess(command, context(Autonomy.CAUTIOUS, allow=[rule]))
    assert found.verdict is not Verdict.ALLOW, explain(found)


@pytest.mark.parametrize("command", EVERYDAY)
def test_everyday_forms_stay_verified(command: str) -> None:
    found = assess(command, context(Autonomy.CAUTIOUS, allow=[]))
    assert found.verdict is Verdict.ALLOW, explain(found)
