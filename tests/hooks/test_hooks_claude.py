"""Claude Code hook blocks pasted as they are (docs/SPEC.md §7.2): matchers, every event
name and key, `permission_mode` and Claude Code's `tool_response` shapes, real processes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from saikish.hooks.config import HookSpec
from tests.support.harness import Run, write_script
from tests.support.hookscripts import BLOCK_RM, RECORD, install

CLI = Callable[..., Run]


@pytest.mark.parametrize(("matcher", "name", "hit"), [
    ("", "anything", True),
    ("*", "mcp__fs__write_file", True),
    ("Bash", "Bash", True),
    ("Bash", "mcp__x__Bashful", False),  # a plain name is exact, as Claude Code's docs say
    ("Edit|Write", "Write", True),
    ("Edit|Write", "WriteFile", False),
    ("mcp__fs", "mcp__fs__read", False),  # a server prefix alone matches no tool
    ("mcp__fs__.*", "mcp__fs__read", True),
    ("mcp__fs__(write|edit)", "mcp__fs__write_file", True),  # searched, not fully matched
    ("mcp__fs__(write|edit)", "mcp__fs__read_file", False),
    ("Notebook.*", "NotebookEdit", True),
    ("^Write$", "Write", True),
    ("^Write$", "mcp__x__Write", False),
])
def test_matchers_read_as_claude_code_reads_them(matcher: str, name: str, hit: bool) -> None:
    assert HookSpec("PreToolUse", matcher, "true").matches(name) is hit


def test_prompt_and_stop_hooks_run_whatever_their_matcher() -> None:
    assert HookSpec("UserPromptSubmit", "Bash", "true").matches("")
    assert HookSpec("Stop", "anything", "true").matches("")


def pasted(tmp_path: Path, block_rm: str, recorder: str) -> dict[str, Any]:
    """A hooks block as Claude Code users have it: events, types and keys saikish lacks."""
    command = {"type": "command", "command": block_rm, "statusMessage": "Checking...",
               "timeout": 10, "futureKnob": {"a": 1}}
    return {"hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [command]}],
        "PostToolUse": [{"matcher": "Bash|Write", "hooks": [
            {"type": "command", "command": recorder, "async": True},
            {"type": "prompt", "prompt": "Was that wise?", "model": "haiku"}]}],
        "SubagentStop": [{"hooks": [{"type": "command", "command": "touch subagent"}]}],
        "PreCompact": [{"matcher": "auto", "hooks": [{"type": "command", "command": "x"}]}],
        "SessionEnd": [{"hooks": [{"type": "command", "command": "touch ended"}]}],
        "NextYearsEvent": [{"hooks": [{"type": "command", "command": "touch future"}]}],
    }}


def run_json(cli: CLI, *argv: str) -> tuple[dict[str, Any], Run]:
    run = cli(*argv, "--output-format", "json")
    assert "Traceback" not in run.err
    return json.loads(run.out), run


def calls(tmp_path: Path, *made: tuple[str, dict[str, Any]]) -> str:
    turn = {"text": "On it.", "tool_calls": [{"name": n, "arguments": a} for n, a in made]}
    return write_script(tmp_path / "s.yml", json.dumps([turn, {"text": "Done."}]))


def recorded(ws: Path) -> list[dict[str, Any]]:
    lines = (ws / "hook-input.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_pasted_claude_code_block_runs_and_says_what_it_skips_once(
        cli: CLI, tmp_path: Path, ws: Path) -> None:
    cfg = tmp_path / "agent.yml"
    cfg.write_text(json.dumps(pasted(tmp_path, install(tmp_path, "rm.sh", BLOCK_RM),
                                     install(tmp_path, "rec.sh", RECORD)), indent=1))
    model = calls(tmp_path, ("bash", {"command": "rm -rf build"}),
                  ("bash", {"command": "echo hi"}))
    data, run = run_json(cli, "-c", str(cfg), "-m", model, "-p", "go", "--auto-approve")
    assert run.code == 0
    blocked, echoed = data["calls"]
    assert (blocked["decision"], blocked["source"]) == ("rejected_soft", "hook")
    assert (echoed["decision"], [r["tool_input"] for r in recorded(ws)]) == (
        "approved", [{"command": "echo hi"}])
    lines = run.err.splitlines()
    skipped = [line for line in lines if str(cfg) in line]
    assert len(skipped) == 3, run.err  # events, types, keys: one line each, said once
    events, types, keys = skipped
    assert "hooks for SubagentStop (line" in events and "PreCompact" in events
    assert "SessionEnd" in events and "NextYearsEvent (not an event saikish knows)" in events
    assert "type: prompt" in types and "runs hooks of type: command" in types
    assert "hooks.PreToolUse.hooks.futureKnob" in keys
    assert not any((ws / name).exists() for name in ("subagent", "ended", "future"))


def test_once_runs_a_hook_the_first_time_only(cli: CLI, tmp_path: Path, ws: Path) -> None:
    recorder = install(tmp_path, "rec.sh", RECORD)
    cfg = tmp_path / "agent.yml"
    cfg.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": recorder, "once": True}]}]}}))
    model = calls(tmp_path, ("bash", {"command": "echo one"}), ("bash", {"command": "echo 2"}))
    data, _ = run_json(cli, "-c", str(cfg), "-m", model, "-p", "go", "--auto-approve")
    assert [c["decision"] for c in data["calls"]] == ["approved", "approved"]
    assert [r["tool_input"]["command"] for r in recorded(ws)] == ["echo one"]


def record_all(tmp_path: Path) -> Path:
    recorder = install(tmp_path, "rec.sh", RECORD)
    cfg = tmp_path / "agent.yml"
    cfg.write_text(json.dumps({"hooks": {"PostToolUse": [{"matcher": "*", "hooks": [
        {"type": "command", "command": recorder}]}]}}))
    return cfg


def test_post_tool_use_gets_claude_codes_tool_response_shapes(
        cli: CLI, tmp_path: Path, ws: Path) -> None:
    (ws / "old.txt").write_text("one\ntwo\n")
    model = calls(tmp_path, ("bash", {"command": "echo out; echo err >&2; exit 3"}),
                  ("write_file", {"path": "new.txt", "content": "hello\n"}),
                  ("edit_file", {"path": "old.txt", "old_string": "two", "new_string": "2"}),
                  ("read_file", {"path": "old.txt"}))
    data, _ = run_json(cli, "-c", str(record_all(tmp_path)), "-m", model, "-p", "go",
                       "--auto-approve")
    assert [c["decision"] for c in data["calls"]] == ["approved"] * 4
    bash, write, edit, read = (r["tool_response"] for r in recorded(ws))
    assert (bash["stdout"], bash["stderr"], bash["interrupted"]) == ("out\nerr", "", False)
    assert bash["is_error"] and bash["output"].endswith("[exit code 3]")
    assert write == {"filePath": str(ws / "new.txt"), "success": True, "content": "hello\n",
                     "output": write["output"], "is_error": False}
    assert (edit["filePath"], edit["oldString"], edit["newString"], edit["success"]) == (
        str(ws / "old.txt"), "two", "2", True)
    assert read["type"] == "text" and read["file"]["filePath"] == str(ws / "old.txt")
    assert "one" in read["file"]["content"] and "2" in read["file"]["content"]


@pytest.mark.parametrize(("flags", "mode"), [
    ((), "default"),
    (("--autonomy", "supervised"), "acceptEdits"),
    (("--autonomy", "full-auto"), "acceptEdits"),
    (("--auto-approve",), "bypassPermissions"),
    (("--auto-deny",), "dontAsk"),
])
def test_permission_mode_follows_our_mode_and_autonomy(
        cli: CLI, tmp_path: Path, ws: Path, flags: tuple[str, ...], mode: str) -> None:
    model = calls(tmp_path, ("read_file", {"path": "missing.txt"}))
    run_json(cli, "-c", str(record_all(tmp_path)), "-m", model, "-p", "go", *flags)
    assert [r["permission_mode"] for r in recorded(ws)] == [mode]
