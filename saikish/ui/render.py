"""How the run looks in the terminal: streamed answers, compact tool results."""

from __future__ import annotations

from rich.console import Console
from rich.live import Live
from rich.markup import escape
from rich.text import Text

from saikish.cost import dollars
from saikish.events import (
    CallDecided,
    CallFinished,
    CallProgress,
    Compacted,
    Event,
    FilesChanged,
    Notice,
    RetryNotice,
)
from saikish.inert import inert
from saikish.rules import rule_texts
from saikish.types import Assessment, Decision, Outcome, Source, ToolCall, ToolResult, Usage
from saikish.ui.record import DecisionRecord
from saikish.view import View

RESULT_LINES = 6
# The executor tells the model how the person edited a call; the person knows already.
EDIT_NOTE = "[The person edited this call before it ran."


class ConsoleReporter:
    """The transcript: one line per decision (the only one that prints them), results."""

    def __init__(self, console: Console, show_results: bool = True,
                 workspace: str = ".") -> None:
        self.console, self.show_results, self.workspace = console, show_results, workspace
        self._live: Live | None = None  # a running call's progress line
        self._changed: dict[str, FilesChanged] = {}  # shown under the call's result

    def __call__(self, event: Event) -> None:
        """As a subscriber of the event stream (docs/events.md): the one printer of
        decision lines."""
        if isinstance(event, CallDecided):
            self.decided(event.call, event.decision, event.assessment, edited=event.edited,
                         view=event.view)
        elif isinstance(event, CallProgress):
            self.progress(event.call, event.text)
        elif isinstance(event, FilesChanged):
            self._changed[event.call.id] = event
        elif isinstance(event, CallFinished):
            self._end_progress()
            if event.decision.approved:
                self.ran(event.call, event.result)
            changed = self._changed.pop(event.call.id, None)
            if changed is not None:
                self.note(changed.line)
        elif isinstance(event, Notice):
            self.warn(event.text) if event.warning else self.note(event.text)
        elif isinstance(event, RetryNotice):
            self.note(event.message)
        elif isinstance(event, Compacted):
            self.note(compacted_line(event))

    def decided(self, call: ToolCall, decision: Decision, assessment: Assessment | None,
                *, edited: bool = False, view: View | None = None) -> None:
        """A record of every decided call, whoever decided it, kept in the scrollback."""
        if decision.source in (Source.USER, Source.TIMEOUT):
            style = "green" if decision.approved else "red"
            self.console.print(DecisionRecord(call, _answer_words(decision, edited), style,
                                              view))
            return
        if decision.approved and decision.source is Source.SANDBOX:
            # Not verified, nothing needs a person: it runs contained (docs/SPEC.md §4.1).
            why = assessment.unverified if assessment else ""
            verdict, style = "contained" + (f" · not verified: {why}" if why else ""), "cyan"
        elif decision.approved:
            verdict, style = decision.rule or decision.source.value, "green"
        else:
            verdict = decision.feedback or decision.outcome.value
            style = "yellow" if decision.outcome is Outcome.INVALID else "red"
        self.console.print(DecisionRecord(call, inert(verdict), style, view,
                                          max_lines=3))

    def ran(self, call: ToolCall, result: ToolResult) -> None:
        """The first lines of the result, each kept inside the gutter, then '… N more lines'."""
        if not self.show_results:
            return
        content, edited = _without_edit_note(result.content)
        lines = inert(content).splitlines()
        shown = lines[:RESULT_LINES]
        style = "red" if result.is_error else "dim"
        for line in shown:
            self.console.print(Text("  │ " + line, style=style), no_wrap=True,
                               overflow="ellipsis")
        if len(lines) > len(shown):
            self.console.print(Text(f"  … {len(lines) - len(shown)} more lines", style="dim"))
        if edited:
            self.console.print(Text("  (ran as you edited it)", style="dim"))

    def progress(self, call: ToolCall, text: str) -> None:
        """A running call's progress as one live line, replaced by the next (terminals only)."""
        if not self.console.is_terminal:
            return
        line = Text(f"  ⋯ {inert(call.name)}: {inert(' '.join(text.split()))}", style="dim",
                    no_wrap=True, overflow="ellipsis")
        if self._live is None:
            self._live = Live(line, console=self.console, transient=True, auto_refresh=False)
            self._live.start()
        self._live.update(line, refresh=True)

    def _end_progress(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def note(self, text: str) -> None:
        """A remark about the call just decided (e.g. where its rule was saved), under it."""
        self.console.print(Text("  " + inert(text), style="dim"))

    def warn(self, text: str) -> None:
        """Something the run could not do as configured: a line of its own, prefixed as
        saikish's other warnings are (a failed MCP server's reason holds its stderr)."""
        self.console.print(Text("saikish: warning: " + inert(text), style="yellow"),
                           soft_wrap=True)


def _without_edit_note(content: str) -> tuple[str, bool]:
    """The result without the executor's note to the model about an edit (raw JSON)."""
    head, found, _ = content.rpartition("\n" + EDIT_NOTE)
    return (head, True) if found else (content, False)


def _answer_words(decision: Decision, edited: bool) -> str:
    """What the person answered; never claims a rule was saved (the note says where)."""
    rules = inert(rule_texts(decision.remember))
    who = "from the web page" if decision.via == "remote" else "by you"
    if decision.source is Source.TIMEOUT:
        return "timed out: nobody answered · the batch is stopped"
    if decision.outcome is Outcome.REJECTED_HARD:
        return f"stopped {who} · the rest of the batch is skipped"
    if not decision.approved:
        return f"rejected {who}" + (f": {inert(decision.feedback)}" if decision.feedback else "")
    if decision.remember:
        scope = "always" if decision.persist else "always this session"
        return f"approved {who} · {scope}: {rules}"
    return f"approved {who}, as edited" if edited else f"approved {who}, once"


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
        from rich.markdown import Markdown  # markdown-it costs a streamed answer only

        self.live.update(Markdown(inert("".join(self.parts))))

    def close(self) -> None:
        """Stop the live display (leaving the rendered answer on screen)."""
        if self.live is not None:
            self.live.stop()
            self.live = None
        elif self.parts and not self.console.is_terminal:
            self.console.print(inert("".join(self.parts)), markup=False, highlight=False)
        self.parts = []


def usage_line(usage: Usage, cost: float | None = None, session: float | None = None,
               context: float | None = None) -> str:
    """'↑ 1,234 (1,024 cached) ↓ 56 tokens · $0.0012 · session $0.0345 · context 12%':
    the last message's tokens and cost, the session's cost, how full the window is."""
    cached = f" ({usage.cached_tokens:,} cached)" if usage.cached_tokens else ""
    parts = [f"↑ {usage.input_tokens:,}{cached} ↓ {usage.output_tokens:,} tokens"]
    if cost is not None:
        parts.append(dollars(cost))
    if session is not None and session != cost:
        parts.append(f"session {dollars(session)}")
    if context is not None:
        parts.append(f"context {context:.0%}")
    return " · ".join(parts)


def error_line(console: Console, text: str) -> None:
    """One red line."""
    console.print(f"[red]{escape(inert(text))}[/red]", highlight=False)


def compacted_line(event: Compacted) -> str:
    """What a compaction did, in one line."""
    what = (f"compacted {event.summarized} older messages into a summary "
            f"(about {event.before_tokens:,} → {event.after_tokens:,} tokens)")
    return what + (f"; no summary: {event.failure}" if event.failure else "")
