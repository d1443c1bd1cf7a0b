"""The project promises a new user two commands; CI must run exactly the second."""

from __future__ import annotations

import re

from tests.support.harness import ROOT


def readme_commands() -> list[str]:
    return re.findall(r"```sh\n(.+?)\n```", (ROOT / "README.md").read_text())[:2]


def test_readme_starts_with_the_demo_and_the_test_command() -> None:
    demo, tests = readme_commands()
    assert demo.endswith("saikish -m demo") and "pip install -e ." in demo
    assert tests.endswith("python -m pytest") and ".[test]" in tests


def test_ci_runs_readmes_test_command_verbatim() -> None:
    _, tests = readme_commands()
    assert tests in (ROOT / ".ci" / "run").read_text().splitlines()
