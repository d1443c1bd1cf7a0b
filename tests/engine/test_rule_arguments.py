"""A rule naming an argument its tool does not have can never match: an error with a hint.

Claude Code spells write_file's path `file_path`; a typo (`pth`) is as easy. Such a
deny rule denied nothing, silently (docs/SPEC.md §2, §4.5).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.harness import Run, write_script

CLI = Callable[..., Run]
HINT = ("names argument 'file_path', which write_file does not have, so it can never match; "
        "did you mean path? (write_file takes path, content)")
WRITE = ["--tool", "write_file", "--args", '{"path": "src/a.py", "content": "x"}']


@pytest.mark.parametrize(("section", "rule"), [
    ("deny", "write_file(file_path=src/**)"),
    ("ask", "{tool: write_file, when: {file_path: 'src/**'}}"),
    ("allow", "write_file(file_path=src/**)"),
])
def test_a_config_rule_with_an_unknown_argument_is_a_config_error(
        cli: CLI, tmp_path: Path, section: str, rule: str) -> None:
    config = tmp_path / "agent.yml"
    config.write_text(f"permissions:\n  {section}:\n    - {rule}\n", encoding="utf-8")
    run = cli("check", "-c", str(config), *WRITE)
    assert run.code == 2
    assert run.err.startswith(f"saikish: {config}:3: permissions.{section}: rule ")
    assert HINT in run.err


def test_a_typo_gets_the_closest_argument(cli: CLI, tmp_path: Path) -> None:
    config = tmp_path / "agent.yml"
    config.write_text("permissions:\n  deny:\n    - {tool: edit_file, when: {pth: 'x/**'}}\n",
                      encoding="utf-8")
    run = cli("-p", "go", "-c", str(config), "-m", "demo", "--output-format", "json")
    assert run.code == 2
    assert "names argument 'pth', which edit_file does not have" in run.err
    assert "did you mean path?" in json.loads(run.out)["error"]


def test_the_allowlist_file_warns_and_its_deny_list_fails_closed(
        cli: CLI, isolated_dirs: Path, tmp_path: Path) -> None:
    allowlist = isolated_dirs / "config" / "allowlist.yaml"
    allowlist.parent.mkdir(parents=True)
    allowlist.write_text("deny:\n  - write_file(file_path=src/**)\n", encoding="utf-8")
    run = cli("check", "--json", *WRITE)
    assert f"saikish: {allowlist}:2: rule 'write_file(file_path=src/**)' {HINT}" in run.err
    assert HINT in json.loads(run.out)["warnings"][0]
    # The deny list is not whole: --auto-approve cannot approve a write it might deny.
    script = ("- tool_calls: [{name: write_file, arguments: {path: src/a.py, content: x}}]\n"
              "- text: ok\n")
    headless = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", script),
                   "--auto-approve", "--output-format", "json")
    call = json.loads(headless.out)["calls"][0]
    assert call["decision"] == "rejected_soft"
    assert "cannot be checked against the deny rules" in call["reason"]


def test_flags_and_allowlist_add_refuse_it(cli: CLI) -> None:
    for argv in (("check", "--deny", "write_file(file_path=src/**)", *WRITE),
                 ("allowlist", "add", "--deny", "write_file(file_path=src/**)")):
        run = cli(*argv)
        assert run.code == 2 and HINT in run.err


def test_rules_for_tools_saikish_cannot_list_are_left_alone(cli: CLI, tmp_path: Path) -> None:
    # An MCP tool's or a glob's arguments are unknown until its server lists them.
    config = tmp_path / "agent.yml"
    config.write_text("permissions:\n  deny:\n    - mcp__git__git_add(files=secret/**)\n"
                      "    - {tool: '*_file', when: {file_path: x}}\n", encoding="utf-8")
    assert cli("check", "-c", str(config), "--", "ls").code == 0
