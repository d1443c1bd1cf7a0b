"""`saikish acp` against the whole spec (docs/SPEC.md §7.4): session/load, a withdrawn
permission question, truthful capabilities, MCP start-up progress, the editor's files.

The editor here is this test on the raw wire (newline-delimited JSON-RPC over the real
process's stdin/stdout), so every message saikish sends is seen as it is sent.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "mcp_server.py"
DEADLINE_S = 60.0
Message = dict[str, Any]


class Wire:
    """A running `saikish acp` and the editor's end of its pipes."""

    def __init__(self, ws: Path, model: str, *flags: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "saikish", "acp", "-m", model, "--sandbox", "off", *flags],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=env, cwd=ws)
        self.inbox: queue.Queue[Message | None] = queue.Queue()
        self.seen: list[Message] = []
        self.next_id = 100
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.inbox.put(json.loads(line))
        self.inbox.put(None)

    def send(self, message: Message) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        self.process.stdin.flush()

    def request(self, method: str, params: Message) -> int:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        return self.next_id

    def until(self, wanted: Callable[[Message], bool]) -> Message:
        """The next message that `wanted` accepts (the others are kept in `seen`)."""
        deadline = time.monotonic() + DEADLINE_S
        while True:
            message = self.inbox.get(timeout=max(deadline - time.monotonic(), 0.01))
            assert message is not None, f"saikish acp ended: {self.stderr()}"
            self.seen.append(message)
            if wanted(message):
                return message

    def answer_of(self, number: int) -> Message:
        return self.until(lambda m: m.get("id") == number and "method" not in m)

    def call(self, method: str, params: Message) -> Message:
        return self.answer_of(self.request(method, params))

    def updates(self) -> list[Message]:
        return [m["params"]["update"] for m in self.seen if m.get("method") == "session/update"]

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        code = self.process.wait(timeout=DEADLINE_S)
        return code

    def stderr(self) -> str:
        if self.process.poll() is None:
            return "(still running)"
        assert self.process.stderr is not None
        return self.process.stderr.read()


def script(tmp_path: Path, text: str, name: str = "script.yml") -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return f"script:{path}"


def opened(wire: Wire, ws: Path, capabilities: Message | None = None,
           servers: list[Message] | None = None) -> str:
    """initialize and session/new; the session's id."""
    init = wire.call("initialize", {"protocolVersion": 1,
                                    "clientCapabilities": capabilities or {}})
    assert init["result"]["protocolVersion"] == 1
    answer = wire.call("session/new", {"cwd": str(ws), "mcpServers": servers or []})
    return str(answer["result"]["sessionId"])


def prompt(wire: Wire, session: str, text: str) -> int:
    return wire.request("session/prompt", {"sessionId": session,
                                           "prompt": [{"type": "text", "text": text}]})


def test_initialize_advertises_only_what_works(ws: Path, tmp_path: Path) -> None:
    wire = Wire(ws, script(tmp_path, "- text: hi\n"))
    init = wire.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    assert init["result"]["agentCapabilities"] == {
        "loadSession": True,
        "promptCapabilities": {"image": False, "audio": False, "embeddedContext": True},
        "mcpCapabilities": {"http": True, "sse": False}}
    assert wire.close() == 0


def test_a_timed_out_question_is_withdrawn_from_the_editor(ws: Path, tmp_path: Path) -> None:
    model = script(tmp_path, """\
- tool_calls:
    - {name: bash, arguments: {command: touch a}}
- text: never
""")
    wire = Wire(ws, model, "--timeout", "0.5")
    session = opened(wire, ws)
    number = prompt(wire, session, "go")
    asked = wire.until(lambda m: m.get("method") == "session/request_permission")
    # The person walks away; the countdown runs out and saikish takes its question back.
    withdrawn = wire.until(lambda m: m.get("method") == "$/cancel_request")
    assert withdrawn["params"] == {"requestId": asked["id"]}
    failed = wire.until(lambda m: m.get("method") == "session/update" and
                        m["params"]["update"].get("status") == "failed")
    assert failed["params"]["update"]["toolCallId"] == "call_1"
    # A late answer to the withdrawn question changes nothing (and is no error).
    wire.send({"id": asked["id"], "result": {"outcome": {"outcome": "selected",
                                                          "optionId": "allow_once"}}})
    assert wire.answer_of(number)["result"] == {"stopReason": "end_turn"}
    assert not (ws / "a").exists()
    assert wire.close() == 0
    audit = [json.loads(line) for line in
             (tmp_path / "state" / "audit.jsonl").read_text().splitlines()]
    assert [(e["decision"], e["source"]) for e in audit] == [("rejected_hard", "timeout")]


