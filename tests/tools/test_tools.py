"""The built-in tools on real temp dirs and real subprocesses."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

from saikish.tools import RunContext, builtin_tools

TOOLS = builtin_tools()


def run(name: str, ctx: RunContext, **args: object) -> tuple[str, bool]:
    output = TOOLS[name].run(args, ctx)
    return output.text, output.is_error


def test_bash_returns_output_and_exit_code(ws: Path) -> None:
    ctx = RunContext(str(ws))
    text, failed = run("bash", ctx, command="echo out; echo err >&2; exit 3")
    assert "out" in text and "err" in text and "[exit code 3]" in text and failed
    text, failed = run("bash", ctx, command="pwd")
    assert text.splitlines()[0] == str(ws) and not failed


def test_bash_timeout_kills_the_whole_process_group(ws: Path) -> None:
    ctx = RunContext(str(ws))
    pid_file = ws / "child.pid"
    started = time.monotonic()
    text, failed = run("bash", ctx, command=f"sleep 60 & echo $! > {pid_file}; sleep 60",
                       timeout=1)
    assert failed and "killed after the timeout of 1s" in text
    assert time.monotonic() - started < 50  # not the 60 s the command would take
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 60
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the background child of the command survived"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")
    return stat.exists() and stat.read_text().split()[2] != "Z"


def test_bash_default_timeout_comes_from_the_context(ws: Path) -> None:
    text, failed = run("bash", RunContext(str(ws), bash_timeout=0.5), command="sleep 30")
    assert failed and "timeout of 0.5s" in text


def test_bash_cancel_kills_the_command(ws: Path) -> None:
    ctx = RunContext(str(ws))
    threading.Timer(0.3, ctx.cancel.set).start()
    text, failed = run("bash", ctx, command="sleep 30")
    assert failed and "cancelled" in text


def test_bash_output_is_cut_in_the_middle_with_a_note(ws: Path) -> None:
    ctx = RunContext(str(ws), output_limit=1000)
    text, _ = run("bash", ctx, command="seq 1 100000")
    assert text.startswith("1\n2\n3\n") and "100000" in text
    assert "characters cut" in text and len(text) < 1200


def test_bash_never_reads_the_terminal(ws: Path) -> None:
    text, _ = run("bash", RunContext(str(ws)), command="cat", timeout=5)
    assert "[exit code 0]" in text


def test_read_file_numbers_lines_and_pages(ws: Path) -> None:
    (ws / "f.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    text, failed = run("read_file", RunContext(str(ws)), path="f.txt", offset=3, limit=2)
    assert not failed
    assert text.splitlines()[:2] == ["     3\tline 3", "     4\tline 4"]
    assert "6 more lines; read on with offset=5" in text


def test_read_file_errors_are_results(ws: Path) -> None:
    ctx = RunContext(str(ws))
    assert run("read_file", ctx, path="missing")[1]
    (ws / "bin").write_bytes(b"\x00\x01\x02")
    text, failed = run("read_file", ctx, path="bin")
    assert failed and "binary" in text


def test_list_files_and_glob(ws: Path) -> None:
    (ws / "src").mkdir()
    (ws / "src" / "a.py").write_text("")
    (ws / "b.txt").write_text("")
    ctx = RunContext(str(ws))
    assert run("list_files", ctx, path=".")[0].splitlines() == ["b.txt", "src/"]
    assert run("list_files", ctx, path=".", glob="*.py")[0] == "src/a.py"


def test_grep_finds_lines(ws: Path) -> None:
    (ws / "a.py").write_text("x = 1\ny = 2\n")
    (ws / "b.md").write_text("y here\n")
    ctx = RunContext(str(ws))
    assert run("grep", ctx, pattern="^y")[0].splitlines() == ["a.py:2:y = 2", "b.md:1:y here"]
    assert run("grep", ctx, pattern="y", glob="*.md")[0] == "b.md:1:y here"
    assert run("grep", ctx, pattern="(")[1]


def test_write_file_creates_and_overwrites_atomically(ws: Path) -> None:
    ctx = RunContext(str(ws))
    assert run("write_file", ctx, path="d/new.txt", content="one")[0].startswith("created")
    target = ws / "d" / "new.txt"
    target.chmod(0o640)
    assert run("write_file", ctx, path="d/new.txt", content="two")[0].startswith("overwrote")
    assert target.read_text() == "two"
    assert oct(target.stat().st_mode & 0o777) == "0o640"
    assert sorted(p.name for p in target.parent.iterdir()) == ["new.txt"]  # no temp left


def test_edit_file(ws: Path) -> None:
    ctx = RunContext(str(ws))
    (ws / "f.py").write_text("a = 1\na = 1\n")
    text, failed = run("edit_file", ctx, path="f.py", old_string="a = 1", new_string="b")
    assert failed and "occurs 2 times" in text
    assert run("edit_file", ctx, path="f.py", old_string="zzz", new_string="b")[1]
    assert not run("edit_file", ctx, path="f.py", old_string="a = 1", new_string="b",
                   replace_all=True)[1]
    assert (ws / "f.py").read_text() == "b\nb\n"


def test_bash_uses_a_bare_repository_only_when_it_is_named(ws: Path) -> None:
    """A cloned project can carry a bare repository as plain files; its config (here
    diff.external) must not be picked up by `git -C dir ...`, which reads as harmless."""
    import subprocess

    subprocess.run(["git", "init", "-q", "--bare", str(ws / "b")], check=True)
    subprocess.run(["git", "--git-dir", str(ws / "b"), "config", "diff.external", "./x"],
                   check=True)
    plain = subprocess.run(["git", "-C", "b", "config", "diff.external"], cwd=ws,
                           capture_output=True, text=True)
    assert plain.stdout.strip() == "./x"  # git alone finds the bare repository
    text, failed = run("bash", RunContext(str(ws)), command="git -C b config diff.external")
    assert failed and "./x" not in text
    named, failed = run("bash", RunContext(str(ws)),
                        command="git --git-dir=b config diff.external")
    assert not failed and "./x" in named  # named on purpose: the engine asks about that


def test_git_guard_keeps_the_persons_own_config_parameters() -> None:
    from saikish.tools.sandbox.childenv import with_git_guards

    env = with_git_guards({"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "user.name",
                           "GIT_CONFIG_VALUE_0": "me"})
    assert env["GIT_CONFIG_KEY_0"] == "user.name"
    assert (env["GIT_CONFIG_COUNT"], env["GIT_CONFIG_KEY_1"], env["GIT_CONFIG_VALUE_1"]) == (
        "2", "safe.bareRepository", "explicit")
