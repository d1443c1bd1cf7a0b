"""`saikish undo` and `/undo` end to end: real calls from the script model, real git, real files
(docs/SPEC.md §4.10, §8, §9)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.support.harness import Run, write_script
from tests.ui.test_pty import PROMPT, Shell

CLI = Callable[..., Run]


def calls(*pairs: tuple[str, dict[str, str]]) -> str:
    """A script: one turn with these calls, then a closing answer."""
    lines = "".join(f"    - {{name: {name}, arguments: {json.dumps(args)}}}\n"
                    for name, args in pairs)
    return f"- text: Working.\n  tool_calls:\n{lines}- text: Done.\n"


def run(cli: CLI, tmp_path: Path, script: str, *extra: str) -> Run:
    model = write_script(tmp_path / "s.yml", script)
    done = cli("-p", "go", "-m", model, "--auto-approve", *extra)
    assert done.code == 0, done.err
    return done


def test_a_contained_write_is_undone_with_yes(cli: CLI, ws: Path, tmp_path: Path) -> None:
    (ws / "notes.txt").write_text("mine\n")
    done = run(cli, tmp_path, calls(("write_file", {"path": "notes.txt",
                                                    "content": "overwritten\n"})))
    assert "changed 1 file (checkpoint 1; saikish undo)" in done.err  # the transcript says so
    undo = cli("undo", "--yes")
    assert undo.code == 0, undo.err
    assert (ws / "notes.txt").read_text() == "mine\n"
    assert "-overwritten\n+mine" in undo.out
    assert "restored 1 file; checkpoint 2 records this undo" in undo.out


def test_a_deleted_file_comes_back_and_a_new_one_goes(cli: CLI, ws: Path,
                                                      tmp_path: Path) -> None:
    (ws / "keep.txt").write_text("precious\n")
    run(cli, tmp_path, calls(("bash", {"command": "rm keep.txt && echo x > made.txt"})))
    assert not (ws / "keep.txt").exists() and (ws / "made.txt").exists()
    assert cli("undo", "--yes").code == 0
    assert (ws / "keep.txt").read_text() == "precious\n"
    assert not (ws / "made.txt").exists()


def test_undo_2_undoes_two_calls_and_the_list_shows_them(cli: CLI, ws: Path,
                                                         tmp_path: Path) -> None:
    (ws / "a.txt").write_text("0\n")
    run(cli, tmp_path, calls(("bash", {"command": "echo 1 > a.txt"}),
                             ("bash", {"command": "ls"}),  # read-only: no checkpoint
                             ("edit_file", {"path": "a.txt", "old_string": "1",
                                            "new_string": "2"})))
    listed = cli("undo", "--list")
    rows = [line.split()[:3] for line in listed.out.splitlines()[1:]]
    assert [row[0] for row in rows] == ["2", "1"]  # newest first
    assert "edit_file a.txt" in listed.out and "bash echo 1 > a.txt" in listed.out
    assert cli("undo", "2", "--yes").code == 0
    assert (ws / "a.txt").read_text() == "0\n"
    assert "undone by 3" in cli("undo", "--list").out


def test_without_a_terminal_or_yes_it_shows_the_diff_and_restores_nothing(
        cli: CLI, ws: Path, tmp_path: Path) -> None:
    run(cli, tmp_path, calls(("write_file", {"path": "a.txt", "content": "new\n"})))
    undo = cli("undo")
    assert undo.code == 2
    assert "+++ /dev/null" in undo.out and "-new" in undo.out
    assert undo.err == "saikish: nothing restored: add --yes to restore without a terminal\n"
    assert (ws / "a.txt").read_text() == "new\n"


def test_json_and_the_audit_log_say_what_changed(cli: CLI, ws: Path, tmp_path: Path) -> None:
    done = run(cli, tmp_path, calls(("write_file", {"path": "a.txt", "content": "x"})),
               "--output-format", "json")
    record = json.loads(done.out)["calls"][0]["files_changed"]
    assert record == {"checkpoint": 1, "count": 1, "added": ["a.txt"], "modified": [],
                      "deleted": [], "too_big": [], "truncated": False,
                      "text": "changed 1 file (checkpoint 1; saikish undo)"}
    entries = cli("audit", "--json").out.splitlines()
    assert [json.loads(e)["decision"] for e in entries] == ["approved", "changed"]
    assert json.loads(entries[1])["files"]["checkpoint"] == 1


def test_undo_runs_from_a_subdirectory_of_the_workspace(cli: CLI, ws: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    run(cli, tmp_path, calls(("bash", {"command": "mkdir -p sub && echo s > sub/s.txt"})))
    monkeypatch.chdir(ws / "sub")
    assert cli("undo", "--yes").code == 0
    assert not (ws / "sub").exists()


def test_nothing_recorded_and_bad_numbers_are_one_line(cli: CLI, ws: Path,
                                                       tmp_path: Path) -> None:
    listed = cli("undo", "--list")
    assert (listed.code, listed.out) == (0, f"no checkpoints of {ws}: saikish has recorded "
                                            f"no call that changed files here\n")
    assert cli("undo", "--yes").code == 1
    run(cli, tmp_path, calls(("write_file", {"path": "a.txt", "content": "x"})))
    for argv, says in ((("undo", "0"), "N is how many calls to undo"),
                       (("undo", "3"), "only 1 call can be undone"),
                       (("undo", "--checkpoint", "9"), "there is no checkpoint 9")):
        result = cli(*argv)
        assert result.code in (1, 2) and says in result.err, argv
        assert len(result.err.splitlines()) == 1 and "Traceback" not in result.err


def test_a_corrupt_store_is_one_line_and_the_call_does_not_run(cli: CLI, ws: Path,
                                                               tmp_path: Path) -> None:
    run(cli, tmp_path, calls(("write_file", {"path": "a.txt", "content": "x"})))
    store = next((tmp_path / "state" / "checkpoints").iterdir())
    (store / "index").write_bytes(b"DIRC not an index")
    listed = cli("undo", "--yes")
    assert listed.code == 1 and "Traceback" not in listed.err
    assert listed.err.startswith(f"saikish: the checkpoint store {store} is broken (git status")
    assert len(listed.err.splitlines()) == 1
    done = cli("-p", "go", "-m", write_script(tmp_path / "t.yml", calls(
        ("write_file", {"path": "b.txt", "content": "y"}))), "--auto-approve",
        "--output-format", "json")
    result = json.loads(done.out)["calls"][0]["result"]
    assert result["is_error"] and "not run: no checkpoint could be taken" in result["excerpt"]
    assert not (ws / "b.txt").exists()  # why: the snapshot before it failed


def test_no_git_means_one_warning_and_no_unasked_edits(cli: CLI, ws: Path, tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    done = run(cli, tmp_path, calls(("write_file", {"path": "a.txt", "content": "x"})))
    warnings = [line for line in done.err.splitlines() if line.startswith("saikish: no undo")]
    assert len(warnings) == 1 and "git is not installed" in warnings[0]
    # Nothing could undo the edit, so it is not contained: it needs a person, and -p has none.
    assert "it would run contained, but" in done.err
    assert not (ws / "a.txt").exists()


# -- /undo in the REPL -----------------------------------------------------------------

@pytest.fixture
def shells() -> Iterator[list[Shell]]:
    started: list[Shell] = []
    yield started
    for shell in started:
        shell.child.close(force=True)


@pytest.mark.slow
def test_slash_undo_shows_the_diff_and_asks(shells: list[Shell], ws: Path,
                                             tmp_path: Path) -> None:
    (ws / "a.txt").write_text("before\n")
    script = calls(("write_file", {"path": "a.txt", "content": "after\n"}))
    env = {"SAIKISH_STATE_DIR": os.environ["SAIKISH_STATE_DIR"]}
    shell = Shell(script, tmp_path, "--auto-approve", env=env)
    shells.append(shell)
    shell.say("go")
    shell.expect("changed 1 file (checkpoint 1; saikish undo)")
    shell.expect(PROMPT)
    shell.say("/undo")
    shell.expect("Restore these files? [y/N]")
    shell.on_screen("+before")
    assert (ws / "a.txt").read_text() == "after\n"  # nothing yet: it asks first
    shell.say("y")
    shell.expect("restored 1 file")
    assert (ws / "a.txt").read_text() == "before\n"
    shell.say("/undo")
    shell.expect("nothing to undo")
    assert shell.quit() == 0
