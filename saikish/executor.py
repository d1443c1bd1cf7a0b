"""One batch of tool calls, in order: validate -> decide -> ask -> run (docs/SPEC.md §4.1, §6)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from saikish.policy import decide
from saikish.session import Session
from saikish.tools.base import RunContext, Tool
from saikish.types import Assessment, Decision, Outcome, Source, ToolCall, ToolResult, Verdict

STOPPED = "Not run: the person stopped this batch of tool calls. Wait for their next message."
INTERRUPTED = "Interrupted by the person (Ctrl-C); the command was killed. Wait for them."
NO_TTY = ("needs approval, but there is no terminal to ask. Run with --auto-approve or "
          "--auto-deny, or allow it in the allowlist (saikish allowlist add RULE).")


@dataclass(frozen=True)
class ApprovalRequest:
    """What an Approver is asked: one call, the policy's reasons, and the batch around it."""

    call: ToolCall
    assessment: Assessment
    index: int
    batch: tuple[ToolCall, ...]
    workspace: str


class Approver(Protocol):
    """Asks the person about one call (docs/SPEC.md §4.1 step 7)."""

    def ask(self, request: ApprovalRequest) -> Decision:
        """The person's decision; Decision.edit(...) sends an edited call round again."""
        ...


class Reporter(Protocol):
    """Shows what the executor does; the terminal prints, tests record."""

    def decided(self, call: ToolCall, decision: Decision, assessment: Assessment | None) -> None:
        """A call was decided (also when nobody was asked)."""

    def ran(self, call: ToolCall, result: ToolResult) -> None:
        """A call ran and produced `result`."""

    def note(self, text: str) -> None:
        """A one-line remark (e.g. where an "always" rule was saved)."""


class SilentReporter:
    """A Reporter that shows nothing."""

    def decided(self, call: ToolCall, decision: Decision, assessment: Assessment | None) -> None:
        """Nothing."""

    def ran(self, call: ToolCall, result: ToolResult) -> None:
        """Nothing."""

    def note(self, text: str) -> None:
        """Nothing."""


class NoTerminalApprover:
    """Step 7 without a terminal: reject hard, naming the ways out (never reads stdin)."""

    def ask(self, request: ApprovalRequest) -> Decision:
        """Always a hard rejection with source no_tty."""
        return Decision.reject_hard(Source.NO_TTY, f"{request.call.name} {NO_TTY}")


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


class Executor:
    """Takes a batch in order, one decision per call, re-evaluated for every call."""

    def __init__(self, session: Session, tools: Mapping[str, Tool], approver: Approver,
                 reporter: Reporter | None = None, run_context: RunContext | None = None) -> None:
        self.session, self.tools, self.approver = session, tools, approver
        self.reporter = reporter or SilentReporter()
        self.run_context = run_context or RunContext(session.workspace)

    def run_batch(self, calls: Sequence[ToolCall]) -> BatchOutcome:
        """Decide and run every call; after a hard rejection the rest only get results."""
        outcome = BatchOutcome()
        batch = tuple(calls)
        for index, call in enumerate(batch):
            if outcome.stopped:
                self._finish(outcome, call, Decision.reject_hard(Source.USER, STOPPED),
                             ToolResult(call.id, call.name, STOPPED, True))
                continue
            decision, final_call, assessment = self._decide(call, index, batch)
            try:
                result = self._result(final_call, decision, original=call)
            except KeyboardInterrupt:  # Ctrl-C killed the command: stop, but answer every id
                result = ToolResult(call.id, final_call.name, INTERRUPTED, True)
                decision = Decision.reject_hard(Source.USER, "interrupted by the person")
            self._finish(outcome, call, decision, result, final_call)
            if decision.outcome is Outcome.REJECTED_HARD:
                outcome.stopped = True
                outcome.stop_reason = decision.feedback or "stopped by the person"
        return outcome

    def _decide(self, call: ToolCall, index: int,
                batch: tuple[ToolCall, ...]) -> tuple[Decision, ToolCall, Assessment]:
        """The decision for `call`, following the person's edits through the pipeline."""
        current = call
        while True:
            assessment = decide(current, self.session.context(self.tools))
            decision = self._verdict(current, assessment, index, batch)
            if decision.edited_call is None:
                break
            current = decision.edited_call
        if decision.remember:
            self.reporter.note(self.session.remember(decision.remember, decision.persist))
        if self.session.audit:
            self.session.audit.record(current, decision, assessment, edited=current != call)
        self.reporter.decided(current, decision, assessment)
        return decision, current, assessment

    def _verdict(self, call: ToolCall, assessment: Assessment, index: int,
                 batch: tuple[ToolCall, ...]) -> Decision:
        verdict = assessment.verdict
        if verdict is Verdict.INVALID:
            return Decision.invalid(assessment.reason)
        if verdict is Verdict.ALLOW:
            return Decision.approve(assessment.source, assessment.rule)
        if verdict is Verdict.REJECT:
            return Decision.reject_soft(assessment.source, assessment.reason, assessment.rule)
        if self.session.auto_budget > 0:  # /auto N: only calls that reach step 7
            self.session.auto_budget -= 1
            return Decision.approve(Source.AUTO_BUDGET)
        return self.approver.ask(ApprovalRequest(call, assessment, index, batch,
                                                 self.session.workspace))

    def _result(self, call: ToolCall, decision: Decision, original: ToolCall) -> ToolResult:
        if decision.outcome is Outcome.APPROVED:
            result = self._run(call)
            if call != original:
                note = (f"\n[The person edited this call before it ran. It ran with arguments "
                        f"{_args(call)} instead of {_args(original)}.]")
                result = ToolResult(result.call_id, result.name, result.content + note,
                                    result.is_error)
            return ToolResult(original.id, call.name, result.content, result.is_error)
        return ToolResult(original.id, call.name, rejection_message(call, decision), True)

    def _run(self, call: ToolCall) -> ToolResult:
        tool = self.tools[call.name]
        try:
            output = tool.run(call.arguments, self.run_context)
        except Exception as exc:  # a tool's own bug must not end the session
            return ToolResult(call.id, call.name, f"{call.name} failed: {exc}", True)
        return ToolResult(call.id, call.name, output.text, output.is_error)

    def _finish(self, outcome: BatchOutcome, call: ToolCall, decision: Decision,
                result: ToolResult, final_call: ToolCall | None = None) -> None:
        outcome.results.append(result)
        edited = final_call is not None and final_call != call
        outcome.records.append(CallRecord(call, decision, result, edited))
        if decision.approved:
            self.reporter.ran(final_call or call, result)


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
