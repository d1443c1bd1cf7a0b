"""Tools that run the project's own configuration are never verified (catalogue
`runs-project`; docs/SPEC.md §4.1, §4.7).

`cargo --version` runs the toolchain rust-toolchain.toml names, `pylint` the init-hook of
the project's rc file, `flake8` its local plugins, `bundle` the Gemfile, `yarn` the release
.yarnrc.yml's yarnPath names, `ruff check` applies fixes when the config says `fix = true`,
`make -n` still runs `$(shell ...)`. Whatever their options say (a version, a listing, a
check), they run contained with a sandbox and are asked without one, and the reason says
the project decides what runs.
"""

from __future__ import annotations

import pytest

from saikish.engine.bash.shell import analyse
from saikish.engine.policy import Context, RuleSet, decide
from saikish.engine.tiers import Containment
from saikish.rules import parse_rule
from saikish.tools import builtin_tools
from saikish.types import Assessment, Autonomy, ReasonKind, Tier, ToolCall, Verdict
from tests.support.attacks import explain

WORKSPACE = "/srv/project"

# (command, words of the reason the project's configuration runs)
ROWS = [
    ("cargo --version", "rust-toolchain.toml"),
    ("cargo metadata --format-version 1", "rust-toolchain.toml"),
    ("cargo fmt --check", "rust-toolchain.toml"),
    ("cargo tree", "rust-toolchain.toml"),
    ("rustup show", "rust-toolchain.toml"),
    ("rustc --version", "rust-toolchain.toml"),
    ("rustdoc --version", "rust-toolchain.toml"),
    ("rustfmt --version", "rust-toolchain.toml"),
    ("rustfmt --check src/main.rs", "rust-toolchain.toml"),
    ("make -v", "Makefile"),
    ("task --version", "Taskfile"),
    ("pylint src", "init-hook"),
    ("pylint --version", "init-hook"),
    ("flake8 src", "local plugins"),
    ("bundle list", "Gemfile"),
    ("bundle check", "Gemfile"),
    ("yarn list", "yarnPath"),
    ("yarn --version", "yarnPath"),
    ("hatch version", "build hooks"),
    ("ruff check src", "fix = true"),
    ("make -n", "Makefile"),
    ("make --version", "Makefile"),
    ("pytest --collect-only -q", "conftest.py"),
    ("npm run", "own scripts"),
    ("mypy --version", "plugins"),
    ("python -m json.tool a.json", "working directory first"),
    ("python -m pip list", "working directory first"),
    ("python3 -m black --check .", "working directory first"),
    ("python -m coverage report", "working directory first"),
    ("kubectl kustomize .", "kustomization.yaml"),
    ("pnpm exec ls", "node_modules/.bin"),
    ("go version", "toolchain go.mod names"),
    ("go list ./...", "toolchain go.mod names"),
    ("go mod graph", "toolchain go.mod names"),
    ("go mod verify", "toolchain go.mod names"),
]


def judge(command: str, held: Containment) -> Assessment:
    ctx = Context(builtin_tools(), RuleSet(), Autonomy.CAUTIOUS, workspace=WORKSPACE,
                  containment=held)
    return decide(ToolCall("1", "bash", {"command": command}), ctx)


@pytest.mark.parametrize(("command", "why"), ROWS)
def test_project_configuration_runs_contained_never_verified(command: str, why: str) -> None:
    found = judge(command, Containment(sandbox=True, checkpoints=True))
    assert found.tier is not Tier.VERIFIED, explain(found)
    assert found.tier in (Tier.CONTAINED, Tier.ASKED), explain(found)


@pytest.mark.parametrize(("command", "why"), ROWS)
def test_without_a_sandbox_it_is_asked_and_says_why(command: str, why: str) -> None:
    found = judge(command, Containment())
    assert found.verdict is not Verdict.ALLOW, explain(found)
    # The finding that makes it build-test names the project's configuration, and says
    # that it runs code.
    findings = [f for c in analyse(command).commands if c.parse for f in c.parse.findings]
    assert any(why in f.why and f.reason_kind is ReasonKind.EXEC for f in findings), findings


@pytest.mark.parametrize("command", ["cargo --version", "ruff check src", "pylint src"])
def test_a_rule_naming_the_command_still_allows_it(command: str) -> None:
    # A person who allows `cargo --version` outright may: the finding is no hard one.
    rules = RuleSet(config_allow=(parse_rule(f"Bash({command})", "test"),))
    ctx = Context(builtin_tools(), rules, Autonomy.CAUTIOUS, workspace=WORKSPACE)
    found = decide(ToolCall("1", "bash", {"command": command}), ctx)
    assert found.verdict is Verdict.ALLOW, explain(found)
