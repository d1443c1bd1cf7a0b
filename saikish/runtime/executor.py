"""One batch of tool calls, in order: validate -> decide -> ask -> run (docs/SPEC.md §4.1, §6)."""

from __future__ import annotations

import json
import time
from collections import ChainMap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from saikish.checkpoints.calls import checkpointed
from saikish.engine.policy import decide
from saikish.events import (
    CallDecided,
    CallFinished,
    CallProgress,
    CallProposed,
    CallStarted,
    EventBus,
    Notice,
)
from saikish.hooks.runner import Gate
from saikish.runtime.approval import NO_TTY, ApprovalRequest, Approver, NoTerminalApprover
from saikish.runtime.session import Session
from saikish.runtime.subscribers import audit_subscriber
from saikish.tools.base import RunContext, Tool
from saikish.tools.sandbox.launcher import SANDBOXED_TOOLS, runs_inside, wants_outside
from saikish.types import (
    Assessment,
    Decision,
    Mode,
    Outcome,
    Risk,
    Source,
    ToolCall,
    ToolResult,
    Verdict,
)

STOPPED = "Not run: the person stopped this batch of tool calls. Wait for their next message."
CANCELLED = "cancelled by the person"
# A hook that rewrites its own rewrite for ever stops being followed; the call is decided.
MAX_REWRITES = 5
INTERRUPTED = "Interrupted by the person (Ctrl-C); the command was killed. Wait for them."

__all__ = ["NO_TTY", "ApprovalRequest", "Approver", "BatchOutcome", "CallRecord", "Executor",
           "NoTerminalApprover", "rejection_message"]


@dataclass(frozen=True)
class CallRecord:
    """One call of the run, as --output-format json reports it."""

    call: ToolCall
    decision: Decision
    result: ToolResult
    edited: bool = False


@dataclass
class BatchOutcome:
    """The results of one batch (one per call id) and whether the person stopped it."""

    results: list[ToolResult] = field(default_factory=list)
    records: list[CallRecord] = field(default_factory=list)
    stopped: bool = False
    stop_reason: str = ""
    interrupted: bool = False  # Ctrl-C during a call: a one-shot run exits 130


