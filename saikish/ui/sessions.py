"""Stored sessions in the terminal (docs/SPEC.md §10.2): the list, and picking one."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from saikish.inert import inert
from saikish.models.base import AssistantMessage, Message, UserMessage
from saikish.sessions.catalog import SessionInfo

PROMPT_CHARS = 70


def sessions_table(infos: Sequence[SessionInfo], workspaces: bool = False,
                   numbered: bool = False) -> Table:
    """One row per session: id, when it was last written, its size, its first prompt."""
    table = Table(box=None, header_style="bold")
    for column in (["#"] if numbered else []) + ["id", "when", "size"] + \
            (["workspace"] if workspaces else []) + ["first prompt"]:
        table.add_column(column, no_wrap=column != "first prompt", overflow="ellipsis")
    for number, info in enumerate(infos, 1):
        cells = [str(number)] if numbered else []
        cells += [info.id, when(info.updated), size(info.size)]
        cells += [inert(info.workspace)] if workspaces else []
        table.add_row(*cells, Text(inert(one_line(info.first_prompt)), style="bold"))
    return table


def when(seconds: float) -> str:
    """Local date and time, to the minute."""
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds))


def size(count: int) -> str:
    """'812 B', '14 KB', '2.3 MB'."""
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count // 1024} KB"
    return f"{count / 1024 / 1024:.1f} MB"


def one_line(text: str, limit: int = PROMPT_CHARS) -> str:
    """A prompt on one line, shortened."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit - 1] + "…"


def pick_session(infos: Sequence[SessionInfo], console: Console,
                 ask: Callable[[str], str]) -> SessionInfo | None:
    """Show the sessions numbered and ask which one; None when the person picks none."""
    if not infos:
        console.print(Text("no stored sessions in this workspace", style="dim"))
        return None
    console.print(sessions_table(infos, numbered=True))
    while True:
        try:
            answer = ask(f"resume which session? [1-{len(infos)}, Enter = 1, q = none] ")
        except (KeyboardInterrupt, EOFError):
            return None
        answer = answer.strip().lower()
        if answer in ("q", "n", "none"):
            return None
        if not answer:
            return infos[0]
        chosen = [i for i in infos if i.id.startswith(answer)] if not answer.isdigit() else \
            [infos[int(answer) - 1]] if 1 <= int(answer) <= len(infos) else []
        if len(chosen) == 1:
            return chosen[0]
        console.print(Text(f"'{inert(answer)}' is not one of the sessions above", style="red"))


def last_exchange(messages: Sequence[Message], lines: int = 3) -> list[str]:
    """Where a resumed session stands: its last prompt and the first lines of the answer."""
    prompts = [m for m in messages if isinstance(m, UserMessage)]
    answers = [m for m in messages if isinstance(m, AssistantMessage) and m.turn.text]
    out = [f"last prompt: {one_line(prompts[-1].text)}"] if prompts else []
    if answers:
        text = answers[-1].turn.text.strip().splitlines()
        out += [f"  {one_line(line, 100)}" for line in text[:lines]]
        out += [f"  … {len(text) - lines} more lines"] if len(text) > lines else []
    return out
