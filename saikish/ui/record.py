"""The compact record of a decision that stays in the scrollback once the box is gone.

What ran (the whole command, wrapped at spaces; a very long one ends in "…"
with its length), the decision with who made it, and for writes a diff stat.
"""

from __future__ import annotations

import json

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from saikish.inert import inert
from saikish.types import ToolCall
from saikish.ui.preview import show_padding
from saikish.view import Arguments, ChangeKind, Command, FileChange, View

INDENT = "  "


class DecisionRecord:
    """'● bash · approved by you, once' and below it what the call does, at most `max_lines`."""

    def __init__(self, call: ToolCall, verdict: str, style: str, view: View | None = None,
                 max_lines: int = 6) -> None:
        self.call, self.verdict, self.style = call, verdict, style
        self.view = view or Arguments(call.wire_arguments, call.raw_arguments)
        self.max_lines = max_lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        detail = call_detail(self.view)
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


def call_detail(view: View) -> str:
    """What the call does in one string: the command, 'path  +12 −3', or the arguments."""
    if isinstance(view, Command):
        return inert(show_padding(view.command))
    if isinstance(view, FileChange):
        if not view.path:
            return ""
        stat = view.stat()
        new = "  (new file)" if view.kind is ChangeKind.NEW else ""
        return inert(view.path) + (f"  {stat}" if stat else "") + new
    if view.raw is not None:
        return inert(view.raw)
    return inert(json.dumps(view.arguments, ensure_ascii=False)) if view.arguments else ""


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
