"""Running one hook process (docs/SPEC.md §7.2): Claude Code's stdin, exits and JSON output."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from saikish.hooks.config import HookSpec, HookTable
from saikish.hooks.runner import Hooks, hook_name, run_hook
from saikish.types import ToolCall, ToolResult
from tests.support.hookscripts import BAD_JSON, BLOCK_RM, HANG, REWRITE, install


def hooks(ws: Path, *specs: HookSpec) -> Hooks:
    return Hooks(HookTable(specs), str(ws), "s1", secrets=("sk-test-secret",))


def pre(command: str, matcher: str = "", timeout: float = 10) -> HookSpec:
    return HookSpec("PreToolUse", matcher, command, timeout, "agent.yml:3")


def bash(command: str) -> ToolCall:
    return ToolCall("c1", "bash", {"command": command})


def test_stdin_and_environment_are_claude_codes(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret")
    dump = install(ws, "dump.sh", '#!/bin/sh\ncat > seen.json\nenv > seen.env\n')
    gate = hooks(ws, pre(dump, "Write")).pre_tool(
        ToolCall("c9", "write_file", {"path": "src/a.py", "content": "x"}))
    assert gate is not None and gate.permission is None
    seen = json.loads((ws / "seen.json").read_text())
    assert seen == {"session_id": "s1", "transcript_path": "", "cwd": str(ws),
                    "permission_mode": "default",
                    "hook_event_name": "PreToolUse", "tool_name": "Write",
                    "saikish_tool": "write_file", "tool_use_id": "c9",
                    "tool_input": {"file_path": str(ws / "src/a.py"), "content": "x"}}
    env = (ws / "seen.env").read_text()
    assert f"CLAUDE_PROJECT_DIR={ws}\n" in env and f"SAIKISH_PROJECT_DIR={ws}\n" in env
    assert "sk-test-secret" not in env  # saikish's keys never reach a hook


@pytest.mark.parametrize(("tool", "arguments", "claude"), [
    ("bash", {"command": "ls"}, "Bash"),
    ("edit_file", {"path": "a", "old_string": "x", "new_string": "y"}, "Edit"),
    ("read_file", {"path": "a"}, "Read"),
    ("list_files", {"path": "."}, "Glob"),
    ("grep", {"pattern": "x"}, "Grep"),
])
def test_matchers_may_use_either_name(ws: Path, tool: str, arguments: dict[str, str],
                                      claude: str) -> None:
    deny = '#!/bin/sh\necho "no" >&2\nexit 2\n'
    script = install(ws, "deny.sh", deny)
    for matcher in (claude, tool, f"Other|{claude}"):
        gate = hooks(ws, pre(script, matcher)).pre_tool(ToolCall("c", tool, arguments))
        assert gate is not None and (gate.permission, gate.reason) == ("deny", "no"), matcher
    assert hooks(ws, pre(script, "Write")).pre_tool(ToolCall("c", tool, arguments)) is None


def test_block_rm_script_from_the_docs(ws: Path) -> None:
    script = install(ws, "block.sh", BLOCK_RM)
    gate = hooks(ws, pre(script, "Bash")).pre_tool(bash("rm -rf build"))
    assert gate is not None and gate.permission == "deny"
    assert gate.reason == "Blocked: rm -rf is not allowed by the project's hook"
    assert gate.rule == script
    quiet = hooks(ws, pre(script, "Bash")).pre_tool(bash("ls"))
    assert quiet is not None and quiet.permission is None


def test_rewrite_becomes_a_new_call_under_our_names(ws: Path) -> None:
    script = install(ws, "rewrite.py", REWRITE)
    gate = hooks(ws, pre(script)).pre_tool(bash("npm test"))
    assert gate is not None and gate.permission == "allow"
    assert gate.updated == ToolCall("c1", "bash", {"command": "pnpm test"})
    edit = hooks(ws, pre('echo \'{"hookSpecificOutput": {"updatedInput": '
                         '{"file_path": "/tmp/x", "new_string": "z"}}}\''))
    gate = edit.pre_tool(ToolCall("c", "edit_file", {"path": "a", "old_string": "x",
                                                     "new_string": "y"}))
    assert gate is not None and gate.updated is not None
    assert dict(gate.updated.arguments) == {"path": "/tmp/x", "old_string": "x",
                                            "new_string": "z"}


@pytest.mark.parametrize(("outputs", "expected"), [
    (["deny", "ask", "allow"], "deny"),
    (["allow", "ask"], "ask"),
    (["allow", "allow"], "allow"),
    (["allow", "none"], "allow"),
])
def test_deny_beats_ask_beats_allow(ws: Path, outputs: list[str], expected: str) -> None:
    specs = [pre(f"echo '{{\"hookSpecificOutput\": {{\"permissionDecision\": \"{o}\", "
                 f"\"permissionDecisionReason\": \"said {o}\"}}}}'" if o != "none" else "true")
             for o in outputs]
    gate = hooks(ws, *specs).pre_tool(bash("ls"))
    assert gate is not None and (gate.permission, gate.reason) == (expected, f"said {expected}")


@pytest.mark.parametrize(("script", "failure"), [
    (BAD_JSON, "printed output that is not valid JSON"),
    ("#!/bin/sh\necho oops >&2\nexit 1\n", "exited with status 1: oops"),
    ("#!/bin/sh\necho '{\"hookSpecificOutput\": {\"permissionDecision\": \"maybe\"}}'\n",
     "permissionDecision 'maybe' is not one of: allow, deny, ask"),
    ("#!/bin/sh\nkill -9 $$\n", "exited with status 137"),  # sh -c reports 128+9
])
def test_a_broken_gating_hook_asks_and_names_itself(ws: Path, script: str, failure: str) -> None:
    path = install(ws, "broken.sh", script)
    gate = hooks(ws, pre(path), pre("echo '{\"decision\": \"approve\"}'")).pre_tool(bash("ls"))
    assert gate is not None and gate.permission == "ask"  # the other hook's allow is outweighed
    assert gate.reason.startswith(f"{hook_name(pre(path))} ")
    assert hook_name(pre(path)).endswith("broken.sh' (agent.yml:3)")
    assert failure in gate.reason
    assert gate.notes == (f"{gate.reason}: asking instead",)


def test_a_hanging_hook_is_killed_whole_at_its_timeout(ws: Path) -> None:
    script = install(ws, "hang.sh", HANG)
    answer = run_hook(pre(script, timeout=1), {}, {"CLAUDE_PROJECT_DIR": str(ws),
                                                   "PATH": os.environ["PATH"]}, str(ws))
    assert answer.failure == "timed out after 1s and was killed"
    child = int((ws / "hang.pid").read_text())
    # Its sleep died with it (the whole group was killed); the kernel may take a moment
    # between closing a dying process's pipes and marking it dead.
    deadline = time.monotonic() + 60
    while running(child) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not running(child)


def running(pid: int) -> bool:
    """True when `pid` is a live process (a zombie waiting for its reaper is not)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


