"""Sessions (docs/SPEC.md §10.2): every conversation stored as it happens, listed, shown,
removed, resumed valid for the provider, also after saikish was killed mid-batch.
Real processes, real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from saikish.sessions.log import SessionLog
from saikish.sessions.replay import INTERRUPTED, read_records, replay
from tests.models.test_providers import chunk, sse
from tests.support.harness import Run, write_script
from tests.support.wire_server import Reply, serve

CLI = Callable[..., Run]
TWO_TURNS = """\
- text: "I'll look."
  tool_calls:
    - {name: bash, arguments: {command: "echo hello from bash"}}
  usage: {input_tokens: 100, output_tokens: 10}
- text: all done
  usage: {input_tokens: 150, output_tokens: 5}
"""
ANSWER = sse(chunk(content="answer from the server"), chunk(finish="stop"))


def sessions_folder(tmp_path: Path) -> Path:
    return tmp_path / "state" / "sessions"


def session_files(tmp_path: Path) -> list[Path]:
    folder = sessions_folder(tmp_path)
    return sorted(folder.glob("*.jsonl")) if folder.exists() else []


def test_a_run_is_stored_line_by_line_with_secrets_redacted(cli: CLI, tmp_path: Path,
                                                            ws: Path) -> None:
    run = cli("-p", "use the key sk-ant-api03-abcdefghijklmnop please", "-m",
              write_script(tmp_path / "s.yml", TWO_TURNS))
    assert run.code == 0, run.err
    [path] = session_files(tmp_path)
    lines = path.read_text().splitlines()
    records = [json.loads(line) for line in lines]  # every line whole JSON
    assert [r["type"] for r in records] == ["session", "user", "assistant", "spend", "decision",
                                            "call_result", "results", "assistant", "spend"]
    assert records[0]["workspace"] == str(ws) and records[0]["id"] == path.stem
    assert "sk-ant-api03" not in path.read_text() and "[REDACTED]" in records[1]["text"]
    assert records[6]["results"][0]["content"].startswith("hello from bash")
    assert oct(path.stat().st_mode & 0o777) == "0o600"


def test_sessions_lists_shows_and_removes(cli: CLI, tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.yml", TWO_TURNS)
    assert cli("-p", "first question", "-m", script).code == 0
    assert cli("-p", "second question", "-m", script).code == 0
    listed = cli("sessions")
    assert listed.code == 0
    assert listed.out.index("second question") < listed.out.index("first question")  # newest
    rows = [json.loads(line) for line in cli("sessions", "--json").out.splitlines()]
    assert [r["first_prompt"] for r in rows] == ["second question", "first question"]
    assert all(r["size"] > 0 for r in rows)
    shown = cli("sessions", "show", rows[1]["id"][:6])
    assert shown.code == 0
    for part in ("› first question", "I'll look.", "bash echo hello from bash",
                 "approved · by autonomy", "│ hello from bash", "all done"):
        assert part in shown.out, (part, shown.out)
    assert "second question" in cli("sessions", "show", "--last").out
    removed = cli("sessions", "rm", rows[0]["id"])
    assert removed.code == 0 and not Path(rows[0]["path"]).exists()
    assert [json.loads(x)["id"] for x in cli("sessions", "--json").out.splitlines()] == \
        [rows[1]["id"]]


@pytest.mark.parametrize(("argv", "said"), [
    (("sessions", "show"), "needs a session id (or --last)"),
    (("sessions", "show", "zzz"), "no session 'zzz'"),
    (("sessions", "rm"), "needs a session id"),
    (("sessions", "show", "--last"), "no stored session for this workspace"),
])
def test_bad_sessions_commands_say_what_is_wrong(cli: CLI, argv: tuple[str, ...],
                                                 said: str) -> None:
    run = cli(*argv)
    assert run.code == 2 and said in run.err and run.err.count("\n") == 1, run.err


def test_a_session_open_elsewhere_is_neither_removed_nor_resumed(cli: CLI,
                                                                 tmp_path: Path) -> None:
    assert cli("-p", "hello", "-m", write_script(tmp_path / "s.yml", TWO_TURNS)).code == 0
    [path] = session_files(tmp_path)
    held = SessionLog.resume(path, {})  # as a running saikish holds it
    try:
        assert "open in a running saikish" in cli("sessions", "rm", path.stem).err
        resumed = cli("-p", "more", "-m", write_script(tmp_path / "s.yml", TWO_TURNS),
                      "--continue")
        assert resumed.code == 2 and "is open in another saikish" in resumed.err
    finally:
        held.close()
    assert path.exists()


def openai_env(monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{url}/v1")


def test_continue_sends_the_stored_conversation_to_the_server(
        cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli("-p", "what is in here?", "-m",
               write_script(tmp_path / "s.yml", TWO_TURNS)).code == 0
    with serve(Reply(ANSWER)) as s:
        openai_env(monkeypatch, s.url)
        run = cli("-p", "and then?", "-m", "openai:gpt-4.1", "--continue")
        sent = s.requests[-1]["messages"]
    assert run.code == 0 and run.out == "answer from the server\n", run.err
    assert "resumed session" in run.err
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool", "assistant",
                                         "user"]
    assert sent[1]["content"] == "what is in here?" and sent[-1]["content"] == "and then?"
    assert sent[3]["tool_call_id"] == sent[2]["tool_calls"][0]["id"]
    [path] = session_files(tmp_path)  # the same session goes on, in the same file
    assert read_records(path)[-2]["text"] == "answer from the server"


def test_resume_by_id_from_another_workspace_is_refused(cli: CLI, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli("-p", "hello", "-m", write_script(tmp_path / "s.yml", TWO_TURNS)).code == 0
    [path] = session_files(tmp_path)
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)
    run = cli("-p", "more", "-m", write_script(tmp_path / "s.yml", TWO_TURNS),
              "--resume", path.stem)
    assert run.code == 2 and f"was recorded in {tmp_path / 'work'}" in run.err


def test_resume_without_an_id_needs_a_terminal(cli: CLI, tmp_path: Path) -> None:
    run = cli("-p", "x", "-m", write_script(tmp_path / "s.yml", TWO_TURNS), "--resume")
    assert run.code == 2 and "needs a terminal to pick from" in run.err


def test_hooks_get_the_session_file_as_transcript_path(cli: CLI, tmp_path: Path,
                                                       ws: Path) -> None:
    (ws / "agent.yml").write_text(
        "hooks:\n  PreToolUse:\n    - hooks:\n"
        "        - {type: command, command: 'cat > seen.json'}\n")
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", TWO_TURNS),
              "-c", "agent.yml")
    assert run.code == 0, run.err
    seen = json.loads((ws / "seen.json").read_text())
    [path] = session_files(tmp_path)
    assert (seen["transcript_path"], seen["session_id"]) == (str(path), path.stem)
    assert (ws / "seen.json").stat().st_mtime >= path.stat().st_ctime - 5


# -- a crash in the middle of a batch ---------------------------------------------------

CRASHING = """\
- tool_calls:
    - {name: bash, arguments: {command: "echo first ran"}}
    - {name: bash, arguments: {command: "touch started && sleep 60"}}
