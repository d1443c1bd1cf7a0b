"""Allowlist scopes (docs/SPEC.md §4.5): "always" is kept per project, global is a choice."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from saikish.config.allowlist import Allowlist
from saikish.config.layers import Config
from saikish.rules import parse_rule
from saikish.runtime.session import Session
from saikish.tools import builtin_tools
from saikish.types import Scope, ToolCall, Verdict
from tests.support.harness import Run
from tests.support.rules import rules

CLI = Callable[..., Run]

HAND_EDITED = """\
# my allowlist
allow:
  - Bash(git status)   # everywhere
projects:
  # the app I work on most
  {app}:
    allow:
      - Bash(make test)  # keep this comment
    deny:
      - Bash(make deploy)
  # an old one
  {gone}:
    allow: [read_file]
# the end
"""


@pytest.fixture
def two_projects(tmp_path: Path) -> tuple[Path, Path, Allowlist]:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    return one, two, Allowlist(Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml")


def verdict(session: Session, tool: str, **args: object) -> Verdict:
    from saikish.engine.policy import decide

    return decide(ToolCall("1", tool, args), session.context(builtin_tools())).verdict


def write(path: str) -> dict[str, object]:
    return {"path": path, "content": "x"}


def test_always_in_one_project_does_not_apply_in_another(
        two_projects: tuple[Path, Path, Allowlist]) -> None:
    one, two, allowlist = two_projects
    first = Session(Config(), str(one), allowlist=allowlist)
    note = first.remember(rules("write_file(path=notes.md)", "Bash(python3 src/hello.py)"), True)
    assert f"for this project ({one})" in note
    assert verdict(first, "write_file", **write("notes.md")) is Verdict.ALLOW
    second = Session(Config(), str(two), allowlist=allowlist)
    assert verdict(second, "write_file", **write("notes.md")) is Verdict.ASK
    text = allowlist.path.read_text()
    assert f"projects:\n  {one}:\n    allow:\n      - {{tool: write_file, when: " \
        "{path: notes.md}}\n" in text


def test_a_global_rule_applies_everywhere_but_relative_paths_stay_in_the_project(
        two_projects: tuple[Path, Path, Allowlist]) -> None:
    one, two, allowlist = two_projects
    first = Session(Config(), str(one), allowlist=allowlist)
    note = first.remember(rules("edit_file", "write_file(path=notes.md)"), True, Scope.GLOBAL)
    assert "edit_file for every project" in note
    assert f"write_file(path=notes.md) for this project ({one})" in note
    second = Session(Config(), str(two), allowlist=allowlist)
    edit = {"path": "a.py", "old_string": "a", "new_string": "b"}
    assert verdict(second, "edit_file", **edit) is Verdict.ALLOW
    assert verdict(second, "write_file", **write("notes.md")) is Verdict.ASK
    assert first.always_note(rules("edit_file"), Scope.GLOBAL) == "remember saves for every project"
    assert first.always_note(rules("write_file(path=a)"), Scope.GLOBAL).startswith(
        "remember saves for this project")


def test_deny_of_either_scope_beats_allow_of_both(
        two_projects: tuple[Path, Path, Allowlist]) -> None:
    one, _, allowlist = two_projects
    allowlist.add(parse_rule("write_file"), "allow")
    allowlist.add(parse_rule("write_file(path=secret/**)"), "deny", str(one))
    allowlist.add(parse_rule("edit_file"), "allow", str(one))
    allowlist.add(parse_rule("edit_file"), "deny")
    session = Session(Config(), str(one), allowlist=allowlist)
    assert verdict(session, "write_file", **write("secret/a")) is Verdict.REJECT
    assert verdict(session, "write_file", **write("open/a")) is Verdict.ALLOW
    edit = {"path": "a.py", "old_string": "a", "new_string": "b"}
    assert verdict(session, "edit_file", **edit) is Verdict.REJECT
    order = [r.text for r in session.rules().allow]
    assert order == ["write_file", "edit_file"]  # global file, then this project


def test_a_hand_edited_projects_section_survives_add(
        two_projects: tuple[Path, Path, Allowlist], tmp_path: Path) -> None:
    one, two, allowlist = two_projects
    text = HAND_EDITED.format(app=one, gone=tmp_path / "gone")
    allowlist.path.parent.mkdir(parents=True, exist_ok=True)
    allowlist.path.write_text(text)
    assert allowlist.add(parse_rule("Bash(make lint)"), "allow", str(one))
    assert allowlist.add(parse_rule("Bash(npm test)"), "ask", str(one))
    assert allowlist.add(parse_rule("grep"), "allow", str(two))
    assert allowlist.add(parse_rule("list_files"), "allow", str(tmp_path / "gone"))
    assert allowlist.add(parse_rule("Bash(ls)"), "allow")
    after = allowlist.path.read_text()
    assert after == text.replace(
        "      - Bash(make test)  # keep this comment\n",
        "      - Bash(make test)  # keep this comment\n      - Bash(make lint)\n").replace(
        "      - Bash(make deploy)\n",
        "      - Bash(make deploy)\n    ask:\n      - Bash(npm test)\n").replace(
        "    allow: [read_file]\n",
        f"    allow: [read_file, list_files]\n  {two}:\n    allow:\n      - grep\n").replace(
        "  - Bash(git status)   # everywhere\n",
        "  - Bash(git status)   # everywhere\n  - Bash(ls)\n")
    assert allowlist.remove("Bash(make lint)", str(one))
    assert not allowlist.remove("Bash(make lint)", str(one))
    assert not allowlist.remove("Bash(make test)")  # not a global rule


def test_show_groups_by_scope_marks_this_project_and_reports_vanished_ones(
        cli: CLI, ws: Path, tmp_path: Path) -> None:
    path = Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(HAND_EDITED.format(app=ws, gone=tmp_path / "gone"))
    run = cli("allowlist", "show")
    assert run.code == 0
    out = run.out
    assert out.index("global (every project)") < out.index(f"project {ws} (current)") < \
        out.index(f"project {tmp_path / 'gone'} (path no longer exists)")
    assert "Bash(make deploy)" in out and "allowlist.yaml:10" in out
    assert f"allowlist.yaml:12: project {tmp_path / 'gone'} no longer exists" in run.err
    assert path.read_text() == HAND_EDITED.format(app=ws, gone=tmp_path / "gone")  # kept


def test_add_and_remove_say_which_scope(cli: CLI, ws: Path, tmp_path: Path) -> None:
    run = cli("allowlist", "add", "write_file(path=docs/**)")
    assert f"added to allow for project {ws} (the default" in run.out
    run = cli("allowlist", "add", "Bash(npm test *)")
    assert f"added to allow for project {ws} (the default, as for" in run.out
    run = cli("allowlist", "add", "--project", "Bash(make *)")
    assert f"added to allow for project {ws}:" in run.out
    other = tmp_path / "other"
    other.mkdir()
    run = cli("allowlist", "add", "--deny", "--project", str(other), "Bash(rm *)")
    assert f"added to deny for project {other}:" in run.out
    run = cli("allowlist", "add", "--global", "write_file(path=docs/**)")
    assert run.code == 2 and "relative path" in run.err
    assert cli("allowlist", "add", "--global", "write_file(path=/tmp/**)").code == 0
    run = cli("allowlist", "remove", "--global", "Bash(make *)")
    assert run.code == 1 and "for every project" in run.out
    assert cli("allowlist", "remove", "Bash(make *)").code == 0
    check = json.loads(cli("check", "--json", "--tool", "write_file", "--args",
                           '{"path": "docs/a.md", "content": "x"}').out)
    assert (check["decision"], check["rule"]) == ("allow", "write_file(path=docs/**)")


def test_the_demo_never_writes_the_allowlist(tmp_path: Path) -> None:
    allowlist = Allowlist(tmp_path / "allowlist.yaml")
    demo = Session(Config(), str(tmp_path), allowlist=allowlist,
                   memory_only="demo: 'always' is kept in memory, never saved")
    note = demo.remember(rules("Bash(ls *)"), True)
    assert not allowlist.path.exists()
    assert note == "allowed for this session only (demo: 'always' is kept in memory, never " \
                   "saved): Bash(ls *)"
    assert demo.always_note(rules("Bash(ls *)")) == "demo: 'always' is kept in memory, never saved"
    assert [r.text for r in demo.rules().session_allow] == ["Bash(ls *)"]


def test_the_box_says_where_remember_saves_before_it_is_chosen(ws: Path) -> None:
    import io

    from rich.console import Console

    from saikish.cli.compose import make_session
    from saikish.cli.main import build_parser
    from saikish.engine.policy import decide
    from saikish.runtime.executor import ApprovalRequest
    from saikish.ui.preview import approval_panel

    def box(session: Session) -> str:
        call = ToolCall("1", "write_file", {"path": "notes.md", "content": "x"})
        found = decide(call, session.context(builtin_tools()))
        request = ApprovalRequest(call, found, 0, (call,), str(ws),
                                  always_note=session.always_note(found.proposed_rules))
        out = io.StringIO()
        Console(file=out, width=200).print(approval_panel(request, None))
        return out.getvalue()

    args = build_parser().parse_args([])
    assert f"remember saves for this project ({ws})" in box(make_session(args, Config(),
                                                                         str(ws)))
    demo = make_session(args, Config(), str(ws), demo=True)
    assert "demo: 'always' is kept in memory, never saved" in box(demo)


def git_repo(path: Path) -> Path:
    """`path` made a git repository by git itself, with a subdirectory `build`."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(path)], check=True)
    (path / "build").mkdir()
    return path


