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
REQUEST_CANCELLED = -32800  # LSP's and ACP's answer to a withdrawn request
CANCEL_REQUEST = "$/cancel_request"


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
        """Write one message as one line (thread-safe); a gone peer is not an error.

        ASCII on the wire: a lone surrogate (from a peer's own escapes) is sent escaped,
        never as bytes that are not UTF-8. RpcError when the message cannot be encoded.
        """
        try:
            line = json.dumps({"jsonrpc": "2.0", **message}, allow_nan=False)
        except (ValueError, TypeError, RecursionError) as exc:
            raise RpcError(INTERNAL_ERROR, f"the message could not be encoded ({exc})") from None
        with self._lock:
            try:
                self.writer.write(line + "\n")
                self.writer.flush()
            except OSError:  # the editor went away: reading ends at its closed stream
                self.closed = True

    def notify(self, method: str, params: Mapping[str, Any]) -> None:
        """A notification: no answer expected."""
        self.send({"method": method, "params": dict(params)})

    def request(self, method: str, params: Mapping[str, Any]) -> dict[str, Any] | None:
        """Ask the peer and wait for the answer's result; None when the connection closed."""
        return self.begin(method, params).wait()

    def begin(self, method: str, params: Mapping[str, Any]) -> Pending:
        """Send a request; its Pending waits for the answer or withdraws the question."""
        with self._lock:
            self._next_id += 1
            number, waiter = self._next_id, _Waiter()
            if self.closed:  # nobody will answer
                waiter.done.set()
            else:
                self._waiters[number] = waiter
        if not waiter.done.is_set():
            self.send({"id": number, "method": method, "params": dict(params)})
        return Pending(self, number, waiter)

    def withdraw(self, number: int) -> None:
        """Cancel our request `number` (ACP's `$/cancel_request`, as LSP's): the peer is told,
        and whoever waits for it gets REQUEST_CANCELLED; a late answer is dropped."""
        with self._lock:
            waiter = self._waiters.pop(number, None)
        if waiter is None:  # answered already
            return
        waiter.answer = {"error": {"code": REQUEST_CANCELLED,
                                   "message": "the request was withdrawn"}}
        waiter.done.set()
        self.notify(CANCEL_REQUEST, {"requestId": number})

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
        """One line from the peer: every malformed one gets its error answer, and the
        connection goes on (one bad message must not end every session)."""
        try:
            message = json.loads(line, parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:  # also too deep, or a 5,000-digit id
            self._error(None, PARSE_ERROR, f"not JSON: {str(exc)[:200]}")
            return
        problem = _malformed(message)
        if problem:
            ident = message.get("id") if isinstance(message, dict) else None
            self._error(ident if _valid_id(ident) else None, INVALID_REQUEST, problem)
            return
        if "method" not in message:
            self._answer(message)
            return
        reply = Reply(self, message["id"]) if "id" in message else None
        try:
            handler(message["method"], message.get("params") or {}, reply)
        except RpcError as exc:
            if reply is not None:
                reply.error(exc.code, exc.message)
        except Exception as exc:  # a bug answers this request; the others are still served
            if reply is not None:
                reply.error(INTERNAL_ERROR, f"{type(exc).__name__}: {exc}"[:500])

    def _error(self, ident: Any, code: int, message: str) -> None:
        self.send({"id": ident, "error": {"code": code, "message": message}})

    def _answer(self, message: dict[str, Any]) -> None:
        with self._lock:
            waiter = self._waiters.pop(message.get("id"), None)  # type: ignore[arg-type]
        if waiter is not None:
            waiter.answer = message
            waiter.done.set()


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _valid_id(ident: Any) -> bool:
    """JSON-RPC ids are strings, integers or null (never true/false, lists, objects)."""
    return ident is None or isinstance(ident, str) or (
        isinstance(ident, int) and not isinstance(ident, bool))


def _malformed(message: Any) -> str | None:
    """What makes `message` no JSON-RPC request, notification or response, or None."""
    if not isinstance(message, dict):
        return "a message is a JSON object"
    if "id" in message and not _valid_id(message["id"]):
        return "id must be a string, an integer or null"
    if "method" in message:
        if not isinstance(message["method"], str):
            return "method must be a string"
        if not isinstance(message.get("params") or {}, dict):
            return "params must be an object"
    return None


@dataclass(frozen=True)
class Pending:
    """One request of ours on its way: wait for the answer, or withdraw it."""

    connection: Connection
    number: int
    waiter: _Waiter

    def wait(self) -> dict[str, Any] | None:
        """The answer's result; None when the connection closed; RpcError for an error."""
        self.waiter.done.wait()
        answer = self.waiter.answer or {}
        if "error" in answer:
            error = answer["error"] or {}
            raise RpcError(int(error.get("code", INTERNAL_ERROR)), str(error.get("message")))
        result = answer.get("result")
        return result if isinstance(result, dict) else None

    def withdraw(self) -> None:
        """Tell the peer we no longer want the answer (see Connection.withdraw)."""
        self.connection.withdraw(self.number)


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
