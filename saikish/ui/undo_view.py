"""How checkpoints and undo look (docs/SPEC.md §4.10): the list, the diff, the closing line.

Shared by `saikish undo` and the REPL's `/undo`. File names and contents come
from the workspace, so every text here is made inert before rich sees it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text

from saikish.checkpoints.values import Checkpoint, UndoPlan, undone
from saikish.inert import inert

FILES_SHOWN = 3


def shown(path: str) -> str:
    """A path as text a terminal can show (undecodable bytes as U+FFFD, controls escaped)."""
    return inert(path.encode("utf-8", "surrogateescape").decode("utf-8", "replace"))


def when(seconds: float) -> str:
    """A checkpoint's time in local time, to the second."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(seconds))


def files_summary(checkpoint: Checkpoint) -> str:
    """'+1 ~2 -1  a.txt, b.txt, c.txt, …' (added, modified, deleted, then the first names)."""
    counts = [f"{sign}{len(paths)}" for sign, paths in
              (("+", checkpoint.added), ("~", checkpoint.modified), ("-", checkpoint.deleted),
               ("big ", checkpoint.too_big)) if paths]
    names = [shown(p) for p in checkpoint.files[:FILES_SHOWN]]
    more = ", …" if len(checkpoint.files) > FILES_SHOWN else ""
    return f"{' '.join(counts) or 'none'}  {', '.join(names)}{more}".rstrip()


def checkpoint_table(history: Sequence[Checkpoint]) -> Table:
    """The checkpoints, newest first: number, when, which call, which files, undone by whom."""
    done = undone(tuple(history))
    table = Table(box=None, header_style="bold")
    for column in ("#", "when", "call", "files", ""):
        table.add_column(column, overflow="fold", no_wrap=column in ("#", "when"))
    for checkpoint in history:
        state = f"undone by {done[checkpoint.number]}" if checkpoint.number in done else ""
        call = f"{checkpoint.tool} {shown(checkpoint.summary)}" if not checkpoint.is_undo \
            else shown(checkpoint.summary)
        table.add_row(str(checkpoint.number), when(checkpoint.time),
                      Text(call, style="cyan" if checkpoint.is_undo else ""),
                      files_summary(checkpoint), Text(state, style="dim"))
    if not history:
        table.add_row("", "", Text("(no checkpoints yet)", style="dim"), "", "")
    return table


def plan_view(plan: UndoPlan, max_lines: int | None = None) -> RenderableType:
    """What an undo will do: which calls, the diff (cut at `max_lines`), what it leaves."""
    calls = "; ".join(f"{c.number} ({c.tool} {shown(c.summary)})" if not c.is_undo else
                      f"{c.number} ({shown(c.summary)})" for c in plan.checkpoints)
    parts: list[RenderableType] = [Text.assemble(("undo ", "bold"), calls)]
    if plan.diff:
        parts.append(_diff(plan.diff, max_lines))
    else:
        parts.append(Text("the files are already as they were before", style="dim"))
    for path, why in plan.skipped:
        parts.append(Text(f"left alone: {shown(path)}: {why}", style="yellow"))
    restored, removed = len(plan.restore), len(plan.remove)
    parts.append(Text(f"restores {restored} file{'' if restored == 1 else 's'} and removes "
                      f"{removed} that {'the calls' if len(plan.checkpoints) > 1 else 'it'} "
                      f"created", style="dim"))
    return Group(*parts)


def _diff(diff: str, max_lines: int | None) -> RenderableType:
    lines = inert(diff).splitlines()
    limit = len(lines) if max_lines is None else max_lines
    syntax = Syntax("\n".join(lines[:limit]), "diff", word_wrap=True,
                    background_color="default", theme="ansi_dark")
    if len(lines) <= limit:
        return syntax
    return Group(syntax, Text(f"… {len(lines) - limit} more lines (saikish undo shows all)",
                              style="dim italic"))


def undone_line(done: Checkpoint, plan: UndoPlan) -> str:
    """The line after an undo: what it did and how to reverse it."""
    count = len(plan.files)
    what = f"restored {count} file{'' if count == 1 else 's'}" if count else \
        "nothing to restore (the files were already as before)"
    return (f"{what}; checkpoint {done.number} records this undo "
            f"(saikish undo --checkpoint {done.number} reverses it)")
