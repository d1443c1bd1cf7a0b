"""The approval box's content as rich renderables (docs/SPEC.md §5.1). Pure: returns, never prints.

The box has parts with different jobs: the body (what will run) may be long
and scrolls; the per-part risk lines, `why:` and "always would allow" are the
reason for asking and stay in view (ui/box.py fits them to the terminal).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from saikish.inert import inert
from saikish.rules import rule_texts
from saikish.runtime.approval import ApprovalRequest
from saikish.types import CommandCheck
from saikish.ui.parts import LEVEL_STYLE, CommandTable, risk_label
from saikish.view import ChangeKind, Command, FileChange, View

# Lines of a body shown in the box; the pager (v) shows all of them.
MAX_LINES = 2000
# A run of blanks this long in a command is shown as a count: padding must not push
# the tail of a command out of sight (`echo hi<200 spaces>; rm -rf ~`).
_PADDING = re.compile(r"[ \t]{16,}")


@dataclass(frozen=True)
class BoxParts:
    """The approval box cut by job: title, scrolling body, the reasons, the footer."""

    title: Text
    body: RenderableType
    details: RenderableType | None
    footer: tuple[RenderableType, ...]
    border_style: str
    # One line standing in for the risk lines when they must scroll with the body.
    details_summary: Text | None = None


def approval_parts(request: ApprovalRequest, max_lines: int | None = MAX_LINES) -> BoxParts:
    """The box's parts: what will run, why we ask, what "always" adds, the rest of the batch."""
    call, assessment = request.call, request.assessment
    footer: list[RenderableType] = [Text(f"why: {inert(assessment.reason)}", style="dim")]
    if assessment.proposed_rules:
        note = f" · {inert(request.always_note)}" if request.always_note else ""
        footer.append(Text("always would allow: " + inert(rule_texts(assessment.proposed_rules))
                           + note, style="dim"))
    else:
        footer.append(Text("always: not offered (no rule can cover this call)", style="dim"))
    if request.outside_sandbox:
        footer.append(Text("runs outside the sandbox", style="yellow"))
    rest = batch_line(request)
    if rest:
        footer.append(Text(rest, style="dim"))
    title = Text.assemble((f" {inert(call.name)} ", "bold"), "· ", risk_label(assessment.risk),
                          " ")
    commands = assessment.commands
    body = call_body(request.view, max_lines)
    if request.tool is not None and request.tool.about:
        body = Group(about_table(request.tool.about), body)
    return BoxParts(title, body,
                    CommandTable(commands) if commands else None, tuple(footer),
                    LEVEL_STYLE[assessment.risk.level],
                    parts_summary(commands) if commands else None)


def about_table(about: tuple[tuple[str, str], ...]) -> Table:
    """What a tool says about itself (an MCP tool: server, description, risk basis)."""
    table = Table.grid(padding=(0, 1))
    table.add_column(style="dim", no_wrap=True)
    table.add_column(overflow="fold")
    for label, value in about:
        table.add_row(f"{label}:", Text(inert(value)))
    return table


def parts_summary(commands: tuple[CommandCheck, ...]) -> Text:
    """'30 parts: 30 need approval (WRITE), 0 permitted', for a box too small for each line."""
    asked = [c for c in commands if not c.permitted]
    risks = sorted({c.risk for c in asked}, key=lambda r: -r.rank)
    text = Text(f"{len(commands)} parts: {len(asked)} need approval")
    if risks:
        text.append(" (")
        for n, risk in enumerate(risks):
            text.append(", " if n else "")
            text.append_text(risk_label(risk))
        text.append(")")
    text.append(f", {len(commands) - len(asked)} permitted")
    return text


def approval_panel(request: ApprovalRequest, seconds_left: int | None) -> Panel:
    """The whole box unclipped (the pager's view, and tests'): every part, the countdown."""
    parts = approval_parts(request, max_lines=None)
    subtitle = countdown_text(seconds_left)
    return Panel(Group(parts.body, *([parts.details] if parts.details else []), *parts.footer),
                 title=parts.title, title_align="left", border_style=parts.border_style,
                 subtitle=Text(f" {subtitle} ", style="bold") if subtitle else None,
                 subtitle_align="right")


