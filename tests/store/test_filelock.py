"""The lock beside the allowlist, the audit log and the MCP pins: exclusive, and no file left."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.support.harness import ROOT, Run, write_script

CLI = Callable[..., Run]

# Each process adds one to the number in the file, many times, under the lock.
COUNTER = """
import sys
from pathlib import Path
from saikish.store.filelock import exclusive
path = Path(sys.argv[1])
for _ in range(int(sys.argv[2])):
    with exclusive(path):
        path.write_text(str(int(path.read_text()) + 1))
"""


def test_the_lock_excludes_other_processes_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "locks").mkdir()
    counter = tmp_path / "locks" / "n"
    counter.write_text("0")
    processes = [subprocess.Popen([sys.executable, "-c", COUNTER, str(counter), "200"],
                                  cwd=ROOT) for _ in range(6)]
    assert [p.wait(timeout=120) for p in processes] == [0] * 6
    assert counter.read_text() == "1200"  # no increment lost: never two holders at once
    assert sorted(p.name for p in counter.parent.iterdir()) == ["n"]


def test_no_stray_lock_files_in_the_config_and_state_dirs(cli: CLI, isolated_dirs: Path,
                                                          tmp_path: Path) -> None:
    script = "- tool_calls: [{name: bash, arguments: {command: ls}}]\n- text: ok\n"
    assert cli("-p", "go", "-m", write_script(tmp_path / "s.yml", script)).code == 0
    assert cli("allowlist", "add", "Bash(make *)").code == 0
    assert cli("allowlist", "remove", "Bash(make *)").code == 0
    left = [p.name for d in ("config", "state") for p in (isolated_dirs / d).rglob("*")
            if p.name.endswith(".lock")]
    assert left == []
    assert (isolated_dirs / "state" / "audit.jsonl").exists()
