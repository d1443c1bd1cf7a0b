"""Claude Code's permission rule names as aliases (docs/SPEC.md §4.4): `Edit(src/**)`,
`Read(./.env)`, `Write(**)`; they mean what Claude Code means and never reach further
than our own rules (git metadata, agent.yml, outside the workspace)."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from saikish.rules import parse_rule
from tests.support.harness import Run, write_script

CLI = Callable[..., Run]


def check(cli: CLI, tool: str, arguments: dict[str, str], *flags: str) -> dict[str, Any]:
    run = cli("check", "--json", "--sandbox", "off", "--autonomy", "manual", "--tool", tool,
              "--args", json.dumps(arguments), *flags)
    assert "Traceback" not in run.err
    answer: dict[str, Any] = json.loads(run.out)
    return answer


@pytest.mark.parametrize(("rule", "tool", "path", "decision"), [
    ("Edit(src/**)", "edit_file", "src/a.py", "allow"),
    ("Edit(src/**)", "write_file", "src/a.py", "allow"),  # Edit covers every edit tool
    ("Write(src/**)", "edit_file", "src/a.py", "allow"),
    ("MultiEdit(src/**)", "write_file", "src/a.py", "allow"),
    ("Edit(src/**)", "write_file", "docs/a.md", "ask"),
    ("Edit(/src/**)", "write_file", "src/a.py", "allow"),  # `/x`: the project's x
    ("Edit(./src/**)", "write_file", "src/a.py", "allow"),
    ("Write(**)", "write_file", "deep/er/a.py", "allow"),
    ("Edit", "write_file", "a.py", "allow"),
])
def test_edit_aliases_allow_what_claude_code_allows(cli: CLI, ws: Path, rule: str, tool: str,
                                                    path: str, decision: str) -> None:
    arguments = {"path": path, "content": "x"} if tool == "write_file" else \
        {"path": path, "old_string": "x", "new_string": "y"}
    answer = check(cli, tool, arguments, "--allow", rule)
    assert answer["decision"] == decision
    if decision == "allow":
        assert answer["rule"] == rule


@pytest.mark.parametrize(("path", "why"), [
    (".git/hooks/pre-commit", "git metadata"),
    ("agent.yml", "saikish's config"),
    (".saikish/x", "saikish's config"),
    ("../outside.txt", "outside the workspace"),
    ("/etc/passwd", "outside the workspace"),
])
def test_write_everything_never_reaches_further_than_a_bare_rule(
        cli: CLI, ws: Path, path: str, why: str) -> None:
    subprocess.run(["git", "init", "-q", str(ws)], check=True)
    for rule in ("Write(**)", "Edit(**)", "Write", "Edit(//**)"):
        answer = check(cli, "write_file", {"path": path, "content": "x"}, "--allow", rule)
        assert answer["decision"] != "allow", (rule, path, why)
        assert answer.get("rule") != rule


def test_read_deny_covers_every_read_tool(cli: CLI, ws: Path) -> None:
    (ws / ".env").write_text("SECRET=1\n")
    for tool, arguments in (("read_file", {"path": ".env"}),
                            ("grep", {"pattern": "SECRET", "path": ".env"}),
                            ("list_files", {"path": ".env"})):
        answer = check(cli, tool, arguments, "--deny", "Read(./.env)")
        assert (answer["decision"], answer["rule"]) == ("reject", "Read(./.env)"), tool
    other = check(cli, "read_file", {"path": "a.txt"}, "--deny", "Read(./.env)")
    assert (other["decision"], other["rule"]) == ("ask", None)  # manual asks; no deny


def test_a_rule_for_a_tool_saikish_lacks_is_warned_and_covers_nothing(
        cli: CLI, tmp_path: Path, ws: Path) -> None:
    rule = parse_rule("WebFetch(domain:example.com)")
    assert not rule.names_tool("WebFetch") and not rule.names_tool("bash")
    config = tmp_path / "agent.yml"
    config.write_text("permissions:\n  allow: [WebFetch, 'WebFetch(domain:example.com)', "
                      "WebSearch]\n  deny: ['Edit(secrets/**)']\n")
    model = write_script(tmp_path / "s.yml", json.dumps([
        {"tool_calls": [{"name": "write_file",
                         "arguments": {"path": "secrets/k", "content": "x"}}]},
        {"text": "done"}]))
    run = cli("-c", str(config), "-m", model, "-p", "go", "--auto-approve",
              "--output-format", "json")
    data = json.loads(run.out)
    assert len(data["warnings"]) == 3
    assert all("no saikish equivalent" in w for w in data["warnings"])
    assert (data["calls"][0]["decision"], data["calls"][0]["rule"]) == (
        "rejected_soft", "Edit(secrets/**)")
    assert not (ws / "secrets").exists()
