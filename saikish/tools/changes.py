"""What the file tools (and bash's here-documents) will change, worked out by the tools'
own code: a FileChange per file (docs/SPEC.md §3, §5.1). Files are read bounded and only
when regular: drawing a box never reads a FIFO or /dev/zero."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from saikish.store.readfile import not_regular, read_regular
from saikish.tools.base import FileAccess, ToolOutput
from saikish.types import ToolCall
from saikish.view import ChangeKind, FileChange


def apply_edit(text: str, args: Mapping[str, Any]) -> str | ToolOutput:
    """`text` with the edit applied, or an error for the model."""
    old, new = args.get("old_string"), args.get("new_string")
    if not isinstance(old, str) or not isinstance(new, str):  # previews see invalid calls too
        return ToolOutput("old_string and new_string must both be strings", True)
    count = text.count(old) if old else 0
    if count == 0:
        return ToolOutput("old_string was not found in the file; read it again first", True)
    if count > 1 and not args.get("replace_all"):
        return ToolOutput(f"old_string occurs {count} times; add context to make it unique "
                          f"or set replace_all", True)
    return text.replace(old, new) if args.get("replace_all") else text.replace(old, new, 1)


def read_text(path: Path, files: FileAccess | None = None) -> str | None:
    """The file's text (as the editor has it, when `files` are its buffers), or None when
    it does not exist, is not UTF-8 text, is not a regular file or is too large to show."""
    try:
        return files.read_text(path) if files is not None else \
            read_regular(path).decode("utf-8")
    except (OSError, ValueError):
        return None


def write_change(path: str, content: str, workspace: str, append: bool = False,
                 files: FileAccess | None = None) -> FileChange:
    """`path` written whole with `content` (or `content` appended to it)."""
    target = Path(workspace, os.path.expanduser(path))
    special = not_regular(target)
    if special:
        return FileChange(path, ChangeKind.SPECIAL, None, None, note=special,
                          target=str(target))
    old = read_text(target, files)
    if append:
        return FileChange(path, ChangeKind.APPEND, old or "", (old or "") + content,
                          target=str(target))
    return FileChange(path, ChangeKind.NEW if old is None else ChangeKind.OVERWRITE, old,
                      content, target=str(target))


def edit_change(args: Mapping[str, Any], workspace: str,
                files: FileAccess | None = None) -> FileChange:
    """edit_file's arguments applied to the file as it is now."""
    path = str(args.get("path", ""))
    target = Path(workspace, os.path.expanduser(path))
    old = read_text(target, files)
    new = apply_edit(old, args) if old is not None else None
    if isinstance(new, str):
        return FileChange(path, ChangeKind.EDIT, old, new, target=str(target))
    requested = f"- {args.get('old_string', '')}\n+ {args.get('new_string', '')}"
    return FileChange(path, ChangeKind.FAILS, old, None, requested=requested,
                      target=str(target))


def write_view(call: ToolCall, workspace: str, files: FileAccess | None) -> FileChange:
    """write_file's view."""
    return write_change(str(call.arguments.get("path", "")),
                        str(call.arguments.get("content", "")), workspace, files=files)


def edit_view(call: ToolCall, workspace: str, files: FileAccess | None) -> FileChange:
    """edit_file's view."""
    return edit_change(call.arguments, workspace, files)
