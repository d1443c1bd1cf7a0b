"""Checkpoints with real git and real files (docs/SPEC.md §4.10, saikish/checkpoints/)."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from saikish.checkpoints.calls import needs_checkpoint
from saikish.checkpoints.ledger import history
from saikish.checkpoints.store import Checkpoints
from saikish.checkpoints.values import Checkpoint, CheckpointError, Limits, undone
from saikish.config.layers import Config
from saikish.events import Event, FilesChanged, Recorder
from saikish.runtime.executor import Executor
from saikish.runtime.session import Session
from saikish.tools import builtin_tools
from saikish.types import Autonomy, Decision, Mode, Risk, Source, ToolCall
from saikish.ui.undo_view import checkpoint_table
from tests.runtime.test_loop import ScriptedApprover


def store(ws: Path, tmp: Path, **limits: float) -> Checkpoints:
    return Checkpoints.open(str(ws), tmp / "state", Limits(**limits))  # type: ignore[arg-type]


def call(checkpoints: Checkpoints, change: Callable[[], object],
         tool: str = "bash") -> Checkpoint | None:
    """A call as the executor makes it: snapshot, the change, snapshot."""
    pending = checkpoints.before(tool, "test")
    change()
    return checkpoints.after(pending)


def writer(path: Path, text: str) -> Callable[[], object]:
    return lambda: path.write_text(text)


def tracked(checkpoints: Checkpoints) -> list[str]:
    return [p for p in checkpoints.git.run("ls-files", "-z").decode().split("\0") if p]


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                   check=True, capture_output=True)


def digest(root: Path) -> str:
    """Every name, mode, time and byte under `root`: any write shows."""
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        info = path.lstat()
        h.update(f"{path.relative_to(root)} {info.st_mode} {info.st_mtime_ns}\n".encode())
        if path.is_file() and not path.is_symlink():
            h.update(path.read_bytes())
    return h.hexdigest()


# -- which calls get one ---------------------------------------------------------------

@pytest.mark.parametrize(("tool", "source", "risk", "expected", "why"), [
    ("bash", Source.MODE, Risk.WRITE, True, "--auto-approve: nobody looked"),
    ("bash", Source.AUTONOMY, Risk.BUILD_TEST, True, "autonomy let a build run"),
    ("bash", Source.RULE, None, True, "an unknown risk counts as writing"),
    ("write_file", Source.RULE, Risk.WRITE, True, "a rule allowed the write"),
    ("edit_file", Source.AUTO_BUDGET, Risk.WRITE, True, "/auto N answered for the person"),
    ("bash", Source.USER, Risk.DESTRUCTIVE, False, "a person approved it in the box"),
    ("bash", Source.AUTONOMY, Risk.READ_ONLY, False, "read-only: nothing to undo"),
    ("read_file", Source.AUTONOMY, Risk.WRITE, False, "a reading tool"),
    ("grep", Source.RULE, None, False, "a reading tool"),
])
def test_which_calls_get_a_checkpoint(tool: str, source: Source, risk: Risk | None,
                                      expected: bool, why: str) -> None:
    call_ = ToolCall("c", tool, {})
    assert needs_checkpoint(call_, Decision.approve(source), risk) is expected, why


# -- snapshots and undo ----------------------------------------------------------------

def test_a_change_is_recorded_and_undone_and_the_undo_can_be_undone(ws: Path,
                                                                     tmp_path: Path) -> None:
    (ws / "a.txt").write_text("one\n")
    (ws / "gone.txt").write_text("keep me\n")
    checkpoints = store(ws, tmp_path)

    def change() -> None:
        (ws / "a.txt").write_text("two\n")
        (ws / "gone.txt").unlink()
        (ws / "new" / "deep").mkdir(parents=True)
        (ws / "new" / "deep" / "n.txt").write_text("n\n")

    first = call(checkpoints, change)
    assert first is not None
    assert (first.added, first.modified, first.deleted) == (("new/deep/n.txt",), ("a.txt",),
                                                            ("gone.txt",))
    plan = checkpoints.plan_undo()
    assert (plan.restore, plan.remove) == (("a.txt", "gone.txt"), ("new/deep/n.txt",))
    assert "-two\n+one" in plan.diff
    done = checkpoints.undo(plan)
    assert (ws / "a.txt").read_text() == "one\n" and (ws / "gone.txt").read_text() == "keep me\n"
    assert not (ws / "new").exists()  # the directories the call made went with its file
    assert undone(checkpoints.history()) == {first.number: done.number}
    checkpoints.undo(checkpoints.plan_undo(number=done.number))  # undo the undo
    assert (ws / "a.txt").read_text() == "two\n" and (ws / "new/deep/n.txt").exists()
    assert not (ws / "gone.txt").exists()


def test_a_call_that_changes_nothing_leaves_no_checkpoint(ws: Path, tmp_path: Path) -> None:
    (ws / "a.txt").write_text("a")
    checkpoints = store(ws, tmp_path)
    assert call(checkpoints, lambda: None) is None
    assert call(checkpoints, lambda: (ws / "a.txt").write_text("a")) is None  # same bytes
    assert checkpoints.history() == ()


def test_undo_two_undoes_two_calls_and_keeps_the_persons_edits_between(ws: Path,
                                                                      tmp_path: Path) -> None:
    for name in "abc":
        (ws / f"{name}.txt").write_text(f"{name}0\n")
    checkpoints = store(ws, tmp_path)
    call(checkpoints, lambda: (ws / "a.txt").write_text("a1\n"))
    (ws / "b.txt").write_text("the person's edit\n")  # no call: no checkpoint
    call(checkpoints, lambda: (ws / "c.txt").write_text("c1\n"))
    call(checkpoints, lambda: (ws / "a.txt").write_text("a2\n"))
    checkpoints.undo(checkpoints.plan_undo(2))
    assert (ws / "a.txt").read_text() == "a1\n"  # back to before the second-last call
    assert (ws / "c.txt").read_text() == "c0\n"
    assert (ws / "b.txt").read_text() == "the person's edit\n"
    checkpoints.undo(checkpoints.plan_undo(1))  # the next undo goes further back
    assert (ws / "a.txt").read_text() == "a0\n"
    with pytest.raises(CheckpointError, match="nothing to undo"):
        checkpoints.plan_undo(1)


def test_an_undo_refuses_when_the_files_changed_after_the_diff(ws: Path, tmp_path: Path) -> None:
    checkpoints = store(ws, tmp_path)
    call(checkpoints, lambda: (ws / "a.txt").write_text("call\n"))
    plan = checkpoints.plan_undo()
    (ws / "a.txt").write_text("typed after the diff was shown\n")
    with pytest.raises(CheckpointError, match="changed after the diff was shown"):
        checkpoints.undo(plan)
    assert (ws / "a.txt").read_text() == "typed after the diff was shown\n"


def test_files_are_kept_byte_for_byte_whatever_gitattributes_say(ws: Path,
                                                                 tmp_path: Path) -> None:
    (ws / ".gitattributes").write_text("* text eol=crlf\n*.bin filter=lfs\n")
    data = {"mixed.txt": b"a\r\nb\nc\r\n", "blob.bin": bytes(range(256)) * 4}
    for name, content in data.items():
        (ws / name).write_bytes(content)
    os.chmod(ws / "mixed.txt", 0o755)
    checkpoints = store(ws, tmp_path)

    def remove() -> None:
        for name in data:
            (ws / name).unlink()

    call(checkpoints, remove)
    checkpoints.undo(checkpoints.plan_undo())
    assert {name: (ws / name).read_bytes() for name in data} == data
    assert os.stat(ws / "mixed.txt").st_mode & 0o111  # the executable bit comes back


def test_undo_never_writes_through_a_symlink_out_of_the_workspace(ws: Path,
                                                                  tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "d").mkdir()
    (ws / "d" / "f").write_text("mine\n")
    checkpoints = store(ws, tmp_path)
    call(checkpoints, lambda: (ws / "d" / "f").unlink())
    (ws / "d").rmdir()
    (ws / "d").symlink_to(outside)  # a directory on the way now leads out
    checkpoints.undo(checkpoints.plan_undo())
    assert list(outside.iterdir()) == []  # why: git replaced the link, it did not follow it
    assert not (ws / "d").is_symlink() and (ws / "d" / "f").read_text() == "mine\n"


# -- what is never copied, never read, never run -----------------------------------------

def test_the_projects_own_git_is_byte_for_byte_unchanged(ws: Path, tmp_path: Path) -> None:
    (ws / "a.txt").write_text("a\n")
    git("init", "-q", cwd=ws)
    git("add", "a.txt", cwd=ws)
    git("commit", "-qm", "first", cwd=ws)
    before = digest(ws / ".git")
    checkpoints = store(ws, tmp_path)
    call(checkpoints, lambda: (ws / "a.txt").write_text("b\n"))
    checkpoints.undo(checkpoints.plan_undo())
    checkpoints.prune(wait=True)
    assert digest(ws / ".git") == before
    assert all(not p.startswith(".git/") for p in tracked(checkpoints))


def test_no_fsmonitor_or_hook_of_the_project_runs(ws: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    marker, hook = tmp_path / "MARKER", tmp_path / "hook.sh"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    (ws / "a.txt").write_text("a\n")
    git("init", "-q", cwd=ws)
    git("config", "core.fsmonitor", str(hook), cwd=ws)
    (ws / "sub").mkdir()
    git("init", "-q", cwd=ws / "sub")
    git("config", "core.fsmonitor", str(hook), cwd=ws / "sub")
    (ws / "sub" / "inner.txt").write_text("nested\n")
    subprocess.run(["git", "status"], cwd=ws, capture_output=True)
    assert marker.exists()  # the control: plain git in the project does run it
    marker.unlink()
    # The person's environment may point git at the project, or plant config of its own.
    monkeypatch.setenv("GIT_DIR", str(ws / ".git"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.fsmonitor'='{hook}'")
    checkpoints = store(ws, tmp_path)
    call(checkpoints, lambda: (ws / "a.txt").write_text("b\n"))
    checkpoints.undo(checkpoints.plan_undo())
    assert not marker.exists()
    # Why: git ran on the shadow store with none of the person's GIT_ variables.
    assert checkpoints.git.env["GIT_DIR"] == str(checkpoints.git.git_dir)
    assert "GIT_CONFIG_PARAMETERS" not in checkpoints.git.env
    assert tracked(checkpoints) == ["a.txt"]  # the nested repository is no content of ours


def test_node_modules_and_ignored_trees_are_never_copied(ws: Path, tmp_path: Path) -> None:
    for n in range(1200):
        folder = ws / "node_modules" / f"dep{n % 30}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{n}.js").write_text(f"{n}\n")
    (ws / ".gitignore").write_text("data/\n")
    (ws / "data").mkdir()
    (ws / "data" / "big.csv").write_text("1,2\n")
    (ws / "src.py").write_text("print(1)\n")
    checkpoints = store(ws, tmp_path)
    for n in range(3):
        call(checkpoints, writer(ws / "node_modules" / "dep0" / "f0.js", f"{n}"))
        call(checkpoints, writer(ws / "src.py", f"print({n})\n"))
    assert sorted(tracked(checkpoints)) == [".gitignore", "src.py"]
    objects = checkpoints.git.run("count-objects", "-v").decode()
    assert int(objects.split("count: ")[1].split()[0]) < 40  # trees, commits, a few blobs
    assert "node_modules/dep0/f0.js" not in checkpoints.history()[0].files


def test_a_file_over_the_size_cap_is_named_not_copied_and_left_alone(ws: Path,
                                                                      tmp_path: Path) -> None:
    (ws / "small.txt").write_text("s\n")
    checkpoints = store(ws, tmp_path, max_file_bytes=1000)

    def change() -> None:
        (ws / "small.txt").write_text("x" * 5000)  # grew past the cap
        (ws / "dump.bin").write_bytes(b"\0" * 5000)

    recorded = call(checkpoints, change)
    assert recorded is not None and recorded.too_big == ("dump.bin", "small.txt")
    assert tracked(checkpoints) == []
    plan = checkpoints.plan_undo()
    assert dict(plan.skipped) == {
        "dump.bin": f"it was too big to copy at checkpoint {recorded.number}",
        "small.txt": f"it was too big to copy at checkpoint {recorded.number}"}
    checkpoints.undo(plan)
    assert (ws / "small.txt").read_text() == "x" * 5000  # its present content had no copy


def test_a_workspace_with_too_many_files_turns_checkpoints_off(ws: Path,
                                                               tmp_path: Path) -> None:
    for n in range(30):
        (ws / f"f{n}").write_text(str(n))
    checkpoints = store(ws, tmp_path, max_files=10)
    with pytest.raises(CheckpointError, match="30 files .* more than checkpoints keep"):
        checkpoints.before("bash", "x")
    assert not checkpoints.available and "30 files" in str(checkpoints.problem)
    assert tracked(checkpoints) == []  # refused before copying anything


# -- the store ---------------------------------------------------------------------------

def test_one_store_per_workspace_in_the_state_dir(ws: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    first, second = store(ws, tmp_path), store(other, tmp_path)
    link = tmp_path / "link"
    link.symlink_to(ws)
    assert first.git.store != second.git.store
    assert store(link, tmp_path).git.store == first.git.store  # keyed by the realpath
    assert first.git.store.parent == tmp_path / "state" / "checkpoints"
    assert not (ws / ".git").exists() and os.listdir(ws) == []
    assert (first.git.store.stat().st_mode & 0o777) == 0o700


def test_pruning_keeps_the_newest(ws: Path, tmp_path: Path) -> None:
    now = [1_000_000.0]
    checkpoints = Checkpoints.open(str(ws), tmp_path / "state", Limits(keep_count=2),
                                   clock=lambda: now[0])
    for n in range(4):
        call(checkpoints, writer(ws / "a.txt", str(n)))
    assert checkpoints.prune(wait=True) == (2, 1)
    assert [c.number for c in checkpoints.history()] == [4, 3]
    now[0] += 30 * 86400  # a month later: all too old, but the newest stays
    assert checkpoints.prune(wait=True) == (3,)
    assert checkpoints.prune(wait=True) == ()  # pruned within the hour: not again
    assert [c.number for c in history(checkpoints.git)] == [4]
    checkpoints.undo(checkpoints.plan_undo())  # what it needs survived the gc
    assert (ws / "a.txt").read_text() == "2"


def test_stores_of_workspaces_that_are_gone_are_swept_once_old(ws: Path, tmp_path: Path) -> None:
    now = [2_000_000.0]
    gone, fresh = tmp_path / "gone", tmp_path / "fresh"
    stores = []
    for folder in (gone, fresh):
        folder.mkdir()
        stores.append(store(folder, tmp_path).git.store)
        os.utime(stores[-1], (now[0], now[0]))
        os.utime(stores[-1] / "git", (now[0], now[0]))
    os.rmdir(gone)
    os.rmdir(fresh)
    now[0] += 8 * 86400
    os.utime(stores[1], (now[0], now[0]))  # used a moment ago, though its folder is gone
    Checkpoints.open(str(ws), tmp_path / "state", clock=lambda: now[0]).prune(wait=True)
    assert [s.exists() for s in stores] == [False, True]


def test_names_that_are_not_utf8_are_kept_and_listed(ws: Path, tmp_path: Path) -> None:
    name = os.fsdecode(b"caf\xe9-\x1b[2J.txt")
    checkpoints = store(ws, tmp_path)
    recorded = call(checkpoints, lambda: (ws / name).write_bytes(b"x"))
    assert recorded is not None and recorded.added == (name,)
    assert checkpoints.history()[0].added == (name,)  # through the JSON record and back
    shown = io.StringIO()
    Console(file=shown, width=120).print(checkpoint_table(checkpoints.history()))
    assert "caf\ufffd-\\x1b[2J.txt" in shown.getvalue()  # no escape reaches the terminal
    checkpoints.undo(checkpoints.plan_undo())
    assert not (ws / name).exists()


@pytest.mark.parametrize(("damage", "says"), [
    (lambda git_dir: (git_dir.parent / "index").write_bytes(b"DIRC garbage"), "index"),
    (lambda git_dir: (git_dir / "HEAD").write_text("garbage\n"), "not a git repository"),
    (lambda git_dir: [p.unlink() for p in (git_dir / "objects").rglob("*") if p.is_file()],
     "broken"),
])
def test_a_broken_store_is_one_line_and_turns_checkpoints_off(
        ws: Path, tmp_path: Path, damage: Callable[[Path], object], says: str) -> None:
    checkpoints = store(ws, tmp_path)
    call(checkpoints, lambda: (ws / "a.txt").write_text("a"))
    damage(checkpoints.git.git_dir)
    with pytest.raises(CheckpointError) as caught:
        call(checkpoints, lambda: (ws / "a.txt").write_text("b"))
    message = str(caught.value)
    assert "\n" not in message and says in message and str(checkpoints.git.store) in message
    assert not checkpoints.available


def test_no_git_or_no_state_dir_is_a_reason_not_a_crash(ws: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "file").write_text("")
    with pytest.raises(CheckpointError, match="cannot keep checkpoints in .*file/checkpoints"):
        Checkpoints.open(str(ws), tmp_path / "file")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    session = Session(Config(), str(ws))
    assert session.attach_checkpoints() is None
    assert session.undo_problem() == "git is not installed, so saikish keeps no checkpoints " \
                                     "(undo is unavailable)"
    assert session.warnings() == (f"no undo: {session.undo_problem()}",)


def test_the_home_directory_gets_no_checkpoints(tmp_path: Path) -> None:
    with pytest.raises(CheckpointError, match="start it in a project directory"):
        Checkpoints.open(os.path.expanduser("~"), tmp_path / "state")


# -- through the executor ----------------------------------------------------------------

def run_calls(ws: Path, calls: list[ToolCall], approver: ScriptedApprover,
              mode: Mode = Mode.EVENT_BASED,
              autonomy: Autonomy = Autonomy.CAUTIOUS) -> list[Event]:
    session = Session(Config(), str(ws), mode, autonomy)
    session.attach_checkpoints()
    recorder = Recorder()
    executor = Executor(session, builtin_tools(), approver)
    executor.events.subscribe(recorder)
    executor.run_batch(calls)
    return recorder.events


def test_a_call_a_person_approved_gets_no_checkpoint(ws: Path, tmp_path: Path) -> None:
    approver = ScriptedApprover([lambda request: Decision.approve(Source.USER)])
    # Under --autonomy manual nothing runs contained: the person is asked, and says yes.
    events = run_calls(ws, [ToolCall("1", "write_file", {"path": "a.txt", "content": "x"})],
                       approver, autonomy=Autonomy.MANUAL)
    assert (ws / "a.txt").read_text() == "x" and not approver.answers
    assert not [e for e in events if isinstance(e, FilesChanged)]


def test_an_unasked_call_publishes_what_it_changed(ws: Path) -> None:
    calls = [ToolCall("1", "write_file", {"path": "a.txt", "content": "x"}),
             ToolCall("2", "bash", {"command": "ls"}),
             ToolCall("3", "bash", {"command": "rm a.txt"})]
    events = run_calls(ws, calls, ScriptedApprover([]), Mode.AUTO_APPROVE)
    changed = [e for e in events if isinstance(e, FilesChanged)]
    assert [(e.call.id, e.checkpoint, e.added, e.deleted) for e in changed] == [
        ("1", 1, ("a.txt",), ()), ("3", 2, (), ("a.txt",))]
    assert changed[1].line == "changed 1 file (checkpoint 2; saikish undo)"


def test_a_lock_file_left_by_a_killed_git_does_not_break_the_store(ws: Path,
                                                                   tmp_path: Path) -> None:
    checkpoints = store(ws, tmp_path)
    call(checkpoints, writer(ws / "a.txt", "a"))
    (checkpoints.git.store / "index.lock").write_text("")  # git was killed mid-write
    recorded = call(checkpoints, writer(ws / "a.txt", "b"))
    assert recorded is not None and recorded.modified == ("a.txt",)
