"""An ApprovalRequest as the web page shows it: the `approval_needed` message (docs/remote.md).

The same facts as the terminal box (docs/SPEC.md §5.1): the call, each part with
its risk and why it is asked, the proposed rule, the diff of a file change, the
calls of the batch still waiting, the countdown. Values only: the page inserts
every string as text.
"""

from __future__ import annotations

from typing import Any

from saikish.remote.protocol import message
from saikish.runtime.approval import ApprovalRequest
from saikish.types import CommandCheck
from saikish.view import FileChange, View
from saikish.vocabulary import file_change_fields


def approval_needed(request: ApprovalRequest, execution_id: str, session_id: str,
                    deadline_ms: int | None, now_ms: int) -> dict[str, Any]:
    """The `approval_needed` message for one question."""
    call, assessment, tool = request.call, request.assessment, request.tool
    return message(
        "approval_needed", executionId=execution_id, sessionId=session_id, callId=call.id,
        tool=call.name, summary=tool.summary(call.arguments) if tool else call.name,
        arguments=call.wire_arguments, editable=tool.editable_argument if tool else None,
        risk=assessment.risk.name, level=assessment.risk.level.name,
        tier=assessment.tier.value, reason=assessment.reason,
        question=request.message or None,
        about=[list(pair) for pair in tool.about] if tool else [],
        parts=[part(check) for check in assessment.commands],
        proposedRules=[rule.text for rule in assessment.proposed_rules],
        alwaysNote=request.always_note or None,
        outsideSandbox=request.outside_sandbox, onlyPerson=assessment.forced,
        diff=file_change(request.view),
        batch={"index": request.index, "total": len(request.batch)},
        batch_remaining=[{"callId": request.batch[i].id, "tool": request.batch[i].name,
                          "summary": _summary(request.detail(i))}
                         for i in range(request.index + 1, len(request.batch))],
        deadline=deadline_ms, timestamp=now_ms)


def part(check: CommandCheck) -> dict[str, Any]:
    """One simple command of a bash call: its risk and why it runs or is asked."""
    text = check.text  # a file part says what it does to it: "> f", "writes f", "reads f"
    if check.allowed_by:
        reason = f"allowed by {check.allowed_by}"
    elif check.auto:
        reason = "allowed by the autonomy level"
    else:
        reason = "needs approval" + (f": {check.caveat}" if check.caveat else "")
    return {"text": text, "risk": check.risk.name, "level": check.risk.level.name,
            "permitted": check.permitted, "reason": reason}


def file_change(view: View) -> dict[str, Any] | None:
    """A call that changes a file, as its tool works the change out: the path, what kind
    of change, and the unified diff (a change that will fail: what it asked for), in the
    words json output uses (saikish/vocabulary.py)."""
    if not isinstance(view, FileChange) or not view.path:
        return None
    return file_change_fields(view)


def _summary(detail: str) -> str:
    text = detail.replace("\n", " ⏎ ")
    return text if len(text) <= 120 else text[:119] + "…"
