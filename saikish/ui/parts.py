"""Light pieces of terminal output shared by the box, the transcript and `saikish check`.

Kept apart from ui/preview.py (syntax highlighting pulls in pygments) so that
`saikish check` prints its answer without paying for what it does not show.
"""

from __future__ import annotations

from typing import TextIO

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from saikish.inert import inert
from saikish.types import CommandCheck, Level, Risk

LOG_WIDTH = 1000
LEVEL_STYLE = {Level.LOW: "green", Level.MEDIUM: "yellow", Level.HIGH: "red",
               Level.CRITICAL: "bold red"}

def risk_label(risk: Risk) -> Text:
    """'WRITE', coloured by level."""
    return Text(risk.name.replace("_", "-"), style=LEVEL_STYLE[risk.level])


class CommandTable:
    """Each simple command with its risk and what already permits it, one line each."""

    def __init__(self, commands: tuple[CommandCheck, ...]) -> None:
        self.commands = commands

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # The command is shown whole in the body above; here it is cut to keep one line
        # per part, so the reason (the status column) keeps its room.
        table = Table.grid(padding=(0, 1))
        table.add_column(no_wrap=True)
        table.add_column(no_wrap=True, overflow="ellipsis",
                         max_width=max(12, options.max_width * 2 // 5))
        table.add_column(overflow="fold")
        for check in self.commands:
            # A file part says what it does to the file: "> f", "writes f", "reads f".
            table.add_row(risk_label(check.risk), Text(inert(check.text.replace("\n", " ⏎ "))),
                          _status(check))
        yield table


def _status(check: CommandCheck) -> Text:
    if check.allowed_by:
        return Text(f"✓ {inert(check.allowed_by)}", style="green")
    if check.auto:
        return Text("✓ autonomy", style="green")
    caveat = f": {inert(check.caveat)}" if check.caveat else ""
    return Text(f"needs approval{caveat}", style="yellow")


def stream_console(file: TextIO) -> Console:
    """A Console for `file`; off a terminal it never hard-wraps (logs keep whole lines)."""
    try:
        terminal = bool(file.isatty())
    except (AttributeError, ValueError):
        terminal = False
    if terminal:
        return Console(file=file, highlight=False)
    # Tables size to their content, not to this width; text is never wrapped at all.
    return Console(file=file, highlight=False, soft_wrap=True, width=LOG_WIDTH)
