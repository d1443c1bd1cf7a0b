"""The Approver behind `--remote`: every client and the terminal are asked; the first answers.

A remote answer is a person's answer (source `user`, `via: remote`), decided by the
same pipeline: nothing here decides policy, it only carries the question out and
the answer back. Without a terminal (`-p`), the question waits for a client until
the countdown ends, then it is a timeout, as in the box.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from saikish.remote.hub import TERMINAL, TIMEOUT, Hub, Question
from saikish.runtime.approval import ApprovalRequest, Approver
from saikish.types import Decision, Source


@dataclass
class RemoteApprover:
    """Asks the hub's clients, and `local` (the terminal) at the same time when there is one."""

    hub: Hub
    local: Approver | None
    timeout_s: float | None
    clock: Callable[[], float] = time.time

    def ask(self, request: ApprovalRequest) -> Decision:
        """The first answer: a client's, the terminal's, or the countdown's."""
        deadline = self.clock() + self.timeout_s if self.timeout_s else None
        question = self.hub.open(request, deadline)
        try:
            return self._first_answer(request, question, deadline)
        except BaseException:  # Ctrl-C, a signal: the question closes for the clients too
            self.hub.settle(question, Decision.reject_hard(Source.USER, "interrupted"),
                            TERMINAL)
            raise

    def _first_answer(self, request: ApprovalRequest, question: Question,
                      deadline: float | None) -> Decision:
        if self.local is not None:
            # The terminal asks until it answers or a client's answer withdraws the box;
            # either way the hub says which answer came first.
            answer = self.local.ask(replace(request, withdrawal=question.withdrawal))
            return self.hub.settle(question, answer, TERMINAL)
        seconds = None if deadline is None else max(0.0, deadline - self.clock())
        if question.answered.wait(seconds) and question.decision is not None:
            return question.decision
        return self.hub.settle(question, Decision.reject_hard(
            Source.TIMEOUT, f"no answer within {self.timeout_s:g}s: batch stopped"), TIMEOUT)
