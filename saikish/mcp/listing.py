"""A server's tool list, read one tool at a time (docs/SPEC.md §7.1).

The SDK validates a tools/list answer as a whole: one tool definition it cannot read (an
inputSchema that is not an object, a missing name) fails the listing, and with it the
whole server. Between the transport and the session, this relay drops such definitions
from tools/list answers, keeps what it dropped for the person to be told, and passes
every other message through unchanged.

Imported only on the client's background thread (it imports the SDK).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from saikish.mcp.values import one_line

ReadStream = MemoryObjectReceiveStream[SessionMessage | Exception]
WriteStream = MemoryObjectSendStream[SessionMessage]


class ToolListFilter:
    """Remembers which requests were tools/list, and cleans their answers."""

    def __init__(self) -> None:
        self.pending: set[str | int] = set()
        self.skipped: list[str] = []  # "broken (inputSchema: ...)", since last taken

    def outgoing(self, message: SessionMessage) -> None:
        """Note a tools/list request on its way to the server."""
        request = message.message
        if isinstance(request, types.JSONRPCRequest) and request.method == "tools/list":
            self.pending.add(request.id)

    def incoming(self, message: SessionMessage | Exception) -> SessionMessage | Exception:
        """The message, with the unreadable tools of a tools/list answer taken out."""
        if isinstance(message, Exception):
            return message
        answer = message.message
        if not isinstance(answer, types.JSONRPCResponse) or answer.id not in self.pending:
            return message
        self.pending.discard(answer.id)
        tools = answer.result.get("tools")
        if isinstance(tools, list):
            answer.result["tools"] = [tool for tool in tools if self._readable(tool)]
        return message

    def take(self) -> list[str]:
        """What was dropped since last asked."""
        taken, self.skipped = self.skipped, []
        return taken

    def _readable(self, tool: Any) -> bool:
        try:
            types.Tool.model_validate(tool, by_name=False)
        except ValidationError as exc:
            name = tool.get("name") if isinstance(tool, dict) else None
            errors = exc.errors()
            where = ".".join(str(part) for part in errors[0]["loc"]) if errors else ""
            said = errors[0]["msg"] if errors else "not valid"
            detail = f"{where}: {said}" if where else said
            self.skipped.append(f"{one_line(str(name), 60) if name else '(no name)'} "
                                f"({one_line(detail, 100)})")
            return False
        return True


@asynccontextmanager
async def filtered(read: ReadStream, write: WriteStream,
                   tool_filter: ToolListFilter) -> AsyncIterator[tuple[ReadStream, WriteStream]]:
    """The session's side of a relay over (read, write) that cleans tools/list answers."""
    to_session, session_read = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    session_write, from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def down() -> None:
        async with to_session:
            async for message in read:
                await to_session.send(tool_filter.incoming(message))

    async def up() -> None:
        async with from_session, write:  # the session closing its end closes the transport's
            async for message in from_session:
                tool_filter.outgoing(message)
                await write.send(message)

    async with anyio.create_task_group() as tg:
        tg.start_soon(down)
        tg.start_soon(up)
        try:
            yield session_read, session_write
        finally:
            tg.cancel_scope.cancel()
