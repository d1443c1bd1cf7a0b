"""The editor as the one who is asked (docs/SPEC.md §7.4): `session/request_permission`,
its options and what each answer means; a question the countdown ends is withdrawn."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from saikish.acp.history import tool_text
from saikish.acp.jsonrpc import REQUEST_CANCELLED, Connection, RpcError
from saikish.rules import rule_texts
from saikish.runtime.approval import ApprovalRequest
from saikish.types import Decision, Source


@dataclass
class EditorApprover:
    """Asks the editor with session/request_permission (options map onto Decisions)."""

    connection: Connection
    session_id: str = ""  # set once the session's id is known
    cancelled: threading.Event = field(default_factory=threading.Event)

    def ask(self, request: ApprovalRequest) -> Decision:
        """The editor's answer; a cancelled prompt or a closed editor stops the batch.

        When the question is withdrawn (the countdown ran out) the editor is told with
        `$/cancel_request`, so its dialog closes instead of answering nobody.
        """
        if self.cancelled.is_set():
            return Decision.reject_hard(Source.USER, "the prompt was cancelled in the editor")
        pending = self.connection.begin("session/request_permission", {
            "sessionId": self.session_id, "toolCall": _permission_call(request),
            "options": _options(request)})
        withdrawal = request.withdrawal
        forget = withdrawal.on_withdraw(pending.withdraw) if withdrawal else (lambda: None)
        try:
            answer = pending.wait()
        except RpcError as exc:  # fails closed: an editor that cannot answer did not say yes
            if exc.code == REQUEST_CANCELLED:
                return Decision.reject_hard(Source.TIMEOUT, "the question was withdrawn")
            return Decision.reject_hard(Source.USER, f"the editor failed to answer: {exc}")
        finally:
            forget()
        return decision_for(answer, request)


def decision_for(answer: Mapping[str, Any] | None, request: ApprovalRequest) -> Decision:
    """ACP's answer -> a Decision: allow_once / allow_always / reject_once / reject_always."""
    outcome = (answer or {}).get("outcome") or {}
    meta = _meta(answer) | _meta(outcome)
    if outcome.get("outcome") != "selected":
        return Decision.reject_hard(Source.USER, "the editor cancelled the question")
    option = outcome.get("optionId")
    edited = meta.get("arguments")
    if option in ("allow_once", "allow_always") and isinstance(edited, dict):
        return Decision.edit(request.call.with_arguments(edited))
    if option == "allow_once":
        return Decision.approve(Source.USER)
    if option == "allow_always" and request.assessment.proposed_rules:
        return Decision.always(request.assessment.proposed_rules, persist=True)
    if option == "allow_always":
        return Decision.approve(Source.USER)
    if option == "reject_once":
        feedback = meta.get("feedback")
        return Decision.reject_soft(Source.USER, str(feedback) if feedback else None)
    if option == "reject_always" and request.assessment.proposed_rules:
        return Decision.never(request.assessment.proposed_rules, persist=True)
    return Decision.reject_hard(Source.USER, "stopped in the editor")  # no rule, or unknown


def _meta(value: Any) -> dict[str, Any]:
    """Our keys in an ACP `_meta` object: {"_meta": {"saikish": {"feedback", "arguments"}}}."""
    meta = value.get("_meta") if isinstance(value, Mapping) else None
    ours = meta.get("saikish") if isinstance(meta, Mapping) else None
    return dict(ours) if isinstance(ours, Mapping) else {}


def _options(request: ApprovalRequest) -> list[dict[str, str]]:
    rules = rule_texts(request.assessment.proposed_rules)
    options = [{"optionId": "allow_once", "name": "Yes", "kind": "allow_once"}]
    if rules:
        options.append({"optionId": "allow_always", "name": f"Always: {rules}",
                        "kind": "allow_always"})
    options.append({"optionId": "reject_once", "name": "No, tell it why",
                    "kind": "reject_once"})
    # "Reject always" rejects and remembers: the rule "Always" would add becomes a deny rule.
    # A call no rule can name has no such choice; its last choice stops the batch.
    options.append({"optionId": "reject_always", "kind": "reject_always",
                    "name": f"Never: {rules}" if rules else "No, stop"})
    return options


def _permission_call(request: ApprovalRequest) -> dict[str, Any]:
    reason = request.message or request.assessment.reason
    if request.outside_sandbox:
        reason += " (runs outside the sandbox)"
    return {"toolCallId": request.call.id, "title": f"{request.call.name}: {reason}",
            "rawInput": request.call.wire_arguments,
            "content": [tool_text(f"{reason}\nrisk: {request.assessment.risk.name}")],
            "_meta": {"saikish": {
                "risk": request.assessment.risk.name, "reason": reason,
                "proposedRules": [r.text for r in request.assessment.proposed_rules]}}}
