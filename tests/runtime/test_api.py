"""The public Python API (docs/SPEC.md §7.3): Agent.create, events, approval seam, hooks."""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from rich.console import Console

import saikish
from saikish import (
    Agent,
    ApprovalRequest,
    CallDecided,
    CallFinished,
    DeadlineApprover,
    Decision,
    Event,
    Source,
)
from saikish.config.layers import Config
from saikish.errors import ModelError
from saikish.models.base import Message, TextSink
from saikish.models.script import ScriptModel, parse_turns
from saikish.runtime.approval import ConfirmHooks, HookedApprover, NoTerminalApprover
from saikish.runtime.opening import SessionOptions
from saikish.runtime.session import Session
from saikish.store.audit import AuditLog, read_tail
from saikish.tools.base import Tool
from saikish.tools.sandbox.launcher import SandboxMode
from saikish.types import Assessment, Risk, ToolCall, Turn, Verdict
from saikish.ui.render import ConsoleReporter

Answer = Callable[[ApprovalRequest], Decision]

# These tests are about asking: with the sandbox off (the person's choice), a write in the
# workspace is asked, as every call was before the contained tier (docs/SPEC.md §4.1).
ASKED = SessionOptions(sandbox=SandboxMode.OFF)


@dataclass
class ScriptedApprover:
    """Answers each request with the next scripted answer; records what it was asked."""

    answers: list[Answer]
    asked: list[ApprovalRequest] = field(default_factory=list)

    def ask(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request)
        return self.answers.pop(0)(request)


def script(*turns: dict[str, object]) -> ScriptModel:
    return ScriptModel(parse_turns(list(turns), "test"))


def bash(command: str) -> dict[str, object]:
    return {"name": "bash", "arguments": {"command": command}}


def request(command: str = "touch a") -> ApprovalRequest:
    call = ToolCall("c1", "bash", {"command": command})
    assessment = Assessment(Verdict.ASK, Risk.WRITE, Source.USER, "touch writes")
    return ApprovalRequest(call, assessment, 0, (call,), ".")


def yes(_: ApprovalRequest) -> Decision:
    return Decision.approve(Source.USER)


# -- the package's face ------------------------------------------------------------

