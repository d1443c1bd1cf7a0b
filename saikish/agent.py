"""The tool loop (docs/SPEC.md §6): model -> batch -> executor -> model, until answer or stop."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from saikish.errors import ModelError, SaikishError
from saikish.executor import BatchOutcome, CallRecord, Executor
from saikish.models.base import (
    AssistantMessage,
    Message,
    Model,
    TextSink,
    ToolResults,
    UserMessage,
)
from saikish.tools.base import Tool
from saikish.types import Decision, StopReason, ToolResult, Turn, Usage

FINISHED, STOPPED, MAX_ITERATIONS, ERROR = "finished", "stopped", "max_iterations", "error"
CUT_OFF = "Not run: the call was cut off (the answer hit the token limit) and is incomplete."


@dataclass(frozen=True)
class RunResult:
    """How one user message ended."""

    text: str
    exit_reason: str
    records: tuple[CallRecord, ...]
    usage: Usage
    message: str = ""
    last_usage: Usage = Usage()
    interrupted: bool = False  # the person pressed Ctrl-C during a tool call


class Agent:
    """Holds the conversation and runs the loop for each message the person sends."""

    def __init__(self, model: Model, executor: Executor, tools: Sequence[Tool],
                 system_prompt: str, max_iterations: int = 50) -> None:
        self.model, self.executor, self.tools = model, executor, list(tools)
        self.system_prompt, self.max_iterations = system_prompt, max_iterations
        self.messages: list[Message] = []

    def clear(self) -> None:
        """Forget the conversation."""
        self.messages.clear()

    def send(self, text: str, on_text: TextSink,
             on_turn_end: Callable[[], None] = lambda: None) -> RunResult:
        """Run the loop for one user message; `on_turn_end` runs after each model turn."""
        self.messages.append(UserMessage(text))
        records: list[CallRecord] = []
        usage = Usage()
        last = Turn()
        for _ in range(self.max_iterations):
            try:
                last = self._complete(on_text)
            except ModelError as exc:
                return RunResult(exc.partial, ERROR, tuple(records), usage, str(exc))
            usage += last.usage
            on_turn_end()  # e.g. close a live display before anything is asked
            records.extend(_cut_off(last))
            if not last.tool_calls:  # finish_reason is not trusted: tool calls decide
                note = "the answer was cut off at the token limit" \
                    if last.stop is StopReason.MAX_TOKENS else ""
                return RunResult(last.text, FINISHED, tuple(records), usage, note, last.usage)
            try:
                batch = self._run_batch(last)
            except SaikishError as exc:  # e.g. an allowlist that broke mid-session
                return RunResult(last.text, ERROR, tuple(records), usage, str(exc), last.usage)
            except Exception as exc:  # a bug must not end the session and its conversation
                return RunResult(last.text, ERROR, tuple(records), usage,
                                 f"the tool calls failed unexpectedly ({type(exc).__name__}: "
                                 f"{exc})", last.usage)
            records.extend(batch.records)
            if batch.stopped:
                return RunResult(last.text, STOPPED, tuple(records), usage, batch.stop_reason,
                                 last.usage, interrupted=batch.interrupted)
        return RunResult(last.text, MAX_ITERATIONS, tuple(records), usage,
                         f"stopped after {self.max_iterations} model calls (llm.maxIterations)",
                         last.usage)

    def _run_batch(self, turn: Turn) -> BatchOutcome:
        """The executor's batch; whatever happens, every call id gets a result."""
        try:
            batch = self.executor.run_batch(turn.tool_calls)
        except BaseException as exc:
            # The APIs reject a conversation with an unanswered call: answer them all.
            reason = (f"No result: saikish stopped during this batch ({type(exc).__name__}: "
                      f"{exc}); this call may or may not have run.")
            self.messages.append(ToolResults(tuple(
                ToolResult(c.id, c.name, reason, True) for c in turn.tool_calls)))
            raise
        self.messages.append(ToolResults(tuple(batch.results)))
        return batch

    def _complete(self, on_text: TextSink) -> Turn:
        streamed: list[str] = []

        def sink(piece: str) -> None:
            streamed.append(piece)
            on_text(piece)

        try:
            turn = self.model.complete(self.system_prompt, self.messages, self.tools, sink)
        except KeyboardInterrupt:
            # Keep the conversation well-formed: the cancelled turn stays, as text only.
            partial = "".join(streamed) + " [interrupted by the user]"
            self.messages.append(AssistantMessage(Turn(text=partial.strip())))
            raise
        except ModelError as exc:
            self._keep_partial(exc, streamed)
            raise
        except Exception as exc:  # a provider's own bug must not end the session
            error = ModelError(f"{self.model.name}: the model call failed unexpectedly "
                               f"({type(exc).__name__}: {exc})")
            self._keep_partial(error, streamed)
            raise error from exc
        self.messages.append(AssistantMessage(turn))
        return turn

    def _keep_partial(self, exc: ModelError, streamed: list[str]) -> None:
        """What was shown of a failed answer stays in the conversation, marked as cut."""
        exc.partial = exc.partial or "".join(streamed)
        if exc.partial:
            self.messages.append(AssistantMessage(Turn(text=exc.partial + " [interrupted]")))


def _cut_off(turn: Turn) -> list[CallRecord]:
    return [CallRecord(call, Decision.invalid("cut off at the token limit"),
                       ToolResult(call.id, call.name, CUT_OFF, True))
            for call in turn.incomplete_calls]