def countdown_text(seconds_left: int | None) -> str | None:
    """'auto-deny in 27s', or None when the prompt waits forever."""
    return f"auto-deny in {seconds_left}s" if seconds_left is not None else None


def call_body(view: View, max_lines: int | None = MAX_LINES) -> RenderableType:
    """What the call will do, as its tool shows it: command, file change or arguments."""
    if isinstance(view, Command):
        shown = _syntax(show_padding(view.command), "bash", max_lines)
        files = [change_body(change, max_lines) for change in view.writes]
        return Group(shown, *files) if files else shown
    if isinstance(view, FileChange):
        return change_body(view, max_lines)
    return _syntax(json.dumps(view.arguments, indent=2, ensure_ascii=False), "json",
                   max_lines)


def show_padding(command: str) -> str:
    """`command` with long runs of blanks replaced by '⟨N spaces⟩' so its tail stays in view."""
    return _PADDING.sub(lambda m: f"⟨{len(m.group())} blanks⟩", command)


def batch_line(request: ApprovalRequest) -> str:
    """'call 2 of 3 · next: bash: npm test' (empty for a batch of one)."""
    total = len(request.batch)
    if total <= 1:
        return ""
    line = f"call {request.index + 1} of {total}"
    upcoming = range(request.index + 1, total)
    if upcoming:
        names = ", ".join(_summary(request, i) for i in upcoming[:3])
        more = f" (+{len(upcoming) - 3} more)" if len(upcoming) > 3 else ""
        line += f" · next: {names}{more}"
    return inert(line)


def _summary(request: ApprovalRequest, index: int) -> str:
    name, detail = request.batch[index].name, request.detail(index)
    return _short(f"{name}: {detail}" if detail else name, 50)


def _short(text: str, width: int) -> str:
    text = show_padding(text.replace("\n", " ⏎ "))
    return text if len(text) <= width else text[:width - 1] + "…"


_VERB = {ChangeKind.NEW: ("new file ", "bold green"), ChangeKind.OVERWRITE: (
    "overwrite ", "bold yellow"), ChangeKind.APPEND: ("append to ", "bold yellow"),
    ChangeKind.EDIT: ("edit ", "bold yellow"), ChangeKind.FAILS: ("edit ", "bold yellow"),
    ChangeKind.SPECIAL: ("write ", "bold yellow")}


def change_body(change: FileChange, max_lines: int | None) -> RenderableType:
    """One file change: what it does to the file, the lines it adds and removes, the diff
    (a new file: its content; a change that will fail: why)."""
    verb = _VERB[change.kind]
    if change.kind is ChangeKind.SPECIAL:
        return Text.assemble(verb, inert(change.path), (
            f"  it is {change.note}, not a regular file: the write will fail", "red"))
    if change.new is None:
        return Group(Text.assemble(verb, inert(change.path)),
                     Text("(the edit does not apply to the current file; it will fail)",
                          style="red"),
                     _syntax(change.requested, "diff", max_lines))
    header = Text.assemble(verb, inert(change.path), (f"  {change.stat()}", "dim"))
    if change.kind is ChangeKind.NEW:
        lexer = Syntax.guess_lexer(change.path, code=change.new[:2000])
        return Group(header, _syntax(change.new, lexer, max_lines))
    lines = change.diff_lines()
    return Group(header, _syntax("\n".join(lines) if lines else "(no changes)", "diff",
                                 max_lines))


def _syntax(code: str, lexer: str, max_lines: int | None) -> RenderableType:
    """Highlighted and inert; past `max_lines`, cut with a note saying how much (v shows it)."""
    lines = inert(code).splitlines() or [""]
    limit = len(lines) if max_lines is None else max_lines
    shown = "\n".join(lines[:limit])
    syntax = Syntax(shown, lexer, word_wrap=True, background_color="default", theme="ansi_dark")
    if len(lines) <= limit:
        return syntax
    return Group(syntax, Text(f"… {len(lines) - limit} more lines not shown here "
                              f"(v opens all of it in the pager)", style="dim italic"))
