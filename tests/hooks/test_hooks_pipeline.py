"""PreToolUse hooks in the decision pipeline (docs/SPEC.md §4.1 step 3, §7.2), real processes."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from saikish.config.layers import Config
from saikish.hooks.config import HookSpec, HookTable
from saikish.hooks.runner import Hooks
from saikish.runtime.approval import ApprovalRequest
from saikish.runtime.executor import Executor
from saikish.runtime.session import Session
from saikish.tools import RunContext, builtin_tools
from saikish.types import Decision, Mode, Source, ToolCall
from tests.support.harness import Run, write_script
from tests.support.hookscripts import BAD_JSON, BLOCK_RM, HANG, REWRITE, install

CLI = Callable[..., Run]
ALLOW_ALL = "echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"allow\"}}'"
ASK = ("echo '{\"hookSpecificOutput\": {\"permissionDecision\": \"ask\", "
       "\"permissionDecisionReason\": \"the team reviews every call\"}}'")


def config(tmp_path: Path, command: str, matcher: str = "Bash", extra: str = "",
           timeout: float = 10) -> str:
    path = tmp_path / "agent.yml"
    path.write_text(f"{extra}hooks:\n  PreToolUse:\n    - matcher: '{matcher}'\n      hooks:\n"
                    f"        - type: command\n          command: {json.dumps(command)}\n"
                    f"          timeout: {timeout}\n")
    return str(path)


def script(tmp_path: Path, *commands: str) -> str:
    calls = "".join(f"    - {{name: bash, arguments: {{command: {json.dumps(c)}}}}}\n"
                    for c in commands)
    return write_script(tmp_path / "s.yml", f"- text: Working.\n  tool_calls:\n{calls}"
                                            f"- text: Done.\n")


def run_json(cli: CLI, tmp_path: Path, agent_yml: str, *commands: str,
             flags: tuple[str, ...] = ()) -> tuple[Run, list[dict[str, object]]]:
    run = cli("-p", "go", "-m", script(tmp_path, *commands), "-c", agent_yml,
              "--output-format", "json", *flags)
    return run, json.loads(run.out)["calls"]


def test_the_docs_rm_rf_hook_blocks_with_its_reason(cli: CLI, tmp_path: Path, ws: Path) -> None:
    (ws / "build").mkdir()
    hook = install(tmp_path, "block.sh", BLOCK_RM)
    run, calls = run_json(cli, tmp_path, config(tmp_path, hook), "rm -rf build", "echo hi",
                          flags=("--auto-approve",))
    assert (ws / "build").is_dir()  # the hook's deny held even under --auto-approve
    first, second = calls
    assert (first["decision"], first["source"], first["rule"]) == ("rejected_soft", "hook", hook)
    assert first["feedback"] == "Blocked: rm -rf is not allowed by the project's hook"
    assert (second["decision"], second["source"]) == ("approved", "autonomy")  # batch goes on
    audit = [json.loads(line) for line in
             (tmp_path / "state" / "audit.jsonl").read_text().splitlines()]
    assert [(a["source"], a["rule"]) for a in audit if a.get("source") == "hook"] == \
        [("hook", hook)]
    assert run.code == 0


def test_a_hooks_allow_never_lifts_escalation_or_a_deny_rule(cli: CLI, tmp_path: Path,
                                                             ws: Path) -> None:
    agent_yml = config(tmp_path, ALLOW_ALL,
                       extra="permissions:\n  deny: ['Bash(rm *)']\n")
    _, calls = run_json(cli, tmp_path, agent_yml, "sudo ls", "rm -f x", "touch made")
    assert [(c["decision"], c["source"]) for c in calls] == [
        ("rejected_soft", "escalation"), ("rejected_soft", "deny_rule"), ("approved", "hook")]
    assert calls[2]["rule"] == ALLOW_ALL
    assert (ws / "made").exists()  # asked without a terminal, but the hook's allow approved it


def test_a_hooks_ask_asks_even_what_autonomy_allows(cli: CLI, tmp_path: Path) -> None:
    run, calls = run_json(cli, tmp_path, config(tmp_path, ASK), "ls",
                          flags=("--auto-approve",))
    assert (calls[0]["decision"], calls[0]["source"]) == ("rejected_hard", "no_tty")
    assert calls[0]["reason"] == "the team reviews every call"
    assert run.code == 3


def test_updated_input_goes_through_the_whole_pipeline(cli: CLI, tmp_path: Path) -> None:
    hook = install(tmp_path, "rewrite.py", REWRITE)
    run = cli("-p", "go", "-m", script(tmp_path, "npm test"), "-c", config(tmp_path, hook),
              "--output-format", "stream-json")
    lines = [json.loads(line) for line in run.out.splitlines()]
    decided = next(line for line in lines if line["type"] == "call_decided")
    assert decided["call"]["arguments"] == {"command": "pnpm test"}
    assert (decided["decision"], decided["source"], decided["edited"]) == (
        "approved", "hook", True)
    result = next(line for line in lines if line["type"] == "call_result")
    assert "A hook edited this call before it ran" in json.dumps(result)


def test_updated_input_is_still_denied_by_a_deny_rule(cli: CLI, tmp_path: Path) -> None:
    hook = install(tmp_path, "rewrite.py", REWRITE)
    agent_yml = config(tmp_path, hook, extra="permissions:\n  deny: ['Bash(pnpm *)']\n")
    _, calls = run_json(cli, tmp_path, agent_yml, "npm test")
    assert (calls[0]["decision"], calls[0]["source"]) == ("rejected_soft", "deny_rule")


def test_a_hanging_hook_is_killed_and_the_call_asked(cli: CLI, tmp_path: Path, ws: Path) -> None:
    hook = install(tmp_path, "hang.sh", HANG)
    run, calls = run_json(cli, tmp_path, config(tmp_path, hook, timeout=1), "ls",
                          flags=("--auto-approve",))
    assert (calls[0]["decision"], calls[0]["source"]) == ("rejected_hard", "no_tty")
    assert "timed out after 1s and was killed" in str(calls[0]["reason"])
    lines = [line for line in run.err.splitlines() if "asking instead" in line]
    assert len(lines) == 1 and "hang.sh" in lines[0] and \
        "timed out after 1s and was killed: asking instead" in lines[0]
    # --auto-approve cannot answer a hook's question, and the rejection says why.
    assert "so --auto-approve does not answer for them" in str(calls[0]["feedback"])
    assert (ws / "hang.started").exists()


def test_bad_json_fails_closed(cli: CLI, tmp_path: Path) -> None:
    hook = install(tmp_path, "bad.sh", BAD_JSON)
    run, calls = run_json(cli, tmp_path, config(tmp_path, hook), "ls")
    assert (calls[0]["decision"], calls[0]["source"]) == ("rejected_hard", "no_tty")
    assert "printed output that is not valid JSON" in str(calls[0]["reason"])
    # The failure is said once; the rejection names the hook again, saying who asked.
    assert sum("bad.sh" in line and "asking instead" in line
               for line in run.err.splitlines()) == 1


def test_no_hooks_runs_without_them_and_says_so(cli: CLI, tmp_path: Path, ws: Path) -> None:
    (ws / "build").mkdir()
    hook = install(tmp_path, "block.sh", BLOCK_RM)
    # rm -rf needs a person (docs/SPEC.md §4.1): the person's rule allows it, the hook
    # that would block it does not run.
    allow = config(tmp_path, hook, extra="permissions:\n  allow: ['Bash(rm -rf build)']\n")
    run, calls = run_json(cli, tmp_path, allow, "rm -rf build",
                          flags=("--auto-approve", "--no-hooks"))
    assert (calls[0]["decision"], calls[0]["source"]) == ("approved", "rule")
    assert not (ws / "build").exists()
    assert "saikish: hooks are off (--no-hooks): 1 configured hook will not run" in run.err


@dataclass
class Asked:
    """An approver that records what it was asked and says no."""

    requests: list[ApprovalRequest] = field(default_factory=list)

    def ask(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        return Decision.reject_soft(Source.USER, "no")


def test_executor_asks_the_approver_with_the_hooks_reason(ws: Path) -> None:
    session = Session(Config(), str(ws))
    session.hooks = Hooks(HookTable((HookSpec("PreToolUse", "Read", ASK, 10, "a:1"),)),
                          str(ws))
    asked = Asked()
    executor = Executor(session, builtin_tools(), asked, run_context=RunContext(str(ws)))
    outcome = executor.run_batch([ToolCall("1", "read_file", {"path": "a.txt"}),
                                  ToolCall("2", "list_files", {"path": "."})])
    assert [r.call.name for r in asked.requests] == ["read_file"]  # list_files: not matched
    request = asked.requests[0]
    assert (request.assessment.reason, request.assessment.rule) == (
        "the team reviews every call", ASK)
    assert request.assessment.proposed_rules == ()  # no "always": a rule cannot lift it
    assert [r.decision.source for r in outcome.records] == [Source.USER, Source.AUTONOMY]


def test_a_hook_that_keeps_rewriting_is_asked_about(ws: Path) -> None:
    grow = ("python3 -c 'import json,sys; c=json.load(sys.stdin)[\"tool_input\"][\"command\"]; "
            "print(json.dumps({\"hookSpecificOutput\": {\"permissionDecision\": \"allow\", "
            "\"updatedInput\": {\"command\": c + \" x\"}}}))'")
    session = Session(Config(), str(ws))
    session.hooks = Hooks(HookTable((HookSpec("PreToolUse", "", grow, 10, "a:1"),)), str(ws))
    asked = Asked()
    executor = Executor(session, builtin_tools(), asked, run_context=RunContext(str(ws)))
    outcome = executor.run_batch([ToolCall("1", "bash", {"command": "echo"})])
    assert len(asked.requests) == 1
    request = asked.requests[0]
    assert request.call.arguments["command"] == "echo x x x x x"  # five rewrites, then asked
    assert request.assessment.reason == f"hook '{grow}' kept rewriting the call; asking"
    assert outcome.records[0].decision.source is Source.USER


def test_notification_hook_runs_when_the_person_is_asked(ws: Path) -> None:
    note = HookSpec("Notification", "", "cat > notified.json", 10, "a:1")
    session = Session(Config(), str(ws))
    session.hooks = Hooks(HookTable((note,)), str(ws))
    executor = Executor(session, builtin_tools(), Asked(), run_context=RunContext(str(ws)))
    executor.run_batch([ToolCall("1", "bash", {"command": "ls"})])
    assert not (ws / "notified.json").exists()  # nobody was asked about ls
    executor.run_batch([ToolCall("2", "bash", {"command": "touch a"})])
    seen = json.loads((ws / "notified.json").read_text())
    assert (seen["hook_event_name"], seen["message"]) == (
        "Notification", "saikish needs your permission to use bash")


def test_an_untrusted_projects_hooks_never_run(cli: CLI, tmp_path: Path, ws: Path) -> None:
    (ws / "agent.yml").write_text("hooks:\n  PreToolUse:\n    - hooks: [{type: command, "
                                  "command: 'touch pwned'}]\n  SessionStart:\n    - hooks: "
                                  "[{type: command, command: 'touch pwned2'}]\n")
    run = cli("-p", "go", "-m", script(tmp_path, "ls"), "--output-format", "json")
    assert not (ws / "pwned").exists() and not (ws / "pwned2").exists()
    assert "1 setting ignored because this project's agent.yml is not trusted (hooks)" in run.err
    assert json.loads(run.out)["calls"][0]["source"] == "autonomy"


def test_continue_false_stops_the_batch_and_auto_deny_rejects_an_ask(ws: Path) -> None:
    stop = "echo '{\"continue\": false, \"stopReason\": \"release freeze\"}'"
    session = Session(Config(), str(ws))
    session.hooks = Hooks(HookTable((HookSpec("PreToolUse", "", stop, 10, "a:1"),)), str(ws))
    executor = Executor(session, builtin_tools(), Asked(), run_context=RunContext(str(ws)))
    outcome = executor.run_batch([ToolCall("1", "bash", {"command": "ls"}),
                                  ToolCall("2", "bash", {"command": "ls"})])
    assert (outcome.stopped, outcome.stop_reason) == (True, "release freeze")
    assert [(r.decision.outcome.value, r.decision.source) for r in outcome.records] == [
        ("rejected_hard", Source.HOOK), ("not_run", Source.UNDECIDED)]

    session = Session(Config(), str(ws), mode=Mode.AUTO_DENY)
    session.hooks = Hooks(HookTable((HookSpec("PreToolUse", "", ASK, 10, "a:1"),)), str(ws))
    asked = Asked()
    executor = Executor(session, builtin_tools(), asked, run_context=RunContext(str(ws)))
    record = executor.run_batch([ToolCall("1", "bash", {"command": "ls"})]).records[0]
    assert (record.decision.outcome.value, record.decision.source, record.decision.feedback) == (
        "rejected_soft", Source.HOOK, "the team reviews every call; --auto-deny asks nobody")
    assert asked.requests == []
