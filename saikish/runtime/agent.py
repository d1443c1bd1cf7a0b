"""The tool loop (docs/SPEC.md §6): model -> batch -> executor -> model, until answer or stop."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from saikish.config.layers import Config
from saikish.config.model_table import ModelTable
from saikish.context.instructions import Instructions, load_instructions, system_prompt
from saikish.context.keeper import Compaction
from saikish.cost import Meter
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
    TurnEnded,
    TurnStarted,
)
from saikish.models.base import (
    Message,
    Model,
    TextSink,
    ToolResults,
    UserMessage,
)
from saikish.runtime.approval import (
    Approver,
    ConfirmHook,
    ConfirmHooks,
    HookedApprover,
    NoTerminalApprover,
)
from saikish.runtime.conversation import Conversation
from saikish.runtime.executor import BatchOutcome, CallRecord, Executor
from saikish.runtime.model_calls import ModelCalls
from saikish.runtime.opening import SessionOptions, open_session
from saikish.runtime.session import Session, new_session_id
from saikish.sessions.log import SessionLog
from saikish.sessions.records import call_result_record, decision_record
from saikish.tools.base import RunContext, Tool
from saikish.tools.function import Toolset, flatten
from saikish.tools.registry import ToolRegistry
from saikish.types import (
    Autonomy,
    Decision,
    ExitReason,
    Mode,
    StopReason,
    ToolResult,
    Turn,
    Usage,
)
from saikish.vocabulary import ERROR, FINISHED, MAX_ITERATIONS, STOPPED

__all__ = ["ERROR", "FINISHED", "MAX_ITERATIONS", "STOPPED", "Agent", "RunResult"]
# A Stop hook may send the model back to work this many times per message, no more.
MAX_STOP_ROUNDS = 3
CUT_OFF = "Not run: the call was cut off (the answer hit the token limit) and is incomplete."


@dataclass(frozen=True)
class RunResult:
    """How one user message ended."""

    text: str
    exit_reason: ExitReason
    records: tuple[CallRecord, ...]
    usage: Usage
    message: str = ""
    last_usage: Usage = Usage()
    interrupted: bool = False  # the person pressed Ctrl-C during a tool call
    cost: float | None = None  # US dollars of every model call of the message; None: unknown


class Agent:
    """Holds the conversation and runs the loop for each message the person sends."""

    def __init__(self, model: Model, executor: Executor, tools: Sequence[Tool],
                 system_prompt: str, max_iterations: int = 50) -> None:
        if not isinstance(executor.tools, ToolRegistry):
            executor.tools = ToolRegistry(tools)
        self.executor = executor
        self.system_prompt, self.max_iterations = system_prompt, max_iterations
        self._started_context = ""  # what SessionStart hooks said, for the first message
        self.conversation = Conversation()
        self.bus: EventBus = executor.events
        llm = executor.session.config.llm
        self.calls = ModelCalls(model, self.conversation, self.bus,
                                ModelTable.load(llm.prices), llm.context_window)
        self.instructions = Instructions()  # the AGENTS.md files in the system prompt
        self.bus.subscribe(self._record_decision)
        self._recorder = Recorder()
        self.bus.subscribe(self._recorder)

    @classmethod
    def create(cls, model: str | Model, tools: Iterable[Tool | Toolset] | None = None,
               approver: Approver | None = None, workspace: str | Path = ".", *,
               config: Config | None = None, session: Session | None = None,
               mode: Mode | str | None = None, autonomy: Autonomy | str | None = None,
               instructions: bool = True, options: SessionOptions | None = None) -> Agent:
        """An agent that needs no terminal (docs/SPEC.md §7.3).

        `model` is a spec string ("openai:gpt-4.1-mini", "script:PATH.yml") or a
        Model; `tools=None` means the built-in tools; `approver=None` rejects
        every call that would ask (no terminal: fails closed). Without `session`, one is
        opened as the command line opens it (runtime/opening.py): the person's allowlist,
        the audit ledger, the sandbox for what nobody looked at and checkpoints for undo,
        unless `options` say otherwise; `mode`/`autonomy` override theirs. `session`
        wins over all of these. `instructions`: give the model the workspace's AGENTS.md
        files (§10.1).
        """
        from saikish.models import load_model, parse_spec
        from saikish.tools import builtin_tools

        config = session.config if session else (config or Config())
        if session is None:
            opened = options or SessionOptions()
            opened = replace(opened, mode=Mode(mode) if mode else opened.mode,
                             autonomy=Autonomy(autonomy) if autonomy else opened.autonomy)
            session = open_session(config, str(Path(workspace).resolve()), opened)
        if isinstance(model, str):
            model = load_model(parse_spec(model, config), config)
        chosen = list(builtin_tools().values()) if tools is None else flatten(tools)
        hooked = HookedApprover(ConfirmHooks(), approver or NoTerminalApprover())
        run_context = RunContext(session.workspace, config.tools.output_limit,
                                 config.tools.bash_timeout, secrets=config.secrets())
        registry = ToolRegistry(chosen, [session.mcp] if session.mcp is not None else [])
        executor = Executor(session, registry, hooked, run_context=run_context)
        agent = cls(model, executor, chosen, config.system_prompt, config.llm.max_iterations)
        if instructions:
            agent.read_instructions()
        return agent

    def read_instructions(self) -> Instructions:
        """(Re)read the workspace's AGENTS.md files into the system prompt (§10.1)."""
        from saikish.store import paths

        config = self.executor.session.config
        self.instructions = load_instructions(Path(self.executor.session.workspace),
                                              paths.config_dir())
        self.system_prompt = system_prompt(config.system_prompt, self.instructions)
        return self.instructions

    @property
    def messages(self) -> list[Message]:
        """The conversation the model is given."""
        return self.conversation.messages

    @property
    def model(self) -> Model:
        """The model the conversation goes to."""
        return self.calls.model

    @model.setter
    def model(self, model: Model) -> None:
        """Another model from now on; the conversation is kept, its window found out anew."""
        self.calls.use(model)

    @property
    def meter(self) -> Meter:
        """The tokens and dollars of this session (docs/SPEC.md §10.4)."""
        return self.calls.meter

    @property
    def transcript_path(self) -> Path | None:
        """The session file the conversation is written to (docs/SPEC.md §10.2), if any."""
        return self.conversation.log.path if self.conversation.log is not None else None

    def record_to(self, log: SessionLog) -> None:
        """Write the conversation to `log` from now on (docs/SPEC.md §10.2); hooks get its
        path as transcript_path."""
        self.conversation.log = log
        self.executor.session.adopt_transcript(log)

    def _record_decision(self, event: Event) -> None:
        """Decisions for /transcript, and each result as it comes: a crash in the middle of
        a batch loses only the calls still running (docs/SPEC.md §10.2)."""
        if self.conversation.log is None:
            return
        if isinstance(event, CallDecided):
            self.conversation.write(decision_record(event))
        elif isinstance(event, CallFinished):
            self.conversation.write(call_result_record(event.result))

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
        """Forget the conversation; a recorded one goes on in a new session file (§10.2)."""
        self.conversation.load([])
        self.calls.meter = Meter()
        log = self.conversation.log
        if log is not None:
            self.record_to(log.successor(new_session_id()))

    def compact(self, focus: str = "") -> Compaction | None:
        """Replace the older turns by the model's summary of them (docs/SPEC.md §10.3);
        None when there is nothing older to summarise."""
        return self.calls.compact(self.system_prompt, self.tools, focus)

    def context_share(self) -> float | None:
        """How full the next request would make the context window; None before any call."""
        return self.calls.share(self.system_prompt, self.tools)

    def send(self, text: str, on_text: TextSink | None = None,
             on_turn_end: Callable[[], None] = lambda: None) -> RunResult:
        """Run the loop for one user message; `on_turn_end` runs after each model turn."""
        self._recorder.events.clear()
        self.executor.run_context.cancel.clear()
        # MCP servers not started yet (front ends start them early) start now; the first
        # model call does not wait for them (§7.1): their tools join the next model call
        # once listed, and a call of one of their tools waits for its server.
        self.registry.start()
        mark = len(self.meter.calls)
        result = self._hooked_loop(text, on_text or (lambda piece: None), on_turn_end)
        usage, cost = self.meter.since(mark)  # summaries written for compaction included
        result = replace(result, usage=usage, cost=cost)
        self.bus.publish(RunEnded(result.text, result.exit_reason, result.message,
                                  result.usage, result.cost))
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
        self.conversation.add(UserMessage(text))
        records: list[CallRecord] = []
        usage = Usage()
        last = Turn()
        for number in range(1, self.max_iterations + 1):
            self._say(*self.registry.notices(), warning=True)  # an MCP server that failed
            self.bus.publish(TurnStarted(number))
            try:
                last = self.calls.turn(self.system_prompt, self.tools, on_text)
            except ModelError as exc:
                self.bus.publish(ErrorOccurred(str(exc)))
                return RunResult(exc.partial, ERROR, tuple(records), usage, str(exc))
            usage += last.usage
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
            self.conversation.add(ToolResults(tuple(
                ToolResult(c.id, c.name, reason, True) for c in turn.tool_calls)))
            raise
        self.calls.results(ToolResults(tuple(batch.results)))
        return batch

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
