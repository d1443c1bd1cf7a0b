"""A stdio MCP server process (docs/SPEC.md §7.1), for `transport` on the client's loop.

saikish starts stdio servers itself rather than with the SDK's `stdio_client`,
which merges the parent's HOME, LOGNAME, PATH, SHELL, TERM and USER into the
child's environment and hides the process: a server must get exactly the
configured environment, and a failure reason needs the exit code. The child
runs in its own session, so a Ctrl-C in the terminal does not reach it; its
stderr goes to the server's log file; stopping it ends its whole process group.

Imported only on the client's background thread (it imports the SDK).
"""

from __future__ import annotations

import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from functools import partial
from pathlib import Path
from typing import IO

import anyio
import mcp_types as types
from anyio.abc import Process
from mcp.os.posix.utilities import terminate_posix_process_tree
from mcp.shared.message import SessionMessage

from saikish.mcp.values import ServerSpec, one_line
from saikish.tools.sandbox.reaper import end_all, now

STDIN_GRACE_S = 1.0  # a server that reads EOF on stdin should exit within this
TERM_GRACE_S = 1.0  # then SIGTERM to its process group, and SIGKILL after this
MAX_MESSAGE = 64 << 20  # one JSON-RPC line from a server; a longer one is dropped


class _Line:
    """Bytes of the line being read; None stands for a line too long to keep."""

    def __init__(self) -> None:
        self.buffer = bytearray()
        self.too_long = False

    def feed(self, chunk: bytes) -> list[bytes | None]:
        """The lines `chunk` completes (None for each one that was too long)."""
        *ends, rest = chunk.split(b"\n")
        done: list[bytes | None] = []
        for end in ends:
            done.append(None if self.too_long else bytes(self.buffer + end))
            self.buffer, self.too_long = bytearray(), False
        if not self.too_long:
            self.buffer += rest
            if len(self.buffer) > MAX_MESSAGE:
                self.buffer, self.too_long = bytearray(), True
        return done


class Child:
    """A running stdio server: its process, the session's streams, and EOF on its stdout."""

    def __init__(self, process: Process, log_offset: int) -> None:
        self.process = process
        self.log_offset = log_offset
        self.eof = anyio.Event()
        self._to_session, self.read = anyio.create_memory_object_stream[
            SessionMessage | Exception](0)
        self.write, self._from_session = anyio.create_memory_object_stream[SessionMessage](0)

    async def pump_stdout(self) -> None:
        """Parse stdout lines into messages; keep draining after the session is gone.

        A line is gathered in one growing buffer (linear in its size: a 40 MB result is read
        in well under a second); one longer than MAX_MESSAGE is dropped, and the session
        gets an error in its place.
        """
        assert self.process.stdout is not None
        line = _Line()
        try:
            async for chunk in self.process.stdout:
                for complete in line.feed(chunk):
                    await self._deliver_or_refuse(complete)
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass
        finally:
            self.eof.set()
            self._to_session.close()

    async def _deliver_or_refuse(self, line: bytes | None) -> None:
        if line is not None:
            await self._deliver(line)
            return
        with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await self._to_session.send(ValueError(
                f"the server sent a message larger than {MAX_MESSAGE >> 20} MB; dropped"))

    async def _deliver(self, line: bytes) -> None:
        """Hand one line to the session, if it still listens."""
        if not line.strip():
            return
        with suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            await self._to_session.send(parse_line(line))

    async def pump_stdin(self) -> None:
        """Write the session's messages to stdin, one JSON line each."""
        assert self.process.stdin is not None
        try:
            async for message in self._from_session:
                data = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                await self.process.stdin.send(data.encode("utf-8") + b"\n")
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            self._to_session.close()  # the session sees the connection end instead of hanging

    def close_streams(self) -> None:
        """Close the four memory stream ends."""
        for stream in (self._to_session, self.read, self.write, self._from_session):
            stream.close()


@asynccontextmanager
async def stdio_child(spec: ServerSpec, errlog: IO[str]) -> AsyncIterator[Child]:
    """Spawn the server with exactly spec.env, bridge its pipes, and stop it on exit."""
    assert spec.command is not None
    process = await anyio.open_process([spec.command, *spec.args], env=dict(spec.env),
                                       cwd=spec.cwd, stderr=errlog, start_new_session=True)
    child = Child(process, errlog.tell())
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(child.pump_stdout)
            tg.start_soon(child.pump_stdin)
            try:
                yield child
            finally:
                with anyio.CancelScope(shield=True):
                    await stop_process(process)
                tg.cancel_scope.cancel()
    finally:
        child.close_streams()


def parse_line(line: bytes) -> SessionMessage | Exception:
    """One JSON-RPC message, or the parse error as a value for the session."""
    try:
        return SessionMessage(types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc


async def stop_process(process: Process) -> None:
    """Close stdin, give the server a moment, then end its whole process group."""
    assert process.stdin is not None and process.stdout is not None
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdin.aclose()
    await wait_exit(process, STDIN_GRACE_S)
    if process.returncode is None:  # it and all under it, even those that left its group
        await anyio.to_thread.run_sync(partial(end_all, process.pid, None, TERM_GRACE_S,
                                               until=now()))
    # Even when the leader exited, children it started may live on in its group (and those
    # that left it were adopted by saikish, which ends them when it exits).
    await terminate_posix_process_tree(process, TERM_GRACE_S)
    await wait_exit(process, TERM_GRACE_S)
    with suppress(OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        await process.stdout.aclose()


async def wait_exit(process: Process, seconds: float) -> None:
    """Poll for the exit code (process.wait() would also wait for pipes a grandchild holds)."""
    with anyio.move_on_after(seconds):
        while process.returncode is None:
            await anyio.sleep(0.01)


def exit_reason(code: int | None, *, answered: bool, stderr: str) -> str:
    """'exited with code 3 before it answered: <last stderr line>'."""
    if code is None:
        text = "closed its output"
    elif code < 0:
        text = f"was killed by {_signal_name(-code)}"
    else:
        text = f"exited with code {code}"
    if not answered:
        text += " before it answered"
    return f"{text}: {stderr}" if stderr else text


def _signal_name(number: int) -> str:
    """SIGKILL for 9; 'signal 99' for numbers Python does not know."""
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def last_line(path: Path, offset: int) -> str:
    """The last non-empty line written to the log after offset, as one short line."""
    try:
        with open(path, "rb") as log:
            size = log.seek(0, 2)
            log.seek(max(offset, size - 8192))
            tail = log.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [line for line in tail.splitlines() if line.strip()]
    return one_line(lines[-1]) if lines else ""
