"""Claude Code hook scripts run unchanged by real saikish (docs/SPEC.md §7.2).

The scripts and the `hooks` block in tests/fixtures/claude_hooks/ behave like documented
public examples (its README says which); the block is pasted into agent.yml as a Claude
Code user would paste it, and `saikish -p` runs as a real process.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOOKS = ROOT / "tests" / "fixtures" / "claude_hooks"


@pytest.fixture
def cfg(ws: Path, tmp_path: Path) -> Path:
    """The scripts in the workspace's .claude/hooks/, the settings' hooks block as config."""
    target = ws / ".claude" / "hooks"
    target.mkdir(parents=True)
    for script in HOOKS.iterdir():
        if script.suffix in (".py", ".sh"):
            shutil.copy2(script, target / script.name)
    settings = json.loads((HOOKS / "settings.json").read_text(encoding="utf-8"))
    path = tmp_path / "agent.yml"
    path.write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")  # JSON is YAML
    return path


def run(ws: Path, cfg: Path, tmp_path: Path, prompt: str, *turns: dict[str, Any],
        flags: tuple[str, ...] = ("--auto-approve",)) -> dict[str, Any]:
    model = tmp_path / "model.yml"
    model.write_text(json.dumps(list(turns)), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "saikish", "-p", prompt, "-m", f"script:{model}", "-c", str(cfg),
         "--output-format", "json", "--sandbox", "off", *flags],
        capture_output=True, text=True, cwd=ws, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "Traceback" not in done.stderr, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    data["_code"], data["_stderr"] = done.returncode, done.stderr
    return data


def calls(*made: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    return {"tool_calls": [{"name": n, "arguments": a} for n, a in made]}


def session_text(tmp_path: Path) -> str:
    [stored] = (tmp_path / "state" / "sessions").glob("*.jsonl")
    return stored.read_text(encoding="utf-8")


def test_the_bash_validator_blocks_with_its_stderr_as_the_reason(
        ws: Path, cfg: Path, tmp_path: Path) -> None:
    (ws / "a.txt").write_text("x\n")
    data = run(ws, cfg, tmp_path, "search",
               calls(("bash", {"command": "grep x a.txt"}),
                     ("bash", {"command": "grep x a.txt | head -1"}),
                     ("bash", {"command": "find . -name a.txt"})),
               {"text": "tests passed"})
    grep, piped, find = data["calls"]
    assert (grep["decision"], grep["source"]) == ("rejected_soft", "hook")
    assert "- Use 'rg' (ripgrep) instead of 'grep' for better performance" in grep["feedback"]
    assert piped["decision"] == "approved" and piped["result"]["excerpt"].startswith("x\n")
    assert (find["decision"], find["source"]) == ("rejected_soft", "hook")
    assert "Use 'rg --files -g PATTERN' instead of 'find -name'" in find["feedback"]
    # The second Bash hook (the jq logger) ran for every command, blocked or not.
    assert (ws / "bash-command-log.txt").read_text().splitlines() == [
        "grep x a.txt - No description", "grep x a.txt | head -1 - No description",
        "find . -name a.txt - No description"]


def test_protected_files_are_denied_and_written_files_formatted(
        ws: Path, cfg: Path, tmp_path: Path) -> None:
    data = run(ws, cfg, tmp_path, "write",
               calls(("write_file", {"path": ".env", "content": "TOKEN=1\n"}),
                     ("write_file", {"path": "notes.md", "content": "one   \ntwo\t\n"}),
                     ("edit_file", {"path": "notes.md", "old_string": "two",
                                    "new_string": "three  "})),
               {"text": "tests passed"})
    env, write, edit = data["calls"]
    assert (env["decision"], env["source"]) == ("rejected_soft", "hook")
    assert f"{ws / '.env'} is protected (.env); edit it by hand" in env["feedback"]
    assert not (ws / ".env").exists()
    assert [write["decision"], edit["decision"]] == ["approved", "approved"]
    # PostToolUse ran the formatter after each write: no trailing blanks are left.
    assert (ws / "notes.md").read_text() == "one\nthree\n"


def test_a_prompt_with_a_secret_never_reaches_the_model(ws: Path, cfg: Path,
                                                        tmp_path: Path) -> None:
    data = run(ws, cfg, tmp_path, "deploy with password: hunter2", {"text": "never"})
    assert data["result"] != "never" and data["calls"] == []
    assert "Security policy violation: the prompt holds a secret" in json.dumps(data)


def test_prompt_and_session_start_context_join_the_first_message(
        ws: Path, cfg: Path, tmp_path: Path) -> None:
    data = run(ws, cfg, tmp_path, "hello", {"text": "tests passed"})
    assert data["result"] == "tests passed"
    stored = session_text(tmp_path)
    session_id = json.loads(stored.splitlines()[0])["id"]
    user = next(json.loads(line) for line in stored.splitlines()
                if json.loads(line).get("type") == "user")
    assert user["text"].startswith("hello\n\n")
    assert "Explain each change in one short sentence (session source: startup)." in user["text"]
    assert f"Project context: ticket SK-24; session {session_id}" in user["text"]


def test_the_stop_hook_reads_the_transcript_and_sends_the_model_back_once(
        ws: Path, cfg: Path, tmp_path: Path) -> None:
    data = run(ws, cfg, tmp_path, "fix it", {"text": "I think it is fixed."},
               {"text": "Ran them: tests passed."})
    assert data["result"] == "Ran them: tests passed."
    assert "Run the tests before you stop." in session_text(tmp_path)
    # It read the session file saikish gave it as transcript_path: lines were there.
    seen = (ws / "stop-hook-saw.txt").read_text().split()
    assert int(seen[0]) > 0 and seen[1:] == ["transcript", "lines"]


def test_a_stop_hook_that_never_agrees_is_let_go_after_one_round(
        ws: Path, cfg: Path, tmp_path: Path) -> None:
    """stop_hook_active is true on the second round: the script lets the model stop."""
    data = run(ws, cfg, tmp_path, "fix it", {"text": "fixed"}, {"text": "still fixed"},
               {"text": "never reached"})
    assert data["result"] == "still fixed"
