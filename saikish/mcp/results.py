"""A tool's result as text for the model (docs/SPEC.md §7.1, Results).

Text content goes through as it is; an image of a type the providers take goes
with the result as an Image (the text names it: "[image 1: image/png, 70 B, attached]")
and the model adapters that can send images send it; other images, audio and resources
become a short note; a result with no content but structuredContent is given as compact JSON.
Works on the wire form (camelCase JSON), so it needs no SDK.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from saikish.mcp.values import CallResult
from saikish.types import Image

# What the providers that take images accept (Anthropic's list; OpenAI's is the same).
IMAGE_TYPES = ("image/png", "image/jpeg", "image/gif", "image/webp")
MAX_IMAGE_BYTES = 5 * 1024 * 1024  # Anthropic's limit for one image
MAX_IMAGES = 20


def result_from_wire(result: Mapping[str, Any]) -> CallResult:
    """A CallToolResult (as camelCase JSON) as text for the model, and its images."""
    blocks = result.get("content") or []
    images: list[Image] = []
    text = "\n".join(block_text(block, images) for block in blocks)
    structured = result.get("structuredContent")
    if not blocks and structured is not None:
        text = json.dumps(structured, separators=(",", ":"), ensure_ascii=False)
    return CallResult(text, is_error=bool(result.get("isError")), images=tuple(images))


def block_text(block: Mapping[str, Any], images: list[Image] | None = None) -> str:
    """One content block: text as it is, anything else as a short note. An image the
    providers take is added to `images` (the note names it); others are only described."""
    kind = block.get("type")
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "image" and images is not None:
        image = _image(block)
        if image is not None and len(images) < MAX_IMAGES:
            images.append(image)
            size = _size(_decoded_length(image.data))
            return f"[image {len(images)}: {image.mime}, {size}, attached]"
    if kind in ("image", "audio"):
        size = _size(_decoded_length(str(block.get("data", ""))))
        return f"[{kind}: {block.get('mimeType', 'unknown type')}, {size}, not shown]"
    if kind == "resource_link":
        return _resource_note(block)
    if kind == "resource":
        return _embedded_text(block.get("resource") or {})
    return f"[{kind} content, not shown]"


def _image(block: Mapping[str, Any]) -> Image | None:
    """The block as an Image when a provider would take it: a known type, valid base64,
    not too large."""
    mime, data = block.get("mimeType"), block.get("data")
    if mime not in IMAGE_TYPES or not isinstance(data, str):
        return None
    try:
        decoded = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    return Image(str(mime), data) if 0 < len(decoded) <= MAX_IMAGE_BYTES else None


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
