"""Why a server failed, in one line (docs/SPEC.md §7.1): from the exceptions the `mcp` SDK,
httpx2 and anyio raise while starting or talking to a server. Imported by `transport`
only (on the client's thread), like the SDK itself."""

from __future__ import annotations

import socket
import sys
from collections.abc import Iterator

import anyio
import httpx2
import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from saikish.mcp.values import ServerSpec, one_line

if sys.version_info < (3, 11):
    # anyio requires the backport below 3.11; mypy may run where it is not installed.
    from exceptiongroup import BaseExceptionGroup  # type: ignore[import-not-found, unused-ignore]


def is_closed(exc: BaseException) -> bool:
    """Whether the exception says the connection closed under a request."""
    leaf = _leaf(exc)
    return isinstance(leaf, MCPError) and leaf.code == types.CONNECTION_CLOSED


def describe(exc: BaseException, spec: ServerSpec, http_errors: list[str]) -> str:
    """One line for an exception from starting or talking to a server."""
    leaf = _leaf(exc)
    if spec.url:
        return _describe_http(leaf, spec.url, http_errors)
    if isinstance(leaf, FileNotFoundError):
        if spec.cwd and leaf.filename == spec.cwd:
            return f"directory {spec.cwd!r} not found"
        return f"command {spec.command!r} not found"
    if isinstance(leaf, PermissionError):
        return f"command {spec.command!r} cannot be run: permission denied"
    return describe_other(leaf)


def _describe_http(leaf: BaseException, url: str, http_errors: list[str]) -> str:
    """'http://host/mcp: connection refused', 'http://host/mcp: HTTP 401 Unauthorized'."""
    if http_errors:
        return f"{url}: {http_errors[-1]}"
    if isinstance(leaf, httpx2.ConnectError):
        causes = list(_causes(leaf))
        if any(isinstance(cause, ConnectionRefusedError) for cause in causes):
            return f"{url}: connection refused"
        if any(isinstance(cause, socket.gaierror) for cause in causes):
            return f"{url}: host not found"
        return f"{url}: cannot connect: {one_line(str(leaf))}"
    if isinstance(leaf, httpx2.TimeoutException):
        return f"{url}: timed out"
    return f"{url}: {describe_other(leaf)}"


def describe_other(exc: BaseException) -> str:
    """The reason for an MCP-level or unexpected error."""
    leaf = _leaf(exc)
    if isinstance(leaf, MCPError):
        return f"error from the server: {one_line(leaf.message)}"
    if isinstance(leaf, ValidationError):
        return "the server sent a malformed message"
    text = one_line(str(leaf))
    return f"{type(leaf).__name__}: {text}" if text else type(leaf).__name__


def _causes(exc: BaseException, depth: int = 0) -> Iterator[BaseException]:
    """The exception, what caused it, and the members of any group among them."""
    yield exc
    if depth > 8:
        return
    if isinstance(exc, BaseExceptionGroup):
        for inner in exc.exceptions:
            yield from _causes(inner, depth + 1)
    cause = exc.__cause__ or exc.__context__
    if cause is not None:
        yield from _causes(cause, depth + 1)


def _leaf(exc: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups that is not a cancellation."""
    while isinstance(exc, BaseExceptionGroup):
        inner = [e for e in exc.exceptions if not isinstance(e, anyio.get_cancelled_exc_class())]
        exc = (inner or list(exc.exceptions))[0]
    return exc
