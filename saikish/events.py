"""The one event stream (docs/SPEC.md §7.3, docs/events.md): what happens, as small values.

The agent and the executor publish; the terminal transcript, the audit log,
`--output-format json` / `stream-json` and embedding programs subscribe. Each
event is a frozen dataclass with a wire name (`kind`); `vocabulary.py` turns
them into JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from saikish.types import Assessment, Decision, ExitReason, ToolCall, ToolResult, Usage
from saikish.view import View


@dataclass(frozen=True)
class TurnStarted:
    """A model call begins (`number` counts from 1 within one message)."""

    kind: ClassVar[str] = "turn_start"
    number: int


@dataclass(frozen=True)
class TextDelta:
    """A piece of the model's answer, as it streams in."""

    kind: ClassVar[str] = "text_delta"
    text: str


@dataclass(frozen=True)
class CallProposed:
    """The model asked for a call; `index` is its place in a batch of `batch_size`."""

    kind: ClassVar[str] = "call_proposed"
    call: ToolCall
    index: int
    batch_size: int


@dataclass(frozen=True)
class CallDecided:
    """A call was decided: by a rule, the mode, a hook, the person... (`decision.source`)."""

    kind: ClassVar[str] = "call_decided"
    call: ToolCall
    decision: Decision
    assessment: Assessment | None = None
    # The call as the model proposed it; differs from `call` after a person's edit.
    original: ToolCall | None = None
    # What the call does, as its tool shows it (saikish/view.py); None: not worked out.
    view: View | None = None

    @property
    def edited(self) -> bool:
        """True when the person changed the call before it was decided."""
        return self.original is not None and self.original != self.call


@dataclass(frozen=True)
class CallStarted:
    """An approved call starts running."""

    kind: ClassVar[str] = "call_started"
    call: ToolCall


@dataclass(frozen=True)
class CallProgress:
    """A running call reports how far it is (an MCP server's progress): one short line."""

    kind: ClassVar[str] = "call_progress"
    call: ToolCall
    text: str


@dataclass(frozen=True)
class CallFinished:
    """A call's result, whether it ran or not (every call id gets one)."""

    kind: ClassVar[str] = "call_result"
    call: ToolCall
    result: ToolResult
    decision: Decision
    duration_s: float = 0.0


@dataclass(frozen=True)
class FilesChanged:
    """A call nobody approved in the box changed files; `saikish undo` can put them back.

    Published just before the call's `CallFinished` (docs/SPEC.md §4.10).
    """

    kind: ClassVar[str] = "files_changed"
    call: ToolCall
    checkpoint: int
    added: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()
    deleted: tuple[str, ...] = ()
    # Changed, but too big to copy: undo leaves them alone.
    too_big: tuple[str, ...] = ()

    @property
    def count(self) -> int:
        """How many files changed."""
        return len(self.added) + len(self.modified) + len(self.deleted) + len(self.too_big)

    @property
    def line(self) -> str:
        """'changed 3 files (checkpoint 12; saikish undo)'."""
        s = "" if self.count == 1 else "s"
        return f"changed {self.count} file{s} (checkpoint {self.checkpoint}; saikish undo)"


@dataclass(frozen=True)
class UsageReported:
    """Tokens one model call used, and what they cost in US dollars (None: no known price)."""

    kind: ClassVar[str] = "usage"
    usage: Usage
    cost: float | None = None


@dataclass(frozen=True)
class Compacted:
    """Older turns were replaced by the model's summary of them (docs/SPEC.md §10.3).

    `reason`: auto (the window was nearly full), request (/compact) or overflow (the
    server refused the request as too long); `failure` says why no summary was written.
    """

    kind: ClassVar[str] = "compacted"
    reason: str
    summarized: int
    before_tokens: int
    after_tokens: int
    failure: str = ""


@dataclass(frozen=True)
class RetryNotice:
    """The model call failed and will be tried again after `delay_s` seconds."""

    kind: ClassVar[str] = "retry"
    message: str
    attempt: int = 1
    delay_s: float = 0.0


