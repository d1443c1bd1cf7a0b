"""The MCP client: configured servers on a background thread (docs/SPEC.md §7.1).

`Servers` starts every server at once on one asyncio loop in a daemon thread
and answers `call()` from the main thread, which blocks while the call runs.
The `mcp` SDK is imported only on that thread (by `transport`), so a session
without MCP servers never pays for it. Whatever goes wrong (a server that will
not start, crashes, hangs or answers nonsense) becomes one line: a FAILED
status or an error result, never a traceback on the terminal.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from contextlib import suppress
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from saikish.mcp.values import (
    MAX_BACKOFF_S,
    CallResult,
    ListedTool,
    ServerSpec,
    ServerStatus,
    State,
    one_line,
)
from saikish.tools.sandbox.reaper import end_all, now

if TYPE_CHECKING:
    from saikish.mcp.transport import Connection

__all__ = ["CallResult", "ListedTool", "ServerSpec", "ServerStatus", "Servers", "State"]

SDK_LOG = "client.sdk.log"  # server logs are NAME.log and names have no dots: no clash
POLL_S = 0.1  # how often a waiting call looks at its cancel event and deadline
ABANDON_WAIT_S = 5.0  # how long a cancelled call waits for notifications/cancelled to go out
CLOSE_WAIT_S = 10.0  # how long close() waits for every server to stop

log = logging.getLogger(__name__)


class Servers:
    """The configured MCP servers, run on one background thread."""

    def __init__(self, specs: Sequence[ServerSpec], *, log_dir: Path,
                 startup_timeout: float = 30.0,
                 on_change: Callable[[ServerStatus], None] = lambda status: None) -> None:
        self._specs = {spec.name: spec for spec in specs}
        self._log_dir = self._wanted_log_dir = log_dir
        self._startup_timeout = startup_timeout
        self._on_change = on_change
        self._changed = threading.Condition()
        self._status = {name: ServerStatus(name, State.STARTING) for name in self._specs}
        self._connections: dict[str, Connection] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._started_at = 0.0
        self._closed = False

    def start(self) -> None:
        """Start every server in the background; returns at once."""
        with self._changed:
            if self._thread is not None or self._closed:
                return
            self._started_at = time.monotonic()
            self._thread = threading.Thread(target=self._run, name="saikish-mcp", daemon=True)
        self._thread.start()

    def wait_ready(self, timeout: float) -> None:
        """Block until no server is STARTING, or until timeout seconds have passed."""
        with self._changed:
            self._changed.wait_for(self._settled, timeout)

    def wait_server(self, name: str, timeout: float) -> None:
        """Block until the server `name` is not STARTING, or until timeout seconds passed."""
        with self._changed:
            self._changed.wait_for(lambda: self._status[name].state is not State.STARTING
                                   if name in self._status else True, timeout)

    def _settled(self) -> bool:
        """Whether every server has left STARTING (call with the lock held)."""
        return all(status.state is not State.STARTING for status in self._status.values())

    def status(self) -> tuple[ServerStatus, ...]:
        """A snapshot of every server, in the order they were configured."""
        with self._changed:
            return tuple(self._status.values())

    def call(self, server: str, tool: str, arguments: Mapping[str, Any], *,
             cancel: threading.Event | None = None,
             progress: Callable[[str], None] | None = None) -> CallResult:
        """Call a tool and wait for its result; errors, timeouts and cancels are error results.

        Ctrl-C while waiting cancels the request (the server is told) and re-raises
        KeyboardInterrupt. `progress` is called on the background thread.
        """
        self._await_start(server, cancel)
        with self._changed:
            refusal = self._refusal(server)
            loop, connection = self._loop, self._connections.get(server)
        if refusal is not None or loop is None or connection is None:
            return refusal or _not_running(server, "still starting")
        pending = _PendingCall(loop)
        work = connection.call(tool, arguments, progress, pending.attach)
        try:
            future = asyncio.run_coroutine_threadsafe(work, loop)
        except RuntimeError:  # the loop has just closed
            work.close()
            return _not_running(server, "stopped")
        return self._wait(self._specs[server], tool, future, pending, cancel)

    def _await_start(self, server: str, cancel: threading.Event | None) -> None:
        """Wait while `server` is starting (or starting again after it went away), within
        its start-up limit and the longest backoff; a cancel stops the wait."""
        spec = self._specs.get(server)
        if spec is None or self._thread is None:
            return
        limit = (spec.startup_timeout or self._startup_timeout) + MAX_BACKOFF_S
        deadline = time.monotonic() + limit
        with self._changed:
            while self._status[server].state is State.STARTING and \
                    time.monotonic() < deadline and not (cancel and cancel.is_set()):
                self._changed.wait(POLL_S)

    def _refusal(self, server: str) -> CallResult | None:
        """The error result for a server that cannot take calls (call with the lock held)."""
        status = self._status.get(server)
        if status is None:
            return CallResult(f"mcp server {server!r} is not configured", is_error=True)
        if status.state is State.READY:
            return None
        if status.state is State.FAILED:
            return _not_running(server, f"failed: {status.reason}")
        return _not_running(server, "still starting" if status.state is State.STARTING
                            else "stopped")

    def _wait(self, spec: ServerSpec, tool: str,
              future: concurrent.futures.Future[CallResult | None],
              pending: _PendingCall, cancel: threading.Event | None) -> CallResult:
        """Poll the call until it answers, is cancelled, or runs out of time."""
        deadline = time.monotonic() + spec.timeout
        try:
            while True:
                with suppress(concurrent.futures.TimeoutError):
                    return _outcome(spec.name, tool, future.result(timeout=POLL_S))
                if cancel is not None and cancel.is_set():
                    return pending.abandon(future, f"mcp server {spec.name!r}: "
                                                   f"tool {tool!r} was cancelled")
                if time.monotonic() >= deadline:
                    return pending.abandon(future, f"mcp server {spec.name!r}: tool {tool!r} "
                                                   f"did not answer within {spec.timeout:g} s")
                if self._thread is None or not self._thread.is_alive():
                    return _not_running(spec.name, "stopped")
        except KeyboardInterrupt:
            with suppress(KeyboardInterrupt):  # a second Ctrl-C must not skip the re-raise
                pending.abandon(future, "")
            raise

    def close(self) -> None:
        """Stop every server (their process groups end too); safe to call more than once."""
        with self._changed:
            if self._closed:
                return
            self._closed = True
            loop, thread = self._loop, self._thread
        if loop is not None:
            with suppress(RuntimeError):  # the loop already ended: nothing left to stop
                loop.call_soon_threadsafe(self._stop_all)
        if thread is not None:
            thread.join(CLOSE_WAIT_S)
            if thread.is_alive():
                self._kill_children()
        for status in self.status():
            if status.state in (State.STARTING, State.READY):
                self._report(status.name, State.STOPPED, "", ())
        if self._log_dir != self._wanted_log_dir and (thread is None or not thread.is_alive()):
            shutil.rmtree(self._log_dir, ignore_errors=True)  # our temp dir: nothing left

    def _kill_children(self) -> None:
        """Last resort when the loop did not stop in time: SIGKILL each stdio server, its
        group and everything under it."""
        log.error("mcp servers did not stop within %g s; killing their process groups",
                  CLOSE_WAIT_S)
        for connection in self._connections.values():
            pid = connection.running_pid
            if pid is not None:
                end_all(pid, None, grace=0.0, until=now())

    def _stop_all(self) -> None:
        """On the loop thread: ask every connection to stop."""
        for connection in self._connections.values():
            connection.stop()

    def _run(self) -> None:
        """The background thread: import the SDK, then serve every server on one loop."""
        loop = asyncio.new_event_loop()
        loop.set_exception_handler(_log_loop_error)
        try:
            self._log_dir = usable_log_dir(self._wanted_log_dir)
            route_sdk_logging(self._log_dir / SDK_LOG)
            from saikish.mcp import transport  # the SDK import: here, on this thread only

            connections = {name: transport.Connection(
                spec, log_path=self._log_dir / f"{name}.log",
                startup_timeout=self._startup_timeout, report=partial(self._report, name))
                for name, spec in self._specs.items()}
            with self._changed:
                if self._closed:
                    return
                self._loop, self._connections = loop, connections
            loop.run_until_complete(transport.serve_all(tuple(connections.values())))
        except Exception as exc:  # no traceback on the terminal, even for our own bugs
            log.exception("the MCP client thread failed")
            self._fail_starting(_client_failure(exc))
        finally:
            loop.close()

    def _fail_starting(self, reason: str) -> None:
        """Mark every server still STARTING as FAILED with one reason."""
        for status in self.status():
            if status.state is State.STARTING:
                self._report(status.name, State.FAILED, reason, ())

    def _report(self, name: str, state: State, reason: str,
                tools: tuple[ListedTool, ...]) -> None:
        """Record a server's new state and tell on_change (from either thread)."""
        with self._changed:
            ready_after = self._status[name].ready_after_s
            if state is State.READY and ready_after is None:
                ready_after = round(time.monotonic() - self._started_at, 3)
            now = ServerStatus(name, state, reason, tools, ready_after)
            self._status[name] = now
            self._changed.notify_all()
        try:
            self._on_change(now)
        except Exception:  # the listener's bug must not stop the servers
            log.exception("on_change failed for mcp server %r", name)