def test_allowlist_add_and_always_both_default_to_this_project(cli: CLI, ws: Path) -> None:
    run = cli("allowlist", "add", "Bash(make *)")
    assert f"added to allow for project {ws}" in run.out
    note = Session(Config(), str(ws), allowlist=Allowlist(
        Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml")).remember(
            rules("Bash(ls *)"), True)
    assert f"Bash(ls *) for this project ({ws})" in note
    assert cli("allowlist", "add", "--global", "Bash(npm test *)").code == 0
    from saikish.config.allowlist import read_state

    state = read_state(Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml")
    assert [r.text for r in state.allow] == ["Bash(npm test *)"]
    assert [r.text for r in state.project(str(ws)).allow] == ["Bash(make *)", "Bash(ls *)"]


def test_project_rules_are_keyed_on_the_repository_root(
        cli: CLI, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git_repo(ws)
    monkeypatch.chdir(ws / "build")
    added = cli("allowlist", "add", "Bash(make *)")
    assert f"added to allow for project {ws} " in added.out  # the root, not build/
    session = Session(Config(), str(ws / "build"), allowlist=Allowlist(
        Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml"))
    assert f"{ws}" in session.remember(rules("Bash(ls *)"), True)
    monkeypatch.chdir(ws)  # `cd build && saikish` and `saikish` see the same rules
    for where in (ws, ws / "build"):
        monkeypatch.chdir(where)
        check = json.loads(cli("check", "--json", "--", "make all").out)
        assert (check["decision"], check["rule"]) == ("allow", "Bash(make *)"), where


def test_a_section_keyed_on_a_subdirectory_keeps_working(
        cli: CLI, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    git_repo(ws)
    path = Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(f"projects:\n  {ws / 'build'}:\n    allow: [Bash(make *)]\n",
                    encoding="utf-8")
    monkeypatch.chdir(ws / "build")
    check = json.loads(cli("check", "--json", "--", "make all").out)
    assert (check["decision"], check["rule"]) == ("allow", "Bash(make *)")
    assert path.read_text(encoding="utf-8").count("projects:") == 1  # nothing migrated
    removed = cli("allowlist", "remove", "Bash(make *)")
    assert (removed.code, removed.out) == (0, f"removed from project {ws / 'build'}: "
                                              f"Bash(make *)\n")
