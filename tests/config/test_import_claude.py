"""`saikish config import-claude` (docs/SPEC.md §8): Claude Code's settings.json and .mcp.json
as an agent.yml that really works; nothing runs while converting; nothing is overwritten."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from saikish.config.layers import load_config
from tests.mcp.test_mcp_e2e import FIXTURE
from tests.support.harness import Run, write_script
from tests.support.hookscripts import BLOCK_RM, install

CLI = Callable[..., Run]


def claude_project(tmp_path: Path, ws: Path) -> Path:
    """A project as Claude Code users have it: .claude/settings.json and .mcp.json."""
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    ran = tmp_path / "ran"
    settings: dict[str, Any] = {
        "$schema": "https://json.schemastore.org/claude-code-settings.json",
        "model": "opus",
        "env": {"FOO": "1"},
        "permissions": {
            "allow": ["Bash(npm run test:*)", "Edit(src/**)", "WebFetch(domain:github.com)",
                      "mcp__fx"],
            "deny": ["Read(./.env)", "Bash(curl:*)"],
            "ask": ["Bash(git push:*)"],
            "defaultMode": "acceptEdits",
            "additionalDirectories": ["../docs"],
        },
        "hooks": {
            "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": install(tmp_path, "rm.sh", BLOCK_RM),
                 "timeout": 10},
                {"type": "prompt", "prompt": "Is this safe?"}]}],
            "SessionStart": [{"hooks": [{"type": "command", "command": f"touch {ran}"}]}],
            "PreCompact": [{"hooks": [{"type": "command", "command": f"touch {ran}"}]}],
        },
    }
    (project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))
    servers = {"mcpServers": {
        "fx": {"command": sys.executable, "args": [str(FIXTURE)],
               "env": {"FIXTURE_DIR": str(ws)}},
        "old": {"type": "sse", "url": "https://example.com/sse"},
        "boom": {"command": "sh", "args": ["-c", f"touch {ran}"]}}}
    (project / ".mcp.json").write_text(json.dumps(servers, indent=2))
    return project


def test_converts_what_it_can_lists_the_rest_and_runs_nothing(
        cli: CLI, tmp_path: Path, ws: Path) -> None:
    project = claude_project(tmp_path, ws)
    out = tmp_path / "agent.yml"
    run = cli("config", "import-claude", "--from", str(project), "--to", str(out))
    assert run.code == 0, run.err
    assert run.out.splitlines()[0] == (f"wrote {out}: rules 3 allow, 2 deny, 1 ask; 2 hooks; "
                                       "2 MCP servers")
    skipped = run.out.split("not converted:\n")[1]
    for said in ("model: not a setting saikish has", "env: not a setting saikish has",
                 "'WebFetch(domain:github.com)': WebFetch is a Claude Code tool saikish lacks",
                 "permissions.defaultMode: not converted; in saikish: toolConfirmation."
                 "autonomy: supervised", "permissions.additionalDirectories",
                 "hooks.PreCompact: saikish does not produce this event",
                 "hooks.PreToolUse[0]: a hook of type prompt",
                 ".mcp.json mcpServers.old: type sse"):
        assert said in skipped, said
    assert not (tmp_path / "ran").exists()  # no hook ran, no server started
    config = load_config(out)
    assert [r.text for r in config.allow] == ["Bash(npm run test:*)", "Edit(src/**)", "mcp__fx"]
    assert [s.name for s in config.mcp_servers] == ["fx", "boom"]
    assert [s.event for s in config.hooks.specs] == ["PreToolUse", "SessionStart"]


def test_the_converted_file_works(cli: CLI, tmp_path: Path, ws: Path) -> None:
    project = claude_project(tmp_path, ws)
    out = tmp_path / "agent.yml"
    assert cli("config", "import-claude", "--from", str(project), "--to", str(out)).code == 0
    text = out.read_text().replace("boom", "fx2").replace(f"touch {tmp_path / 'ran'}", "echo ok")
    out.write_text(text)
    model = write_script(tmp_path / "s.yml", json.dumps([
        {"tool_calls": [{"name": "bash", "arguments": {"command": "rm -rf src"}},
                        {"name": "mcp__fx__write_note",
                         "arguments": {"name": "n.txt", "text": "hi"}}]},
        {"text": "done"}]))
    run = cli("-c", str(out), "-m", model, "-p", "go", "--output-format", "json")
    assert json.loads(run.out)["calls"], run.out + run.err
    rm, note = json.loads(run.out)["calls"]
    assert (rm["decision"], rm["source"]) == ("rejected_soft", "hook")
    assert (note["decision"], note["rule"]) == ("approved", "mcp__fx")
    assert (ws / "n.txt").read_text() == "hi"


def test_never_overwrites_without_force_and_never_trusts(
        cli: CLI, tmp_path: Path, ws: Path) -> None:
    project = claude_project(tmp_path, ws)
    target = ws / "agent.yml"
    target.write_text("# mine\n")
    refused = cli("config", "import-claude", "--from", str(project), "--to", str(target))
    assert (refused.code, refused.err) == (1, f"saikish: {target} exists; --force "
                                              "overwrites it\n")
    assert target.read_text() == "# mine\n"
    forced = cli("config", "import-claude", "--from", str(project), "--to", "agent.yml",
                 "--force")
    assert forced.code == 0 and "run 'saikish trust'" in forced.out
    model = write_script(tmp_path / "s.yml", "- text: hi\n")
    one_shot = cli("-m", model, "-p", "go")
    assert "this project's agent.yml is not trusted" in one_shot.err


def test_bad_input_is_one_line(cli: CLI, tmp_path: Path) -> None:
    broken = tmp_path / "settings.json"
    broken.write_text('{\n  "permissions": {\n    "allow": [,]\n  }\n}\n')
    run = cli("config", "import-claude", "--from", str(broken), "--to", str(tmp_path / "o"))
    assert run.code == 2
    assert run.err.startswith(f"saikish: {broken}:3: not valid JSON")
    missing = cli("config", "import-claude", "--from", str(tmp_path / "nope"), "--to", "x")
    assert missing.code == 2 and "no Claude Code settings.json there" in missing.err
    assert not (tmp_path / "o").exists()
