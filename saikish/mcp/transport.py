"""One MCP server's connection on the client's event loop (docs/SPEC.md §7.1).

`Connection` starts a server (stdio through `stdio`, or streamable HTTP), lists
its tools, answers calls and reports its state to `client`. This module, `failures`
and `stdio` are the only ones that import the `mcp` SDK, and `client` imports them
only on its background thread, so saikish starts without paying for the SDK.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.session import ClientSession, IncomingMessage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.dispatcher import ProgressFnT
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from saikish.mcp.failures import describe, describe_other, is_closed
from saikish.mcp.listing import ToolListFilter, filtered
from saikish.mcp.results import result_from_wire
from saikish.mcp.stdio import Child, exit_reason, last_line, stdio_child, wait_exit
from saikish.mcp.values import (
    FIRST_BACKOFF_S,
    MAX_BACKOFF_S,
    CallResult,
    ListedTool,
    ServerSpec,
    State,
    one_line,
)

Report = Callable[[State, str, "tuple[ListedTool, ...]"], None]
ReadStream = MemoryObjectReceiveStream[SessionMessage | Exception]
WriteStream = MemoryObjectSendStream[SessionMessage]

EXIT_WAIT_S = 2.0  # how long a closed connection waits for the exit code
STOP_LIMIT_S = 3.0  # how long a ready connection may take to close (stdio adds its own grace)
PAGE_LIMIT = 100  # tools/list pages; a server that paginates forever is cut off


async def serve_all(connections: tuple[Connection, ...]) -> None:
    """Serve every connection concurrently until each one has ended."""
    async with anyio.create_task_group() as tg:
        for connection in connections:
            tg.start_soon(connection.serve)


class Connection:
    """One configured server: start, list tools, answer calls, stop; reports its state."""

    def __init__(self, spec: ServerSpec, *, log_path: Path, startup_timeout: float,
                 report: Report) -> None:
        self.spec = spec
        self.reason = ""
        self._log_path = log_path
        self._startup_timeout = startup_timeout
        self._report = report
        self._session: ClientSession | None = None
        self._child: Child | None = None
        self._http_errors: list[str] = []
        self._stopping = False
        self._scope: anyio.CancelScope | None = None
        self._ended: anyio.Event | None = None
        self._stop_requested: anyio.Event | None = None
        self._was_ready = False  # this attempt reached READY
        self._tools: tuple[ListedTool, ...] = ()  # the last listing, kept while restarting
        self._attempt_over: anyio.Event | None = None
        self.restarted = 0
        self.listing = ToolListFilter()  # drops tool definitions the SDK cannot read

    async def serve(self) -> None:
        """Run the connection until stop(), or until the server goes away and may not be
        started again (spec.restarts, with backoff: 1 s, 2 s, 4 s... at most 30 s)."""
        self._ended = anyio.Event()
        self._stop_requested = anyio.Event()
        try:
            await self._attempt()
            while self._was_ready and not self._stopping and self.restarted < self.spec.restarts:
                if not await self._backoff():
                    break
                await self._attempt()
        finally:
            self._session = None
            self._ended.set()

    async def _attempt(self) -> None:
        """One start of the server, served until it ends; its end is reported."""
        self._was_ready, self._child, self._http_errors = False, None, []
        self._attempt_over = anyio.Event()
        try:
            await self._serve()
        except BaseException as exc:  # every failure becomes one line, never a traceback
            if isinstance(exc, anyio.get_cancelled_exc_class()):
                raise
            self._finish(State.FAILED, await self._failure(exc))
        finally:
            self._session = None
            self._attempt_over.set()

    async def _backoff(self) -> bool:
        """Wait before starting a lost server again (STARTING says why); False on stop()."""
        assert self._stop_requested is not None
        delay = min(FIRST_BACKOFF_S * 2 ** self.restarted, MAX_BACKOFF_S)
        self.restarted += 1
        lost = self.reason
        # Its tools stay offered: a call of one waits for the server to be back.
        self._report(State.STARTING, f"starting again in {delay:g} s (restart "
                                     f"{self.restarted} of {self.spec.restarts}) after: {lost}",
                     self._tools)
        with anyio.move_on_after(delay):
            await self._stop_requested.wait()
        if self._stopping:
            self._finish(State.STOPPED, "")
            return False
        return True

    def stop(self) -> None:
        """Ask the connection to close (on the loop thread); serve() then returns.

        A ready connection unwinds without being cancelled, so an HTTP session
        is ended with its DELETE; the deadline bounds that. One still starting
        is cancelled.
        """
        self._stopping = True
        if self._scope is None or self._stop_requested is None:
            return
        if self._session is None:
            self._scope.cancel()
            self._stop_requested.set()  # a server waiting to start again stops waiting
        else:
            self._stop_requested.set()

    @property
    def running_pid(self) -> int | None:
        """The stdio child's pid (also its process group id) while it has not exited."""
        child = self._child
        if child is None or child.process.returncode is not None:
            return None
        return child.process.pid

    async def _serve(self) -> None:
        """Connect, list, report READY, then wait; the deadline covers startup only."""
        if not self.spec.command and not self.spec.url:
            self._finish(State.FAILED, "neither a command nor a url is configured")
            return
        limit = self.spec.startup_timeout or self._startup_timeout
        deadline = anyio.current_time() + limit
        ready = False
        with anyio.CancelScope(deadline=deadline) as self._scope:
            if self._stopping:
                self._scope.cancel()
            async with AsyncExitStack() as stack:
                session = await self._open(stack)
                tools = await list_tools(session)
                self._scope.deadline = math.inf
                self._session, ready, self._was_ready = session, True, True
                self._tools = tools
                again = "started again" if self.restarted else ""
                self._report(State.READY, "; ".join(filter(None, (again, self._skipped()))),
                             tools)
                await self._wait_for_loss()
                self._scope.deadline = anyio.current_time() + STOP_LIMIT_S
        if self._stopping:
            self._finish(State.STOPPED, "")
        elif not ready and self._scope.cancelled_caught:
            self._finish(State.FAILED, f"did not start within {limit:g} s; give it longer "
                                       f"with {self.spec.startup_setting} (seconds)")
        else:
            self._finish(State.FAILED, await self._lost_reason(answered=True))

    def _finish(self, state: State, reason: str) -> None:
        """Record the final state and report it; a lost server that will be started again
        is reported by the backoff instead."""
        self._session = None
        self.reason = reason
        restarting = state is State.FAILED and self._was_ready and not self._stopping and \
            self.restarted < self.spec.restarts
        if not restarting:
            self._report(state, reason, ())

    async def _open(self, stack: AsyncExitStack) -> ClientSession:
        """Enter the transport and the session, and initialize."""
        if self.spec.url:
            read, write = await stack.enter_async_context(self._http())
        else:
            read, write = await stack.enter_async_context(self._stdio())
        read, write = await stack.enter_async_context(filtered(read, write, self.listing))
        session = ClientSession(read, write, message_handler=self._on_message)
        await stack.enter_async_context(session)
        await session.initialize()
        return session

    @asynccontextmanager
    async def _stdio(self) -> AsyncIterator[tuple[ReadStream, WriteStream]]:
        """The stdio transport, with the log file as the child's stderr."""
        with open(self._log_path, "a", encoding="utf-8") as errlog:
            errlog.write(f"=== {self.spec.name}: {self.spec.command} {' '.join(self.spec.args)}\n")
            errlog.flush()
            async with stdio_child(self.spec, errlog) as self._child:
                yield self._child.read, self._child.write

    @asynccontextmanager
    async def _http(self) -> AsyncIterator[tuple[Any, Any]]:
        """The streamable HTTP transport; HTTP error statuses are kept for reasons."""

        async def note(response: httpx2.Response) -> None:
            if response.status_code >= 400:
                self._http_errors.append(f"HTTP {response.status_code} {response.reason_phrase}")

        assert self.spec.url is not None
        client = httpx2.AsyncClient(headers=dict(self.spec.headers),
                                    timeout=httpx2.Timeout(30.0, read=300.0),
                                    event_hooks={"response": [note]})
        async with client, streamable_http_client(self.spec.url, http_client=client) as streams:
            yield streams

    async def _wait_for_loss(self) -> None:
        """Block until stop() is asked for or a stdio child closes its output.

        An HTTP server that goes away fails its transport's task group, which
        cancels this wait and raises out of _serve.
        """
        assert self._stop_requested is not None
        events = [self._stop_requested] + ([self._child.eof] if self._child else [])
        async with anyio.create_task_group() as tg:

            async def first(event: anyio.Event) -> None:
                await event.wait()
                tg.cancel_scope.cancel()

            for event in events:
                tg.start_soon(first, event)

    async def _on_message(self, message: IncomingMessage) -> None:
        """Re-list tools when the server says its list changed."""
        session = self._session
        if not isinstance(message, types.ToolListChangedNotification) or session is None:
            return
        try:
            tools = await list_tools(session)
        except Exception:  # a failed re-list keeps the old list; the next call will tell
            return
        self._report(State.READY, self._skipped(), tools)

    def _skipped(self) -> str:
        """For a READY report: the tool definitions left out of the last listing."""
        skipped = self.listing.take()
        if not skipped:
            return ""
        shown = ", ".join(skipped[:5]) + (f" and {len(skipped) - 5} more"
                                          if len(skipped) > 5 else "")
        return f"skipped {len(skipped)} tool definition(s) it could not read: {shown}"

    async def _failure(self, exc: BaseException) -> str:
        """One line for a failure while starting or serving."""
        if self._child is not None and is_closed(exc):
            return await self._lost_reason(answered=self._session is not None)
        return describe(exc, self.spec, self._http_errors)

    async def _lost_reason(self, *, answered: bool) -> str:
        """Why a stdio child went away: its exit code and the last line it wrote to stderr."""
        if self._child is None:
            return "the server closed the connection"
        await wait_exit(self._child.process, EXIT_WAIT_S)
        return exit_reason(self._child.process.returncode, answered=answered,
                           stderr=last_line(self._log_path, self._child.log_offset))

    async def call(self, tool: str, arguments: Mapping[str, Any],
                   progress: Callable[[str], None] | None,
                   attach: Callable[[Callable[[], None]], None]) -> CallResult | None:
        """One tools/call; None when it was cancelled through the function given to attach.

        Cancelling the scope makes the SDK send notifications/cancelled for the
        request (shielded, before the cancellation goes on).
        """
        session = self._session
        if session is None:
            return CallResult(f"mcp server {self.spec.name!r} is not running", is_error=True)
        with anyio.CancelScope() as scope:
            attach(scope.cancel)
            try:
                result = await session.call_tool(tool, dict(arguments),
                                                  progress_callback=_progress_reporter(progress))
            except Exception as exc:  # one line for the model, never a traceback
                return await self._call_failure(tool, exc)
            return result_from_wire(result.model_dump(by_alias=True, mode="json",
                                                      exclude_none=True))
        return None

    async def _call_failure(self, tool: str, exc: Exception) -> CallResult:
        """The error result for a call that raised."""
        name = self.spec.name
        if is_closed(exc):
            assert self._attempt_over is not None
            with anyio.move_on_after(EXIT_WAIT_S + 1):
                await self._attempt_over.wait()
            why = self.reason or "the server closed the connection"
            return CallResult(f"mcp server {name!r} stopped during tool {tool!r}: {why}", True)
        if isinstance(exc, ValidationError):
            return CallResult(f"mcp server {name!r}: tool {tool!r} returned a malformed result",
                              is_error=True)
        detail = one_line(exc.message) if isinstance(exc, MCPError) else describe_other(exc)
        return CallResult(f"mcp server {name!r}: tool {tool!r} failed: {detail}", is_error=True)


