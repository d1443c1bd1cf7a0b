"""An MCP server's listed tools as saikish Tools (docs/SPEC.md §7.1).

Names: `mcp__<server>__<tool>`, cut with a stable hash past 64 characters.
Risk: from the tool's annotations, believing the hints that lower it only
when the server's annotations are trusted. Every call goes through the same
decision pipeline as a built-in tool; the tool itself only runs approved calls.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from saikish.mcp.config import McpServer
from saikish.mcp.pins import Pins, definition
from saikish.mcp.values import CallResult
from saikish.tools.base import RunContext, Tool, ToolOutput
from saikish.tools.output import truncate
from saikish.types import Risk

MAX_NAME = 64  # OpenAI's limit on function names
PREFIX = "mcp__"
_NOT_NAME = re.compile(r"[^A-Za-z0-9_-]")
# The hints of the MCP spec and their defaults when a server leaves one out.
DEFAULTS = {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": True}

# (server, tool name, arguments, run context) -> (text for the model, is_error).
Caller = Callable[[str, str, Mapping[str, Any], RunContext], CallResult]


def wire_name(server: str, tool: str) -> str:
    """`mcp__server__tool`, safe for every provider; past 64 characters cut + hashed.

    A tool name with characters providers refuse, or starting with '_', gets a hash too,
    so `do.it` and `do_it` of one server never share a name, nor server `git`'s `_push`
    another server's `push`.
    """
    safe = _NOT_NAME.sub("_", tool)
    name = f"{PREFIX}{server}__{safe}"
    if len(name) <= MAX_NAME and safe == tool and not tool.startswith("_"):
        return name
    tag = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[:MAX_NAME - 9]}_{tag}"


def full_name(server: str, tool: str) -> str:
    """The name a person writes in a rule: `mcp__server__tool`, as the server spells it."""
    return f"{PREFIX}{server}__{tool}"


def annotation_risk(annotations: Mapping[str, Any] | None, trusted: bool) -> tuple[Risk, str]:
    """The risk a tool's annotations give, and which of them set it (for the box).

    readOnly + closed world -> READ_ONLY; readOnly + open world -> NETWORK; not
    readOnly, destructiveHint false -> WRITE; otherwise DESTRUCTIVE (the spec's
    default). No annotations -> UNKNOWN. Untrusted annotations never lower the
    risk below UNKNOWN: a server that says it only reads may be lying.
    """
    hints = {k: v for k, v in (annotations or {}).items() if k in DEFAULTS}
    if not hints:
        return Risk.UNKNOWN, "no annotations"

    def hint(name: str) -> bool:
        value = hints.get(name, DEFAULTS[name])
        return value if isinstance(value, bool) else DEFAULTS[name]

    said = ", ".join(f"{k}: {json.dumps(v)}" for k, v in sorted(hints.items()))
    if hint("readOnlyHint"):
        risk = Risk.NETWORK if hint("openWorldHint") else Risk.READ_ONLY
    elif not hint("destructiveHint"):
        risk = Risk.WRITE
    else:
        risk = Risk.DESTRUCTIVE
    if not trusted and risk.rank < Risk.UNKNOWN.rank:
        return Risk.UNKNOWN, f"{said} (not believed: annotations of this server are not " \
                             f"trusted; set trustAnnotations: true to believe them)"
    return risk, f"{said}{' (trusted)' if risk is not Risk.DESTRUCTIVE else ''}"


def server_tool(server: McpServer, name: str, description: str,
                input_schema: Mapping[str, Any], annotations: Mapping[str, Any] | None,
                pins: Pins, caller: Caller) -> Tool:
    """One listed tool as a Tool whose run() calls the server."""
    wire = wire_name(server.name, name)
    current = definition(description, input_schema, annotations)
    risk, basis = annotation_risk(annotations, server.trust_annotations)
    schema = {**input_schema, "type": "object"}  # providers take object schemas only

    def run(arguments: Mapping[str, Any], context: RunContext) -> ToolOutput:
        pins.approve(server.name, name, current)  # it runs: a call of it was approved
        result = caller(server.name, name, arguments, context)
        return ToolOutput(truncate(result.text, context.output_limit), result.is_error,
                          result.images)

    aliases = (full_name(server.name, name),) if full_name(server.name, name) != wire else ()
    return Tool(
        name=wire, aliases=aliases, description=description or f"{name} (MCP server {server.name})",
        schema=schema, run=run, risk=lambda arguments, workspace: risk,
        about=(("server", f"{server.name} ({server.transport}: {_short(str(server))})"),
               ("tool", name if wire.endswith(name) else f"{name} (as {wire})"),
               ("description", _short(description or "(none)", 300)),
               ("risk from", basis)),
        definition_change=lambda: pins.change(server.name, name, current))


def _short(text: str, width: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[:width - 1] + "…"
