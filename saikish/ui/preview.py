"""The approval box's content as rich renderables (SPEC 5.1). Pure: returns, never prints."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from saikish.approval import ApprovalRequest
from saikish.tools.files import apply_edit
from saikish.types import CommandCheck, Level, Risk, ToolCall
from saikish.ui.inert import inert

MAX_LINES = 40
LEVEL_STYLE = {Level.LOW: "green", Level.MEDIUM: "yellow", Level.HIGH: "red",
               Level.CRITICAL: "bold red"}


def risk_label(risk: Risk) -> Text:
    """'WRITE', coloured by level."""
    return Text(risk.name.replace("_", "-"), style=LEVEL_STYLE[risk.level])


def approval_panel(request: ApprovalRequest, seconds_left: int | None) -> Panel:
    """The whole box: what will run, why we ask, the rest of the batch, the countdown."""
    call, assessment = request.call, request.assessment
    parts: list[RenderableType] = [call_body(call, request.workspace)]
    if assessment.commands:
        parts.append(command_table(assessment.commands))
    parts.append(Text(f"why: {inert(assessment.reason)}", style="dim"))
    if assessment.proposed_rules:
        parts.append(Text("always would allow: " + inert(", ".join(assessment.proposed_rules)),
                          style="dim"))
    else:
        parts.append(Text("always: not offered (no rule can cover this call)", style="dim"))
    if request.outside_sandbox:
        parts.append(Text("runs outside the sandbox", style="yellow"))
    rest = batch_line(request)
    if rest:
        parts.append(Text(rest, style="dim"))
    title = Text.assemble((f" {inert(call.name)} ", "bold"), "· ", risk_label(assessment.risk),
                          " ")
    subtitle = Text(f" auto-deny in {seconds_left}s ", style="bold") \
        if seconds_left is not None else None
    return Panel(Group(*parts), title=title, title_align="left", subtitle=subtitle,
                 subtitle_align="right", border_style=LEVEL_STYLE[assessment.risk.level])


def call_body(call: ToolCall, workspace: str) -> RenderableType:
    """What the call will do, by tool: command, diff, content or arguments."""
    args = call.arguments
    if call.name == "bash":
        return _syntax(str(args.get("command", "")), "bash")
    if call.name == "write_file":
        return _write_preview(str(args.get("path", "")), str(args.get("content", "")), workspace)
    if call.name == "edit_file":
        return _edit_preview(args, workspace)
    return _syntax(json.dumps(call.wire_arguments, indent=2, ensure_ascii=False), "json")


def command_table(commands: tuple[CommandCheck, ...]) -> Table:
    """Each simple command with its risk and what already permits it."""
    table = Table.grid(padding=(0, 1))
    for check in commands:
        text = f"> {check.argv[1]}" if check.is_redirect else check.text
        if check.allowed_by:
            status = Text(f"✓ {inert(check.allowed_by)}", style="green")
        elif check.auto:
            status = Text("✓ autonomy", style="green")
        else:
            caveat = f": {inert(check.caveat)}" if check.caveat else ""
            status = Text(f"needs approval{caveat}", style="yellow")
        table.add_row(risk_label(check.risk), Text(inert(_short(text, 70))), status)
    return table


def batch_line(request: ApprovalRequest) -> str:
    """'call 2 of 3 · next: bash: npm test' (empty for a batch of one)."""
    total = len(request.batch)
    if total <= 1:
        return ""
    line = f"call {request.index + 1} of {total}"
    upcoming = request.batch[request.index + 1:]
    if upcoming:
        names = ", ".join(_summary(c) for c in upcoming[:3])
        more = f" (+{len(upcoming) - 3} more)" if len(upcoming) > 3 else ""
        line += f" · next: {names}{more}"
    return inert(line)


def _summary(call: ToolCall) -> str:
    detail = call.arguments.get("command") or call.arguments.get("path") or ""
    return _short(f"{call.name}: {detail}" if detail else call.name, 50)


def _short(text: str, width: int) -> str:
    text = text.replace("\n", " ⏎ ")
    return text if len(text) <= width else text[:width - 1] + "…"


def _write_preview(path: str, content: str, workspace: str) -> RenderableType:
    target = Path(workspace, os.path.expanduser(path))
    old = _read(target)
    if old is None:
        header = Text.assemble(("new file ", "bold green"), inert(path))
        lexer = Syntax.guess_lexer(str(target), code=content[:2000])
        return Group(header, _syntax(content, lexer))
    header = Text.assemble(("overwrite ", "bold yellow"), inert(path))
    return Group(header, _diff(old, content, path))


def _edit_preview(args: Mapping[str, Any], workspace: str) -> RenderableType:
    path = str(args.get("path", ""))
    old = _read(Path(workspace, os.path.expanduser(path)))
    header = Text.assemble(("edit ", "bold yellow"), inert(path))
    new = apply_edit(old, args) if old is not None else None
    if not isinstance(new, str) or old is None:
        return Group(header, Text("(the edit does not apply to the current file; it will fail)",
                                  style="red"),
                     _syntax(f"- {args.get('old_string', '')}\n+ {args.get('new_string', '')}",
                             "diff"))
    return Group(header, _diff(old, new, path))


def _diff(old: str, new: str, path: str) -> RenderableType:
    lines = list(difflib.unified_diff(old.splitlines(), new.splitlines(), f"a/{path}",
                                      f"b/{path}", lineterm=""))
    return _syntax("\n".join(lines) if lines else "(no changes)", "diff")


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _syntax(code: str, lexer: str) -> RenderableType:
    """Highlighted, inert, and cut to MAX_LINES with a note saying how much was cut."""
    lines = inert(code).splitlines() or [""]
    shown = "\n".join(lines[:MAX_LINES])
    syntax = Syntax(shown, lexer, word_wrap=True, background_color="default", theme="ansi_dark")
    if len(lines) <= MAX_LINES:
        return syntax
    return Group(syntax, Text(f"… {len(lines) - MAX_LINES} more lines not shown "
                              f"(e to open it all in the editor)", style="dim italic"))
