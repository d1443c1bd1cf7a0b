"""The approval server (docs/remote.md): the page, the audit API and the WebSocket on one port.

Built on websockets' threaded server: each connection reads in its own thread and
writes through an outbox thread, so a slow client never holds up the executor.
Every request must name this server in Host (no DNS rebinding) and carry the
session's token; a WebSocket opened by a browser must come from the page's own
origin. Nothing else is served.
"""

from __future__ import annotations

import contextlib
import hmac
import itertools
import json
import logging
import queue
import socket
import threading
from collections.abc import Mapping
from dataclasses import replace
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from websockets.datastructures import Headers
from websockets.exceptions import ConnectionClosed
from websockets.http11 import Request, Response
from websockets.sync.server import Server, ServerConnection, serve

from saikish.errors import SaikishError
from saikish.remote.address import Address, host_allowed, origin_allowed
from saikish.remote.hub import Hub
from saikish.remote.protocol import ProtocolError, message

# Messages queued for one client; a client this far behind is cut off.
OUTBOX_LIMIT = 1000
MAX_MESSAGE = 1 << 20  # bytes a client may send in one message
DRAIN_S = 2.0  # seconds the last messages get to reach the clients when the server closes
ASSETS = {"/app.js": ("app.js", "text/javascript; charset=utf-8"),
          "/style.css": ("style.css", "text/css; charset=utf-8")}


class RemoteError(SaikishError):
    """The approval server cannot start (the port is taken, the host is not ours)."""


class Client:
    """One WebSocket connection's outbox: a queue, and a thread that sends from it."""

    def __init__(self, client_id: str, connection: ServerConnection) -> None:
        self.id, self.connection = client_id, connection
        self.queue: queue.Queue[str | None] = queue.Queue(OUTBOX_LIMIT)
        self.thread = threading.Thread(target=self._pump, daemon=True, name=f"remote-{client_id}")
        self.thread.start()

    def send(self, data: Mapping[str, Any]) -> None:
        """Queue `data`; never blocks (a client that stopped reading is disconnected)."""
        try:
            self.queue.put_nowait(_text(data))
        except queue.Full:  # cut without waiting: its reader and writer end
            with contextlib.suppress(OSError):
                self.connection.socket.shutdown(socket.SHUT_RDWR)

    def close(self, wait: float = 0.0) -> None:
        """Stop the outbox thread once what is queued is sent, waiting up to `wait` seconds."""
        with contextlib.suppress(queue.Full):  # else the thread ends with the connection
            self.queue.put_nowait(None)
        self.thread.join(wait)

    def _pump(self) -> None:
        while (text := self.queue.get()) is not None:
            try:
                self.connection.send(text)
            except (ConnectionClosed, OSError):
                return


