"""Protocol v1 of the remote approval channel (docs/remote.md) as values. Pure.

Every message is a JSON object with `"v": 1` and a `type`. What a client sends is
parsed into a frozen value here, or refused with a ProtocolError the server sends
back as an `error` message; a response becomes the same Decision the terminal
would make, marked `via="remote"` for the audit line.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from saikish.errors import RuleError
from saikish.rules import parse_rule
from saikish.runtime.approval import ApprovalRequest
from saikish.types import Autonomy, Decision, Outcome, Scope, Source

VERSION = 1
REMOTE = "remote"  # Decision.via of an answer from the web page
STOPPED_REMOTELY = "stopped from the web page"


class AnswerScope(enum.Enum):
    """How far an approval reaches: this call, or a rule kept for the session or saved."""

    ONCE = "once"
    SESSION = "session"
    PROJECT = "project"
    GLOBAL = "global"


class RejectMode(enum.Enum):
    """What a "no" does: skip this call (soft), or stop the batch (hard)."""

    SOFT = "reject_soft"
    HARD = "reject_hard"


class ProtocolError(Exception):
    """A message the server cannot act on; the client gets it as an `error` message."""

    def __init__(self, code: str, message: str, execution_id: str | None = None) -> None:
        super().__init__(message)
        self.code, self.message, self.execution_id = code, message, execution_id

    def wire(self) -> dict[str, Any]:
        """The `error` message."""
        return message("error", code=self.code, message=self.message,
                       executionId=self.execution_id)


@dataclass(frozen=True)
class ApprovalResponse:
    """client -> server: a person's answer to one `approval_needed`."""

    execution_id: str
    approved: bool
    scope: AnswerScope = AnswerScope.ONCE
    mode: RejectMode = RejectMode.HARD
    feedback: str | None = None
    # The edited call's arguments: decided and asked again, as an edit in the box is.
    arguments: Mapping[str, Any] | None = None
    # The rules "always" keeps, as the person edited them; None keeps the proposed ones.
    rules: tuple[str, ...] | None = None


@dataclass(frozen=True)
class SetAutonomy:
    """client -> server: change the session's autonomy level (as /autonomy does)."""

    autonomy: Autonomy


ClientMessage = ApprovalResponse | SetAutonomy


def message(kind: str, **fields: Any) -> dict[str, Any]:
    """A server message: the version, the type, then its fields."""
    return {"v": VERSION, "type": kind, **fields}


def parse_client(text: str) -> ClientMessage:
    """One text frame from a client; ProtocolError says what is wrong with it."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ProtocolError("malformed_json", f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise ProtocolError("bad_message", "a message is a JSON object")
    if data.get("v") != VERSION:
        raise ProtocolError("unsupported_version",
                            f"this server speaks protocol version {VERSION}: send \"v\": 1")
    kind = data.get("type")
    if kind == "approval_response":
        return _response(data)
    if kind == "set_autonomy":
        return SetAutonomy(_enum(Autonomy, data.get("autonomy"), "autonomy", None))
    raise ProtocolError("unknown_type", f"unknown message type {kind!r}: a client sends "
                                        f"approval_response or set_autonomy")


def _response(data: Mapping[str, Any]) -> ApprovalResponse:
    execution_id = data.get("executionId")
    if not isinstance(execution_id, str) or not execution_id:
        raise ProtocolError("bad_message", "approval_response needs executionId, a string")
    approved = data.get("approved")
    if not isinstance(approved, bool):
        raise ProtocolError("bad_message", "approval_response needs approved: true or false",
                            execution_id)
    feedback, arguments, rule = data.get("feedback"), data.get("arguments"), data.get("rule")
    if feedback is not None and not isinstance(feedback, str):
        raise ProtocolError("bad_message", "feedback must be a string", execution_id)
    if arguments is not None and not isinstance(arguments, dict):
        raise ProtocolError("bad_arguments", "arguments must be a JSON object", execution_id)
    return ApprovalResponse(
        execution_id, approved,
        _enum(AnswerScope, data.get("scope", "once"), "scope", execution_id),
        _enum(RejectMode, data.get("mode", "reject_hard"), "mode", execution_id),
        (feedback or "").strip() or None, arguments,
        _rules(rule, execution_id))


def _enum(kind: type[enum.Enum], value: Any, key: str, execution_id: str | None) -> Any:
    try:
        return kind(value)
    except ValueError:
        allowed = " | ".join(str(member.value) for member in kind)
        raise ProtocolError("bad_message", f"{key} must be one of {allowed}, not {value!r}",
                            execution_id) from None


def _rules(value: Any, execution_id: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    rules = [value] if isinstance(value, str) else value
    if not isinstance(rules, list) or not all(isinstance(r, str) for r in rules):
        raise ProtocolError("bad_rule", "rule must be a string or a list of strings",
                            execution_id)
    return tuple(r.strip() for r in rules if r.strip())


def decision_for(response: ApprovalResponse, request: ApprovalRequest) -> Decision:
    """The Decision the terminal would make for the same answer (docs/SPEC.md §5.2)."""
    decision = _decision(response, request)
    return replace(decision, via=REMOTE)


def _decision(response: ApprovalResponse, request: ApprovalRequest) -> Decision:
    execution_id = response.execution_id
    if not response.approved:
        if response.mode is RejectMode.SOFT:
            return Decision.reject_soft(Source.USER, response.feedback)
        return Decision.reject_hard(Source.USER, response.feedback or STOPPED_REMOTELY)
    if response.arguments is not None:
        if request.message:
            raise ProtocolError("not_offered", "a tool's own question cannot be edited",
                                execution_id)
        return Decision.edit(request.call.with_arguments(response.arguments))
    if response.scope is AnswerScope.ONCE:
        return Decision.approve(Source.USER)
    proposed = request.assessment.proposed_rules
    if not proposed:  # as in the box: "always" is offered only where a rule can cover it
        raise ProtocolError("not_offered", "always is not offered for this call: no rule can "
                                           "cover it", execution_id)
    try:  # the person's own rules, edited on the page, are read as the box reads them
        rules = proposed if response.rules is None else tuple(
            parse_rule(text, "your rule") for text in response.rules)
    except RuleError as exc:
        raise ProtocolError("bad_rule", str(exc), execution_id) from None
    if not rules:  # every rule dropped, as an emptied rule line does
        return Decision.approve(Source.USER)
    persist = response.scope in (AnswerScope.PROJECT, AnswerScope.GLOBAL)
    scope = Scope.GLOBAL if response.scope is AnswerScope.GLOBAL else Scope.PROJECT
    return Decision.always(rules, persist=persist, scope=scope)


def answer_scope(decision: Decision) -> str | None:
    """once | session | project | global for an approval; None for a rejection."""
    if decision.outcome is not Outcome.APPROVED:
        return None
    if not decision.remember:
        return AnswerScope.ONCE.value
    return decision.scope.value if decision.persist else AnswerScope.SESSION.value


def answer_fields(decision: Decision) -> dict[str, Any]:
    """What was answered, for `approval_resolved`."""
    return {"outcome": decision.outcome.value, "source": decision.source.value,
            "scope": answer_scope(decision), "rules": [r.text for r in decision.remember],
            "edited": decision.edited_call is not None, "feedback": decision.feedback}