class _PendingCall:
    """One call in flight: lets the main thread cancel it on the loop thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._cancel: Callable[[], None] | None = None
        self._requested = False

    def attach(self, cancel: Callable[[], None]) -> None:
        """On the loop thread: the call's cancel function, once its scope exists."""
        self._cancel = cancel
        if self._requested:
            cancel()

    def _request(self) -> None:
        """On the loop thread: cancel now, or as soon as attach() runs."""
        self._requested = True
        if self._cancel is not None:
            self._cancel()

    def abandon(self, future: concurrent.futures.Future[CallResult | None],
                text: str) -> CallResult:
        """Cancel the request (the SDK sends notifications/cancelled) and wait for that."""
        with suppress(RuntimeError):
            self._loop.call_soon_threadsafe(self._request)
        try:
            outcome = future.result(timeout=ABANDON_WAIT_S)
        except (concurrent.futures.TimeoutError, concurrent.futures.CancelledError):
            outcome = None
        # A result that arrived before the cancel took effect is still the truth.
        return outcome if outcome is not None else CallResult(text, is_error=True)


def _outcome(server: str, tool: str, outcome: CallResult | None) -> CallResult:
    """The call's result; None only comes back from a cancel nobody asked for."""
    return outcome or CallResult(f"mcp server {server!r}: tool {tool!r} was cancelled", True)


