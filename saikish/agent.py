"""The tool loop (docs/SPEC.md §6): model -> batch -> executor -> model, until answer or stop."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from saikish.approval import (
    Approver,
    ConfirmHook,
    ConfirmHooks,
    HookedApprover,
    NoTerminalApprover,
)
from saikish.config import Config
from saikish.errors import ModelError, SaikishError
from saikish.events import (
    CallDecided,
    CallFinished,
    CallProposed,
    ErrorOccurred,
    Event,
    EventBus,
    Notice,
    Recorder,
    RunEnded,
    Subscriber,
    TextDelta,
    TurnEnded,
    TurnStarted,
    UsageReported,
)
from saikish.executor import BatchOutcome, CallRecord, Executor
from saikish.hooks import Hooks
from saikish.models.base import (
    AssistantMessage,
    Message,
    Model,
    TextSink,
    ToolResults,
    UserMessage,
)
from saikish.models.remote import Remote
from saikish.session import Session
from saikish.tools.base import RunContext, Tool
from saikish.tools.function import Toolset, flatten
from saikish.tools.registry import ToolRegistry
from saikish.types import Autonomy, Decision, Mode, StopReason, ToolResult, Turn, Usage
from saikish.vocabulary import ERROR, FINISHED, MAX_ITERATIONS, STOPPED

__all__ = ["ERROR", "FINISHED", "MAX_ITERATIONS", "STOPPED", "Agent", "RunResult"]
# A Stop hook may send the model back to work this many times per message, no more.
MAX_STOP_ROUNDS = 3
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
        if not isinstance(executor.tools, ToolRegistry):
            executor.tools = ToolRegistry(tools)
        self.model, self.executor = model, executor
        self.system_prompt, self.max_iterations = system_prompt, max_iterations
        self.messages: list[Message] = []
        self._started_context = ""  # what SessionStart hooks said, for the first message
        self.bus: EventBus = executor.events
        self._recorder = Recorder()
        self.bus.subscribe(self._recorder)
        remote = getattr(model, "remote", None)
        if isinstance(remote, Remote):  # an HTTP model's waits join the one event stream
            remote.notice = self.bus.publish

    @classmethod
    def create(cls, model: str | Model, tools: Iterable[Tool | Toolset] | None = None,
               approver: Approver | None = None, workspace: str | Path = ".", *,
               config: Config | None = None, session: Session | None = None,
               mode: Mode | str | None = None, autonomy: Autonomy | str | None = None) -> Agent:
        """An agent that needs no terminal (docs/SPEC.md §7.3).

        `model` is a spec string ("openai:gpt-4.1-mini", "script:PATH.yml") or a
        Model; `tools=None` means the built-in tools; `approver=None` rejects
        every call that would ask (no terminal: fails closed). `session` (the
        CLI's, with allowlist, audit and sandbox) wins over workspace/mode/autonomy.
        """
        from saikish.models import load_model, parse_spec
        from saikish.tools import builtin_tools

        config = session.config if session else (config or Config())
        if session is None:
            session = Session(config, str(Path(workspace).resolve()),
                              Mode(mode or config.confirmation.mode),
                              Autonomy(autonomy or config.confirmation.autonomy))
            session.hooks = Hooks.from_config(config, session.workspace, session.id,
                                              session.permission_mode)
            session.attach_mcp()
        if isinstance(model, str):
            model = load_model(parse_spec(model, config), config)
        chosen = list(builtin_tools().values()) if tools is None else flatten(tools)
        hooked = HookedApprover(ConfirmHooks(), approver or NoTerminalApprover())
        run_context = RunContext(session.workspace, config.tools.output_limit,
                                 config.tools.bash_timeout, secrets=config.secrets())
        registry = ToolRegistry(chosen, [session.mcp] if session.mcp is not None else [])
        executor = Executor(session, registry, hooked, run_context=run_context)
        return cls(model, executor, chosen, config.system_prompt, config.llm.max_iterations)

    @property
    def tools(self) -> list[Tool]:
        """The tools offered now: built-in and function tools, then MCP tools once listed."""
        return list(self.registry.values())

    @property
    def registry(self) -> ToolRegistry:
        """The live registry the executor decides calls against (add sources to it)."""
        assert isinstance(self.executor.tools, ToolRegistry)
        return self.executor.tools

    def add_confirm_hook(self, hook: ConfirmHook, priority: int = 0) -> Callable[[], None]:
        """Consult `hook` before the approver (docs/SPEC.md §7.2); returns its remover."""
        approver = self.executor.approver
        if not isinstance(approver, HookedApprover):
            approver = self.executor.approver = HookedApprover(ConfirmHooks(), approver)
        return approver.hooks.add(hook, priority)

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Receive every event from now on; returns a function that unsubscribes."""
        return self.bus.subscribe(subscriber)

    def events(self) -> tuple[Event, ...]:
        """The events of the last (or the running) `send`, in order."""
        return tuple(self._recorder.events)

    def cancel(self) -> None:
        """Stop the running `send` (from another thread): kill a running command, run no more."""
        self.executor.run_context.cancel.set()

    def close(self) -> None:
        """Shut down what the session started (MCP servers); the agent is done."""
        self.executor.session.close()

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def clear(self) -> None:
        """Forget the conversation."""
        self.messages.clear()

    def send(self, text: str, on_text: TextSink | None = None,
             on_turn_end: Callable[[], None] = lambda: None) -> RunResult:
        """Run the loop for one user message; `on_turn_end` runs after each model turn."""
        self._recorder.events.clear()
        self.executor.run_context.cancel.clear()
        # MCP servers not started yet (the REPL starts them early) start now, and the first
        # model call waits for their tools: a script or editor has no later turn to see them.
        self.registry.start(wait=True)
        result = self._hooked_loop(text, on_text or (lambda piece: None), on_turn_end)
        self.bus.publish(RunEnded(result.text, result.exit_reason, result.message,
                                  result.usage))
        return result

    def _hooked_loop(self, text: str, on_text: TextSink,
                     on_turn_end: Callable[[], None]) -> RunResult:
        """The loop inside the SessionStart, UserPromptSubmit and Stop hooks (§7.2)."""
        hooks = self.executor.session.hooks
        if not hooks:
            return self._loop(text, on_text, on_turn_end)
        self.start()
        started, self._started_context = self._started_context, ""
        gate = hooks.prompt(text)
        self._say(*gate.notes)
        if gate.blocked is not None:  # the prompt is dropped: the model never sees it
            return RunResult("", STOPPED, (), Usage(), gate.blocked)
        extra = "\n\n".join(part for part in (started, gate.context) if part)
        result = self._loop(f"{text}\n\n{extra}" if extra else text, on_text, on_turn_end)
        for round_number in range(MAX_STOP_ROUNDS):
            if result.exit_reason != FINISHED:
                break
            reason, notes = hooks.stop(active=round_number > 0)
            self._say(*notes)
            if reason is None:
                break
            self._say(f"a Stop hook asks the model to go on: {reason}")
            more = self._loop(reason, on_text, on_turn_end)
            result = replace(more, records=result.records + more.records,
                             usage=result.usage + more.usage)
        return result

    def start(self) -> None:
        """Run the SessionStart hooks now, as a session starts (docs/SPEC.md §7.2): the REPL
        calls it before its first prompt. Their context joins the first message; `send`
        starts the session itself when nobody did. Runs them once."""
        hooks = self.executor.session.hooks
        if hooks:
            context, notes = hooks.session_start()
            self._started_context += context
            self._say(*notes)

    def _say(self, *lines: str, warning: bool = False) -> None:
        for line in lines:
            self.bus.publish(Notice(line, warning))

    def _loop(self, text: str, on_text: TextSink, on_turn_end: Callable[[], None]) -> RunResult:
        self.messages.append(UserMessage(text))
        records: list[CallRecord] = []
        usage = Usage()
        last = Turn()
        for number in range(1, self.max_iterations + 1):
            self._say(*self.registry.notices(), warning=True)  # an MCP server that failed
            self.bus.publish(TurnStarted(number))
            try:
                last = self._complete(on_text)
            except ModelError as exc:
                self.bus.publish(ErrorOccurred(str(exc)))
                return RunResult(exc.partial, ERROR, tuple(records), usage, str(exc))
            usage += last.usage
            self.bus.publish(UsageReported(last.usage))
            self.bus.publish(TurnEnded(last.text, len(last.tool_calls)))
            on_turn_end()  # e.g. close a live display before anything is asked
            records.extend(self._cut_off(last))
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
            self.bus.publish(TextDelta(piece))
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


    def _cut_off(self, turn: Turn) -> list[CallRecord]:
        """Calls cut off by the token limit: reported as invalid, never run."""
        records = []
        for index, call in enumerate(turn.incomplete_calls):
            record = CallRecord(call, Decision.invalid("cut off at the token limit"),
                                ToolResult(call.id, call.name, CUT_OFF, True))
            self.bus.publish(CallProposed(call, index, len(turn.incomplete_calls)))
            self.bus.publish(CallDecided(call, record.decision, None, call))
            self.bus.publish(CallFinished(call, record.result, record.decision))
            records.append(record)
        return records
