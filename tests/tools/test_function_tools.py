"""Tools from plain functions (docs/SPEC.md §7.3): schema, declarative and dynamic confirmation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pytest

from saikish import (
    Agent,
    ApprovalRequest,
    CallDecided,
    CallFinished,
    Decision,
    Source,
    ToolContext,
    Toolset,
    tool,
)
from saikish.config.layers import Config
from saikish.models.script import ScriptModel, parse_turns
from saikish.runtime.session import Session
from saikish.store.audit import AuditLog, read_tail
from saikish.tools.base import validate
from saikish.types import Autonomy, Mode, Risk


@dataclass
class ScriptedApprover:
    """Answers each request with the next scripted answer; records what it was asked."""

    answers: list[Callable[[ApprovalRequest], Decision]]
    asked: list[ApprovalRequest] = field(default_factory=list)

    def ask(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return self.answers.pop(0)(request)


def yes(_: ApprovalRequest) -> Decision:
    return Decision.approve(Source.USER)


def no(_: ApprovalRequest) -> Decision:
    return Decision.reject_soft(Source.USER, "not now")


def calls(*pairs: tuple[str, dict[str, object]]) -> ScriptModel:
    turn = {"tool_calls": [{"name": n, "arguments": a} for n, a in pairs]}
    return ScriptModel(parse_turns([turn, {"text": "done"}], "test"))


def results(agent: Agent) -> list[str]:
    return [e.result.content for e in agent.events() if isinstance(e, CallFinished)]


@tool(risk="read_only")
def word_count(path: str, ctx: ToolContext) -> str:
    """Count the words in a file.

    Args:
        path: the file, relative to the workspace
    """
    return str(len((Path(ctx.workspace) / path).read_text(encoding="utf-8").split()))


@tool(requires_confirmation=True)
def deploy(env: Literal["staging", "prod"], ctx: ToolContext, dry_run: bool = False) -> str:
    """Deploy the site."""
    if env == "prod" and not ctx.confirm("Deploy to prod?", payload={"env": env}):
        return "not deployed"
    return f"deployed to {env}"


def test_schema_comes_from_signature_hints_and_docstring() -> None:
    assert word_count.name == "word_count"
    assert word_count.description == "Count the words in a file."
    assert word_count.schema == {
        "type": "object", "additionalProperties": False, "required": ["path"],
        "properties": {"path": {"type": "string",
                                "description": "the file, relative to the workspace"}}}
    assert deploy.schema["properties"] == {"env": {"enum": ["staging", "prod"]},
                                           "dry_run": {"type": "boolean", "default": False}}
    assert deploy.schema["required"] == ["env"]


@pytest.mark.parametrize(("hint", "schema"), [
    (int, {"type": "integer"}),
    (float, {"type": "number"}),
    (list[str], {"type": "array", "items": {"type": "string"}}),
    (dict[str, int], {"type": "object"}),
    (str | None, {"type": ["string", "null"]}),
    (int | str, {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
])
def test_type_hints_map_to_json_schema(hint: object, schema: dict[str, object]) -> None:
    from saikish.tools.function import json_type

    assert json_type(hint) == schema


def test_bad_arguments_are_invalid_calls_by_the_generated_schema() -> None:
    assert validate(word_count.schema, {"path": 3}) == "argument 'path' must be string, not int"
    assert "unknown argument 'mode'" in (validate(word_count.schema,
                                                  {"path": "a", "mode": "x"}) or "")


def test_unknown_risk_name_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="unknown risk 'harmless'; use one of read_only"):
        tool(risk="harmless")(lambda: "x")


def test_read_only_tool_runs_without_asking_under_cautious(ws: Path) -> None:
    (ws / "README.md").write_text("one two three\n", encoding="utf-8")
    approver = ScriptedApprover([])
    agent = Agent.create(calls(("word_count", {"path": "README.md"})), [word_count], approver,
                         ws)
    agent.send("count")
    assert results(agent) == ["3"] and approver.asked == []


def test_requires_confirmation_asks_even_where_autonomy_would_allow(ws: Path) -> None:
    approver = ScriptedApprover([no])
    agent = Agent.create(calls(("deploy", {"env": "staging"})), [deploy], approver, ws,
                         autonomy=Autonomy.FULL_AUTO)
    agent.send("ship it")
    assert [r.call.name for r in approver.asked] == ["deploy"]
    assert results(agent)[0].startswith("User rejected tool 'deploy'. Feedback: not now")


def test_a_toolset_marks_every_tool_in_it(ws: Path) -> None:
    approver = ScriptedApprover([yes])
    agent = Agent.create(calls(("word_count", {"path": "x"})),
                         [Toolset([word_count], requires_confirmation=True)], approver, ws)
    (ws / "x").write_text("a b\n", encoding="utf-8")
    agent.send("count")
    assert len(approver.asked) == 1 and results(agent) == ["2"]


def test_two_tools_with_one_name_are_refused(ws: Path) -> None:
    with pytest.raises(ValueError, match="two tools are named 'word_count'"):
        Agent.create(calls(), [word_count, word_count], workspace=ws)


def test_ctx_confirm_asks_the_approver_with_the_message_and_payload(ws: Path) -> None:
    approver = ScriptedApprover([yes, yes])  # the call itself, then the question inside it
    agent = Agent.create(calls(("deploy", {"env": "prod"})), [deploy], approver, ws)
    agent.send("ship it")
    question = approver.asked[1]
    assert (question.message, dict(question.call.arguments)) == ("Deploy to prod?",
                                                                 {"env": "prod"})
    assert question.assessment.reason == "Deploy to prod?"
    assert results(agent) == ["deployed to prod"]


def test_ctx_confirm_refused_by_the_person(ws: Path) -> None:
    agent = Agent.create(calls(("deploy", {"env": "prod"})), [deploy],
                         ScriptedApprover([yes, no]), ws)
    agent.send("ship it")
    assert results(agent) == ["not deployed"]


def test_ctx_confirm_under_auto_deny_is_refused_by_the_mode(ws: Path) -> None:
    # Run the tool itself (allowed by a rule in the config), then ask from inside it.
    from saikish.rules import parse_rule

    config = Config(allow=(parse_rule("deploy", "test"),))
    session = Session(config, str(ws), Mode.AUTO_DENY)
    agent = Agent.create(calls(("deploy", {"env": "prod"})), [deploy], session=session)
    agent.send("ship it")
    assert results(agent) == ["not deployed"]
    questions = [e for e in agent.events()
                 if isinstance(e, CallDecided) and e.call.id.endswith(":confirm")]
    assert [(q.decision.source, q.decision.outcome.value) for q in questions] == [
        (Source.MODE, "rejected_soft")]


def test_ctx_confirm_with_no_terminal_fails_closed_and_is_audited(ws: Path,
                                                                  tmp_path: Path) -> None:
    from saikish.rules import parse_rule

    session = Session(Config(allow=(parse_rule("deploy", "test"),)), str(ws))
    session.audit = AuditLog(tmp_path / "audit.jsonl", "s1")
    agent = Agent.create(calls(("deploy", {"env": "prod"})), [deploy], session=session)
    agent.send("ship it")
    assert results(agent) == ["not deployed"]
    entries = read_tail(tmp_path / "audit.jsonl", 10)
    assert [(e["tool"], e["arguments"], e["decision"], e["source"]) for e in entries] == [
        ("deploy", {"env": "prod"}, "approved", "rule"),
        ("deploy", {"env": "prod"}, "rejected_hard", "no_tty")]


def test_ctx_confirm_outside_an_executor_fails_closed(ws: Path) -> None:
    from saikish.tools.base import RunContext

    assert deploy.run({"env": "prod"}, RunContext(str(ws))).text == "not deployed"


def test_a_risk_callable_decides_per_call(ws: Path) -> None:
    @tool(risk=lambda args, workspace: Risk.READ_ONLY if args["n"] < 10 else Risk.DESTRUCTIVE)
    def spend(n: int) -> dict[str, int]:
        """Spend n coins."""
        return {"spent": n}

    approver = ScriptedApprover([no])
    agent = Agent.create(calls(("spend", {"n": 1}), ("spend", {"n": 100})), [spend], approver,
                         ws)
    agent.send("go")
    assert [r.call.arguments["n"] for r in approver.asked] == [100]
    assert results(agent)[0] == '{"spent": 1}'


def test_tools_show_themselves_without_the_ui_knowing_their_names() -> None:
    from saikish.tools import builtin_tools

    tools = builtin_tools()
    assert tools["bash"].summary({"command": "ls -la\ncat x"}) == "bash ls -la ⏎ cat x"
    assert tools["write_file"].summary({"path": "a.txt", "content": "x" * 500}) == \
        "write_file a.txt"
    assert (tools["write_file"].editable_argument, tools["write_file"].path_arguments) == (
        "content", ("path",))
    assert word_count.summary({"path": "README.md"}) == "word_count README.md"
    assert word_count.path_arguments == ("path",)
    # A tool that says nothing about itself (an MCP tool, later) gets the generic view.
    generic = tool(name="counter")(lambda n=1: "x")
    assert generic.summary({"n": 3}) == 'counter {"n": 3}'
    assert len(generic.summary({"n": "y" * 300}, width=40)) == 40
