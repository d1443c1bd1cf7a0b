"""A reader that went away (`saikish ... | head -1`) ends every command quietly (docs/SPEC.md §8).

Each command runs as a real process whose stdout is a pipe with its read end
already closed, so its first write meets EPIPE however little it prints.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.harness import write_script

EXIT_CLOSED_PIPE = 1  # as Python's own advice and rich do
HELP = ("--help", "check --help")  # argparse drops its own write errors: nothing fails


def run_into_closed_pipe(*argv: str) -> subprocess.CompletedProcess[str]:
    """`python -m saikish ARGV` with stdout a pipe nobody reads any more."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run([sys.executable, "-m", "saikish", *argv], stdout=writer,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
                              timeout=120, check=False)
    finally:
        os.close(writer)


@pytest.fixture
def project(ws: Path, tmp_path: Path) -> Path:
    """A workspace with an agent.yml (for trust --show), an audit log and a file of commands."""
    (ws / "agent.yml").write_text("permissions:\n  allow: [Bash(make *)]\n", encoding="utf-8")
    (tmp_path / "batch.txt").write_text("".join(f"echo {n}\n" for n in range(50)),
                                        encoding="utf-8")
    (tmp_path / "state").mkdir()
    entry = {"time": "2026-01-01T00:00:00Z", "tool": "bash", "arguments": {"command": "ls"},
             "risk": "READ_ONLY", "decision": "approved", "source": "autonomy"}
    (tmp_path / "state" / "audit.jsonl").write_text(json.dumps(entry) + "\n", encoding="utf-8")
    return ws


SCRIPT = "- text: hello\n  tool_calls: [{name: bash, arguments: {command: ls}}]\n- text: bye\n"


@pytest.mark.parametrize("argv", [
    ("-p", "go", "--output-format", "stream-json"),
    ("-p", "go", "--output-format", "json"),
    ("-p", "go"),
    ("check", "--batch", "{batch}"),
    ("check", "--json", "--", "ls"),
    ("trust", "--show"),
    ("audit", "--json"),
    ("audit",),
    ("allowlist", "show"),
    ("allowlist", "path"),
    ("config",),
    ("--help",),
    ("check", "--help"),
], ids=lambda argv: " ".join(argv))
def test_a_closed_pipe_ends_the_command_quietly(project: Path, tmp_path: Path,
                                                argv: tuple[str, ...]) -> None:
    model = write_script(tmp_path / "s.yml", SCRIPT)
    words = [w.replace("{batch}", str(tmp_path / "batch.txt")) for w in argv]
    if words[0] == "-p":
        words += ["-m", model]
    run = run_into_closed_pipe(*words)
    assert "Traceback" not in run.stderr and "Error" not in run.stderr, run.stderr
    assert run.returncode == (0 if " ".join(argv) in HELP else EXIT_CLOSED_PIPE)
