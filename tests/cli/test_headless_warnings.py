"""What CI must see in a headless run (docs/events.md): warnings, exit codes, bash results."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.support.harness import Run, write_script

CLI = Callable[..., Run]

LS = "- tool_calls: [{name: bash, arguments: {command: ls}}]\n- text: done\n"
BROKEN_SERVER = "mcpServers:\n  broken:\n    command: /nonexistent/mcp-server\n"
FAILED = "mcp server 'broken' failed: command '/nonexistent/mcp-server' not found"


def _broken_server(tmp_path: Path) -> str:
    config = tmp_path / "agent.yml"
    config.write_text(BROKEN_SERVER, encoding="utf-8")
    return str(config)


def test_a_failed_mcp_server_is_a_warning_in_json_and_a_prefixed_line(
        cli: CLI, tmp_path: Path) -> None:
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", LS), "-c",
              _broken_server(tmp_path), "--output-format", "json")
    assert run.code == 0  # the session goes on without the server (§7.1)
    assert json.loads(run.out)["warnings"] == [FAILED]
    assert f"saikish: warning: {FAILED}\n" in run.err


def test_a_failed_mcp_server_is_a_warning_in_stream_json(cli: CLI, tmp_path: Path) -> None:
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", LS), "-c",
              _broken_server(tmp_path), "--output-format", "stream-json")
    lines = [json.loads(line) for line in run.out.splitlines()]
    notices = [line for line in lines if line["type"] == "notice"]
    assert notices == [{"type": "notice", "text": FAILED, "warning": True}]
    assert lines[-1]["warnings"] == [FAILED]


def test_fail_on_warning_turns_a_warned_run_into_exit_5(cli: CLI, tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yml", LS)
    config = _broken_server(tmp_path)
    assert cli("-p", "go", "-m", model, "-c", config, "--fail-on-warning").code == 5
    assert cli("-p", "go", "-m", model, "--fail-on-warning").code == 0  # nothing to warn


def test_rules_that_match_nothing_are_json_warnings_too(cli: CLI, tmp_path: Path) -> None:
    config = tmp_path / "agent.yml"
    config.write_text("permissions:\n  deny: [Glob]\n", encoding="utf-8")
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", LS), "-c", str(config),
              "--output-format", "json")
    warnings = json.loads(run.out)["warnings"]
    assert len(warnings) == 1 and "Glob" in warnings[0] and "list_files" in warnings[0]


def test_exit_code_of_a_call_that_failed_in_the_sandbox(cli: CLI, tmp_path: Path) -> None:
    # Output that looks like a refused write: the executor adds its sandbox note after
    # bash's "[exit code 1]" line.
    command = "echo 'touch: x: Read-only file system' >&2; exit 1"
    script = f"- tool_calls: [{{name: bash, arguments: {{command: \"{command}\"}}}}]\n"
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", script), "--sandbox",
              "workspace-write", "--output-format", "json")
    result = json.loads(run.out)["calls"][0]["result"]
    assert "ran in the workspace-write sandbox" in result["excerpt"]
    assert (result["is_error"], result["exit_code"]) == (True, 1)


ASKING_HOOK = """\
hooks:
  PreToolUse:
    - matcher: write_file
      hooks:
        - type: command
          command: >-
            echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse",
            "permissionDecision": "ask", "permissionDecisionReason": "writes are reviewed"}}'
"""
WRITE = "- tool_calls: [{name: write_file, arguments: {path: a.txt, content: x}}]\n"


def _feedback(run: Run) -> str:
    call = json.loads(run.out)["calls"][0]
    assert (call["decision"], call["source"]) == ("rejected_hard", "no_tty")
    return str(call["feedback"])


def test_a_hook_that_asks_under_auto_approve_says_no_flag_answers_it(
        cli: CLI, tmp_path: Path, ws: Path) -> None:
    config = tmp_path / "agent.yml"
    config.write_text(ASKING_HOOK, encoding="utf-8")
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", WRITE), "-c", str(config),
              "--auto-approve", "--output-format", "json")
    feedback = _feedback(run)
    assert "--auto-approve or --auto-deny" not in feedback
    assert feedback.startswith("writes are reviewed: only a person can approve it")
    assert "a hook that asks wants a person to look" in feedback
    assert not (ws / "a.txt").exists()


def test_an_ask_rule_under_auto_approve_says_no_flag_answers_it(
        cli: CLI, tmp_path: Path) -> None:
    config = tmp_path / "agent.yml"
    config.write_text("permissions:\n  ask: [write_file]\n", encoding="utf-8")
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", WRITE), "-c", str(config),
              "--auto-approve", "--output-format", "json")
    feedback = _feedback(run)
    assert feedback.startswith("asked by rule write_file: only a person can approve it")
    assert "neither --auto-approve nor an allow rule answers it" in feedback


def test_outside_sandbox_under_auto_approve_reports_the_real_reason(
        cli: CLI, tmp_path: Path) -> None:
    script = ("- tool_calls: [{name: bash, arguments: {command: ls, outside_sandbox: true}}]\n"
              "- text: ok\n")
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", script), "--sandbox",
              "workspace-write", "--auto-approve", "--output-format", "json")
    call = json.loads(run.out)["calls"][0]
    assert (call["decision"], call["source"]) == ("rejected_soft", "mode")
    assert call["reason"] == ("the model asks to run this outside the sandbox, and "
                              "--auto-approve asks nobody")


def test_one_shot_flags_without_a_prompt_are_a_usage_error(cli: CLI) -> None:
    for flags, named in ((["--output-format", "json"], "--output-format json shapes"),
                         (["--fail-on-deny", "--fail-on-warning"],
                          "--fail-on-deny and --fail-on-warning shape")):
        run = cli(*flags, "-m", "demo")
        assert run.code == 2
        assert run.err == f"saikish: {named} the output of a one-shot run: add -p PROMPT " \
                          f"(or -p - to read it from stdin)\n"
