"""JSON-RPC 2.0 over newline-delimited stdio, both ways (the wire of `saikish acp`).

The reading thread dispatches requests and notifications to a handler and
hands responses to the thread that is waiting for them, so a prompt running in
a worker thread can ask the editor a question (session/request_permission) and
block until the answer arrives.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TextIO

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = (
    -32700, -32600, -32601, -32602, -32603)


class RpcError(Exception):
    """An error answer: sent to the peer as {"code", "message"}."""

    def __init__(self, code: int, message: str) -> None:
        self.code, self.message = code, message
        super().__init__(message)


Handler = Callable[[str, Mapping[str, Any], "Reply | None"], None]


@dataclass
class _Waiter:
    done: threading.Event = field(default_factory=threading.Event)
    answer: dict[str, Any] | None = None


@dataclass
class Connection:
    """One JSON-RPC peer on a pair of text streams."""

    reader: TextIO
    writer: TextIO
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _waiters: dict[int, _Waiter] = field(default_factory=dict)
    _next_id: int = 0
    closed: bool = False

    def send(self, message: Mapping[str, Any]) -> None:
        """Write one message as one line (thread-safe)."""
        line = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False)
        with self._lock:
            self.writer.write(line + "\n")
            self.writer.flush()

    def notify(self, method: str, params: Mapping[str, Any]) -> None:
        """A notification: no answer expected."""
        self.send({"method": method, "params": dict(params)})

    def request(self, method: str, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """Ask the peer and wait for the answer's result; None when the connection closed."""
        with self._lock:
            self._next_id += 1
            number, waiter = self._next_id, _Waiter()
            self._waiters[number] = waiter
        if self.closed:
            return None
        self.send({"id": number, "method": method, "params": dict(params)})
        waiter.done.wait()
        answer = waiter.answer or {}
        if "error" in answer:
            error = answer["error"] or {}
            raise RpcError(int(error.get("code", INTERNAL_ERROR)), str(error.get("message")))
        result = answer.get("result")
        return result if isinstance(result, dict) else None

    def serve(self, handler: Handler) -> None:
        """Read messages until the peer closes the stream; then wake every waiting request."""
        try:
            for line in self.reader:
                if line.strip():
                    self._dispatch(line, handler)
        finally:
            self.closed = True
            with self._lock:
                waiters, self._waiters = list(self._waiters.values()), {}
            for waiter in waiters:  # nobody will answer: the asking side fails closed
                waiter.done.set()

    def _dispatch(self, line: str, handler: Handler) -> None:
        try:
            message = json.loads(line)
        except json.JSONDecodeError as exc:
            self.send({"id": None, "error": {"code": PARSE_ERROR, "message": str(exc)}})
            return
        if not isinstance(message, dict):
            self.send({"id": None, "error": {"code": INVALID_REQUEST,
                                             "message": "a message is a JSON object"}})
            return
        if "method" not in message:
            self._answer(message)
            return
        params = message.get("params") or {}
        reply = Reply(self, message["id"]) if "id" in message else None
        try:
            handler(str(message["method"]), params if isinstance(params, dict) else {}, reply)
        except RpcError as exc:
            if reply is not None:
                reply.error(exc.code, exc.message)

    def _answer(self, message: dict[str, Any]) -> None:
        with self._lock:
            waiter = self._waiters.pop(message.get("id"), None)  # type: ignore[arg-type]
        if waiter is not None:
            waiter.answer = message
            waiter.done.set()


@dataclass(frozen=True)
class Reply:
    """The way back to one request; answered exactly once, from any thread."""

    connection: Connection
    id: Any

    def result(self, value: Mapping[str, Any] | None) -> None:
        """Answer with a result."""
        self.connection.send({"id": self.id, "result": dict(value) if value is not None
                              else None})

    def error(self, code: int, message: str) -> None:
        """Answer with an error."""
        self.connection.send({"id": self.id, "error": {"code": code, "message": message}})