def _not_running(server: str, why: str) -> CallResult:
    """'mcp server 'git' is not running (failed: command 'uvx' not found)'."""
    return CallResult(f"mcp server {server!r} is not running ({why})", is_error=True)


def _client_failure(exc: Exception) -> str:
    """The reason every server gets when the client itself cannot run."""
    if isinstance(exc, ImportError):
        return f"the mcp package cannot be imported ({exc.name or exc})"
    return f"the MCP client failed: {type(exc).__name__}: {one_line(str(exc))}"


def usable_log_dir(preferred: Path) -> Path:
    """`preferred`, or a private temp dir when the state dir cannot be written (read-only):
    the servers' stderr and the SDK's records must go somewhere other than the terminal."""
    try:
        preferred.mkdir(parents=True, exist_ok=True)
        if os.access(preferred, os.W_OK):
            return preferred
    except OSError:
        pass
    return Path(tempfile.mkdtemp(prefix="saikish-mcp-logs-"))


class _SdkLogHandler(logging.FileHandler):
    """The file handler saikish puts on the SDK's loggers (so a new one replaces it)."""


def route_sdk_logging(path: Path) -> None:
    """Send the SDK's log records to a file instead of the terminal.

    With no handler configured, Python prints warnings and their tracebacks to
    stderr; the SDK logs those for server mistakes we already report in one line.
    """
    handler = _SdkLogHandler(path, encoding="utf-8", delay=True)
    handler.setFormatter(logging.Formatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    for name in ("mcp", "mcp_types", "httpx2", __name__):
        logger = logging.getLogger(name)
        for old in [h for h in logger.handlers if isinstance(h, _SdkLogHandler)]:
            logger.removeHandler(old)
            old.close()
        logger.addHandler(handler)
        logger.propagate = False


def _log_loop_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """asyncio's unhandled errors go to the log file, not the terminal."""
    log.error("event loop: %s", context.get("message"), exc_info=context.get("exception"))
