"""The compact record of a decision that stays in the scrollback once the box is gone.

What ran (the whole command, wrapped at spaces; a very long one ends in "…"
with its length), the decision with who made it, and for writes a diff stat.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from saikish.inert import inert
from saikish.types import ToolCall
from saikish.ui.preview import diff_stat, read_text, show_padding

INDENT = "  "


class DecisionRecord:
    """'● bash · approved by you, once' and below it what the call does, at most `max_lines`."""

    def __init__(self, call: ToolCall, verdict: str, style: str, workspace: str,
                 max_lines: int = 6) -> None:
        self.call, self.verdict, self.style = call, verdict, style
        self.workspace, self.max_lines = workspace, max_lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        detail = call_detail(self.call, self.workspace)
        dot = Text("● ", style=self.style)
        name = Text(inert(self.call.name), style="bold")
        verdict = Text(f" · {self.verdict}", style="dim")
        one_line = Text.assemble(dot, name, " ", detail, verdict) if detail else \
            Text.assemble(dot, name, verdict)
        if "\n" not in detail and one_line.cell_len <= options.max_width:
            yield one_line
            return
        width = max(10, options.max_width - len(INDENT))
        # A long verdict (several rules) wraps under itself, not under the dot.
        for number, line in enumerate(Text.assemble(dot, name, verdict).wrap(console, width)):
            yield Text.assemble(INDENT, line) if number else line
        for text in clip_lines(detail, width, self.max_lines, console):
            yield Text(INDENT + text)


def call_detail(call: ToolCall, workspace: str) -> str:
    """What the call does in one string: the command, 'path  +12 −3', or the arguments."""
    args = call.arguments
    if call.name == "bash":
        return inert(show_padding(str(args.get("command", ""))))
    path = str(args.get("path", ""))
    if call.name in ("write_file", "edit_file") and path:
        return inert(path) + _write_stat(call, workspace)
    if call.raw_arguments is not None:
        return inert(call.raw_arguments)
    return inert(json.dumps(call.wire_arguments, ensure_ascii=False)) if args else ""


def _write_stat(call: ToolCall, workspace: str) -> str:
    from saikish.tools.files import apply_edit

    old = read_text(Path(workspace, os.path.expanduser(str(call.arguments.get("path", "")))))
    if call.name == "write_file":
        new = str(call.arguments.get("content", ""))
        return f"  {diff_stat(old or '', new)}" + ("  (new file)" if old is None else "")
    edited = apply_edit(old, call.arguments) if old is not None else None
    return f"  {diff_stat(old or '', edited)}" if isinstance(edited, str) else ""


def clip_lines(text: str, width: int, max_lines: int, console: Console) -> list[str]:
    """`text` wrapped at spaces to `width`; past `max_lines`, ended with '… (N characters)'."""
    lines = [str(line) for line in Text(text).wrap(console, width, overflow="fold")]
    if len(lines) <= max_lines:
        return lines
    kept = lines[:max_lines]
    suffix = f" … ({len(text):,} characters)"
    last = kept[-1]
    while last and len(last) + len(suffix) > width:
        cut = last.rstrip().rfind(" ")
        last = last[:cut] if cut > 0 else last[:max(0, width - len(suffix))]
    kept[-1] = last.rstrip() + suffix
    return kept