def test_session_load_replays_the_conversation_and_goes_on(ws: Path, tmp_path: Path) -> None:
    first = script(tmp_path, """\
- text: Listing.
  tool_calls: [{name: bash, arguments: {command: echo listed}}]
- text: Done listing.
""", "first.yml")
    wire = Wire(ws, first, "--auto-approve")
    session = opened(wire, ws)
    assert wire.answer_of(prompt(wire, session, "list it"))["result"] == {
        "stopReason": "end_turn"}
    assert wire.close() == 0

    second = script(tmp_path, "- text: I remember.\n", "second.yml")
    wire = Wire(ws, second)
    wire.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    loaded = wire.call("session/load", {"sessionId": session, "cwd": str(ws),
                                        "mcpServers": []})
    assert loaded["result"]["modes"]["currentModeId"] == "event-based"
    replayed = [(u["sessionUpdate"], u.get("status") or u["content"]["text"])
                for u in wire.updates()]
    assert replayed == [("user_message_chunk", "list it"),
                        ("agent_message_chunk", "Listing."),
                        ("tool_call", "pending"), ("tool_call_update", "completed"),
                        ("agent_message_chunk", "Done listing.")]
    result = next(u for u in wire.updates() if u["sessionUpdate"] == "tool_call_update")
    assert "listed" in result["content"][0]["content"]["text"]
    assert wire.answer_of(prompt(wire, session, "what did you do?"))["result"] == {
        "stopReason": "end_turn"}
    assert wire.close() == 0
    # The same session file goes on: both prompts are in it.
    stored = (tmp_path / "state" / "sessions" / f"{session}.jsonl").read_text()
    assert "list it" in stored and "what did you do?" in stored and "I remember." in stored


def test_session_load_refuses_what_it_cannot_load(ws: Path, tmp_path: Path) -> None:
    wire = Wire(ws, script(tmp_path, "- text: hi\n"))
    session = opened(wire, ws)
    assert wire.answer_of(prompt(wire, session, "hello"))["result"]["stopReason"] == "end_turn"
    busy = wire.call("session/load", {"sessionId": session, "cwd": str(ws), "mcpServers": []})
    assert busy["error"]["message"] == f"session/load: session {session!r} is open"
    assert wire.close() == 0

    wire = Wire(ws, script(tmp_path, "- text: hi\n"))
    wire.call("initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    unknown = wire.call("session/load", {"sessionId": "0" * 12, "cwd": str(ws),
                                         "mcpServers": []})
    assert unknown["error"]["message"] == f"session/load: no stored session {'0' * 12!r}"
    other = tmp_path / "other"
    other.mkdir()
    moved = wire.call("session/load", {"sessionId": session, "cwd": str(other),
                                       "mcpServers": []})
    assert moved["error"]["message"] == (f"session/load: session {session} was recorded "
                                         f"in {ws}; load it there")
    sneaky = wire.call("session/load", {"sessionId": "../../x", "cwd": str(ws),
                                        "mcpServers": []})
    assert sneaky["error"]["message"] == "session/load: '../../x' is no session id"
    assert wire.updates() == []  # nothing was replayed for a refused load
    assert wire.close() == 0


