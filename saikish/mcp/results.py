"""A tool's result as text for the model (docs/SPEC.md §7.1, Results).

Text content goes through as it is; images, audio and resources become a short
note; a result with no content but structuredContent is given as compact JSON.
Works on the wire form (camelCase JSON), so it needs no SDK.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from saikish.mcp.values import CallResult


def result_from_wire(result: Mapping[str, Any]) -> CallResult:
    """A CallToolResult (as camelCase JSON) as text for the model."""
    blocks = result.get("content") or []
    text = "\n".join(block_text(block) for block in blocks)
    structured = result.get("structuredContent")
    if not blocks and structured is not None:
        text = json.dumps(structured, separators=(",", ":"), ensure_ascii=False)
    return CallResult(text, is_error=bool(result.get("isError")))


def block_text(block: Mapping[str, Any]) -> str:
    """One content block: text as it is, anything else as a short note."""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind in ("image", "audio"):
        size = _size(_decoded_length(str(block.get("data", ""))))
        return f"[{kind}: {block.get('mimeType', 'unknown type')}, {size}, not shown]"
    if kind == "resource_link":
        return _resource_note(block)
    if kind == "resource":
        return _embedded_text(block.get("resource") or {})
    return f"[{kind} content, not shown]"


def _embedded_text(resource: Mapping[str, Any]) -> str:
    """An embedded resource: its note, then its text when it is text."""
    note = _resource_note(resource)
    if "text" in resource:
        return f"{note}\n{resource['text']}"
    size = _size(_decoded_length(str(resource.get("blob", ""))))
    return f"{note[:-1]}, {size}, not shown]"


def _resource_note(resource: Mapping[str, Any]) -> str:
    """'[resource: file:///x.txt (text/plain)]'."""
    mime = resource.get("mimeType")
    return f"[resource: {resource.get('uri', '?')}" + (f" ({mime})]" if mime else "]")


def _decoded_length(data: str) -> int:
    """How many bytes base64 data stands for."""
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data) * 3 // 4


def _size(count: int) -> str:
    """'812 B', '12.3 KB', '4.1 MB'."""
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KB"
    return f"{count / (1024 * 1024):.1f} MB"
