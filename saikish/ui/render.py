"""How the run looks in the terminal: streamed answers, compact tool results."""

from __future__ import annotations

from rich.console import Console
from rich.live import Live
from rich.markdown import Markdown
from rich.markup import escape
from rich.text import Text

from saikish.events import CallDecided, CallFinished, Event, Notice
from saikish.types import Assessment, Decision, Outcome, Source, ToolCall, ToolResult, Usage
from saikish.ui.inert import inert

RESULT_LINES = 6


class ConsoleReporter:
    """The transcript: one line per decision (the only one that prints them), results."""

    def __init__(self, console: Console, show_results: bool = True) -> None:
        self.console, self.show_results = console, show_results

    def __call__(self, event: Event) -> None:
        """As a subscriber of the event stream (docs/events.md)."""
        if isinstance(event, CallDecided):
            self.decided(event.call, event.decision, event.assessment, edited=event.edited)
        elif isinstance(event, CallFinished) and event.decision.approved:
            self.ran(event.call, event.result)
        elif isinstance(event, Notice):
            self.note(event.text)

    def decided(self, call: ToolCall, decision: Decision, assessment: Assessment | None,
                *, edited: bool = False) -> None:
        """One line per decided call, whoever decided it."""
        line = inert(_describe(call))
        if decision.source in (Source.USER, Source.TIMEOUT):
            style = "green" if decision.approved else "red"
            words = _answer_words(decision, edited)
            self.console.print(Text.assemble(("● ", style), line, (f" · {words}", "dim")))
        elif decision.approved:
            why = decision.rule or decision.source.value
            self.console.print(Text.assemble(("● ", "green"), line, (f" · {why}", "dim")))
        else:
            style = "yellow" if decision.outcome is Outcome.INVALID else "red"
            reason = inert(decision.feedback or decision.outcome.value)
            self.console.print(Text.assemble(("● ", style), line, (f" · {reason}", "dim")))

    def ran(self, call: ToolCall, result: ToolResult) -> None:
        """The first lines of the result, then '… N more lines'."""
        if not self.show_results:
            return
        lines = inert(result.content).splitlines()
        shown = lines[:RESULT_LINES]
        style = "red" if result.is_error else "dim"
        for line in shown:
            self.console.print(Text("  │ " + line[:200], style=style))
        if len(lines) > len(shown):
            self.console.print(Text(f"  … {len(lines) - len(shown)} more lines", style="dim"))

    def note(self, text: str) -> None:
        """A one-line remark."""
        self.console.print(Text(inert(text), style="dim"))


def _answer_words(decision: Decision, edited: bool) -> str:
    """What the person answered, in the words the prompt offered."""
    if decision.source is Source.TIMEOUT:
        return "timed out: batch stopped"
    if decision.outcome is Outcome.REJECTED_HARD:
        return "stopped the batch"
    if not decision.approved:
        return "rejected" + (f": {inert(decision.feedback)}" if decision.feedback else "")
    if decision.remember:
        return "approved, always (saved)" if decision.persist else "approved, always this session"
    return "edited" if edited else "approved"


def _describe(call: ToolCall) -> str:
    detail = call.arguments.get("command") or call.arguments.get("path") or ""
    text = f"{call.name} {detail}".strip().replace("\n", " ⏎ ")
    return text if len(text) <= 100 else text[:99] + "…"


class MarkdownStream:
    """Shows an answer as Markdown while it streams in (plain text off a terminal)."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.parts: list[str] = []
        self.live: Live | None = None

    def __call__(self, piece: str) -> None:
        self.parts.append(piece)
        if not self.console.is_terminal:
            return
        if self.live is None:
            self.live = Live(console=self.console, refresh_per_second=10,
                             vertical_overflow="visible")
            self.live.start()
        self.live.update(Markdown(inert("".join(self.parts))))

    def close(self) -> None:
        """Stop the live display (leaving the rendered answer on screen)."""
        if self.live is not None:
            self.live.stop()
            self.live = None
        elif self.parts and not self.console.is_terminal:
            self.console.print(inert("".join(self.parts)), markup=False, highlight=False)
        self.parts = []


def usage_line(usage: Usage) -> str:
    """'↑ 1,234 ↓ 56 tokens' for the last turn."""
    return f"↑ {usage.input_tokens:,} ↓ {usage.output_tokens:,} tokens"


def error_line(console: Console, text: str) -> None:
    """One red line."""
    console.print(f"[red]{escape(inert(text))}[/red]", highlight=False)
