"""The approval seam (docs/SPEC.md §4.1 step 7, §7.2, §7.3): who is asked about a call.

An `Approver` answers one `ApprovalRequest` with a `Decision`. Everything here
is usable without a terminal: the terminal prompt (ui/approver.py), an
editor over ACP, or an embedding program are implementations. This module
imports only the vocabulary (types.py, the Tool type), never the executor, the
agent or ui/.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Protocol

from saikish.runtime.reasons import AskReason, ask_reasons
from saikish.tools.base import Tool
from saikish.types import Assessment, Decision, Mode, Outcome, Source, ToolCall
from saikish.view import Arguments, View

__all__ = [
    "NO_TTY", "ApprovalRequest", "Approver", "AskReason", "ConfirmHook", "ConfirmHooks",
    "DeadlineApprover", "Decision", "HookedApprover", "NoTerminalApprover", "Outcome", "Source",
    "Withdrawal",
]

NO_TTY = ("needs approval, but there is no terminal to ask. Run with --auto-approve or "
          "--auto-deny, or allow it in the allowlist (saikish allowlist add RULE).")
# Questions that only a person answers: no flag, rule or /auto does (docs/SPEC.md §4.8, §7.2).
PERSON_ONLY = {
    AskReason.RULE: "an ask rule is the wish to see every such call, so neither "
                    "--auto-approve nor an allow rule answers it",
    AskReason.HOOK: "a hook that asks wants a person to look, so --auto-approve does not "
                    "answer for them",
    AskReason.CHANGED: "a changed tool is approved again by a person only, never by "
                       "--auto-approve or a rule",
}


class Withdrawal:
    """A question that another front end may answer first: whoever still asks it stops.

    Thread-safe. `withdraw` is called from the thread that got the answer; each closer
    registered with `on_withdraw` runs once, at once when the question is already
    withdrawn. The reason ("answered from the web page") is what the asker shows.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._closers: list[Callable[[], None]] = []
        self.reason: str | None = None

    @property
    def withdrawn(self) -> bool:
        """True once someone else answered."""
        return self.reason is not None

    def withdraw(self, reason: str) -> None:
        """Tell the asker to stop; only the first call counts."""
        with self._lock:
            if self.reason is not None:
                return
            self.reason = reason
            closers, self._closers = self._closers, []
        for closer in closers:
            closer()

    def on_withdraw(self, closer: Callable[[], None]) -> Callable[[], None]:
        """Run `closer` when the question is withdrawn; returns a function that unregisters."""
        with self._lock:
            if self.reason is None:
                self._closers.append(closer)
                return lambda: self._discard(closer)
        closer()
        return lambda: None

    def _discard(self, closer: Callable[[], None]) -> None:
        with self._lock:
            if closer in self._closers:
                self._closers.remove(closer)


@dataclass(frozen=True)
class ApprovalRequest:
    """What an Approver is asked: one call, the policy's reasons, and the batch around it."""

    call: ToolCall
    assessment: Assessment
    index: int
    batch: tuple[ToolCall, ...]
    workspace: str
    # Approving runs the call outside the sandbox: the box says so (docs/SPEC.md §4.9).
    outside_sandbox: bool = False
    # A question a running tool asks through ctx.confirm (docs/SPEC.md §7.3), else "".
    message: str = ""
    # The tool called: how it shows itself (summary, editable argument, paths).
    tool: Tool | None = None
    # Where "Always (remember)" saves, said in the box before it is chosen (§4.5).
    always_note: str = ""
    # The session's mode when it was asked: under --auto-approve only a call that needs a
    # person reaches an approver (the contained tier was approved before it).
    mode: Mode = Mode.EVENT_BASED
    # Set when other front ends are asked the same question (docs/SPEC.md §7.5): the first
    # answer wins, and an approver that honours this stops asking once it is withdrawn.
    withdrawal: Withdrawal | None = None
    # The tool of each call of `batch` (None: not a known tool), to name the calls to come.
    batch_tools: tuple[Tool | None, ...] = ()

    @cached_property
    def view(self) -> View:
        """What the call will do, worked out once by its tool: every front end shows this."""
        if self.tool is None:
            return Arguments(self.call.wire_arguments, self.call.raw_arguments)
        return self.tool.show(self.call, self.workspace)

    def detail(self, index: int) -> str:
        """What names the batch's call `index` beside its tool's name, as its tool says
        ('npm test', 'x.txt'); '' when its tool is not known."""
        tool = self.batch_tools[index] if index < len(self.batch_tools) else None
        return tool.detail(self.batch[index].arguments) if tool is not None else ""

    @property
    def reasons(self) -> tuple[AskReason, ...]:
        """Why this call is asked, most serious first: what a program approving it weighs
        (`(AskReason.READS,)` alone is a plain read inside the workspace)."""
        return ask_reasons(self.call, self.assessment, self.workspace, self.tool, self.message)


