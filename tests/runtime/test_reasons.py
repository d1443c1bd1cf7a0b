"""Why a call is asked, as kinds an approver in code can act on (docs/SPEC.md §7.3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from saikish import Agent, ApprovalRequest, AskReason, Decision, Source, ToolContext, tool
from saikish.engine.policy import Context, RuleSet, decide
from saikish.rules import parse_rule
from saikish.tools import builtin_tools
from saikish.types import Autonomy, Mode, ToolCall, Verdict
from tests.support.harness import write_script

R = AskReason


def request(call: ToolCall, workspace: Path, autonomy: Autonomy = Autonomy.CAUTIOUS,
            ask: tuple[str, ...] = ()) -> ApprovalRequest:
    rules = RuleSet(config_ask=tuple(parse_rule(r, "test") for r in ask))
    ctx = Context(builtin_tools(), rules, autonomy, Mode.EVENT_BASED, str(workspace))
    assessment = decide(call, ctx)
    assert assessment.verdict is Verdict.ASK, assessment
    return ApprovalRequest(call, assessment, 0, (call,), str(workspace))


def bash(command: str) -> ToolCall:
    return ToolCall("1", "bash", {"command": command})


ROWS = [
    # (call, autonomy, expected reasons, why)
    (ToolCall("1", "read_file", {"path": "/etc/hostname"}), Autonomy.CAUTIOUS,
     (R.READS_OUTSIDE,), "a read outside the workspace is not a plain read"),
    (ToolCall("1", "read_file", {"path": "/etc/shadow"}), Autonomy.CAUTIOUS,
     (R.SECRET,), "the system's password hashes are a secret"),
    (ToolCall("1", "read_file", {"path": ".env"}), Autonomy.CAUTIOUS, (R.SECRET,),
     "a secret inside the workspace is asked as a secret"),
    (ToolCall("1", "read_file", {"path": "notes.md"}), Autonomy.MANUAL, (R.READS,),
     "manual asks plain reads too"),
    (bash("cat /etc/hostname"), Autonomy.CAUTIOUS, (R.READS_OUTSIDE,), "cat's operand"),
    (bash("cat .env"), Autonomy.CAUTIOUS, (R.SECRET,), "cat of a secret file"),
    (bash("printenv"), Autonomy.CAUTIOUS, (R.SECRET,), "the environment holds keys"),
    (bash("ls"), Autonomy.MANUAL, (R.READS,), "manual: a plain read"),
    (bash("rm -r build"), Autonomy.CAUTIOUS, (R.DESTRUCTIVE,), "rm"),
    (bash("pytest -q"), Autonomy.CAUTIOUS, (R.EXEC,), "runs the project's code"),
    (bash("curl https://example.com"), Autonomy.CAUTIOUS, (R.NETWORK,), "curl"),
    (bash("touch a"), Autonomy.CAUTIOUS, (R.WRITES,), "a write in the workspace"),
    (bash("echo hi > out.txt"), Autonomy.CAUTIOUS, (R.WRITES,), "a redirection"),
    (bash("ls && cat ~/.ssh/id_rsa"), Autonomy.MANUAL, (R.SECRET,),
     "a plain read beside a secret is not plain"),
    (bash("frobnicate --all"), Autonomy.CAUTIOUS, (R.UNKNOWN,), "not in the catalogue"),
    (ToolCall("1", "write_file", {"path": "/etc/motd", "content": "x"}), Autonomy.CAUTIOUS,
     (R.DESTRUCTIVE,), "a write outside the workspace"),
]


@pytest.mark.parametrize(("call", "autonomy", "expected", "why"), ROWS,
                         ids=[row[3] for row in ROWS])
def test_reasons_of_a_question(call: ToolCall, autonomy: Autonomy,
                               expected: tuple[AskReason, ...], why: str, ws: Path) -> None:
    assert request(call, ws, autonomy).reasons == expected, why


def test_an_ask_rule_is_the_reason_before_the_risk(ws: Path) -> None:
    asked = request(bash("git push origin main"), ws, ask=("Bash(git push *)",))
    assert asked.reasons == (R.RULE, R.NETWORK)


class Recording:
    """An approver that keeps what it was asked, and says no."""

    def __init__(self) -> None:
        self.asked: list[ApprovalRequest] = []

    def ask(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return Decision.reject_soft(Source.USER, "no")


def test_a_hooks_question_reaches_the_approver_as_such(
        ws: Path, tmp_path: Path) -> None:
    from saikish.config.layers import load_config

    # A PreToolUse hook that asks about every bash call.
    config_file = tmp_path / "agent.yml"
    config_file.write_text(
        "hooks:\n  PreToolUse:\n    - matcher: bash\n      hooks:\n        - type: command\n"
        "          command: \"echo '{\\\"hookSpecificOutput\\\": {\\\"permissionDecision\\\": "
        "\\\"ask\\\", \\\"permissionDecisionReason\\\": \\\"look\\\"}}'\"\n", encoding="utf-8")
    approver = Recording()
    model = write_script(tmp_path / "s.yml",
                         "- tool_calls: [{name: bash, arguments: {command: ls}}]\n")
    agent = Agent.create(model, approver=approver, workspace=ws,
                         config=load_config(config_file))
    agent.send("go")
    assert [r.reasons for r in approver.asked] == [(R.HOOK,)]


def test_a_tools_own_question_is_a_question(ws: Path, tmp_path: Path) -> None:
    @tool(risk="read_only")
    def publish(ctx: ToolContext) -> str:
        """Publish the notes."""
        return "published" if ctx.confirm("Publish now?", payload={}) else "kept"

    approver = Recording()
    model = write_script(tmp_path / "s.yml", "- tool_calls: [{name: publish, arguments: {}}]\n")
    Agent.create(model, tools=[publish], approver=approver, workspace=ws).send("go")
    # Not a plain read, although the tool is read-only: the tool itself wants a person.
    assert [(r.message, r.reasons) for r in approver.asked] == [("Publish now?", (R.QUESTION,))]
