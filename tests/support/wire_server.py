"""A real HTTP server on 127.0.0.1 that replays recorded LLM responses, in pieces."""

from __future__ import annotations

import http.server
import json
import random
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

Splitter = Callable[[bytes], list[bytes]]


def whole(body: bytes) -> list[bytes]:
    return [body]


def bytewise(body: bytes) -> list[bytes]:
    return [body[i:i + 1] for i in range(len(body))]


def random_pieces(seed: int) -> Splitter:
    """Random cut points, anywhere: inside lines, JSON and multi-byte characters."""

    def split(body: bytes) -> list[bytes]:
        rng = random.Random(seed)
        pieces, i = [], 0
        while i < len(body):
            size = rng.randint(1, 23)
            pieces.append(body[i:i + size])
            i += size
        return pieces

    return split


@dataclass
class Reply:
    """One response: status, headers and body, sent in the pieces `split` makes."""

    body: bytes
    status: int = 200
    headers: dict[str, str] = field(
        default_factory=lambda: {"content-type": "text/event-stream; charset=utf-8"})
    split: Splitter = whole
    # Seconds to wait after each piece (a slow server).
    delay: float = 0.0
    # How the answer ends: "close" (a clean end of the body), "reset" (TCP RST) or
    # "stall" (the connection stays open and silent until the server shuts down).
    end: str = "close"
    # Stall before sending anything at all (not even the status line).
    stall_first: bool = False
    # Seconds before the status line (a server that answers once its first token is
    # ready), and after the headers before the first piece (one that answers at once).
    wait_headers: float = 0.0
    wait_body: float = 0.0


@dataclass
class WireServer:
    """Replies in order (the last one repeats); records every request body."""

    replies: list[Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    paths: list[str] = field(default_factory=list)  # of every request, GET ones too
    port: int = 0
    # Set when the server shuts down: stalled handlers wake up and hang up.
    release: threading.Event = field(default_factory=threading.Event)
    # JSON answers to GET requests by path (a server's /props, /v1/models); others get 404.
    pages: dict[str, Any] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def serve(*replies: Reply, pages: dict[str, Any] | None = None) -> Iterator[WireServer]:
    state = WireServer(list(replies), pages=dict(pages or {}))

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # the body ends when the connection closes

        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            if self.command == "GET":
                state.paths.append(self.path)
            page = state.pages.get(self.path)
            body = json.dumps(page).encode() if page is not None else b'{"error": "no"}'
            self.send_response(200 if page is not None else 404)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
            state.paths.append(self.path)
            length = int(self.headers.get("content-length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.endswith(("/chat/completions", "/messages")):
                self.do_GET()  # Ollama's /api/show is a POST; other paths get 404
                return
            state.requests.append(body)
            reply = state.replies.pop(0) if len(state.replies) > 1 else state.replies[0]
            if reply.stall_first:
                state.release.wait()
                return
            state.release.wait(reply.wait_headers)  # a server thinking (or shutting down)
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.flush()
            state.release.wait(reply.wait_body)
            for piece in reply.split(reply.body):
                try:
                    self.wfile.write(piece)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client hung up (e.g. Ctrl-C)
                time.sleep(reply.delay)
            if reply.end == "stall":
                state.release.wait()
            elif reply.end == "reset":  # linger 0: close() sends RST, not FIN
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                           struct.pack("ii", 1, 0))
                resets.add(self.connection)

        def log_message(self, *args: object) -> None:
            pass

    resets: set[socket.socket] = set()

    class Server(http.server.ThreadingHTTPServer):
        def shutdown_request(self, request: Any) -> None:
            if request in resets:  # no shutdown(SHUT_WR): that would send a clean FIN first
                self.close_request(request)
                return
            super().shutdown_request(request)

    server = Server(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    # A short poll interval: shutdown() waits for the loop to notice (0.5 s by default).
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01},
                              daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
