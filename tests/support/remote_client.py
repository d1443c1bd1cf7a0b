"""Helpers for the remote approval tests: saikish -p --remote in a real process, a real
WebSocket client on 127.0.0.1, and the link the banner prints (docs/remote.md)."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.sync.client import ClientConnection, connect

BANNER = re.compile(r"remote approval: http://(?P<netloc>[^/\s]+)/\?token=(?P<token>[\w-]+)")
WAIT = 30.0  # seconds: a loaded 2-core box, never a fixed sleep


@dataclass(frozen=True)
class Link:
    """What the banner said: where the server is and the session's token."""

    netloc: str
    token: str

    @classmethod
    def find(cls, text: str) -> Link:
        match = BANNER.search(text)
        assert match, f"no remote approval banner in {text!r}"
        return cls(match.group("netloc"), match.group("token"))

    def ws(self, token: str | None = None) -> str:
        return f"ws://{self.netloc}/ws?token={self.token if token is None else token}"

    def http(self, path: str, token: str | None = None) -> str:
        sep = "&" if "?" in path else "?"
        return f"http://{self.netloc}{path}{sep}token={self.token if token is None else token}"


@dataclass
class Client:
    """A WebSocket client that keeps every message it read, for assertions."""

    connection: ClientConnection
    stack: contextlib.ExitStack
    seen: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def open(cls, link: Link, origin: str | None = None) -> Client:
        headers = {"Origin": origin} if origin else None
        stack = contextlib.ExitStack()
        # websockets wants its connection used as a context manager; the stack closes it.
        connection = stack.enter_context(connect(link.ws(), additional_headers=headers,
                                                 open_timeout=WAIT))
        return cls(connection, stack)

    def next(self, kind: str, seconds: float = WAIT) -> dict[str, Any]:
        """The next message of type `kind` (others are kept in `seen`)."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {kind} within {seconds}s; seen: {[m['type'] for m in self.seen]}"
            message: dict[str, Any] = json.loads(self.connection.recv(timeout=left))
            self.seen.append(message)
            if message["type"] == kind:
                return message

    def send(self, **fields: Any) -> None:
        self.connection.send(json.dumps({"v": 1, **fields}))

    def answer(self, question: dict[str, Any], approved: bool, **fields: Any) -> None:
        self.send(type="approval_response", executionId=question["executionId"],
                  approved=approved, **fields)

    def close(self) -> None:
        self.stack.close()


class RemoteRun:
    """`saikish -m script:... -p go --remote --output-format json`, started for real."""

    def __init__(self, tmp: Path, script: str, *args: str) -> None:
        path = tmp / "remote-script.yml"
        path.write_text(script, encoding="utf-8")
        # Approval tests: with the sandbox off, `touch a` is asked as before the contained
        # tier (docs/SPEC.md §4.1); a contained call never reaches a client.
        if "--sandbox" not in args:
            args = (*args, "--sandbox", "off")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "saikish", "-m", f"script:{path}", "-p", "go", "--remote",
             "--output-format", "json", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert self.process.stderr is not None
        self.banner = self.process.stderr.readline()
        self.link = Link.find(self.banner)
        self.clients: list[Client] = []

    def client(self, origin: str | None = None) -> Client:
        client = Client.open(self.link, origin)
        self.clients.append(client)
        return client

    def finish(self) -> tuple[int, dict[str, Any], str]:
        """Exit code, the JSON result and the rest of stderr."""
        out, err = self.process.communicate(timeout=WAIT * 2)
        for client in self.clients:
            client.close()
        return self.process.returncode, json.loads(out), err

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


def bash_turn(*commands: str) -> str:
    """A script turn with one bash call per command."""
    calls = "\n".join(f"    - name: bash\n      arguments: {{command: {json.dumps(c)}}}"
                      for c in commands)
    return f"- text: working\n  tool_calls:\n{calls}\n"
