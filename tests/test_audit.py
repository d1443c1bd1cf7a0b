"""The audit ledger (SPEC 4.6): one redacted JSON line per decision, rotated."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from saikish.audit import AuditLog, read_tail, redact
from saikish.types import Decision, Source, ToolCall
from tests.conftest import Run, write_script


@pytest.mark.parametrize(("value", "secret"), [
    ({"command": "curl -H 'Authorization: Bearer abcdef1234567890' x"}, "abcdef1234567890"),
    ({"command": "export OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234"}, "sk-proj-abcdefghijklmnop"),
    ({"command": "curl 'https://x.example/?api_key=hunter2hunter2'"}, "hunter2hunter2"),
    ({"content": "token: ghp_abcdefghijklmnopqrstuvwxyz123456"}, "ghp_abcdefghijklmnopqrstuvwxyz"),
    ({"content": "aws AKIAABCDEFGHIJKLMNOP"}, "AKIAABCDEFGHIJKLMNOP"),
    ({"password": "correct horse"}, "correct horse"),
    ({"content": "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"},
     "MIIE"),
])
def test_secrets_are_redacted(value: dict[str, str], secret: str) -> None:
    assert secret not in json.dumps(redact(value))
    assert "[REDACTED]" in json.dumps(redact(value))


def test_ordinary_arguments_are_kept() -> None:
    assert redact({"command": "git diff HEAD~1", "path": "src/a.py"}) == {
        "command": "git diff HEAD~1", "path": "src/a.py"}


def test_each_decision_is_one_line_with_every_field(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl", "s1", clock=lambda: 0.0)
    log.record(ToolCall("c1", "bash", {"command": "rm x"}),
               Decision.reject_soft(Source.USER, "no"), None)
    entry = read_tail(tmp_path / "audit.jsonl", 5)[0]
    assert entry == {"time": "1970-01-01T00:00:00Z", "session": "s1", "tool": "bash",
                     "arguments": {"command": "rm x"}, "risk": None,
                     "decision": "rejected_soft", "source": "user", "rule": None,
                     "feedback": "no", "edited": False}


def test_the_ledger_rotates(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl", "s1", max_bytes=2000)
    for n in range(100):
        log.record(ToolCall(f"c{n}", "bash", {"command": f"echo {n}"}),
                   Decision.approve(Source.AUTONOMY), None)
    assert (tmp_path / "audit.jsonl").stat().st_size <= 2200
    assert (tmp_path / "audit.jsonl.1").exists()
    assert read_tail(tmp_path / "audit.jsonl", 1)[0]["arguments"] == {"command": "echo 99"}


def test_a_run_is_audited_and_shown(cli: Callable[..., Run], tmp_path: Path) -> None:
    script = ("- tool_calls:\n"
              "    - {name: bash, arguments: {command: 'echo sk-abcdefghijklmnop12'}}\n"
              "    - {name: write_file, arguments: {path: x, content: y}}\n- text: ok\n")
    cli("-p", "go", "-m", write_script(tmp_path / "s.yml", script), "--auto-deny")
    ledger = Path(os.environ["SAIKISH_STATE_DIR"]) / "audit.jsonl"
    entries = [json.loads(line) for line in ledger.read_text().splitlines()]
    assert [(e["tool"], e["decision"], e["source"]) for e in entries] == [
        ("bash", "approved", "autonomy"), ("write_file", "rejected_soft", "mode")]
    assert "sk-abcdefghijklmnop12" not in ledger.read_text()
    shown = cli("audit", "--tail", "1")
    assert shown.code == 0 and "write_file" in shown.out and "echo" not in shown.out
