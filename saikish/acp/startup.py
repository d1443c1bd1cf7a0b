"""What the editor sees while MCP servers start (docs/SPEC.md §7.4): the first prompt
waits for them, and instead of seconds of silence the editor shows a running item
"Starting MCP servers" whose content says each server's state as it changes."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from saikish.acp.history import tool_text

if TYPE_CHECKING:
    from saikish.mcp.host import McpHost, ServerLine

Notify = Callable[[dict[str, Any]], None]
LOOK_S = 0.5  # how often the states are looked at while waiting


def announce_startup(host: McpHost | None, notify: Notify) -> None:
    """Wait for the servers still starting, telling the editor each one's state; at once
    when none is starting (the item is then never shown)."""
    if host is None:
        return
    host.start()
    lines = host.lines()
    if not _starting(lines):
        return
    call_id = f"saikish-mcp-start-{uuid.uuid4().hex[:8]}"
    notify({"sessionUpdate": "tool_call", "toolCallId": call_id, "kind": "other",
            "title": "Starting MCP servers: " + ", ".join(line.name for line in lines),
            "status": "in_progress", "content": [tool_text(_states(lines))],
            "_meta": {"saikish": {"mcpStartup": True}}})
    shown = _states(lines)
    while _starting(lines):
        host.wait_ready(LOOK_S)
        lines = host.lines()
        if _states(lines) != shown:
            shown = _states(lines)
            notify({"sessionUpdate": "tool_call_update", "toolCallId": call_id,
                    "content": [tool_text(shown)]})
    ready = any(line.state == "ready" for line in lines)
    notify({"sessionUpdate": "tool_call_update", "toolCallId": call_id,
            "status": "completed" if ready else "failed", "content": [tool_text(shown)]})


def _starting(lines: list[ServerLine]) -> bool:
    return any(line.state in ("starting", "not started") for line in lines)


def _states(lines: list[ServerLine]) -> str:
    """'git: ready, 12 tools (0.4 s)' per line."""
    return "\n".join(f"{line.name}: {line.state}" + (f", {line.detail}" if line.detail else "")
                     for line in lines)
