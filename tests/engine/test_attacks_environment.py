"""Environment and credential printers, secret variables, hijack variables and escalation,
each known in one place (catalogue `prints-env`, boundary.is_secret_variable,
catalogue/variables.txt, `risk escalation`; docs/SPEC.md §4.1, §4.7, §4.8).

Printing every variable asks (a rule naming the command may allow it); printing one whose
name says secret is refused any rule, whether by `printenv NAME`, `echo $NAME` or `declare
-p NAME`: the value reaches the model the same way. A harmless variable (NODE_ENV, GOOS)
is a plain assignment; a hijacking one (NODE_OPTIONS, LD_PRELOAD) is never covered.
"""

from __future__ import annotations

import pytest

from saikish.engine.bash.shell import ESCALATORS, analyse
from saikish.engine.commands.catalogue import Catalogue
from saikish.engine.commands.environment import environment_concern
from saikish.engine.commands.variables import variables
from saikish.types import Autonomy, Source, Verdict
from saikish.types import ReasonKind as Why
from tests.support.attacks import RUNS, A, Attack, assess, blocking_part, context, explain

ROWS = [
    A("env", "env", Why.SECRET, RUNS),
    A("env -u HOME", "env -u HOME", Why.SECRET, RUNS),
    A("env -0 | tr '\\0' '\\n'", "env -0", Why.SECRET, RUNS),
    A("printenv", "printenv", Why.SECRET, RUNS),
    A("set", "set", Why.SECRET, RUNS),
    A("export -p", "export -p", Why.SECRET, RUNS),
    A("declare -p", "declare -p", Why.SECRET, RUNS),
    A("typeset -x", "typeset -x", Why.SECRET, RUNS),
    A("make -p -f /dev/null", "make -p", Why.SECRET, RUNS),
    A("npm run env", "npm run env", Why.SECRET, RUNS),
    A("npm config get //registry.npmjs.org/:_authToken", "npm config get", Why.SECRET, RUNS),
    A("gh config get -h github.com oauth_token", "gh config get", Why.SECRET, RUNS),
    A("jq -n '$ ENV.GITHUB_TOKEN'", "jq -n", Why.SECRET, RUNS),  # jq 1.6 reads `$ ENV`
    A("jq -n -f p.jq", "jq -n -f", Why.SECRET, RUNS),  # the program is in a file
    A("jq --from-file p.jq x.json", "jq --from-file", Why.SECRET, RUNS),
    A("kubectl config view --flatten", "kubectl config view --flatten", Why.SECRET, RUNS),
    A("kubectl config view --raw", "kubectl config view --raw", Why.SECRET, RUNS),
    A("gh auth token", "gh auth token", Why.SECRET, RUNS),
    A("gh auth status --show-token", "gh auth status", Why.SECRET, RUNS),
    A("aws configure export-credentials --format env", "aws configure", Why.SECRET, RUNS),
    A("aws configure get aws_secret_access_key", "aws configure get", Why.SECRET, RUNS),
    A('echo "${!name}"', "echo", Why.SECRET, RUNS),
    # One secret variable: the same verdict whichever way it is printed.
    A("printenv OPENAI_API_KEY", "printenv OPENAI_API_KEY", Why.SECRET, RUNS),
    A("echo $OPENAI_API_KEY", "echo", Why.SECRET, RUNS),
    A('echo "token: ${GITHUB_TOKEN}"', "echo", Why.SECRET, RUNS),
    A("declare -p AWS_SECRET_ACCESS_KEY", "declare -p", Why.SECRET, RUNS),
    A("printf '%s' \"$DB_PASSWORD\"", "printf", Why.SECRET, RUNS),
    A("printenv github_token", "printenv github_token", Why.SECRET, RUNS),
    A("printenv \"$NAME\"", "printenv", Why.SECRET, RUNS),
    A("echo OPENAI_API_KEY | xargs printenv", "printenv", Why.SECRET, RUNS),
    A("declare -p \"$v\"", "declare -p", Why.SECRET, RUNS),
    # A secret expanded where no command's words show it: the call as a whole.
    A("cat <<< $GITHUB_TOKEN", "expands $GITHUB_TOKEN", Why.SECRET, RUNS),
    A("x=$GITHUB_TOKEN; echo $x", "expands $GITHUB_TOKEN", Why.SECRET, RUNS),
    A("for x in $GITHUB_TOKEN; do echo $x; done", "expands $GITHUB_TOKEN", Why.SECRET, RUNS),
    A('read x <<< "$GITHUB_TOKEN"; echo $x', "expands $GITHUB_TOKEN", Why.SECRET, RUNS),
    A("cat <<EOF\n$AWS_SECRET_ACCESS_KEY\nEOF", "expands $AWS_SECRET_ACCESS_KEY", Why.SECRET,
      RUNS),
    # Arithmetic evaluates a name: a value that is no number comes back in the error.
    A("let x=AWS_SECRET_ACCESS_KEY", "expands $AWS_SECRET_ACCESS_KEY", Why.SECRET, RUNS),
    A("echo ${a[OPENAI_API_KEY]}", "expands $OPENAI_API_KEY", Why.SECRET, RUNS),
    # ...and assigns: PATH=0 in arithmetic changes what runs next.
    A("let PATH=0; ls", "arithmetic names PATH", Why.UNKNOWN, RUNS),
    A("echo ${x[PATH=0]}; ls", "arithmetic names PATH", Why.UNKNOWN, RUNS),
    A("x=abc; echo ${x:PATH=0}; ls", "arithmetic names PATH", Why.UNKNOWN, RUNS),
    # set -k: a NAME=value word anywhere is the command's environment.
    A('set -k; git diff GIT_EXTERNAL_DIFF="touch p;:"', "set -k", Why.EXEC, RUNS),
    # Hijack variables, set without an assignment word too, or taken away: GIT_CONFIG_*
    # holds saikish's guard that keeps git off a bare repository made of plain files.
    A("env -u GIT_CONFIG_COUNT git -C evil status", "git -C evil status", Why.EXEC, RUNS),
    A("env --unset=GIT_CONFIG_KEY_0 git status", "git status", Why.EXEC, RUNS),
    A("NODE_OPTIONS=--require=./x.js git status", "git status", Why.EXEC, RUNS),
    A("export LD_PRELOAD=./x.so; ls", "ls", Why.EXEC, RUNS),
    A("env GIT_SSH_COMMAND='sh -c id' git fetch", "git fetch", Why.EXEC, RUNS),
    A("PYTHONPATH=. python3 -m json.tool x.json", "json.tool", Why.EXEC, RUNS),
    A("GOFLAGS=-toolexec=./x go build", "go build", Why.EXEC, RUNS),
    A("CGO_CFLAGS=-fplugin=./x.so go build", "go build", Why.EXEC, RUNS),
]


