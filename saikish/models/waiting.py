"""How long to wait for a model (docs/SPEC.md §10.5): for the first token, then between tokens.

A local server can think for minutes before its first token (a small machine reading
a long prompt) and then stream quickly; a hosted one answers fast. So the two waits
are separate, with generous defaults for local servers. The HTTP client's read
timeout covers the wait for the response headers; once they are in, a Watchdog
thread ends a stream that goes quiet by shutting its socket down.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from saikish.config.layers import Config


@dataclass(frozen=True)
class Waits:
    """Seconds to wait for the first token, and between tokens once they flow."""

    first_token: float
    idle: float


HOSTED = Waits(first_token=300.0, idle=60.0)
LOCAL = Waits(first_token=900.0, idle=120.0)
LOCAL_NAMES = ("localhost", "host.docker.internal")


def waits_for(config: Config, local: bool) -> Waits:
    """agent.yml's llm.firstTokenTimeout and llm.timeout, else the defaults for the server."""
    default = LOCAL if local else HOSTED
    set_by_person = config.origins.get("llm.timeout", "default") != "default"
    idle = config.llm.timeout if set_by_person else default.idle
    first = config.llm.first_token_timeout
    return Waits(first if first is not None else max(default.first_token, idle), idle)


def is_local(url: str) -> bool:
    """True for a server on this machine or the local network (loopback, private, .local)."""
    host = (urlsplit(url if "://" in url else f"http://{url}").hostname or "").lower()
    if host in LOCAL_NAMES or host.endswith((".local", ".localhost", ".internal")):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    return address.is_loopback or address.is_private or address.is_link_local


class Watchdog:
    """Ends a stream that says nothing: no first token within `first_token` seconds of the
    request, or no token for `idle` seconds after that. `expired` says which wait ran out."""

    def __init__(self, waits: Waits, clock: Callable[[], float] = time.monotonic) -> None:
        self.waits, self.clock = waits, clock
        self.started = clock()
        self.tokens = 0
        self.last = self.started
        self.expired: str | None = None  # "first_token" | "idle"
        self._done = threading.Condition()
        self._stopped = False

    def start(self, end_stream: Callable[[], None]) -> None:
        """Watch from now on; `end_stream` is called (from the watching thread) on expiry."""
        threading.Thread(target=self._watch, args=(end_stream,), daemon=True,
                         name="stream-watchdog").start()

    def beat(self, generated: int) -> None:
        """The stream has produced `generated` pieces so far; a new one resets the wait."""
        if generated > self.tokens:
            with self._done:  # the watching thread must never see a new count with an old time
                self.tokens, self.last = generated, self.clock()
                # The first token may bring the deadline closer (idle < first_token).
                self._done.notify_all()

    def stop(self) -> None:
        """The stream is over: stop watching."""
        with self._done:
            self._stopped = True
            self._done.notify_all()

    def deadline(self) -> float:
        """When the current wait runs out."""
        if self.tokens:
            return self.last + self.waits.idle
        return self.started + self.waits.first_token

    def _watch(self, end_stream: Callable[[], None]) -> None:
        with self._done:
            while not self._stopped:
                remaining = self.deadline() - self.clock()
                if remaining <= 0:
                    self.expired = "idle" if self.tokens else "first_token"
                    break
                self._done.wait(remaining)  # woken by stop() or a token: re-checked
        if self.expired:
            end_stream()


def shut_down(response: Any) -> None:
    """Wake a read blocked on `response`'s connection: shut its socket down, both ways.

    Closing the response from another thread would not wake a blocked recv() on Linux;
    shutdown() does, and the reader sees the stream end.
    """
    stream = response.extensions.get("network_stream")
    sock = stream.get_extra_info("socket") if stream is not None else None
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)  # the raw socket, also under TLS
