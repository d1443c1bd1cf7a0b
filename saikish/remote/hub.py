"""Open questions and connected clients: the first answer wins (docs/SPEC.md §7.5).

The executor's thread opens a question and waits; client threads answer it. The
hub is the one place both meet, behind one lock: whoever settles a question first
decides it, everyone connected is told who did, and the others asking (the
terminal box) are withdrawn. Clients are outboxes that never block the caller.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from saikish import __version__
from saikish.events import CallDecided, CallFinished, Event
from saikish.remote.protocol import (
    ApprovalResponse,
    ProtocolError,
    SetAutonomy,
    answer_fields,
    decision_for,
    message,
    parse_client,
)
from saikish.remote.view import approval_needed
from saikish.runtime.approval import ApprovalRequest, Withdrawal
from saikish.runtime.session import Session
from saikish.store.audit import decision_entry, redact_text
from saikish.types import Autonomy, Decision, Source
from saikish.vocabulary import result_fields

# Answers to this many settled questions are told "already answered", older ones "unknown".
REMEMBERED = 256
WEB_PAGE = "answered from the web page"


class Outbox(Protocol):
    """A connected client, as the hub sees it: an id and a send that never blocks."""

    id: str

    def send(self, data: Mapping[str, Any]) -> None:
        """Queue one message for the client."""
        ...


@dataclass(frozen=True)
class Answerer:
    """Who settled a question: the terminal, a remote client, or the countdown."""

    channel: str  # terminal | remote | timeout
    client: str | None = None

    def wire(self) -> dict[str, Any]:
        """`answeredBy` in `approval_resolved`."""
        return {"channel": self.channel, "client": self.client}


TERMINAL, TIMEOUT = Answerer("terminal"), Answerer("timeout")


@dataclass
class Question:
    """One approval asked of everyone at once; `decision` is set once, by the first answer."""

    id: str
    request: ApprovalRequest
    needed: dict[str, Any]
    answered: threading.Event = field(default_factory=threading.Event)
    withdrawal: Withdrawal = field(default_factory=Withdrawal)
    decision: Decision | None = None


@dataclass
class Hub:
    """The session's questions, clients and audit trail, shared by every thread."""

    session: Session
    clock: Callable[[], float] = time.time
    audit: list[dict[str, Any]] = field(default_factory=list)
    clients: dict[str, Outbox] = field(default_factory=dict)
    questions: dict[str, Question] = field(default_factory=dict)
    settled: OrderedDict[str, Answerer] = field(default_factory=OrderedDict)
    lock: threading.RLock = field(default_factory=threading.RLock)

    def connect(self, client: Outbox) -> None:
        """Greet a new client: the session, then every question still open."""
        with self.lock:
            self.clients[client.id] = client
            client.send(message("session_started", sessionId=self.session.id,
                                clientId=client.id, workspace=self.session.workspace,
                                autonomy=self.session.autonomy.value,
                                mode=self.session.mode.value, version=__version__,
                                autonomyLevels=[a.value for a in Autonomy]))
            for question in self.questions.values():
                client.send(question.needed)

    def disconnect(self, client: Outbox) -> None:
        """Forget a client; its questions stay open for the others and the terminal."""
        with self.lock:
            self.clients.pop(client.id, None)

    def broadcast(self, data: Mapping[str, Any]) -> None:
        """Send `data` to every connected client."""
        with self.lock:
            for client in list(self.clients.values()):
                client.send(data)

    def open(self, request: ApprovalRequest, deadline: float | None) -> Question:
        """Ask every client about `request` (deadline: epoch seconds, None for none)."""
        question_id = uuid.uuid4().hex[:16]
        needed = approval_needed(request, question_id, self.session.id,
                                 None if deadline is None else int(deadline * 1000),
                                 int(self.clock() * 1000))
        question = Question(question_id, request, needed)
        with self.lock:
            self.questions[question_id] = question
            self.broadcast(needed)
        return question

    def settle(self, question: Question, decision: Decision, by: Answerer) -> Decision:
        """Decide `question` unless someone already did; returns the decision that won."""
        with self.lock:
            if question.decision is not None:
                return question.decision
            question.decision = decision
            self.questions.pop(question.id, None)
            self.settled[question.id] = by
            while len(self.settled) > REMEMBERED:
                self.settled.popitem(last=False)
            question.answered.set()
            if decision.source is Source.TIMEOUT:
                self.broadcast(message("approval_timeout", executionId=question.id))
            else:
                self.broadcast(message("approval_resolved", executionId=question.id,
                                       answeredBy=by.wire(), **answer_fields(decision)))
        if by.channel == "remote":
            question.withdrawal.withdraw(WEB_PAGE)  # the terminal box closes, saying so
        return decision

    def receive(self, client: Outbox, text: str) -> None:
        """One text frame from `client`: acted on, or answered with an `error` message."""
        try:
            parsed = parse_client(text)
            if isinstance(parsed, ApprovalResponse):
                self._answer(client, parsed)
            elif isinstance(parsed, SetAutonomy):
                self._set_autonomy(client, parsed.autonomy)
        except ProtocolError as error:
            client.send(error.wire())

    def _answer(self, client: Outbox, response: ApprovalResponse) -> None:
        with self.lock:
            question = self.questions.get(response.execution_id)
            if question is None:
                raise self._gone(response.execution_id)
            decision = decision_for(response, question.request)
            self.settle(question, decision, Answerer("remote", client.id))

    def _gone(self, execution_id: str) -> ProtocolError:
        by = self.settled.get(execution_id)
        if by is None:
            return ProtocolError("unknown_execution", f"no open question {execution_id!r}",
                                 execution_id)
        return ProtocolError("already_answered", f"already answered ({by.channel})",
                             execution_id)

    def _set_autonomy(self, client: Outbox, autonomy: Autonomy) -> None:
        with self.lock:
            self.session.autonomy = autonomy  # as /autonomy: the next decision uses it
            self.broadcast(message("autonomy_changed", autonomy=autonomy.value,
                                   changedBy={"channel": "remote", "client": client.id}))

    def publish(self, event: Event) -> None:
        """Event-stream subscriber: every decision as `audit_entry`, every result too."""
        if isinstance(event, CallDecided):
            entry = decision_entry(event.call, event.decision, event.assessment,
                                   session=self.session.id, now=self.clock(),
                                   workspace=self.session.workspace, edited=event.edited)
            with self.lock:
                self.audit.append(entry)
                self.broadcast(message("audit_entry", sessionId=self.session.id,
                                       entry=entry))
        elif isinstance(event, CallFinished):
            fields = result_fields(event.result)
            fields["excerpt"] = redact_text(fields["excerpt"])
            self.broadcast(message("call_finished", sessionId=self.session.id,
                                   callId=event.call.id, tool=event.call.name,
                                   outcome=event.decision.outcome.value,
                                   durationS=round(event.duration_s, 3), **fields))

    def entries(self) -> list[dict[str, Any]]:
        """The session's decisions so far (for GET /api/audit)."""
        with self.lock:
            return list(self.audit)

    def end(self, reason: str) -> None:
        """Tell every client the session is over."""
        self.broadcast(message("session_ended", sessionId=self.session.id, reason=reason))