def _params() -> list[object]:
    return [row.param(level) for row in ROWS for level in row.levels]


@pytest.mark.parametrize(("row", "autonomy"), _params())
def test_printer_or_hijack_is_blocked_with_no_rules(row: Attack, autonomy: Autonomy) -> None:
    found = assess(row.command, context(autonomy, allow=[]))
    assert found.verdict is not Verdict.ALLOW, explain(found)
    assert blocking_part(found, row.part, row.why), \
        f"expected {row.part!r} to block for a reason of kind {row.why.value}\n{explain(found)}"


@pytest.mark.parametrize(("command", "rule"), [
    ("printenv OPENAI_API_KEY", "Bash(printenv *)"),
    ("echo $OPENAI_API_KEY", "Bash(echo *)"),
    ("declare -p AWS_SECRET_ACCESS_KEY", "Bash(declare *)"),
    ("aws configure get aws_secret_access_key", "Bash(aws *)"),
    ("aws configure export-credentials", "Bash(aws *)"),
    ("gh auth token", "Bash(gh *)"),
    ("npm run env", "Bash(npm run *)"),
])
def test_a_broad_rule_does_not_cover_printing_secrets(command: str, rule: str) -> None:
    found = assess(command, context(Autonomy.CAUTIOUS, allow=[rule]))
    assert found.verdict is not Verdict.ALLOW, explain(found)