"""


def test_a_killed_session_resumes_with_every_call_answered(
        cli: CLI, tmp_path: Path, ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = write_script(tmp_path / "s.yml", CRASHING)
    env = {**os.environ, "SAIKISH_STATE_DIR": str(tmp_path / "state")}
    child = subprocess.Popen([sys.executable, "-m", "saikish", "-p", "run both", "-m", script,
                              "--auto-approve", "--sandbox", "off"], cwd=ws, env=env,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    deadline = time.monotonic() + 60
    while not (ws / "started").exists():  # the second call is running now
        assert child.poll() is None and time.monotonic() < deadline, "saikish never got there"
        time.sleep(0.05)
    os.killpg(child.pid, signal.SIGKILL)
    child.wait()
    [path] = session_files(tmp_path)
    replayed = replay(read_records(path))
    assert replayed.repaired == 1
    with serve(Reply(ANSWER)) as s:
        openai_env(monkeypatch, s.url)
        run = cli("-p", "what happened?", "-m", "openai:gpt-4.1", "--continue")
        sent = s.requests[-1]["messages"]
    assert run.code == 0, run.err
    assert "1 call had no result when it ended" in run.err
    calls = sent[2]["tool_calls"]
    answers = {m["tool_call_id"]: m["content"] for m in sent if m["role"] == "tool"}
    assert set(answers) == {c["id"] for c in calls}  # the provider would refuse less
    assert answers[calls[0]["id"]].startswith("first ran")  # it finished before the kill
    assert answers[calls[1]["id"]] == INTERRUPTED


def test_a_torn_last_line_loses_that_event_only(cli: CLI, tmp_path: Path) -> None:
    assert cli("-p", "hello", "-m", write_script(tmp_path / "s.yml", TWO_TURNS)).code == 0
    [path] = session_files(tmp_path)
    with open(path, "ab") as handle:
        handle.write(b'{"time": "t", "type": "user", "text": "half a li')  # kill -9 mid-write
    before = replay(read_records(path))
    assert [type(m).__name__ for m in before.messages] == [
        "UserMessage", "AssistantMessage", "ToolResults", "AssistantMessage"]
    assert cli("-p", "again", "-m", write_script(tmp_path / "s.yml", TWO_TURNS),
               "--continue").code == 0
    after = replay(read_records(path))
    assert [getattr(m, "text", None) for m in after.messages][4] == "again"



def test_a_session_that_cannot_be_written_is_said_once_and_the_run_goes_on(
        cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("a file where the state dir should be\n")
    monkeypatch.setenv("SAIKISH_STATE_DIR", str(blocked))
    run = cli("-p", "hello", "-m", write_script(tmp_path / "s.yml", TWO_TURNS))
    assert (run.code, run.out) == (0, "all done\n")
    said = [line for line in run.err.splitlines()
            if line.startswith("saikish:") and "session file" in line]
    assert len(said) == 1, run.err
    assert re.fullmatch(rf"saikish: the session file {re.escape(str(blocked))}/sessions/"
                        rf"[0-9a-f]{{12}}\.jsonl cannot be written \(Not a directory\); "
                        rf"this session is not saved", said[0]), said