class ApprovalServer:
    """Serves one Hub at `address` until closed."""

    def __init__(self, hub: Hub, address: Address, token: str) -> None:
        self.hub, self.address, self.token = hub, address, token
        self._ids = itertools.count(1)
        self._clients: dict[str, Client] = {}
        self._server: Server | None = None
        self._thread: threading.Thread | None = None
        page = _asset("index.html").replace(b"__TOKEN__", token.encode("ascii"))
        self._files = {"/": (page, "text/html; charset=utf-8")} | {
            path: (_asset(name), kind) for path, (name, kind) in ASSETS.items()}

    def start(self) -> Address:
        """Listen and serve in a background thread; returns the address with its port."""
        family = socket.AF_INET6 if ":" in self.address.host else socket.AF_INET
        try:
            sock = socket.create_server((self.address.host, self.address.port), family=family)
        except OSError as exc:
            raise RemoteError(f"--remote {self.address.netloc}: cannot listen there: "
                              f"{exc.strerror or exc}") from None
        self.address = self.address.with_port(sock.getsockname()[1])
        self._server = serve(self._connected, sock=sock, process_request=self._route,
                             server_header=None, logger=_quiet_logger(), max_size=MAX_MESSAGE)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="remote-server")
        self._thread.start()
        return self.address

    def close(self) -> None:
        """Close every connection and the port; returns once the handlers have ended.

        What is queued for the clients (session_ended) is sent first, for a moment at most.
        """
        for client in list(self._clients.values()):
            client.close(wait=DRAIN_S)
        if self._server is not None:
            self._server.shutdown()
        if self._thread is not None:
            self._thread.join()

    def _connected(self, connection: ServerConnection) -> None:
        client = Client(f"c{next(self._ids)}", connection)
        self._clients[client.id] = client
        self.hub.connect(client)
        try:
            for frame in connection:
                if isinstance(frame, bytes):
                    client.send(ProtocolError("bad_message", "send JSON as text frames").wire())
                    continue
                try:
                    self.hub.receive(client, frame)
                except Exception as exc:  # a bug answers this client; it never ends the session
                    client.send(message("error", code="internal_error",
                                        message=f"{type(exc).__name__}: {exc}",
                                        executionId=None))
        except ConnectionClosed:
            pass  # a client that leaves loses nothing: its questions stay open
        finally:
            self.hub.disconnect(client)
            self._clients.pop(client.id, None)
            client.close()

    def _route(self, connection: ServerConnection, request: Request) -> Response | None:
        """HTTP before any WebSocket: None lets the handshake go on (only for /ws)."""
        host = _one(request.headers, "Host")
        url = urlsplit(request.path)
        query = parse_qs(url.query)
        if host is None or not host_allowed(host, self.address):
            return _reply(connection, 421, "this server answers only to its own address")
        if not self._token_ok(query.get("token", [])):
            return _reply(connection, 403, "the token is missing or wrong: open the address "
                                           "saikish printed (remote approval: ...)")
        if url.path == "/ws":
            origins = request.headers.get_all("Origin")
            if len(origins) > 1 or not origin_allowed(origins[0] if origins else None, host):
                return _reply(connection, 403, "a WebSocket from another origin is refused")
            return None
        if url.path == "/api/audit":
            return self._audit(connection, query.get("sessionId", [None])[0])
        if url.path in self._files:
            body, kind = self._files[url.path]
            return _reply(connection, 200, body, kind, host)
        return _reply(connection, 404, "not found")

    def _token_ok(self, given: list[str]) -> bool:
        return len(given) == 1 and hmac.compare_digest(given[0].encode(), self.token.encode())

    def _audit(self, connection: ServerConnection, session_id: str | None) -> Response:
        session = self.hub.session.id
        if session_id not in (None, session):
            data = message("error", code="unknown_session", message=f"no session {session_id!r}"
                           f" here (this one is {session})", executionId=None)
            return _reply(connection, 404, _json(data), "application/json")
        data = message("audit", sessionId=session, entries=self.hub.entries())
        return _reply(connection, 200, _json(data), "application/json")


def _one(headers: Headers, name: str) -> str | None:
    values = headers.get_all(name)
    return values[0] if len(values) == 1 else None


def _text(data: Mapping[str, Any]) -> str:
    """JSON in ASCII: a lone surrogate from the model's JSON stays an escape, not an error."""
    return json.dumps(data, ensure_ascii=True)


def _json(data: Mapping[str, Any]) -> bytes:
    return _text(data).encode("ascii")


def _reply(connection: ServerConnection, status: int, body: bytes | str,
           kind: str = "text/plain; charset=utf-8", host: str | None = None) -> Response:
    """An HTTP response with the headers that keep the page to itself."""
    data = body.encode("utf-8") if isinstance(body, str) else body
    response = connection.respond(status, "")
    headers = response.headers
    for name in ("Content-Type", "Content-Length"):
        del headers[name]
    headers["Content-Type"] = kind
    headers["Content-Length"] = str(len(data))
    headers["Cache-Control"] = "no-store"
    headers["X-Content-Type-Options"] = "nosniff"
    headers["Referrer-Policy"] = "no-referrer"
    headers["X-Frame-Options"] = "DENY"
    connect = f" ws://{host}" if host else ""
    headers["Content-Security-Policy"] = (
        f"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        f"connect-src 'self'{connect}; base-uri 'none'; form-action 'none'; "
        f"frame-ancestors 'none'")
    return replace(response, body=data)


def _asset(name: str) -> bytes:
    return resources.files("saikish.remote").joinpath("static").joinpath(name).read_bytes()


def _quiet_logger() -> logging.Logger:
    """websockets logs failed handshakes with tracebacks; the terminal is no place for them."""
    logger = logging.Logger("saikish.remote")  # not registered: no global logging state
    logger.addHandler(logging.NullHandler())
    return logger
