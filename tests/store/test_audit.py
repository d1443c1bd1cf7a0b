"""The audit ledger (docs/SPEC.md §4.6): one redacted JSON line per decision, rotated."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from saikish.store.audit import TEXT_LIMIT, AuditLog, read_tail, redact, redact_text
from saikish.types import Decision, Source, ToolCall
from tests.support.harness import Run, write_script


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
                     "decision": "rejected_soft", "tier": "asked", "source": "user",
                     "rule": None,
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


# -- issue 15: whole lines, any input, linear redaction ------------------------------

def record(log: AuditLog, **arguments: object) -> None:
    log.record(ToolCall("c1", "bash", arguments), Decision.approve(Source.AUTONOMY), None)


def test_a_lone_surrogate_or_nul_in_an_argument_is_logged(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl", "s1")
    record(log, command="echo \ud800 \x00 \u2028 end")
    raw = (tmp_path / "audit.jsonl").read_bytes()
    raw.decode("utf-8")  # the file stays valid UTF-8
    assert b"\\ud800" in raw and b"\\u0000" in raw
    assert read_tail(tmp_path / "audit.jsonl", 5)[0]["arguments"] == {
        "command": "echo \ufffd\ufffd\ufffd \x00 \u2028 end"}


def test_a_torn_last_line_never_swallows_the_next_entry(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    log = AuditLog(path, "s1")
    record(log, command="first")
    with path.open("ab") as handle:  # what kill -9 in the middle of a write leaves
        handle.write(b'{"time": "2026-01-01T00:00:00Z", "session": "s1", "tool": "ba')
    record(log, command="second")
    assert [e["arguments"]["command"] for e in read_tail(path, 10)] == ["first", "second"]
    assert len(path.read_bytes().splitlines()) == 3  # the torn line is closed off, kept apart


def test_a_torn_line_glued_to_a_whole_one_gives_the_whole_one(tmp_path: Path) -> None:
    path = tmp_path / "audit.jsonl"
    whole = json.dumps({"time": "t", "session": "s", "tool": "bash"})
    path.write_text('{"time": "t", "sess' + whole + "\n" + "not json\n[1, 2]\n")
    assert read_tail(path, 10) == [{"time": "t", "session": "s", "tool": "bash"}]


def test_an_unreadable_ledger_is_one_line(cli: Callable[..., Run]) -> None:
    ledger = Path(os.environ["SAIKISH_STATE_DIR"]) / "audit.jsonl"
    ledger.mkdir(parents=True)  # a directory where the file should be
    run = cli("audit")
    assert run.code == 1 and run.err.startswith("saikish: cannot read the audit log ")
    assert "Traceback" not in run.err


def test_an_unterminated_key_block_is_redacted_to_the_end() -> None:
    assert redact_text("cat <<EOF\n-----BEGIN RSA PRIVATE KEY-----\nMIIEsecret") == \
        "cat <<EOF\n[REDACTED]"
    many = "-----BEGIN RSA PRIVATE KEY-----\n" * 8000  # 250 KB: once quadratic (40 s)
    assert redact_text("x " + many) == "x [REDACTED]"
    two = ("-----BEGIN EC PRIVATE KEY-----\na\n-----END EC PRIVATE KEY----- keep "
           "-----BEGIN PRIVATE KEY-----\nb\n-----END PRIVATE KEY-----")
    assert redact_text(two) == "[REDACTED] keep [REDACTED]"


def test_a_huge_argument_is_logged_by_its_head_without_half_a_secret(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit.jsonl", "s1")
    secret = "sk-proj-abcdefghijklmnopqrstuvwx"
    content = "word " * (TEXT_LIMIT // 5 - 2) + "abc " + secret + " tail" * 100_000
    log.record(ToolCall("c1", "write_file", {"path": "big", "content": content}),
               Decision.approve(Source.USER), None)
    logged = read_tail(tmp_path / "audit.jsonl", 1)[0]["arguments"]["content"]
    assert len(logged) < TEXT_LIMIT + 100 and logged.endswith("more characters not logged]")
    assert "sk-" not in logged and "abcdefghijkl" not in logged


def test_a_full_disk_is_said_once_and_the_work_goes_on(cli: Callable[..., Run],
                                                       tmp_path: Path) -> None:
    state = Path(os.environ["SAIKISH_STATE_DIR"])
    state.mkdir(parents=True, exist_ok=True)
    (state / "audit.jsonl").symlink_to("/dev/full")  # every write: No space left on device
    model = write_script(tmp_path / "s.yml", "- tool_calls:\n"
                                             "    - {name: bash, arguments: {command: echo 1}}\n"
                                             "    - {name: bash, arguments: {command: echo 2}}\n"
                                             "- text: done\n")
    run = cli("-p", "go", "-m", model, "--output-format", "json")
    assert run.code == 0
    assert [c["result"]["excerpt"] for c in json.loads(run.out)["calls"]] == [
        "1\n[exit code 0]", "2\n[exit code 0]"]
    said = f"the audit log {state / 'audit.jsonl'} cannot be written (No space left on " \
           f"device): decisions are not being recorded"
    assert run.err.count(said) == 1