def test_the_first_prompt_shows_mcp_servers_starting(ws: Path, tmp_path: Path) -> None:
    gate = tmp_path / "go"
    server = {"name": "fx", "command": sys.executable, "args": [str(FIXTURE)],
              "env": [{"name": "FIXTURE_START", "value": f"wait:{gate}"}]}
    wire = Wire(ws, script(tmp_path, "- text: ready\n"))
    session = opened(wire, ws, servers=[server])
    number = prompt(wire, session, "go")
    shown = wire.until(lambda m: m.get("method") == "session/update")["params"]["update"]
    assert (shown["sessionUpdate"], shown["status"], shown["title"]) == (
        "tool_call", "in_progress", "Starting MCP servers: fx")
    assert shown["content"][0]["content"]["text"] == "fx: starting"
    gate.touch()  # the server may start now
    done = wire.until(lambda m: m.get("method") == "session/update" and
                      m["params"]["update"].get("status") == "completed")
    text = done["params"]["update"]["content"][0]["content"]["text"]
    assert text.startswith("fx: ready, ") and " tools (" in text
    assert wire.answer_of(number)["result"] == {"stopReason": "end_turn"}
    # The model's text came after the servers were in.
    kinds = [u["sessionUpdate"] for u in wire.updates()]
    assert kinds.index("agent_message_chunk") > kinds.index("tool_call")
    assert wire.close() == 0


def test_reads_and_writes_go_through_the_editors_buffers(ws: Path, tmp_path: Path) -> None:
    (ws / "notes.txt").write_text("on disk\n", encoding="utf-8")
    model = script(tmp_path, """\
- tool_calls:
    - {name: read_file, arguments: {path: notes.txt}}
    - {name: edit_file, arguments: {path: notes.txt, old_string: unsaved, new_string: saved}}
- text: ok
""")
    wire = Wire(ws, model, "--auto-approve")
    session = opened(wire, ws, {"fs": {"readTextFile": True, "writeTextFile": True}})
    number = prompt(wire, session, "go")
    buffer = "unsaved edit in the editor\n"
    written: list[Message] = []
    while True:
        message = wire.until(lambda m: m.get("method", "").startswith("fs/")
                             or m.get("id") == number)
        if message.get("id") == number:
            break
        params = message["params"]
        assert params["sessionId"] == session and params["path"] == str(ws / "notes.txt")
        if message["method"] == "fs/read_text_file":
            wire.send({"id": message["id"], "result": {"content": buffer}})
        else:
            written.append(params)
            buffer = params["content"]
            wire.send({"id": message["id"], "result": None})
    assert message["result"] == {"stopReason": "end_turn"}
    read = next(u for u in wire.updates() if u.get("toolCallId") == "call_1"
                and u.get("status") == "completed")
    assert "unsaved edit in the editor" in read["content"][0]["content"]["text"]
    assert [w["content"] for w in written] == ["saved edit in the editor\n"]
    # The editor's preview of the edit is made from its buffer, not from the disk.
    proposed = next(u for u in wire.updates() if u.get("toolCallId") == "call_2"
                    and u["sessionUpdate"] == "tool_call")
    assert proposed["content"] == [{"type": "diff", "path": str(ws / "notes.txt"),
                                    "oldText": "unsaved edit in the editor\n",
                                    "newText": "saved edit in the editor\n"}]
    assert (ws / "notes.txt").read_text() == "on disk\n"  # the editor saves, not saikish
    assert wire.close() == 0


def test_an_editor_that_refuses_a_read_is_an_error_for_the_model(ws: Path,
                                                                 tmp_path: Path) -> None:
    model = script(tmp_path, "- tool_calls: [{name: read_file, arguments: {path: x.txt}}]\n"
                             "- text: ok\n")
    wire = Wire(ws, model, "--auto-approve")
    session = opened(wire, ws, {"fs": {"readTextFile": True}})
    number = prompt(wire, session, "go")
    asked = wire.until(lambda m: m.get("method") == "fs/read_text_file")
    wire.send({"id": asked["id"], "error": {"code": -32002, "message": "no such buffer"}})
    assert wire.answer_of(number)["result"] == {"stopReason": "end_turn"}
    failed = next(u for u in wire.updates() if u.get("toolCallId") == "call_1"
                  and u.get("status") == "failed")
    assert failed["content"][0]["content"]["text"] == \
        "cannot read x.txt: the editor refused: no such buffer"
    assert wire.close() == 0
