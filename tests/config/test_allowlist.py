"""The hand-edited allowlist file (docs/SPEC.md §4.5): nothing a person wrote is ever lost."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from saikish.config.allowlist import Allowlist, AllowlistError
from saikish.config.layers import Config
from saikish.rules import parse_rule
from saikish.runtime.session import Session
from tests.support.harness import Run
from tests.support.rules import rules

HAND_WRITTEN = """\
# my rules, keep these comments
allow:
  # git things
  - Bash(git status)   # the one I use most
  - tool: write_file
    when: {path: "docs/**"}

deny:
  - Bash(git push *)
# trailing comment
"""


def test_adding_keeps_comments_order_and_formatting(tmp_path: Path) -> None:
    path = tmp_path / "allowlist.yaml"
    path.write_text(HAND_WRITTEN)
    allowlist = Allowlist(path)
    assert allowlist.add(parse_rule("Bash(npm test *)"))
    assert allowlist.add(parse_rule({"tool": "write_file", "when": {"path": "out.txt"}}))
    assert not allowlist.add(parse_rule("Bash(npm test *)"))  # already there
    assert path.read_text() == HAND_WRITTEN.replace(
        '    when: {path: "docs/**"}\n',
        '    when: {path: "docs/**"}\n  - Bash(npm test *)\n'
        "  - {tool: write_file, when: {path: out.txt}}\n")


def test_removing_takes_only_that_rule(tmp_path: Path) -> None:
    path = tmp_path / "allowlist.yaml"
    path.write_text(HAND_WRITTEN)
    assert Allowlist(path).remove("write_file(path=docs/**)")
    assert path.read_text() == HAND_WRITTEN.replace(
        '  - tool: write_file\n    when: {path: "docs/**"}\n', "")
    assert not Allowlist(path).remove("Bash(nothing)")


@pytest.mark.parametrize(("before", "after"), [
    ("", "# saikish allowlist: rules here apply to every session.\nallow:\n  - read_file\n"),
    ("allow: [grep]\n", "allow: [grep, read_file]\n"),
    ("allow: []\n", "allow: [read_file]\n"),
    ("allow:\n", "allow:\n  - read_file\n"),
    ("deny:\n  - grep", "deny:\n  - grep\nallow:\n  - read_file\n"),
    ("allow:\n- grep\n- bash", "allow:\n- grep\n- bash\n- read_file\n"),
    ("# only a comment\n", "# only a comment\nallow:\n  - read_file\n"),
])
def test_adding_to_every_shape_of_file(tmp_path: Path, before: str, after: str) -> None:
    path = tmp_path / "allowlist.yaml"
    if before:
        path.write_text(before)
    Allowlist(path).add(parse_rule("read_file"))
    assert path.read_text() == after


def test_a_broken_file_is_never_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "allowlist.yaml"
    broken = "allow:\n  - Bash(git status)\n  - [unclosed\n"
    path.write_text(broken)
    allowlist = Allowlist(path)
    state = allowlist.current()
    assert state.errors and f"{path}:3" in state.errors[0]
    with pytest.raises(AllowlistError):
        allowlist.add(parse_rule("read_file"))
    assert path.read_text() == broken


def test_a_bad_rule_names_its_line_and_the_rest_still_apply(tmp_path: Path) -> None:
    path = tmp_path / "allowlist.yaml"
    path.write_text("allow:\n  - Bash(git status)\n  - Nope(x y\n  - read_file\n")
    state = Allowlist(path).current()
    assert [r.text for r in state.allow] == ["Bash(git status)", "read_file"]
    assert state.errors[0].startswith(f"{path}:3:")
    assert state.deny_complete


def test_a_bad_deny_rule_means_asking_more(tmp_path: Path) -> None:
    path = tmp_path / "allowlist.yaml"
    path.write_text("deny:\n  - Bash(\n")
    assert not Allowlist(path).current().deny_complete


def test_always_goes_to_the_session_while_the_file_is_broken(tmp_path: Path) -> None:
    path = tmp_path / "allowlist.yaml"
    path.write_text("allow: [\n")
    session = Session(Config(), str(tmp_path), allowlist=Allowlist(path))
    note = session.remember(rules("Bash(npm test *)"), persist=True)
    assert "this session only" in note
    assert [r.text for r in session.session_rules] == ["Bash(npm test *)"]
    assert path.read_text() == "allow: [\n"


def test_memory_storage_keeps_always_in_the_session(tmp_path: Path) -> None:
    path = tmp_path / "allowlist.yaml"
    session = Session(Config(), str(tmp_path), allowlist=Allowlist(path), persist_always=False)
    session.remember(rules("read_file"), persist=True)
    assert not path.exists()
    assert [r.text for r in session.session_rules] == ["read_file"]


def test_eight_concurrent_adds_lose_nothing(tmp_path: Path) -> None:
    path = Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("# shared by many sessions\nallow:\n  - read_file\n")
    procs = [subprocess.Popen([sys.executable, "-m", "saikish", "allowlist", "add", "--global",
                               f"Bash(tool{n} *)"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE) for n in range(8)]
    assert all(p.wait(timeout=60) == 0 for p in procs)
    state = Allowlist(path).current()
    assert sorted(r.text for r in state.allow) == sorted(
        ["read_file"] + [f"Bash(tool{n} *)" for n in range(8)])
    assert path.read_text().startswith("# shared by many sessions\n")


def test_allowlist_subcommand(cli: Callable[..., Run]) -> None:
    path = Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml"
    assert cli("allowlist", "path").out.strip() == str(path)
    assert cli("allowlist", "add", "Bash(npm test *)").code == 0
    assert cli("allowlist", "add", "--deny", "Bash(git push *)").code == 0
    shown = cli("allowlist", "show")
    assert "Bash(npm test *)" in shown.out and "Bash(git push *)" in shown.out
    assert str(path) in shown.out and "allowlist.yaml:5" in shown.out  # where each comes from
    assert cli("allowlist", "remove", "Bash(npm test *)").code == 0
    assert "npm test" not in path.read_text()
    bad = cli("allowlist", "add", "Bash()")
    assert bad.code == 2 and "Bash()" in bad.err


def test_allowlist_show_reports_a_broken_file(cli: Callable[..., Run]) -> None:
    path = Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml"
    path.parent.mkdir(parents=True)
    path.write_text("allow: [\n")
    run = cli("allowlist", "show")
    assert run.code == 2 and f"{path}:2" in run.err
