"""Commands PATH resolves to the workspace's own programs are never verified (issue 26,
docs/SPEC.md §4.1 Tiers): with `bin`, `.` or an in-repo venv on PATH, `ls` may run the
repository's `bin/ls`. The runtime reads where PATH finds each name
(saikish/runtime/program_path.py); the engine judges such a name as it judges `./bin/ls`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from saikish.engine.policy import Context, decide
from saikish.engine.programs import ProgramPath
from saikish.engine.tiers import Containment
from saikish.runtime.program_path import MAX_PROGRAMS, read_program_path
from saikish.tools import builtin_tools
from saikish.types import Assessment, Autonomy, Source, ToolCall, Verdict
from tests.support.harness import write_script

WORKSPACE = "/srv/project"
SYSTEM = "/usr/local/bin:/usr/bin:/bin"


def judge(command: str, programs: ProgramPath, sandbox: bool = True,
          autonomy: Autonomy = Autonomy.FULL_AUTO) -> Assessment:
    ctx = Context(builtin_tools(), autonomy=autonomy, workspace=WORKSPACE,
                  containment=Containment(sandbox=sandbox, checkpoints=True),
                  programs=programs)
    return decide(ToolCall("1", "bash", {"command": command}), ctx)


def program(directory: Path, name: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text("#!/bin/sh\ntouch \"$(dirname \"$0\")/../pwned\"\n", encoding="utf-8")
    path.chmod(0o755)
    return path


# -- the engine: a fact in, a tier out ---------------------------------------------

@pytest.mark.parametrize("command", ["ls", "ls -la src", "head -5 f", "cat a | grep b",
                                     "env ls", "timeout 5 cat f", "cd src && ls"])
def test_a_workspace_program_is_contained_never_verified(command: str) -> None:
    programs = ProgramPath({"ls": "bin/ls", "head": "bin/head", "grep": "bin/grep",
                            "cat": ".venv/bin/cat"})
    assert judge(command, ProgramPath()).source is Source.AUTONOMY  # verified without it
    found = judge(command, programs)
    assert (found.verdict, found.source) == (Verdict.ALLOW, Source.SANDBOX), found.reason
    assert "in the workspace, code saikish has not read" in found.reason
    asked = judge(command, programs, sandbox=False)
    assert asked.verdict is Verdict.ASK and "on PATH is " in asked.reason


def test_no_rule_and_no_autonomy_level_verifies_it() -> None:
    from saikish.engine.policy import RuleSet
    from saikish.rules import parse_rule

    ctx = Context(builtin_tools(), RuleSet(config_allow=(parse_rule("Bash(ls *)", "test"),)),
                  Autonomy.FULL_AUTO, workspace=WORKSPACE,
                  containment=Containment(sandbox=False),
                  programs=ProgramPath({"ls": "bin/ls"}))
    found = decide(ToolCall("1", "bash", {"command": "ls -la"}), ctx)
    assert found.verdict is Verdict.ASK and "'ls' on PATH is bin/ls in the workspace" \
        in found.reason


def test_builtins_and_paths_are_not_looked_up_on_path() -> None:
    programs = ProgramPath({"echo": "bin/echo", "test": "bin/test"}, relative=".")
    for command in ("echo hi", "test -f x", "cd src", "pwd", "/bin/ls"):
        assert judge(command, programs).source is Source.AUTONOMY, command


def test_a_relative_entry_takes_every_name_not_found_ahead_of_it() -> None:
    programs = ProgramPath(relative=".", before_relative=frozenset({"ls"}))
    assert judge("ls", programs).source is Source.AUTONOMY
    found = judge("cat f", programs, sandbox=False)
    assert found.verdict is Verdict.ASK
    assert "a program in the relative PATH entry '.'" in found.reason


# -- the runtime: what PATH finds, read from the disk ------------------------------------

def test_entries_inside_the_workspace_are_listed_with_what_they_shadow(tmp_path: Path) -> None:
    ws, system = tmp_path / "ws", tmp_path / "system"
    program(ws / "bin", "ls")
    program(ws / "bin", "mytool")
    (ws / "bin" / "notes.txt").write_text("not a program")
    program(ws / ".venv" / "bin", "python")
    program(system, "python")
    first = read_program_path(f"{ws}/bin:{system}:{ws}/.venv/bin", str(ws))
    assert dict(first.workspace) == {"ls": "bin/ls", "mytool": "bin/mytool"}
    assert first.relative is None  # python is the system's: it comes first
    venv = read_program_path(f"{ws}/.venv/bin:{system}", str(ws))
    assert dict(venv.workspace) == {"python": ".venv/bin/python"}
    assert read_program_path(f"{system}:{SYSTEM}", str(ws)) == ProgramPath()


def test_a_path_through_a_symlink_to_the_workspace_counts(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    program(ws / "bin", "ls")
    (tmp_path / "link").symlink_to(ws)
    assert dict(read_program_path(f"{tmp_path}/link/bin:{SYSTEM}", str(ws)).workspace) == {
        "ls": "bin/ls"}


@pytest.mark.parametrize(("entry", "said"), [(".", "."), ("", "."), ("bin", "bin")])
def test_relative_entries_are_read_as_such(tmp_path: Path, entry: str, said: str) -> None:
    system = tmp_path / "system"
    program(system, "ls")
    found = read_program_path(f"{system}:{entry}:/usr/bin", str(tmp_path))
    assert (found.relative, found.before_relative) == (said, frozenset({"ls"}))


def test_a_workspace_entry_with_too_many_entries_takes_every_name(tmp_path: Path) -> None:
    many = tmp_path / "ws" / "bin"
    many.mkdir(parents=True)
    for index in range(MAX_PROGRAMS + 1):
        (many / f"f{index}").touch()
    found = read_program_path(f"{many}:{SYSTEM}", str(tmp_path / "ws"))
    assert found.relative == "bin" and found.workspace_program("ls") is not None


# -- end to end: the real CLI, PATH as the person's shell has it -------------------------

def test_saikish_never_runs_a_repositorys_bin_ls_unasked(ws: Path, tmp_path: Path) -> None:
    program(ws / "bin", "ls")
    model = write_script(tmp_path / "s.yml", json.dumps([
        {"tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]}, {"text": "ok"}]))
    env = {**os.environ, "PATH": f"{ws}/bin:{os.environ['PATH']}"}
    run = subprocess.run([sys.executable, "-m", "saikish", "-p", "go", "-m", model,
                          "--autonomy", "full-auto", "--sandbox", "off", "--output-format",
                          "json"], cwd=ws, env=env, capture_output=True, text=True, timeout=120)
    call = json.loads(run.stdout)["calls"][0]
    assert call["decision"] != "approved" and "'ls' on PATH is bin/ls in the workspace" in \
        call["reason"], call
    assert not (ws / "pwned").exists()
    checked = subprocess.run([sys.executable, "-m", "saikish", "check", "--json", "--sandbox",
                              "off", "ls"], cwd=ws, env=env, capture_output=True, text=True,
                             timeout=120)
    assert json.loads(checked.stdout)["tier"] == "asked"