class Executor:
    """Takes a batch in order, one decision per call, re-evaluated for every call."""

    def __init__(self, session: Session, tools: Mapping[str, Tool], approver: Approver,
                 run_context: RunContext | None = None,
                 events: EventBus | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.session, self.tools, self.approver = session, tools, approver
        self.run_context = run_context or RunContext(session.workspace)
        self._seen: dict[str, str | None] = {}  # call id -> Tool.state when it was decided
        # call id -> the Tool that was decided: a late tool (MCP) may be re-listed with a new
        # definition meanwhile, and the call must run the one the person saw (§7.1).
        self._decided: dict[str, Tool] = {}
        self._rewritten: set[str] = set()  # ids of calls a PreToolUse hook's updatedInput changed
        self._risks: dict[str, Risk] = {}  # call id -> its assessed risk (checkpoints, §4.10)
        self.events, self.clock = events or EventBus(), clock
        if session.audit is not None:
            self.events.subscribe(audit_subscriber(session.audit))

    def run_batch(self, calls: Sequence[ToolCall]) -> BatchOutcome:
        """Decide and run every call; after a hard rejection the rest only get results."""
        outcome = BatchOutcome()
        batch = tuple(calls)
        for index, call in enumerate(batch):
            self.events.publish(CallProposed(call, index, len(batch)))
            self._stop_if_cancelled(outcome)
            if outcome.stopped:
                self._finish(outcome, call, Decision.not_run(STOPPED),
                             ToolResult(call.id, call.name, STOPPED, True))
                continue
            decision, final_call, assessment = self._decide(call, index, batch)
            started = self.clock()
            try:
                result = self._result(final_call, decision, original=call)
                while result is None:  # the sandbox could not start: nothing ran, so ask
                    decision, final_call, assessment = self._decide(final_call, index, batch)
                    result = self._result(final_call, decision, original=call)
            except KeyboardInterrupt:  # Ctrl-C killed the command: stop, but answer every id
                result = ToolResult(call.id, final_call.name, INTERRUPTED, True)
                decision = Decision.reject_hard(Source.USER, "interrupted by the person")
                outcome.interrupted = True
            if decision.approved and self.session.hooks and not outcome.interrupted:
                result = self._post_tool_hooks(final_call, result)
            self._finish(outcome, call, decision, result, final_call, self.clock() - started)
            if decision.outcome is Outcome.REJECTED_HARD:
                outcome.stopped = True
                outcome.stop_reason = decision.feedback or "stopped by the person"
        self._stop_if_cancelled(outcome)
        return outcome

    def _stop_if_cancelled(self, outcome: BatchOutcome) -> None:
        """Agent.cancel() (an editor's stop button): no further call runs in this batch."""
        if self.run_context.cancel.is_set() and not outcome.stopped:
            outcome.stopped, outcome.stop_reason = True, CANCELLED

    def _decide(self, call: ToolCall, index: int,
                batch: tuple[ToolCall, ...]) -> tuple[Decision, ToolCall, Assessment]:
        """The decision for `call`, following the person's edits through the pipeline."""
        for warning in self.session.fresh_warnings():  # e.g. allowlist.yaml broken mid-session
            self.events.publish(Notice(warning))
        current, rewrites = call, 0
        while True:
            # One look-up per decision: a late tool (MCP) re-listed meanwhile must not be
            # decided in one definition, shown in another and run in a third (§7.1).
            tool = self.tools.get(current.name)
            tools = ChainMap({current.name: tool}, dict(self.tools)) if tool else self.tools
            assessment = decide(current, self.session.context(tools))
            gate = self._pre_tool_hooks(current, assessment)
            if gate is not None and gate.updated is not None and gate.updated != current:
                if rewrites < MAX_REWRITES:  # updatedInput: a new call, decided again
                    current, rewrites = gate.updated, rewrites + 1
                    self._rewritten.add(current.id)
                    continue
                gate = gate.endless()
                self.events.publish(Notice(gate.reason))
            if gate is not None:
                assessment = gate.apply(assessment, self.session.mode)
            self._seen[current.id] = self._state(current, tool)  # before the box shows it
            if tool is not None:
                self._decided[current.id] = tool
            if gate is not None and gate.stop is not None and assessment.verdict is not \
                    Verdict.INVALID:  # "continue": false
                decision = Decision.reject_hard(Source.HOOK, gate.stop)
                break
            decision = self._verdict(current, assessment, index, batch, tool)
            if decision.edited_call is None:
                break
            current = decision.edited_call
        self._risks[current.id] = assessment.risk
        note = self.session.remember(decision.remember, decision.persist, decision.scope) \
            if decision.remember else None
        if decision.forbid:
            note = self.session.forbid(decision.forbid, decision.persist)
        view = tool.show(current, self.session.workspace) if tool is not None else None
        self.events.publish(CallDecided(current, decision, assessment, call, view))
        if note:
            self.events.publish(Notice(note))
        return decision, current, assessment

    def _post_tool_hooks(self, call: ToolCall, result: ToolResult) -> ToolResult:
        """PostToolUse: what the hooks add for the model; they never block (§7.2)."""
        assert self.session.hooks is not None
        added, notes = self.session.hooks.post_tool(call, result)
        for note in notes:
            self.events.publish(Notice(note))
        return replace(result, content=f"{result.content}\n{added}") if added else result

    def _pre_tool_hooks(self, call: ToolCall, assessment: Assessment) -> Gate | None:
        """The PreToolUse hooks' answer (§4.1 step 3), after escalation and deny rules."""
        hooks = self.session.hooks
        if not hooks or assessment.verdict in (Verdict.INVALID, Verdict.REJECT):
            return None
        gate = hooks.pre_tool(call)
        for note in gate.notes if gate else ():
            self.events.publish(Notice(note))
        return gate

    def _verdict(self, call: ToolCall, assessment: Assessment, index: int,
                 batch: tuple[ToolCall, ...], tool: Tool | None = None) -> Decision:
        verdict = assessment.verdict
        if verdict is Verdict.INVALID:
            return Decision.invalid(assessment.reason)
        if verdict is Verdict.REJECT:
            return Decision.reject_soft(assessment.source, assessment.reason, assessment.rule)
        approved = None
        if verdict is Verdict.ALLOW:
            approved = Decision.approve(assessment.source, assessment.rule)
        elif self.session.auto_budget > 0 and not assessment.forced:  # /auto N: step 7 only
            approved = Decision.approve(Source.AUTO_BUDGET)
        if approved is not None:
            question = self._sandbox_question(call, approved)
            if question is None:
                if approved.source is Source.AUTO_BUDGET:
                    self.session.auto_budget -= 1
                return approved
            if self.session.mode is not Mode.EVENT_BASED:  # only a person may lift the sandbox
                return Decision.reject_soft(Source.MODE, f"{question}, and "
                                            f"--{self.session.mode.value} asks nobody")
            assessment = replace(assessment, verdict=Verdict.ASK, reason=question)
        outside = self.session.sandbox.configured and call.name in SANDBOXED_TOOLS
        if self.session.hooks:  # Notification: an approval is waiting for the person
            for note in self.session.hooks.notify(f"saikish needs your permission to use "
                                                  f"{call.name}"):
                self.events.publish(Notice(note))
        return self.approver.ask(ApprovalRequest(
            call, assessment, index, batch, self.session.workspace, outside,
            tool=tool,
            always_note=self.session.always_note(assessment.proposed_rules),
            mode=self.session.mode, batch_tools=tuple(self.tools.get(c.name) for c in batch)))

    def _sandbox_question(self, call: ToolCall, approved: Decision) -> str | None:
        """Why a call nobody looked at must be asked after all: it cannot run inside (4.9)."""
        setup = self.session.sandbox
        if setup.sandbox is None or not runs_inside(call, approved):
            return None
        if wants_outside(call):
            return "the model asks to run this outside the sandbox"
        problem = setup.problem or setup.sandbox.ready()
        # Fails closed: with no working sandbox, a person decides whether it runs outside.
        return f"the sandbox cannot start ({problem})" if problem else None

    def _result(self, call: ToolCall, decision: Decision,
                original: ToolCall) -> ToolResult | None:
        """The call's result; None when the sandbox failed to start it (nothing ran)."""
        seen, decided = self._seen.pop(call.id, None), self._decided.pop(call.id, None)
        if decision.outcome is Outcome.APPROVED:
            result = self._run(call, decision, seen, decided)
            if result is None:
                return None
            if call != original:
                who = "A hook" if call.id in self._rewritten else "The person"
                note = (f"\n[{who} edited this call before it ran. It ran with arguments "
                        f"{_args(call)} instead of {_args(original)}.]")
                result = replace(result, content=result.content + note)
            return replace(result, call_id=original.id, name=call.name)
        return ToolResult(original.id, call.name, rejection_message(call, decision), True)

    def _state(self, call: ToolCall, tool: Tool | None) -> str | None:
        if tool is None or tool.state is None or call.raw_arguments is not None:
            return None
        try:
            return tool.state(call.arguments, self.session.workspace)
        except Exception:  # no state, no check: the call is still decided as usual
            return None

    def _run(self, call: ToolCall, decision: Decision, seen: str | None = None,
             decided: Tool | None = None) -> ToolResult | None:
        tool = decided or self.tools[call.name]
        sandbox = self.session.sandbox.sandbox if runs_inside(call, decision) else None
        context = replace(self.run_context, sandbox=sandbox, expected_state=seen,
                          confirm=lambda message, payload: self._confirm(call, message, payload),
                          progress=lambda text: self.events.publish(CallProgress(call, text)))
        self.events.publish(CallStarted(call))
        try:  # a snapshot first when nobody approved a call that can write (§4.10)
            with checkpointed(self.session.checkpoints, call, decision,
                              self._risks.pop(call.id, None), self.events.publish):
                output = tool.run(call.arguments, context)
        except Exception as exc:  # a tool's own bug must not end the session
            return ToolResult(call.id, call.name, f"{call.name} failed: {exc}", True)
        text = output.text
        if sandbox is not None:
            problem = sandbox.start_failure(text)
            if problem is not None:
                self.session.sandbox = self.session.sandbox.failed(problem)
                self.events.publish(Notice(f"the sandbox failed ({problem}); asking instead"))
                return None
            note = sandbox.explain_failure(text) if output.is_error else None
            text = f"{text}\n{note}" if note else text
        return ToolResult(call.id, call.name, text, output.is_error, output.images)

    def _confirm(self, call: ToolCall, message: str, payload: dict[str, Any]) -> bool:
        """`ctx.confirm` from a running tool: the same mode, approver and audit (§7.3)."""
        question = ToolCall(f"{call.id}:confirm", call.name, payload)
        risk = self.tools[call.name].risk(call.arguments, self.session.workspace)
        assessment = Assessment(Verdict.ASK, risk, Source.USER, message)
        if self.session.mode is Mode.AUTO_DENY:
            decision = Decision.reject_soft(Source.MODE, f"{message} (--auto-deny asks nobody)")
        elif self.session.mode is Mode.AUTO_APPROVE:
            decision = Decision.approve(Source.MODE)
        else:
            decision = self.approver.ask(ApprovalRequest(
                question, assessment, 0, (question,), self.session.workspace, message=message,
                tool=self.tools[call.name]))
        self.events.publish(CallDecided(question, decision, assessment, question))
        # Only a plain yes counts: an edit or an "always" rule cannot apply to a question.
        return decision.approved and decision.edited_call is None

    def _finish(self, outcome: BatchOutcome, call: ToolCall, decision: Decision,
                result: ToolResult, final_call: ToolCall | None = None,
                duration_s: float = 0.0) -> None:
        outcome.results.append(result)
        edited = final_call is not None and final_call != call
        outcome.records.append(CallRecord(call, decision, result, edited))
        self.events.publish(CallFinished(final_call or call, result, decision, duration_s))


def rejection_message(call: ToolCall, decision: Decision) -> str:
    """What the model is told about a call that did not run (docs/SPEC.md §6)."""
    source, feedback = decision.source, decision.feedback or ""
    if decision.outcome is Outcome.INVALID:
        return f"Invalid call of tool '{call.name}': {feedback}. Fix the call and try again."
    if decision.outcome is Outcome.REJECTED_HARD:
        if source is Source.NO_TTY:
            return f"Not run: {feedback}"
        if source is Source.TIMEOUT:
            return "Not run: nobody answered the approval prompt in time. " + STOPPED
        return STOPPED
    if source is Source.USER:
        return (f"User rejected tool '{call.name}'. Feedback: {feedback or '(none)'}\n"
                f"Do not retry the same call; ask the user how to proceed.")
    if source is Source.MODE:
        return (f"Not run: this run allows no such calls ({feedback}). Do not retry them; "
                f"finish your answer with what you can do without them.")
    if source is Source.ESCALATION:
        return f"Not run: {feedback}. Do not retry with another way to gain privileges."
    return f"Not run: {feedback}. Do not retry it."


def _args(call: ToolCall) -> str:
    return json.dumps(call.wire_arguments, ensure_ascii=False)