def test_printenv_name_and_echo_name_agree() -> None:
    for name in ("OPENAI_API_KEY", "HOME", "AWS_REGION", "PATH"):
        one = assess(f"printenv {name}", context(Autonomy.CAUTIOUS, allow=[]))
        two = assess(f"echo ${name}", context(Autonomy.CAUTIOUS, allow=[]))
        assert (one.verdict, one.risk) == (two.verdict, two.risk), \
            f"{explain(one)}\n{explain(two)}"


@pytest.mark.parametrize("command", [
    "NODE_ENV=test git status", "PYTHONUNBUFFERED=1 git status", "CI=1 git status",
    "GOOS=linux GOARCH=arm64 CGO_ENABLED=0 git status", "RUST_LOG=debug git status",
    "TZ=UTC date", "LANG=C sort data.txt", "export NODE_ENV=production",
    "printenv HOME", 'echo "$HOME"', "env -u DEBUG git status", "declare -p count",
])
def test_harmless_variables_and_plain_reads_stay_verified(command: str) -> None:
    found = assess(command, context(Autonomy.CAUTIOUS, allow=[]))
    assert found.verdict is Verdict.ALLOW, explain(found)


@pytest.mark.parametrize(("command", "prints"), [
    ("env", True), ("printenv", True), ("env -u HOME", True), ("env -0", True),
    ("export", True), ("export -p", True), ("set", True), ("declare -p", True),
    ("env FOO=1 make", False), ("env -i ls", False), ("env -S 'ls -l'", False),
    ("export A=1", False), ("set -e", False), ("echo env", False),
    ("printenv HOME", False), ("declare -p X", False),
])
def test_what_prints_every_variable(command: str, prints: bool) -> None:
    first = analyse(command).commands[0]
    assert (environment_concern(first) is not None) is prints


def test_the_escalation_list_is_the_catalogues() -> None:
    catalogue = Catalogue()
    assert catalogue.escalators() == ESCALATORS
    assert {"sudo", "su", "doas", "pkexec", "run0", "sudo-rs", "sudoedit", "ksu", "please",
            "runuser", "sg", "newgrp", "calife", "super"} <= ESCALATORS
    for name in sorted(ESCALATORS):
        entry = catalogue.get(name)
        assert entry is not None and entry.risk.name == "ESCALATION", name


@pytest.mark.parametrize("command", [
    "sudo ls", "doas id", "pkexec id", "ls; runuser -u x id", "x=$(su -c id)",
    "calife id", "super id", "sg wheel -c id", "echo ok | please ls",
])
def test_every_escalator_is_rejected(command: str) -> None:
    found = assess(command, context(Autonomy.FULL_AUTO, allow=["Bash(*)"]))
    assert (found.verdict, found.source) == (Verdict.REJECT, Source.ESCALATION), explain(found)


def test_harmless_names_are_exact_and_not_caught_by_a_prefix() -> None:
    known = variables()
    for name in ("NODE_ENV", "PYTHONUNBUFFERED", "GOOS", "GOARCH", "CGO_ENABLED",
                 "RUST_LOG", "CI", "TZ", "LANG"):
        assert known.effect(name) is None, name
    for name in ("NODE_OPTIONS", "NODE_PATH", "PYTHONPATH", "PYTHONSTARTUP", "GOFLAGS",
                 "GOTOOLCHAIN", "CGO_LDFLAGS", "LD_PRELOAD", "BASH_ENV", "GIT_SSH_COMMAND",
                 "GIT_CONFIG_GLOBAL", "RUSTC_WRAPPER", "NODE_ENVX", "PATH"):
        assert known.effect(name) is not None, name
