"""A real HTTP server on 127.0.0.1 that replays recorded LLM responses, in pieces."""

from __future__ import annotations

import http.server
import json
import random
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
    # Seconds to wait after each piece (a server that stalls mid-answer).
    delay: float = 0.0


@dataclass
class WireServer:
    """Replies in order (the last one repeats); records every request body."""

    replies: list[Reply]
    requests: list[dict[str, Any]] = field(default_factory=list)
    port: int = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


@contextmanager
def serve(*replies: Reply) -> Iterator[WireServer]:
    state = WireServer(list(replies))

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.0"  # the body ends when the connection closes

        def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
            length = int(self.headers.get("content-length") or 0)
            state.requests.append(json.loads(self.rfile.read(length) or b"{}"))
            reply = state.replies.pop(0) if len(state.replies) > 1 else state.replies[0]
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            for piece in reply.split(reply.body):
                try:
                    self.wfile.write(piece)
                    self.wfile.flush()
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client hung up (e.g. Ctrl-C)
                time.sleep(reply.delay)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
