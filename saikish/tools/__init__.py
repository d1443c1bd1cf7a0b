"""The built-in tools and their registry."""

from __future__ import annotations

from saikish.tools.base import RunContext, Tool, ToolOutput
from saikish.tools.bash import BASH_TOOL
from saikish.tools.files import FILE_TOOLS

__all__ = ["RunContext", "Tool", "ToolOutput", "builtin_tools"]


def builtin_tools() -> dict[str, Tool]:
    """Every built-in tool by wire name."""
    return {tool.name: tool for tool in (BASH_TOOL, *FILE_TOOLS)}
