"""Small things a user meets at the command line: flags, audit, check exit codes, rule hints."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from saikish.config.rule_hints import claude_code_hint, unknown_tool_warnings
from saikish.rules import parse_rule
from saikish.tools import builtin_tools
from tests.support.harness import Run, write_script

CLI = Callable[..., Run]
ONE_CALL = """\
- tool_calls:
    - {name: bash, arguments: {command: "echo the first words of a long command that goes on and on past eighty columns"}}
- text: done
"""  # noqa: E501 - the long line is the point


@pytest.mark.parametrize("value", ["-5", "abc", "nan", "inf", "-0.1"])
def test_a_bad_timeout_is_one_line_and_exit_2(cli: CLI, tmp_path: Path, value: str) -> None:
    run = cli("-p", "hi", "-m", write_script(tmp_path / "s.yml", "- text: x\n"),
              "--timeout", value)
    assert run.code == 2 and run.out == ""
    assert run.err.count("\n") == 1 and f"--timeout '{value}'" in run.err, run.err


@pytest.mark.parametrize("value", ["0", "2.5", "30"])
def test_a_good_timeout_is_taken(cli: CLI, tmp_path: Path, value: str) -> None:
    run = cli("-p", "hi", "-m", write_script(tmp_path / "s.yml", "- text: x\n"),
              "--timeout", value)
    assert (run.code, run.out) == (0, "x\n")


# -- audit ------------------------------------------------------------------------

def test_audit_shows_date_and_workspace_and_tail_0_shows_none(
        cli: CLI, tmp_path: Path, ws: Path) -> None:
    assert cli("-p", "go", "-m", write_script(tmp_path / "s.yml", ONE_CALL)).code == 0
    run = cli("audit")
    assert re.search(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", run.out), run.out
    assert str(ws) in run.out and "echo the first words" in run.out
    assert json.loads(cli("audit", "--json").out)["workspace"] == str(ws)
    assert cli("audit", "--tail", "0", "--json").out == ""
    assert "echo" not in cli("audit", "--tail", "0").out


def test_audit_negative_tail_is_a_usage_error(cli: CLI) -> None:
    run = cli("audit", "--tail", "-3")
    assert run.code == 2 and run.err.count("\n") == 1 and "--tail -3" in run.err


# -- check --exit-code ------------------------------------------------------------

@pytest.mark.parametrize(("command", "code", "why"), [
    ("ls -la", 0, "read-only: allowed by autonomy"),
    ("npm install left-pad", 10, "network: the person would be asked"),
    ("sudo ls", 11, "escalation: always rejected"),
])
def test_check_exit_code_gates_a_ci_step(cli: CLI, command: str, code: int, why: str) -> None:
    assert cli("check", "--exit-code", "--", command).code == code, why
    assert cli("check", "--", command).code == 0, "without --exit-code, check always says 0"


def test_check_batch_exit_code_is_the_strictest_line(cli: CLI) -> None:
    assert cli("check", "--exit-code", "--batch", "-", stdin="ls\nnpm install x\n").code == 10
    assert cli("check", "--exit-code", "--batch", "-", stdin="ls\nsudo ls\ntouch a\n").code == 11
    assert cli("check", "--exit-code", "--batch", "-", stdin="ls\npwd\n").code == 0


# -- rules that name no tool ------------------------------------------------------

NAMES = list(builtin_tools())


@pytest.mark.parametrize(("rule", "hint"), [
    ("NotebookEdit", "saikish's file tools are write_file/edit_file: use edit_file"),
    ("Glob", "use list_files"),
    ("WebFetch", "no saikish equivalent"),
    ("WebFetch(domain:example.com)", "no saikish equivalent"),
    ("WebSearch", "no saikish equivalent"),
    ("reed_file", "the tools are bash, edit_file, grep, list_files, read_file, write_file"),
])
def test_a_rule_naming_no_tool_is_named_with_the_saikish_spelling(rule: str, hint: str) -> None:
    (line,) = unknown_tool_warnings([parse_rule(rule, "agent.yml:4")], NAMES)
    assert line.startswith(f"agent.yml:4: rule '{rule}' names no saikish tool") and hint in line


@pytest.mark.parametrize("rule", ["Bash(ls *)", "read_file", "write_file(path=src/**)",
                                  "mcp__github__*", "*_file", "Edit", "Read(src/**)",
                                  "Write(**)", "MultiEdit(//tmp/*)"])
def test_rules_for_real_tools_are_quiet(rule: str) -> None:
    assert unknown_tool_warnings([parse_rule(rule)], NAMES) == []


def test_claude_code_spelling_that_does_not_parse_gets_the_translation(cli: CLI) -> None:
    assert claude_code_hint("Glob(src/**)") == (
        "; saikish's read tools are read_file/list_files/grep: use list_files(path=src/**)")
    run = cli("allowlist", "add", "Glob(src/**)")
    assert run.code == 2 and "use list_files(path=src/**)" in run.err
    assert run.err.count("\n") == 1


def test_allowlist_add_and_check_and_one_shot_warn_about_such_rules(
        cli: CLI, tmp_path: Path, ws: Path) -> None:
    run = cli("allowlist", "add", "Glob")
    assert run.code == 0 and "warning" in run.err and "use list_files" in run.err
    check = cli("check", "--json", "--", "ls")
    assert "rule 'Glob' names no saikish tool" in check.err
    assert json.loads(check.out)["decision"] == "allow"  # stdout stays clean JSON
    one_shot = cli("-p", "hi", "-m", write_script(tmp_path / "s.yml", "- text: x\n"))
    assert "rule 'Glob' names no saikish tool" in one_shot.err and one_shot.out == "x\n"


# -- output that is not a terminal --------------------------------------------------

def test_stderr_off_a_terminal_is_not_hard_wrapped(cli: CLI, tmp_path: Path) -> None:
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", ONE_CALL), "--auto-approve")
    assert run.code == 0
    line = next(x for x in run.err.splitlines() if "echo the first words" in x)
    assert "past eighty columns" in line and len(line) > 80
