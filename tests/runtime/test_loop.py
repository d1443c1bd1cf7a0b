"""The tool loop (docs/SPEC.md §6), scripted approver: soft, hard, edited and "always" answers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from saikish.config.allowlist import Allowlist
from saikish.config.layers import Config
from saikish.models.base import ToolResults
from saikish.models.script import ScriptModel, parse_turns
from saikish.runtime.agent import Agent
from saikish.runtime.executor import ApprovalRequest, Executor
from saikish.runtime.session import Session
from saikish.tools import RunContext, builtin_tools
from saikish.types import Decision, Source

Answer = Callable[[ApprovalRequest], Decision]


@dataclass
class ScriptedApprover:
    """Answers each approval request with the next scripted answer; records the asks."""

    answers: list[Answer]
    asked: list[str] = field(default_factory=list)

    def ask(self, request: ApprovalRequest) -> Decision:
        self.asked.append(str(request.call.arguments.get("command")
                              or request.call.arguments.get("path")))
        return self.answers.pop(0)(request)


def agent_for(turns: list[object], answers: list[Answer], workspace: Path,
              allowlist: Allowlist | None = None) -> tuple[Agent, ScriptedApprover, Session]:
    session = Session(Config(), str(workspace), allowlist=allowlist)
    approver = ScriptedApprover(answers)
    tools = builtin_tools()
    executor = Executor(session, tools, approver, run_context=RunContext(str(workspace)))
    model = ScriptModel(parse_turns(turns, "test"))
    return Agent(model, executor, list(tools.values()), "sys"), approver, session


def bash(command: str) -> dict[str, object]:
    return {"name": "bash", "arguments": {"command": command}}


def results(agent: Agent) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for message in agent.messages:
        if isinstance(message, ToolResults):
            out.extend((r.call_id, r.content) for r in message.results)
    return out


def test_soft_rejection_skips_one_call_and_the_batch_goes_on(ws: Path) -> None:
    turns = [{"tool_calls": [bash("touch a"), bash("touch b")]}, {"text": "ok"}]
    agent, approver, _ = agent_for(turns, [
        lambda r: Decision.reject_soft(Source.USER, "not that file"),
        lambda r: Decision.approve(Source.USER)], ws)
    result = agent.send("go", lambda _: None)
    assert result.exit_reason == "finished"
    assert not (ws / "a").exists() and (ws / "b").exists()
    first = results(agent)[0][1]
    assert first.startswith("User rejected tool 'bash'. Feedback: not that file")
    assert "ask the user how to proceed" in first


def test_hard_rejection_answers_every_id_and_stops_the_loop(ws: Path) -> None:
    turns = [{"tool_calls": [bash("touch a"), bash("touch b"), bash("touch c")]},
             {"text": "never reached"}]
    agent, approver, _ = agent_for(turns, [
        lambda r: Decision.approve(Source.USER),
        lambda r: Decision.reject_hard(Source.USER, "stopped by the person")], ws)
    result = agent.send("go", lambda _: None)
    assert result.exit_reason == "stopped"
    assert [p.name for p in ws.iterdir()] == ["a"]
    ids = [call_id for call_id, _ in results(agent)]
    assert ids == ["call_1", "call_2", "call_3"]
    assert "stopped this batch" in results(agent)[2][1]
    assert approver.asked == ["touch a", "touch b"]  # call 3 was never shown
    assert agent.model.position == 1  # type: ignore[attr-defined]  # no further model call


def test_edited_call_runs_edited_and_the_model_is_told(ws: Path) -> None:
    turns = [{"tool_calls": [bash("touch wrong")]}, {"text": "ok"}]

    def edit(request: ApprovalRequest) -> Decision:
        return Decision.edit(request.call.with_arguments({"command": "touch right"}))

    agent, approver, _ = agent_for(turns, [edit, lambda r: Decision.approve(Source.USER)],
                                   ws)
    result = agent.send("go", lambda _: None)
    assert (ws / "right").exists() and not (ws / "wrong").exists()
    assert approver.asked == ["touch wrong", "touch right"]  # the edit is shown again
    assert "edited this call" in results(agent)[0][1] and "touch wrong" in results(agent)[0][1]
    assert result.records[0].edited and result.records[0].call.arguments["command"] == \
        "touch wrong"


def test_edit_into_escalation_is_still_rejected(ws: Path) -> None:
    turns = [{"tool_calls": [bash("touch a")]}, {"text": "ok"}]

    def edit(request: ApprovalRequest) -> Decision:
        return Decision.edit(request.call.with_arguments({"command": "sudo touch a"}))

    agent, approver, _ = agent_for(turns, [edit], ws)
    result = agent.send("go", lambda _: None)
    assert result.records[0].decision.source is Source.ESCALATION
    assert not (ws / "a").exists()


def test_always_for_call_one_covers_call_three(ws: Path) -> None:
    turns = [{"tool_calls": [bash("touch a"), bash("ls"), bash("touch c")]}, {"text": "ok"}]
    allowlist = Allowlist(ws.parent / "config" / "allowlist.yaml")
    agent, approver, _ = agent_for(
        turns, [lambda r: Decision.always(r.assessment.proposed_rules, persist=True)],
        ws, allowlist)
    result = agent.send("go", lambda _: None)
    assert approver.asked == ["touch a"]
    assert [r.decision.source for r in result.records] == [Source.USER, Source.AUTONOMY,
                                                           Source.RULE]
    assert "Bash(touch *)" in allowlist.path.read_text()


def test_always_session_keeps_the_rule_in_memory(ws: Path) -> None:
    turns = [{"tool_calls": [bash("touch a"), bash("touch c")]}, {"text": "ok"}]
    agent, approver, session = agent_for(
        turns, [lambda r: Decision.always(r.assessment.proposed_rules, persist=False)], ws)
    result = agent.send("go", lambda _: None)
    assert approver.asked == ["touch a"]
    assert result.records[1].decision.source is Source.SESSION
    assert [r.text for r in session.session_rules] == ["Bash(touch *)"]


def test_auto_budget_approves_only_calls_that_would_ask(ws: Path) -> None:
    turns = [{"tool_calls": [bash("ls"), bash("touch a"), bash("sudo id"), bash("touch b")]},
             {"text": "ok"}]
    agent, approver, session = agent_for(turns, [lambda r: Decision.reject_soft(Source.USER)],
                                         ws)
    session.auto_budget = 1
    result = agent.send("go", lambda _: None)
    sources = [r.decision.source for r in result.records]
    assert sources == [Source.AUTONOMY, Source.AUTO_BUDGET, Source.ESCALATION, Source.USER]
    assert session.auto_budget == 0


def test_auto_budget_never_answers_an_ask_rule(ws: Path) -> None:
    from saikish.rules import parse_rule

    turns = [{"tool_calls": [bash("git push origin main"), bash("touch a")]}, {"text": "ok"}]
    agent, approver, session = agent_for(turns, [lambda r: Decision.reject_soft(Source.USER)],
                                         ws)
    session.config = Config(ask=(parse_rule("Bash(git push *)"),))
    session.auto_budget = 2
    result = agent.send("go", lambda _: None)
    sources = [r.decision.source for r in result.records]
    assert sources == [Source.USER, Source.AUTO_BUDGET]  # the ask rule went to the person
    assert approver.asked == ["git push origin main"] and session.auto_budget == 1


def test_invalid_calls_get_error_results_and_the_loop_goes_on(ws: Path) -> None:
    turns = [{"tool_calls": [{"name": "nope", "arguments": {}},
                             {"name": "read_file", "arguments": "{bad"},
                             {"name": "read_file", "arguments": {"path": 1}}]},
             {"text": "recovered"}]
    agent, _, _ = agent_for(turns, [], ws)
    result = agent.send("go", lambda _: None)
    assert result.text == "recovered"
    texts = [content for _, content in results(agent)]
    assert "unknown tool 'nope'" in texts[0]
    assert "not a valid JSON object" in texts[1]
    assert "argument 'path' must be string" in texts[2]


def test_hand_edit_of_the_allowlist_applies_to_the_next_call(ws: Path) -> None:
    path = ws.parent / "allowlist.yaml"
    turns = [{"tool_calls": [bash("touch a"), bash("touch b")]}, {"text": "ok"}]

    def approve_then_edit_file(request: ApprovalRequest) -> Decision:
        path.write_text("# mine\nallow:\n  - Bash(touch b)\n")
        return Decision.approve(Source.USER)

    agent, approver, _ = agent_for(turns, [approve_then_edit_file], ws, Allowlist(path))
    result = agent.send("go", lambda _: None)
    assert approver.asked == ["touch a"]
    assert result.records[1].decision.rule == "Bash(touch b)"
