"""Rules that name no saikish tool, and what a Claude Code user meant by them.

A rule such as `Edit` or `Read` parses (it is a tool-name glob) but matches
nothing, so it silently does nothing; `Write(src/**)` does not parse at all.
Both are what a person used to Claude Code writes. This module turns them
into one line saying so, with the saikish spelling. Pure: returns text.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping

from saikish.claude_names import CLAUDE_ONLY_TOOLS
from saikish.rules import Rule
from saikish.tools.base import Tool

# Claude Code tool name -> (saikish tool, its path argument, the family to name in the hint).
CLAUDE_CODE_TOOLS: dict[str, tuple[str, str, str]] = {
    "Read": ("read_file", "path", "saikish's read tools are read_file/list_files/grep"),
    "Write": ("write_file", "path", "saikish's file tools are write_file/edit_file"),
    "Edit": ("edit_file", "path", "saikish's file tools are write_file/edit_file"),
    "MultiEdit": ("edit_file", "path", "saikish's file tools are write_file/edit_file"),
    "NotebookEdit": ("edit_file", "path", "saikish's file tools are write_file/edit_file"),
    "Glob": ("list_files", "path", "saikish's read tools are read_file/list_files/grep"),
    "LS": ("list_files", "path", "saikish's read tools are read_file/list_files/grep"),
    "Grep": ("grep", "path", "saikish's read tools are read_file/list_files/grep"),
}
# Argument names other tools give a path (Claude Code's file_path, notebook_path...).
_PATH_LIKE = re.compile(r"path|file|dir|folder", re.IGNORECASE)
_CALL_FORM = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\((.*)\)", re.DOTALL)


def unknown_tool_warnings(rules: Iterable[Rule], tool_names: Iterable[str]) -> list[str]:
    """One line per rule whose tool pattern matches none of `tool_names`."""
    names = list(tool_names)
    lines = []
    for rule in rules:
        # MCP tools appear when their server starts; a rule for one cannot be checked here.
        if (rule.tool.startswith("mcp__") and rule.tools is None) or any(
                rule.names_tool(n) for n in names):
            continue
        where = f"{rule.origin}: " if rule.origin else ""
        arguments = ", ".join(f"{k}={v}" for k, v in rule.when) or None
        hint = _hint(rule.tool, arguments) or \
            f"; the tools are {', '.join(sorted(names))} (Bash(...) for commands)"
        lines.append(f"{where}rule '{rule.text}' names no saikish tool, so it matches "
                     f"nothing{hint}")
    return lines


def claude_code_hint(text: str) -> str:
    """For a rule that did not parse, '; saikish's ... use write_file(path=src/**)' or ''."""
    match = _CALL_FORM.fullmatch(text.strip())
    if match is None:
        return _hint(text.strip(), None)
    inner = match.group(2).strip()
    if inner and "=" not in inner:  # Claude Code's Write(src/**): a path glob
        inner = f"{CLAUDE_CODE_TOOLS.get(match.group(1), ('', 'path', ''))[1]}={inner}"
    return _hint(match.group(1), inner or None)


def _hint(tool: str, arguments: str | None) -> str:
    known = CLAUDE_CODE_TOOLS.get(tool)
    if known is None:
        return f"; {tool} is a Claude Code tool with no saikish equivalent" \
            if tool in CLAUDE_ONLY_TOOLS else ""
    name, _, family = known
    return f"; {family}: use {name}({arguments})" if arguments else f"; {family}: use {name}"


def argument_problem(rule: Rule, tools: Mapping[str, Tool]) -> str | None:
    """Why `rule` can never match, when it names an argument its tool does not have.

    Only rules for one of `tools` by its exact name are judged: a glob, an MCP tool or a
    function tool added later may have arguments nobody can list here.
    """
    tool = tools.get(rule.tool)
    if tool is None or not rule.when:
        return None
    known = list(tool.schema.get("properties", {}))
    for key, _ in rule.when:
        if key not in known:
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.4) or \
                (["path"] if "path" in known and _PATH_LIKE.search(key) else [])
            hint = f"; did you mean {close[0]}?" if close else ""
            return (f"rule '{rule.text}' names argument '{key}', which {rule.tool} does not "
                    f"have, so it can never match{hint} ({rule.tool} takes "
                    f"{', '.join(known)})")
    return None


def never_matches(rule: Rule) -> str | None:
    """`argument_problem` against the built-in tools (loaded only for a rule with arguments)."""
    if not rule.when:
        return None
    from saikish.tools import builtin_tools

    return argument_problem(rule, builtin_tools())
