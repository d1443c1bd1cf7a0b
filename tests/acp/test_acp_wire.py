"""`saikish acp` on a hostile wire: every malformed message gets its JSON-RPC error and the
sessions already open keep working (saikish/acp/jsonrpc.py).

Before, deep nesting, a 5,000-digit id or a NUL in `cwd` ended the process (exit 1, a
traceback, every session lost), and ids that JSON-RPC forbids were echoed back.
"""

from __future__ import annotations

import json
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.harness import write_script

DEADLINE = 120.0


class Editor:
    """A raw JSON-RPC peer: writes bytes as given, reads answers as they come."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)

    def send(self, raw: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(raw + b"\n")
        self.process.stdin.flush()

    def call(self, ident: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.send(json.dumps({"jsonrpc": "2.0", "id": ident, "method": method,
                              "params": params}).encode())
        return self.answer(ident)

    def answer(self, ident: Any) -> dict[str, Any]:
        """The next message answering `ident` (notifications on the way are skipped)."""
        while True:
            raw = self.lines.get(timeout=DEADLINE)
            raw.decode("utf-8")  # the wire is UTF-8, whatever came in
            message: dict[str, Any] = json.loads(raw)
            if "method" not in message and message.get("id") == ident:
                return message


@pytest.fixture
def editor(ws: Path, tmp_path: Path) -> Iterator[Editor]:
    model = write_script(tmp_path / "s.yml", "- text: still here\n")
    process = subprocess.Popen([sys.executable, "-m", "saikish", "acp", "-m", model],
                               cwd=ws, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        yield Editor(process)
    finally:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(timeout=DEADLINE)
        assert process.stderr is not None
        stderr = process.stderr.read().decode(errors="replace")
        assert (process.returncode, "Traceback" in stderr) == (0, False), stderr


HOSTILE = [
    pytest.param(b"[" * 100_000 + b"]" * 100_000, None, -32700, "not JSON: maximum recursion",
                 id="deep-nesting"),
    pytest.param(b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"initialize"}', None,
                 -32700, "not JSON: Exceeds the limit", id="5000-digit-id"),
    pytest.param(b'{"jsonrpc":"2.0","id":NaN,"method":"initialize"}', None, -32700,
                 "not JSON: NaN is not JSON", id="nan-id"),
    pytest.param(b'{"jsonrpc":"2.0","id":{"a":1},"method":"initialize"}', None, -32600,
                 "id must be a string, an integer or null", id="object-id"),
    pytest.param(b'{"jsonrpc":"2.0","id":[1],"result":{}}', None, -32600,
                 "id must be a string, an integer or null", id="list-id-response"),
    pytest.param(b'{"jsonrpc":"2.0","id":7,"method":5}', 7, -32600, "method must be a string",
                 id="method-not-a-string"),
    pytest.param(b'{"jsonrpc":"2.0","id":7,"method":"session/new","params":"x"}', 7, -32600,
                 "params must be an object", id="params-not-an-object"),
    pytest.param(b'{"jsonrpc":"2.0","id":7,"method":"\\udc80"}', 7, -32601,
                 "saikish does not know \udc80", id="lone-surrogate-method"),
    pytest.param(b'{"jsonrpc":"2.0","id":7,"method":"session/new","params":'
                 b'{"cwd":"/tmp/\\u0000x","mcpServers":[]}}', 7, -32602,
                 "session/new: cwd '/tmp/\\x00x' is not a directory", id="nul-in-cwd"),
    pytest.param(b'{"jsonrpc":"2.0","id":7,"method":"session/new","params":'
                 b'{"cwd":"/etc/passwd","mcpServers":[]}}', 7, -32602,
                 "session/new: cwd '/etc/passwd' is not a directory", id="cwd-a-file"),
]


@pytest.mark.parametrize(("raw", "ident", "code", "message"), HOSTILE)
def test_a_malformed_message_is_answered_and_the_open_session_goes_on(
        editor: Editor, ws: Path, raw: bytes, ident: int | None, code: int,
        message: str) -> None:
    editor.call(1, "initialize", {"protocolVersion": 1})
    session = editor.call(2, "session/new", {"cwd": str(ws), "mcpServers": []})
    session_id = session["result"]["sessionId"]
    editor.send(raw)
    error = editor.answer(ident)["error"]
    assert error["code"] == code and error["message"].startswith(message)
    answer = editor.call(3, "session/prompt", {"sessionId": session_id,
                                               "prompt": [{"type": "text", "text": "hi"}]})
    assert answer["result"] == {"stopReason": "end_turn"}