def _progress_reporter(progress: Callable[[str], None] | None) -> ProgressFnT | None:
    """An SDK progress callback that hands one short line to `progress`."""
    if progress is None:
        return None
    show = progress

    async def report(progress: float, total: float | None, message: str | None) -> None:
        show(progress_line(progress, total, message))

    return report


def progress_line(done: float, total: float | None, message: str | None) -> str:
    """'3/10 reading files' from a progress notification."""
    count = f"{done:g}/{total:g}" if total is not None else f"{done:g}"
    return f"{count} {one_line(message, 100)}" if message else count


async def list_tools(session: ClientSession) -> tuple[ListedTool, ...]:
    """Every tool the server lists, following pagination."""
    listed: list[ListedTool] = []
    cursor: str | None = None
    for _ in range(PAGE_LIMIT):
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await session.list_tools(params=params)
        listed.extend(listed_tool(tool) for tool in page.tools)
        cursor = page.next_cursor
        if not cursor:
            break
    return tuple(listed)


def listed_tool(tool: types.Tool) -> ListedTool:
    """The SDK's Tool as plain data; annotations keep only the fields the server set."""
    notes = tool.annotations
    return ListedTool(
        name=tool.name,
        description=tool.description or "",
        input_schema=tool.input_schema,
        annotations=None if notes is None else notes.model_dump(by_alias=True, exclude_none=True),
    )
