"""One session's model calls (docs/SPEC.md §10.3, §10.4): each request kept inside the
context window, each answer added to the conversation, each call's tokens and cost counted.

The agent's loop asks for a turn; this module streams it, keeps what was shown of a
failed answer, compacts older turns when the window nears its limit (or the server
refuses a request as too long), and accounts every call, the summaries included.
"""

from __future__ import annotations

from collections.abc import Sequence

from saikish.config.model_table import ModelTable, model_id
from saikish.context.keeper import Compaction, ContextKeeper
from saikish.context.tokens import fixed_tokens
from saikish.context.window import resolve_window
from saikish.cost import Meter, Spend
from saikish.errors import ModelError
from saikish.events import Compacted, EventBus, Notice, TextDelta, UsageReported
from saikish.models.base import AssistantMessage, Model, TextSink, ToolResults, UserMessage
from saikish.models.remote import Remote
from saikish.runtime.conversation import Conversation
from saikish.sessions.records import spend_record
from saikish.tools.base import Tool
from saikish.types import Turn, Usage


class ModelCalls:
    """The model, the conversation it is given, and what its calls cost."""

    def __init__(self, model: Model, conversation: Conversation, bus: EventBus,
                 table: ModelTable, window: int | None = None) -> None:
        self.conversation, self.bus, self.table = conversation, bus, table
        self.configured_window = window  # agent.yml's llm.contextWindow
        self.meter = Meter()
        self.keeper: ContextKeeper | None = None  # known at the first call
        self.use(model)

    def use(self, model: Model) -> None:
        """Another model from now on: its window is found out anew."""
        self.model, self.keeper = model, None
        remote = getattr(model, "remote", None)
        if isinstance(remote, Remote):  # an HTTP model's waits join the one event stream
            remote.notice = self.bus.publish

    def window(self) -> ContextKeeper:
        """The context window of the model, found out once (it may ask a local server)."""
        if self.keeper is None:
            self.keeper = ContextKeeper(resolve_window(self.configured_window, self.model,
                                                       self.table))
        return self.keeper

    def turn(self, system: str, tools: Sequence[Tool], on_text: TextSink) -> Turn:
        """One model call on the conversation, compacted first when it is nearly full; a
        request refused as too long is compacted and sent once more."""
        keeper = self.window()
        estimate = keeper.estimate(system, self.conversation.messages, tools)
        if keeper.full(estimate):
            self._say(f"the context window is {keeper.window.share(estimate):.0%} full: "
                      f"compacting the older turns")
            self.compact(system, tools, reason="auto")
        try:
            return self._stream(system, tools, on_text)
        except ModelError as exc:
            if exc.kind != "context_length" or exc.partial:
                raise
            keeper.refused(exc)
            self._say(f"{self.model.name}: the request was too long for the context window "
                      f"({keeper.window.tokens:,} tokens at most): compacting and trying again")
            if self.compact(system, tools, reason="overflow") is None:
                raise
            return self._stream(system, tools, on_text)

    def compact(self, system: str, tools: Sequence[Tool], focus: str = "",
                reason: str = "request") -> Compaction | None:
        """The older turns replaced by the model's summary; None when there are none."""
        keeper = self.window()
        done = keeper.compact(self.conversation.messages, fixed_tokens(system, tools),
                              self._ask, focus, everything=reason == "request")
        if done is None:
            return None
        self.conversation.compact(done.summary, done.kept, done.shortened, focus)
        self.bus.publish(Compacted(reason, done.summarized, done.before, done.after,
                                   done.failure))
        return done

    def results(self, results: ToolResults) -> None:
        """A batch's results join the conversation; one too big for the window is cut."""
        self.conversation.add(self.keeper.cap(results) if self.keeper else results)

    def share(self, system: str, tools: Sequence[Tool]) -> float | None:
        """How full the next request would make the window; None before the first call."""
        if self.keeper is None:
            return None
        estimate = self.keeper.estimate(system, self.conversation.messages, tools)
        return self.keeper.window.share(estimate)

    def _stream(self, system: str, tools: Sequence[Tool], on_text: TextSink) -> Turn:
        streamed: list[str] = []

        def sink(piece: str) -> None:
            streamed.append(piece)
            self.bus.publish(TextDelta(piece))
            on_text(piece)

        keeper = self.window()
        keeper.estimate(system, self.conversation.messages, tools)  # what learn() compares
        try:
            turn = self.model.complete(system, self.conversation.messages, tools, sink)
        except KeyboardInterrupt:
            # Keep the conversation well-formed: the cancelled turn stays, as text only.
            partial = "".join(streamed) + " [interrupted by the user]"
            self.conversation.add(AssistantMessage(Turn(text=partial.strip())))
            raise
        except ModelError as exc:
            self._keep_partial(exc, streamed)
            raise
        except Exception as exc:  # a provider's own bug must not end the session
            error = ModelError(f"{self.model.name}: the model call failed unexpectedly "
                               f"({type(exc).__name__}: {exc})")
            self._keep_partial(error, streamed)
            raise error from exc
        self.conversation.add(AssistantMessage(turn))
        if turn.usage.input_tokens:
            keeper.learn(turn.usage.input_tokens)
        self._count(turn.usage)
        return turn

    def _keep_partial(self, exc: ModelError, streamed: list[str]) -> None:
        """What was shown of a failed answer stays in the conversation, marked as cut."""
        exc.partial = exc.partial or "".join(streamed)
        if exc.partial:
            self.conversation.add(AssistantMessage(Turn(text=exc.partial + " [interrupted]")))

    def _ask(self, system: str, prompt: str) -> str:
        """One plain call without tools (a compaction's summary); its cost counts too."""
        turn = self.model.complete(system, [UserMessage(prompt)], [], lambda piece: None)
        self._count(turn.usage)
        return turn.text

    def _count(self, usage: Usage) -> Spend:
        """Account one model call: the meter, the session file, the event stream."""
        name = self.model.name
        spend = self.meter.add(name, usage, self.table.info(model_id(name)).price)
        self.conversation.write(spend_record(spend))
        self.bus.publish(UsageReported(usage, spend.cost))
        return spend

    def _say(self, text: str) -> None:
        self.bus.publish(Notice(text))
