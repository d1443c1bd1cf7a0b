"""Keeping a conversation inside the model's context window (docs/SPEC.md §10.3).

Before each model call the request is estimated; near the limit the older turns
are compacted. A tool result too big for the window on its own is cut with a note
before the model sees it. When a server still refuses a request as too long, the
window it names (or a smaller guess) is learned and the conversation compacted again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from saikish.context.compaction import (
    Ask,
    cut_result,
    fallback,
    plan,
    summarize,
)
from saikish.context.tokens import CHARS_PER_TOKEN, fixed_tokens, messages_tokens
from saikish.context.window import (
    KEEP_RECENT,
    RESULT_SHARE,
    ContextWindow,
    window_from_error,
)
from saikish.errors import ModelError
from saikish.models.base import Message, ToolResults
from saikish.tools.base import Tool
from saikish.types import ToolResult

SUMMARY_INPUT = 0.5  # of the window: one piece of the older turns given to the summariser


@dataclass(frozen=True)
class Compaction:
    """What one compaction did: the summary, what was kept, and the estimates around it."""

    summary: str
    kept: tuple[Message, ...]
    shortened: dict[str, str]
    summarized: int  # messages replaced by the summary
    before: int  # estimated tokens of the request before
    after: int  # and after
    failure: str = ""  # why the model wrote no summary (the requests were kept instead)


@dataclass
class ContextKeeper:
    """The window of one session's model, and what the last request was estimated at."""

    window: ContextWindow
    estimated: int = 0

    def estimate(self, system: str, messages: Sequence[Message], tools: Sequence[Tool]) -> int:
        """The request's estimated tokens (before the correction), remembered for learn()."""
        self.estimated = fixed_tokens(system, tools) + messages_tokens(messages)
        return self.estimated

    def learn(self, counted: int) -> None:
        """The server counted `counted` prompt tokens for the last request."""
        self.window.learn(self.estimated, counted)

    def full(self, estimate: int) -> bool:
        """True when a request this big must be compacted first."""
        return self.window.full(estimate)

    def cap(self, results: ToolResults) -> ToolResults:
        """Results cut where one alone would take more than its share of the window."""
        chars = self.window.budget(RESULT_SHARE) * CHARS_PER_TOKEN
        if all(len(r.content) <= chars for r in results.results):
            return results
        return ToolResults(tuple(
            r if len(r.content) <= chars else
            ToolResult(r.call_id, r.name, cut_result(r.content, chars, "too long on its own"),
                       r.is_error)
            for r in results.results))

    def compact(self, messages: Sequence[Message], fixed: int, ask: Ask,
                focus: str = "", everything: bool = False) -> Compaction | None:
        """Summarise the older turns with `ask`; None when there is nothing older.
        `everything` (a person's /compact): all but the last step is summarised."""
        keep = 1 if everything else max(self.window.budget(KEEP_RECENT), 1)
        chosen = plan(messages, keep)
        if chosen is None:
            return None
        piece = max(self.window.budget(SUMMARY_INPUT), 256)
        failure = ""
        try:
            summary = summarize(ask, chosen.older, piece, focus)
        except ModelError as exc:  # never an error that ends the session: keep the goals
            failure = str(exc)
        if failure or not summary:
            failure = failure or "it answered with nothing"
            summary = fallback(chosen.older, failure)
        before = fixed + messages_tokens(messages)
        after = fixed + messages_tokens([*chosen.kept]) + len(summary) // CHARS_PER_TOKEN
        return Compaction(summary, chosen.kept, dict(chosen.shortened), len(chosen.older),
                          before, after, failure)

    def refused(self, error: ModelError) -> None:
        """The server refused the last request as too long: learn a smaller window."""
        named = window_from_error(str(error))
        guess = int(self.window.tokens_of(self.estimated) * 0.8)
        self.window.shrink_to(named if named and named < self.window.tokens else guess)
