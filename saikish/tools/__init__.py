"""The built-in tools and their registry."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from saikish.tools.base import RunContext, Tool, ToolOutput
from saikish.tools.bash import BASH_TOOL
from saikish.tools.files import FILE_TOOLS

__all__ = ["RunContext", "Tool", "ToolOutput", "builtin_tools"]


# How each built-in tool shows itself (see Tool.summary): one row per tool.
_SHOWN_AS: dict[str, dict[str, Any]] = {
    "bash": {"editable_argument": "command", "summary_argument": "command",
             "kind": "execute"},
    "read_file": {"summary_argument": "path", "path_arguments": ("path",), "kind": "read"},
    "list_files": {"summary_argument": "path", "path_arguments": ("path",), "kind": "search"},
    "grep": {"summary_argument": "pattern", "path_arguments": ("path",), "kind": "search"},
    "write_file": {"editable_argument": "content", "summary_argument": "path",
                   "path_arguments": ("path",), "writes_argument": "path", "kind": "edit"},
    "edit_file": {"editable_argument": "new_string", "summary_argument": "path",
                  "path_arguments": ("path",), "writes_argument": "path", "kind": "edit"},
}


def builtin_tools() -> dict[str, Tool]:
    """Every built-in tool by wire name."""
    return {tool.name: replace(tool, **_SHOWN_AS.get(tool.name, {}))
            for tool in (BASH_TOOL, *FILE_TOOLS)}