def test_post_tool_use_feeds_back_and_never_blocks(ws: Path) -> None:
    block = HookSpec("PostToolUse", "Bash", "echo '{\"decision\": \"block\", "
                     "\"reason\": \"lint failed\"}'", 10, "a:1")
    broken = HookSpec("PostToolUse", "", "exit 7", 10, "a:2")
    session = hooks(ws, block, broken)
    added, notes = session.post_tool(bash("ls"), ToolResult("c1", "bash", "ok", False))
    assert added == "[PostToolUse hook: lint failed]"
    assert notes == ("PostToolUse hook 'exit 7' (a:2) exited with status 7 (ignored; said once)",)
    assert session.post_tool(bash("ls"), ToolResult("c1", "bash", "ok", False))[1] == ()


def test_a_non_gating_hook_failure_is_logged_every_time_and_said_once(ws: Path) -> None:
    from saikish.store.audit import AuditLog, read_tail

    broken = HookSpec("PostToolUse", "", "exit 7", 10, "a:2")
    session = hooks(ws, broken)
    session.audit = AuditLog(ws / "audit.jsonl", "s1")
    said = [session.post_tool(bash("ls"), ToolResult("c1", "bash", "ok", False))[1]
            for _ in range(2)]
    assert said[0] and said[1] == ()  # shown once
    logged = read_tail(ws / "audit.jsonl", 10)
    assert [(e["tool"], e["source"], e["decision"], e["rule"]) for e in logged] == [
        ("hook:PostToolUse", "hook", "failed", "exit 7")] * 2
    assert "status 7" in logged[0]["feedback"]
