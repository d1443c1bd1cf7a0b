"""`saikish mcp add | list | get | remove` (docs/SPEC.md §8): the person's agent.yml edited
with its comments kept, and a server added this way really starts (the fixture server)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from saikish.store import paths
from tests.mcp.test_mcp_e2e import FIXTURE, calls_script, run_json
from tests.support.harness import Run

CLI = Callable[..., Run]

KEPT = """\
# my settings: keep this comment
toolConfirmation:
  autonomy: cautious   # and this one
mcpServers:
  # the git server
  git:
    command: uvx
    args: [mcp-server-git]
  docs: {url: "https://example.com/mcp"}
# trailing comment
"""


def test_add_then_remove_keep_every_comment(cli: CLI, tmp_path: Path) -> None:
    file = tmp_path / "agent.yml"
    file.write_text(KEPT)
    added = cli("mcp", "add", "-c", str(file), "-e", "TOKEN=${TOKEN:-none}", "time", "--",
                "uvx", "mcp-server-time", "--local-timezone", "UTC")
    assert (added.code, added.out) == (0, f"mcp server 'time' added to {file}\n")
    text = file.read_text()
    assert text.startswith(KEPT.split("# trailing")[0])
    assert text.endswith("# trailing comment\n")
    listed = cli("mcp", "list", "-c", str(file))
    assert [line.split(":")[0] for line in listed.out.splitlines()] == ["git", "docs", "time"]
    got = cli("mcp", "get", "-c", str(file), "time")
    assert "command: uvx mcp-server-time --local-timezone UTC" in got.out
    assert "env: TOKEN" in got.out and f"set in: {file}:" in got.out
    removed = cli("mcp", "remove", "-c", str(file), "git")
    assert removed.code == 0
    assert file.read_text() == text.replace("  git:\n    command: uvx\n    args: "
                                            "[mcp-server-git]\n", "")
    assert "# the git server" in file.read_text()


def test_a_server_added_to_a_new_own_file_starts(cli: CLI, tmp_path: Path, ws: Path) -> None:
    added = cli("mcp", "add", "fx", "-e", f"FIXTURE_DIR={ws}", "--", sys.executable,
                str(FIXTURE))
    own = paths.config_dir() / "agent.yml"
    assert added.code == 0 and own.exists()
    own.write_text(own.read_text() + "permissions: {allow: [mcp__fx__write_note]}\n")
    model = calls_script(tmp_path, ("mcp__fx__write_note", {"name": "n.txt", "text": "hi"}))
    data = run_json(cli, "-m", model, "-p", "go")
    assert (data["calls"][0]["decision"], data["calls"][0]["rule"]) == (
        "approved", "mcp__fx__write_note")
    assert (ws / "n.txt").read_text() == "hi"  # the server started and ran the call


def test_mistakes_are_one_line_and_change_nothing(cli: CLI, tmp_path: Path) -> None:
    file = tmp_path / "agent.yml"
    file.write_text(KEPT)
    twice = cli("mcp", "add", "-c", str(file), "git", "--", "true")
    assert twice.code == 1
    assert twice.err == (f"saikish: {file}: a server named 'git' is already there (saikish "
                         "mcp remove git first)\n")
    one_line = tmp_path / "one.yml"
    one_line.write_text("mcpServers: {a: {command: x}, b: {command: y}}\n")
    flow = cli("mcp", "remove", "-c", str(one_line), "a")
    assert flow.code == 1 and "written on one line; remove 'a' by hand" in flow.err
    missing = cli("mcp", "remove", "-c", str(file), "nope")
    assert missing.code == 1 and "no server named 'nope'" in missing.err
    bad_name = cli("mcp", "add", "-c", str(file), "a__b", "--", "true")
    assert bad_name.code == 2 and "cannot name a server" in bad_name.err
    no_command = cli("mcp", "add", "-c", str(file), "x")
    assert no_command.code == 2 and "add NAME -- COMMAND" in no_command.err
    bad_env = cli("mcp", "add", "-c", str(file), "-e", "NOEQUALS", "x", "--", "true")
    assert bad_env.code == 2 and "expected KEY=VALUE" in bad_env.err
    assert file.read_text() == KEPT  # the file was never rewritten