class Approver(Protocol):
    """Asks the person about one call (docs/SPEC.md §4.1 step 7)."""

    def ask(self, request: ApprovalRequest) -> Decision:
        """The person's decision; Decision.edit(...) sends an edited call round again."""
        ...


class NoTerminalApprover:
    """Step 7 without a terminal: reject hard, naming the ways out (never reads stdin)."""

    def ask(self, request: ApprovalRequest) -> Decision:
        """Always a rejection: hard with source no_tty, saying what could answer instead;
        soft under --auto-approve for a call that needs a person (docs/SPEC.md §4.1)."""
        forced = next((r for r in request.reasons if r in PERSON_ONLY), None)
        if request.assessment.forced and forced is not None:
            why = PERSON_ONLY[forced]
            return Decision.reject_hard(Source.NO_TTY, f"{request.assessment.reason}: only a "
                                        f"person can approve it, in the REPL ({why})")
        if request.mode is Mode.AUTO_APPROVE and not request.assessment.forced:
            # The call needs a person (network, outside the workspace, git metadata...):
            # --auto-approve answers for what runs verified or contained, never for this.
            return Decision.reject_soft(Source.MODE, f"{request.assessment.reason}: it needs "
                                        f"a person, and --auto-approve approves only what "
                                        f"runs verified or contained; allow it with a rule "
                                        f"(--allow, saikish allowlist add) to run it unasked")
        return Decision.reject_hard(Source.NO_TTY, f"{request.call.name} {NO_TTY}")


@dataclass(frozen=True)
class DeadlineApprover:
    """Wraps an Approver: an answer slower than `seconds` becomes a timeout (hard reject).

    For approvers with no countdown of their own (an editor, a web UI): an
    unattended session must not wait for ever (docs/SPEC.md §5.2). At the
    deadline the question is withdrawn (`ApprovalRequest.withdrawal`), so an
    approver that honours it takes its question back (an editor's dialog); a
    late answer is ignored; the inner approver's thread is a daemon.
    """

    inner: Approver
    seconds: float

    def ask(self, request: ApprovalRequest) -> Decision:
        """The inner decision, or a timeout decision when none came in time."""
        answers: list[Decision] = []
        failures: list[BaseException] = []
        if request.withdrawal is None:
            request = replace(request, withdrawal=Withdrawal())
        asked = request

        def wait() -> None:
            try:
                answers.append(self.inner.ask(asked))
            except BaseException as exc:  # handed to the caller's thread below
                failures.append(exc)

        worker = threading.Thread(target=wait, daemon=True, name="approval-deadline")
        worker.start()
        worker.join(self.seconds)
        if failures:
            raise failures[0]
        if answers:
            return answers[0]
        assert asked.withdrawal is not None
        asked.withdrawal.withdraw(f"nobody answered within {self.seconds:g}s")
        return Decision.reject_hard(
            Source.TIMEOUT, f"no answer within {self.seconds:g}s: batch stopped")


ConfirmHook = Callable[[ApprovalRequest], "Decision | None"]


@dataclass(frozen=True)
class _Entry:
    priority: int
    order: int
    hook: ConfirmHook


@dataclass
class ConfirmHooks:
    """In-process confirmation hooks (docs/SPEC.md §7.2): the first with an opinion decides.

    Higher priority runs first; equal priorities run in the order they were added.
    """

    entries: list[_Entry] = field(default_factory=list)

    def add(self, hook: ConfirmHook, priority: int = 0) -> Callable[[], None]:
        """Register `hook`; returns a function that removes it again."""
        entry = _Entry(priority, len(self.entries), hook)
        self.entries.append(entry)
        self.entries.sort(key=lambda e: (-e.priority, e.order))
        return lambda: self.entries.remove(entry) if entry in self.entries else None

    def decide(self, request: ApprovalRequest) -> Decision | None:
        """The first hook's decision, or None when no hook has an opinion."""
        for entry in list(self.entries):
            try:
                decision = entry.hook(request)
            except Exception as exc:
                # Fails closed: a broken hook cannot say the call is safe, so it does not run.
                name = getattr(entry.hook, "__name__", type(entry.hook).__name__)
                return Decision.reject_soft(Source.HOOK, f"confirmation hook {name} failed: "
                                                         f"{type(exc).__name__}: {exc}")
            if decision is not None:
                return decision
        return None


@dataclass(frozen=True)
class HookedApprover:
    """An Approver that consults the confirmation hooks first, then `inner`."""

    hooks: ConfirmHooks
    inner: Approver

    def ask(self, request: ApprovalRequest) -> Decision:
        """The hooks' decision when one has an opinion, else the inner approver's."""
        decision = self.hooks.decide(request)
        return decision if decision is not None else self.inner.ask(request)