@dataclass(frozen=True)
class Notice:
    """A one-line remark for the person (e.g. where an "always" rule was saved).

    A `warning` is something the run could not do as configured (an MCP server that
    failed): headless runs list it under `warnings` (docs/events.md).
    """

    kind: ClassVar[str] = "notice"
    text: str
    warning: bool = False


@dataclass(frozen=True)
class ErrorOccurred:
    """The run failed (the model could not be reached, ...); `message` says why."""

    kind: ClassVar[str] = "error"
    message: str


@dataclass(frozen=True)
class TurnEnded:
    """A model call finished, with its text and the number of calls it proposed."""

    kind: ClassVar[str] = "turn_end"
    text: str
    tool_calls: int = 0


@dataclass(frozen=True)
class RunEnded:
    """One message is done: the final text and why the loop stopped."""

    kind: ClassVar[str] = "run_end"
    text: str
    exit_reason: ExitReason
    message: str = ""
    usage: Usage = field(default_factory=Usage)
    cost: float | None = None  # US dollars; None when no model call had a known price


Event = (TurnStarted | TextDelta | CallProposed | CallDecided | CallStarted | CallProgress
         | CallFinished | FilesChanged
         | UsageReported | Compacted | RetryNotice | Notice | ErrorOccurred | TurnEnded
         | RunEnded)
Subscriber = Callable[[Event], None]
EVENT_TYPES: tuple[type, ...] = (
    TurnStarted, TextDelta, CallProposed, CallDecided, CallStarted, CallProgress, CallFinished,
    FilesChanged, UsageReported, Compacted, RetryNotice, Notice, ErrorOccurred, TurnEnded,
    RunEnded)


@dataclass
class EventBus:
    """Delivers each event to every subscriber, in the order they subscribed.

    A subscriber that raises is a listener with a bug, not a reason to stop the work it
    listens to: its error is caught, the others still get the event, and the first error
    of each subscriber is published once as a Notice (STYLE: a failure becomes a result).
    """

    subscribers: list[Subscriber] = field(default_factory=list)
    # Subscribers whose failure was already reported (by identity: they need not hash).
    _reported: list[Subscriber] = field(default_factory=list, repr=False)

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Add `subscriber`; returns a function that removes it again."""
        self.subscribers.append(subscriber)
        return lambda: self._remove(subscriber)

    def publish(self, event: Event) -> None:
        """Hand `event` to every subscriber; one's error never reaches the publisher."""
        failed: list[Notice] = []
        for subscriber in list(self.subscribers):
            try:
                subscriber(event)
            except BrokenPipeError:
                raise  # the output was closed (`| head -1`): the command ends, quietly (§8)
            except Exception as error:  # isolated: see the class docstring
                if not any(s is subscriber for s in self._reported):
                    self._reported.append(subscriber)
                    failed.append(_failure(subscriber, event, error))
        for notice in failed:  # after the event itself, so every subscriber sees one order
            self.publish(notice)

    def _remove(self, subscriber: Subscriber) -> None:
        if subscriber in self.subscribers:
            self.subscribers.remove(subscriber)


def _failure(subscriber: Subscriber, event: Event, error: Exception) -> Notice:
    """The line for a subscriber's first failure; an error that carries its own `notice`
    for the person (the audit log's full disk) is said in its own words."""
    said = getattr(error, "notice", None)
    if isinstance(said, str):
        return Notice(said)
    name = getattr(subscriber, "__qualname__", type(subscriber).__qualname__)
    return Notice(f"{name} failed on a {event.kind} event and skipped it "
                  f"({type(error).__name__}: {error}); the work goes on")


@dataclass
class Recorder:
    """A subscriber that keeps the events it was given (for `Agent.events()` and tests)."""

    events: list[Event] = field(default_factory=list)

    def __call__(self, event: Event) -> None:
        """Keep `event`."""
        self.events.append(event)