def test_the_package_exports_the_documented_surface() -> None:
    for name in ("Agent", "tool", "Tool", "Toolset", "Approver", "ApprovalRequest", "Decision",
                 "TextDelta", "CallDecided", "RunEnded", "SaikishError", "ConfigError"):
        assert name in saikish.__all__
        assert getattr(saikish, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        _ = saikish.Nope



def test_every_event_type_is_exported() -> None:
    from saikish.events import EVENT_TYPES

    for kind in EVENT_TYPES:
        assert getattr(saikish, kind.__name__) is kind, kind


def test_decision_constructors_read_as_english() -> None:
    call = ToolCall("c", "bash", {"command": "ls"})
    assert Decision.approve(Source.USER).approved
    assert [r.text for r in Decision.always(("Bash(ls *)",), persist=False).remember] == \
        ["Bash(ls *)"]
    assert Decision.edit(call).edited_call == call
    assert Decision.reject_soft(Source.USER, "no").feedback == "no"
    assert Decision.reject_hard(Source.USER).outcome.value == "rejected_hard"


# -- the approval seam -------------------------------------------------------------

def test_hooks_run_by_priority_and_none_falls_through_to_the_approver() -> None:
    seen: list[str] = []

    def quiet(r: ApprovalRequest) -> Decision | None:
        seen.append("quiet")
        return None

    def deny_rm(r: ApprovalRequest) -> Decision | None:
        seen.append("deny_rm")
        rm = str(r.call.arguments["command"]).startswith("rm")
        return Decision.reject_soft(Source.HOOK, "no rm here") if rm else None

    hooks = ConfirmHooks()
    hooks.add(deny_rm, priority=1)
    hooks.add(quiet, priority=5)
    approver = ScriptedApprover([yes])
    asker = HookedApprover(hooks, approver)
    assert asker.ask(request("rm -rf x")) == Decision.reject_soft(Source.HOOK, "no rm here")
    assert seen == ["quiet", "deny_rm"] and approver.asked == []
    assert asker.ask(request("touch a")).source is Source.USER  # fell through to the approver
    assert len(approver.asked) == 1


def test_a_hook_that_raises_fails_closed_and_says_which_hook() -> None:
    def broken(r: ApprovalRequest) -> Decision | None:
        raise KeyError("tool_input")

    hooks = ConfirmHooks()
    remove = hooks.add(broken)
    approver = ScriptedApprover([yes])
    decision = HookedApprover(hooks, approver).ask(request())
    assert (decision.outcome.value, decision.source) == ("rejected_soft", Source.HOOK)
    assert "broken failed: KeyError" in (decision.feedback or "")
    assert approver.asked == []  # the person is not asked to overrule a broken hook
    remove()
    assert HookedApprover(hooks, approver).ask(request()).approved


def test_deadline_turns_a_slow_answer_into_a_timeout() -> None:
    release = threading.Event()

    def slow(r: ApprovalRequest) -> Decision:
        release.wait()
        return Decision.approve(Source.USER)

    decision = DeadlineApprover(ScriptedApprover([slow]), 0.05).ask(request())
    release.set()
    assert (decision.outcome.value, decision.source) == ("rejected_hard", Source.TIMEOUT)
    assert "no answer within 0.05s" in (decision.feedback or "")


def test_deadline_passes_a_prompt_answer_and_an_approver_error_through() -> None:
    assert DeadlineApprover(ScriptedApprover([yes]), 5).ask(request()).approved

    def broken(r: ApprovalRequest) -> Decision:
        raise RuntimeError("editor went away")

    with pytest.raises(RuntimeError, match="editor went away"):
        DeadlineApprover(ScriptedApprover([broken]), 5).ask(request())


def test_no_terminal_rejects_hard_and_names_the_ways_out() -> None:
    decision = NoTerminalApprover().ask(request())
    assert decision.source is Source.NO_TTY
    assert "--auto-approve" in (decision.feedback or "")


# -- Agent.create and the event stream ----------------------------------------------

def test_agent_create_needs_no_terminal_and_streams_one_event_sequence(ws: Path) -> None:
    approver = ScriptedApprover([yes])
    agent = Agent.create(script({"text": "Working.", "tool_calls": [bash("touch a")],
                                 "usage": {"input_tokens": 5, "output_tokens": 2}},
                                {"text": "Done."}),
                         approver=approver, workspace=ws, options=ASKED)
    live: list[Event] = []
    agent.subscribe(live.append)
    result = agent.send("make a file")
    assert (result.text, result.exit_reason) == ("Done.", "finished")
    assert (ws / "a").exists()
    kinds = [e.kind for e in agent.events()]
    assert kinds == ["turn_start", "text_delta", "usage", "turn_end", "call_proposed",
                     "call_decided", "call_started", "call_result", "turn_start", "text_delta",
                     "usage", "turn_end", "run_end"]
    assert list(agent.events()) == live
    decided = next(e for e in live if isinstance(e, CallDecided))
    assert (decided.decision.source, decided.assessment and decided.assessment.risk) == (
        Source.USER, Risk.WRITE)


def test_agent_create_with_no_approver_fails_closed(ws: Path) -> None:
    agent = Agent.create(script({"tool_calls": [bash("touch a"), bash("touch b")]}),
                         workspace=ws, options=ASKED)
    result = agent.send("go")
    assert result.exit_reason == "stopped" and not (ws / "a").exists()
    finished = [e.decision for e in agent.events() if isinstance(e, CallFinished)]
    assert [(d.outcome.value, d.source.value) for d in finished] == [
        ("rejected_hard", "no_tty"), ("not_run", "undecided")]


def test_agent_create_takes_a_model_spec_string(ws: Path, tmp_path: Path) -> None:
    path = tmp_path / "s.yml"
    path.write_text("- text: from a file\n", encoding="utf-8")
    assert Agent.create(f"script:{path}", workspace=ws).send("hi").text == "from a file"


def test_confirm_hooks_on_the_agent_decide_before_the_approver(ws: Path) -> None:
    approver = ScriptedApprover([])
    agent = Agent.create(script({"tool_calls": [bash("touch a")]}), approver=approver,
                         workspace=ws, options=ASKED)
    agent.add_confirm_hook(lambda r: Decision.reject_soft(Source.HOOK, "not today"))
    agent.send("go")
    assert approver.asked == [] and not (ws / "a").exists()
    decided = [e for e in agent.events() if isinstance(e, CallDecided)]
    assert [(d.decision.source, d.decision.feedback) for d in decided] == [
        (Source.HOOK, "not today")]


@dataclass
class FailingModel:
    """A model whose server is down: it streams a little, then fails."""

    name: str = "failing"

    def complete(self, system: str, messages: Sequence[Message], tools: Sequence[Tool],
                 on_text: TextSink) -> Turn:
        on_text("Partial ")
        raise ModelError("connection refused by 127.0.0.1:9")


def test_a_model_failure_is_an_error_event_and_the_run_ends(ws: Path) -> None:
    agent = Agent.create(FailingModel(), workspace=ws)
    result = agent.send("hi")
    assert result.exit_reason == "error"
    kinds = [e.kind for e in agent.events()]
    assert kinds == ["turn_start", "text_delta", "error", "run_end"]


def test_audit_log_subscribes_to_the_stream(ws: Path, tmp_path: Path) -> None:
    session = Session(Config(), str(ws))
    session.audit = AuditLog(tmp_path / "audit.jsonl", "s1")
    agent = Agent.create(script({"tool_calls": [bash("touch a"), bash("ls")]}),
                         approver=ScriptedApprover([yes]), session=session)
    agent.send("go")
    entries = read_tail(tmp_path / "audit.jsonl", 10)
    assert [(e["arguments"]["command"], e["decision"], e["source"]) for e in entries] == [
        ("touch a", "approved", "user"), ("ls", "approved", "autonomy")]


def test_the_transcript_prints_one_line_per_decision(ws: Path) -> None:
    def edit(r: ApprovalRequest) -> Decision:
        return Decision.edit(r.call.with_arguments({"command": "touch b"}))

    out = io.StringIO()
    agent = Agent.create(script({"tool_calls": [bash("touch a"), bash("touch c")]}),
                         approver=ScriptedApprover([edit, yes, lambda r: Decision.reject_hard(
                             Source.TIMEOUT, "no answer within 1s")]), workspace=ws,
                         options=ASKED)
    agent.subscribe(ConsoleReporter(Console(file=out, width=100), show_results=False))
    agent.send("go")
    lines = [line for line in out.getvalue().splitlines() if line.startswith("●")]
    # The edit is shown once, as edited; the timeout once (not also as "edited" or "rejected").
    assert lines == ["● bash touch b · approved by you, as edited",
                     "● bash touch c · timed out: nobody answered · the batch is stopped"]


def test_a_subscriber_can_be_removed(ws: Path) -> None:
    agent = Agent.create(script({"text": "a"}, {"text": "b"}), workspace=ws)
    seen: list[Event] = []
    unsubscribe = agent.subscribe(seen.append)
    agent.send("one")
    count = len(seen)
    unsubscribe()
    agent.send("two")
    assert count > 0 and len(seen) == count


def test_auto_deny_mode_via_create(ws: Path) -> None:
    agent = Agent.create(script({"tool_calls": [bash("touch a")]}), workspace=ws,
                         mode="auto-deny")
    agent.send("go")
    decided = [e.decision for e in agent.events() if isinstance(e, CallDecided)]
    assert [(d.outcome.value, d.source) for d in decided] == [("rejected_soft", Source.MODE)]


def test_the_request_carries_the_tool_so_front_ends_need_not_know_tool_names(ws: Path) -> None:
    approver = ScriptedApprover([yes])
    agent = Agent.create(script({"tool_calls": [{"name": "write_file", "arguments": {
        "path": "a.txt", "content": "x"}}]}), approver=approver, workspace=ws,
        options=ASKED)
    agent.send("go")
    [asked] = approver.asked
    assert asked.tool is not None and asked.tool.editable_argument == "content"
    assert asked.tool.summary(asked.call.arguments) == "write_file a.txt"


def test_agent_create_opens_its_session_as_the_command_line_does(ws: Path) -> None:
    """No session given: the person's allowlist, the audit ledger, the sandbox for what
    nobody looked at and a checkpoint before it (docs/SPEC.md §7.3): a write in the
    workspace runs contained without asking anyone, and can be undone."""
    approver = ScriptedApprover([])
    agent = Agent.create(script({"tool_calls": [bash("echo hi > a")]}, {"text": "Done."}),
                         approver=approver, workspace=ws)
    result = agent.send("go")
    session = agent.executor.session
    assert approver.asked == [] and (ws / "a").read_text() == "hi\n"
    assert [r.decision.source for r in result.records] == [Source.SANDBOX]
    assert session.allowlist is not None and session.audit is not None
    assert session.checkpoints is not None and session.checkpoints.history()
    assert [e["decision"] for e in read_tail(session.audit.path, 5)] == ["approved", "changed"]


def test_agent_create_options_turn_off_what_a_program_has_no_use_for(ws: Path) -> None:
    agent = Agent.create(script({"text": "hi"}), workspace=ws, options=SessionOptions(
        allowlist=False, audit=False, checkpoints=False, sandbox=SandboxMode.OFF))
    session = agent.executor.session
    assert (session.allowlist, session.audit, session.checkpoints) == (None, None, None)
    assert not session.sandbox.configured
