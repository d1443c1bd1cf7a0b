"""The approval box fitted to the terminal (docs/SPEC.md §5.1): the reasons stay, the body scrolls.

At any size the header, the per-part risk lines, `why:`, "always would allow"
and the countdown stay on screen; a body taller than the room left scrolls
inside the box, with one line saying where you are. Only on a terminal too
small for the reasons themselves do the risk lines scroll with the body.
"""

from __future__ import annotations

import io

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.segment import Segment, SegmentLines
from rich.text import Text

from saikish.ui.preview import BoxParts
from saikish.ui.prompt import Drawn, Frame, ansi_console

# Panel border and padding take two columns on each side.
CHROME_WIDTH = 4
# Fewer body rows than this and the risk lines give up their place to the body.
MIN_BODY_ROWS = 3

Lines = list[list[Segment]]


class FittedBox:
    """Draws one BoxParts at any frame size; rendered parts are kept per width."""

    def __init__(self, parts: BoxParts) -> None:
        self.parts = parts
        self._cache: dict[tuple[str, int], Lines] = {}

    def draw(self, frame: Frame) -> Drawn:
        """The box for `frame`: as tall as it needs, never taller than `frame.height`."""
        inner = max(10, frame.width - CHROME_WIDTH)
        body = self._lines("body", self.parts.body, inner)
        details = self._lines("details", self.parts.details, inner)
        footer = self._lines("footer", Group(*self.parts.footer), inner)
        summary = self._lines("summary", self.parts.details_summary, inner)
        room = max(1, frame.height - 2)  # the top and bottom borders
        if len(body) + len(details) + len(footer) <= room:
            return Drawn(self._panel(frame, [body, details, footer]))
        scrolled, fixed, rows = _split(body, details, summary, footer, room)
        max_scroll = max(0, len(scrolled) - rows)
        scroll = min(max(0, frame.scroll), max_scroll)
        window = scrolled[scroll:scroll + rows]
        where = Text(f"lines {scroll + 1}–{scroll + len(window)} of {len(scrolled)} · "
                     f"PgUp PgDn scroll · v view all", style="dim", no_wrap=True,
                     overflow="ellipsis")
        where_lines = self._render(where, inner)
        return Drawn(self._panel(frame, [window, where_lines, *fixed]), scroll, max_scroll,
                     page=max(1, rows - 1))

    def _panel(self, frame: Frame, blocks: list[Lines]) -> Panel:
        subtitle = Text(f" {frame.countdown} ", style="bold") if frame.countdown else None
        content = Group(*(SegmentLines(block, new_lines=True) for block in blocks if block))
        return Panel(content, title=self.parts.title, title_align="left", subtitle=subtitle,
                     subtitle_align="right", border_style=self.parts.border_style,
                     width=frame.width)

    def _lines(self, key: str, renderable: RenderableType | None,
               width: int) -> Lines:
        if renderable is None:
            return []
        cached = self._cache.get((key, width))
        if cached is None:
            cached = self._cache[(key, width)] = self._render(renderable, width)
        return cached

    @staticmethod
    def _render(renderable: RenderableType, width: int) -> Lines:
        console = ansi_console(width, io.StringIO())
        # Trailing blank lines (Syntax adds one) would waste a row of a small terminal.
        lines = console.render_lines(renderable, console.options.update_width(width))
        while lines and not "".join(s.text for s in lines[-1]).strip():
            lines.pop()
        return lines


def _split(body: Lines, details: Lines, summary: Lines, footer: Lines,
           room: int) -> tuple[Lines, list[Lines], int]:
    """What scrolls, what stays fixed below it, and how many rows the scrolling part gets.

    When the risk lines must scroll with the body, `summary` (one line counting them)
    stays in their place.
    """
    rows = room - len(details) - len(footer) - 1  # one row says where the scroll is
    if rows >= min(MIN_BODY_ROWS, len(body)):
        return body, [details, footer], rows
    footer = summary + footer
    rows = room - len(footer) - 1
    if rows >= 1:  # the risk lines scroll with the body; why: still names each part
        return body + details, [footer], rows
    return body + details + footer, [], max(1, room - 1)  # a terminal smaller than the reasons
