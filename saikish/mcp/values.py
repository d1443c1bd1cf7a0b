"""The MCP client's nouns (docs/SPEC.md §7.1): a server's spec, its tools, state and results.

`client` re-exports them; they live here so that `transport` and `stdio`, which
`client` starts on its thread, can use them without an import circle.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from saikish.types import Image

FIRST_BACKOFF_S = 1.0  # the wait before a lost server's first restart; then twice as long
MAX_BACKOFF_S = 30.0


@dataclass(frozen=True)
class ServerSpec:
    """One configured server: a stdio command or a streamable HTTP url.

    `env` is the child's whole environment (it is passed as it is, never merged
    with saikish's own); `timeout` is the limit in seconds for one tools/call.
    """

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 60.0
    # Seconds it may take to start (None: the client's default), and where that is set:
    # the failure names it ("startupTimeout in agent.yml:12, or SAIKISH_MCP_STARTUP_TIMEOUT").
    startup_timeout: float | None = None
    startup_setting: str = "SAIKISH_MCP_STARTUP_TIMEOUT"
    # How many times a server that was ready and went away is started again (with backoff).
    restarts: int = 0


@dataclass(frozen=True)
class ListedTool:
    """One tool as the server listed it, as plain JSON-able data.

    `annotations` holds the ToolAnnotations fields the server set, with their
    camelCase wire names (readOnlyHint, ...); None when it sent none.
    """

    name: str
    description: str
    input_schema: Mapping[str, Any]
    annotations: Mapping[str, Any] | None


@dataclass(frozen=True)
class CallResult:
    """What the model is told about one call."""

    text: str
    is_error: bool = False
    images: tuple[Image, ...] = ()  # the result's images the models that take them are sent


class State(enum.Enum):
    """Where a server is in its life."""

    STARTING = "starting"
    READY = "ready"
    FAILED = "failed"
    STOPPED = "stopped"


@dataclass(frozen=True)
class ServerStatus:
    """A snapshot of one server: state, why it failed, its tools, how long it took to start."""

    name: str
    state: State
    reason: str = ""
    tools: tuple[ListedTool, ...] = ()
    ready_after_s: float | None = None


def one_line(text: str, limit: int = 200) -> str:
    """Text squeezed onto one line of at most limit characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
