"""The trust store under concurrency, and what trust covers (saikish/config/trust.py, §4.8).

Before: with no lock, 16 concurrent `saikish trust` kept about half of the answers, a
`trust --revoke` racing other trusts was undone; and trust covered agent.yml's bytes
only, so a changed `hook.sh` or MCP `server.py` in the workspace ran as trusted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.support.harness import Run, write_script

CLI = Callable[..., Run]
DEADLINE = 120
LOOSENING = "permissions:\n  allow:\n    - Bash(make *)\n"


def start_trust(workspace: Path, *flags: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "saikish", "trust", *flags], cwd=workspace,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(processes: list[subprocess.Popen[str]]) -> None:
    for process in processes:
        out, err = process.communicate(timeout=DEADLINE)
        assert process.returncode == 0, err


def workspaces(root: Path, count: int) -> list[Path]:
    made = []
    for n in range(count):
        workspace = root / f"repo{n}"
        workspace.mkdir()
        (workspace / "agent.yml").write_text(LOOSENING)
        made.append(workspace)
    return made


def trusted_paths() -> set[str]:
    store = Path(os.environ["SAIKISH_STATE_DIR"]) / "trusted.json"
    entries = json.loads(store.read_text())
    return {path for path, entry in entries.items() if entry["trusted"]}


def test_concurrent_trusts_keep_every_answer(tmp_path: Path) -> None:
    repos = workspaces(tmp_path, 16)
    finish([start_trust(repo) for repo in repos])
    assert trusted_paths() == {str(repo / "agent.yml") for repo in repos}


def test_a_revoke_racing_other_trusts_is_never_undone(tmp_path: Path) -> None:
    target, *others = workspaces(tmp_path, 9)
    for round_number in range(4):
        finish([start_trust(target)])
        assert str(target / "agent.yml") in trusted_paths()
        finish([start_trust(target, "--revoke"), *(start_trust(o) for o in others)])
        assert str(target / "agent.yml") not in trusted_paths(), f"round {round_number}"


HOOKED = """\
hooks:
  PreToolUse:
    - matcher: "*"
      hooks:
        - {type: command, command: "./hooks/check.sh --strict"}
"""


def test_changing_a_trusted_hook_script_asks_again(cli: CLI, ws: Path, tmp_path: Path) -> None:
    (ws / "hooks").mkdir()
    script = ws / "hooks" / "check.sh"
    script.write_text("#!/bin/sh\ntouch ran-v1\n")
    script.chmod(0o755)
    (ws / "agent.yml").write_text(HOOKED)
    model = write_script(tmp_path / "s.yml", "- tool_calls:\n    - {name: bash, arguments: "
                                             "{command: ls}}\n- text: done\n")
    assert cli("trust").code == 0
    assert cli("-p", "go", "-m", model).code == 0
    assert (ws / "ran-v1").exists()
    script.write_text("#!/bin/sh\ntouch ran-v2\n")  # agent.yml itself is unchanged
    assert "not trusted (never answered, or changed since)" in cli("trust", "--show").out
    run = cli("-p", "go", "-m", model)
    assert run.code == 0 and "1 setting ignored" in run.err and "hooks" in run.err
    assert not (ws / "ran-v2").exists()


def test_changing_a_trusted_mcp_servers_script_asks_again(cli: CLI, ws: Path) -> None:
    (ws / "tools").mkdir()
    server = ws / "tools" / "server.py"
    server.write_text("print('v1')\n")
    (ws / "agent.yml").write_text("mcpServers:\n  local:\n    command: python3\n"
                                  "    args: [server.py]\n    cwd: tools\n")
    assert cli("trust").code == 0
    assert ": trusted" in cli("trust", "--show").out
    server.write_text("print('v2')\n")
    assert "not trusted (never answered, or changed since)" in cli("trust", "--show").out
    server.write_text("print('v1')\n")  # back to the bytes that were trusted
    assert ": trusted" in cli("trust", "--show").out


def test_files_outside_the_workspace_are_not_part_of_trust(cli: CLI, ws: Path,
                                                           tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.sh"
    outside.write_text("v1\n")
    (ws / "agent.yml").write_text(HOOKED.replace("./hooks/check.sh", str(outside)))
    assert cli("trust").code == 0
    outside.write_text("v2\n")  # the person's own file, not the repository's
    assert ": trusted" in cli("trust", "--show").out
