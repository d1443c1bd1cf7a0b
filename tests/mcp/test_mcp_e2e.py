"""MCP tools end to end (docs/SPEC.md §7.1): real servers, `-p` runs, `check`, the Python API.

Every server here is a real process speaking MCP: the fixture server built with the SDK
(tests/fixtures/mcp_server.py), the published `mcp-server-time`, and, where Node is
present, `@modelcontextprotocol/server-everything` through npx. A script model makes the
calls; the decisions, the files on disk and the processes left behind are checked.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from saikish.config.layers import load_effective
from saikish.models.base import ToolResults
from saikish.runtime.agent import Agent
from tests.support.harness import ROOT, Run, write_script
from tests.support.hookscripts import BLOCK_ALL, install

FIXTURE = ROOT / "tests" / "fixtures" / "mcp_server.py"
CLI = Callable[..., Run]


def server_config(tmp: Path, ws: Path, *, name: str = "fx", allow: tuple[str, ...] = (),
                  deny: tuple[str, ...] = (), env: dict[str, str] | None = None,
                  command: list[str] | None = None, hooks: dict[str, Any] | None = None) -> str:
    """An agent.yml (given with -c: the person's own, so annotations are trusted by default)."""
    argv = command or [sys.executable, str(FIXTURE)]
    environment = {"FIXTURE_DIR": str(ws), **(env or {})}
    text = {
        "mcpServers": {name: {"command": argv[0], "args": argv[1:], "env": environment}},
        "permissions": {"allow": list(allow), "deny": list(deny)},
        **({"hooks": hooks} if hooks else {}),
    }
    path = tmp / "cfg.yml"
    path.write_text(json.dumps(text) + "\n", encoding="utf-8")  # JSON is YAML
    return str(path)


def calls_script(tmp: Path, *calls: tuple[str, dict[str, Any]]) -> str:
    """A script model: one turn making `calls`, then a final answer."""
    turn = {"text": "On it.", "tool_calls": [{"name": n, "arguments": a} for n, a in calls]}
    return write_script(tmp / "s.yml", json.dumps([turn, {"text": "All done."}]))


def run_json(cli: CLI, *argv: str) -> dict[str, Any]:
    run = cli(*argv, "--output-format", "json")
    assert "Traceback" not in run.err
    data: dict[str, Any] = json.loads(run.out)
    data["_stderr"], data["_code"] = run.err, run.code
    return data


@pytest.fixture
def tag() -> Iterator[str]:
    """A marker in every fixture server's environment; none may be running at the end."""
    marker = uuid.uuid4().hex
    yield marker
    assert _running(marker) == [], "an MCP server outlived saikish"


def _running(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if f"FIXTURE_TAG={marker}".encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def test_a_server_rule_approves_its_tool_and_the_call_runs(
        tmp_path: Path, ws: Path, cli: CLI, tag: str) -> None:
    cfg = server_config(tmp_path, ws, allow=("mcp__fx",), env={"FIXTURE_TAG": tag})
    model = calls_script(tmp_path, ("mcp__fx__write_note", {"name": "n.txt", "text": "hello"}))
    data = run_json(cli, "-c", cfg, "-m", model, "-p", "go")
    call = data["calls"][0]
    assert (call["decision"], call["source"], call["rule"], call["risk"]) == (
        "approved", "rule", "mcp__fx", "WRITE")
    assert (ws / "n.txt").read_text() == "hello"
    assert data["result"] == "All done." and data["_code"] == 0


def test_auto_deny_runs_a_trusted_read_and_refuses_a_write(
        tmp_path: Path, ws: Path, cli: CLI, tag: str) -> None:
    cfg = server_config(tmp_path, ws, env={"FIXTURE_TAG": tag})
    model = calls_script(tmp_path, ("mcp__fx__echo", {"text": "hi"}),
                         ("mcp__fx__write_note", {"name": "n.txt", "text": "x"}))
    data = run_json(cli, "-c", cfg, "-m", model, "-p", "go", "--auto-deny")
    echo, write = data["calls"]
    assert (echo["decision"], echo["source"], echo["risk"]) == ("approved", "autonomy",
                                                                "READ_ONLY")
    assert echo["result"]["excerpt"] == "hi"
    assert (write["decision"], write["source"], write["risk"]) == ("rejected_soft", "mode",
                                                                   "WRITE")
    assert not (ws / "n.txt").exists()


def test_an_untrusted_server_claiming_read_only_is_not_believed(
        tmp_path: Path, ws: Path, cli: CLI, tag: str) -> None:
    (ws / "precious.txt").write_text("keep me")
    cfg = server_config(tmp_path, ws, env={"FIXTURE_TAG": tag})
    text = Path(cfg).read_text().replace('"env"', '"trustAnnotations": false, "env"', 1)
    Path(cfg).write_text(text)
    model = calls_script(tmp_path, ("mcp__fx__liar", {"path": "precious.txt"}))
    data = run_json(cli, "-c", cfg, "-m", model, "-p", "go", "--auto-deny",
                    "--autonomy", "supervised")
    call = data["calls"][0]
    assert (call["decision"], call["risk"]) == ("rejected_soft", "UNKNOWN")
    assert call["reason"] == "mcp__fx__liar is unknown; --auto-deny is set"
    assert (ws / "precious.txt").read_text() == "keep me"


def test_auto_approve_still_obeys_a_deny_rule(tmp_path: Path, ws: Path, cli: CLI,
                                              tag: str) -> None:
    (ws / "a.log").write_text("x")
    cfg = server_config(tmp_path, ws, deny=("mcp__fx__delete_all",), env={"FIXTURE_TAG": tag})
    model = calls_script(tmp_path, ("mcp__fx__delete_all", {"pattern": "*.log"}),
                         ("mcp__fx__add_files", {"files": ["a", "b"]}))
    data = run_json(cli, "-c", cfg, "-m", model, "-p", "go", "--auto-approve")
    delete, add = data["calls"]
    assert (delete["decision"], delete["source"], delete["rule"]) == (
        "rejected_soft", "deny_rule", "mcp__fx__delete_all")
    # An MCP tool runs outside any sandbox: --auto-approve never answers for it, a rule does
    # (docs/SPEC.md §4.1); a headless run says why and how to allow it.
    assert (add["decision"], add["source"]) == ("rejected_soft", "mode")
    assert "needs a person" in add["feedback"] and "rule" in add["feedback"]
    assert (ws / "a.log").exists()


def test_a_changed_definition_is_asked_again_whatever_the_rules(
        tmp_path: Path, ws: Path, cli: CLI, tag: str) -> None:
    model = calls_script(tmp_path, ("mcp__fx__echo", {"text": "hi"}))
    cfg = server_config(tmp_path, ws, allow=("mcp__fx",), env={"FIXTURE_TAG": tag})
    first = run_json(cli, "-c", cfg, "-m", model, "-p", "go")
    assert first["calls"][0]["decision"] == "approved"  # approved once: its definition pinned
    cfg = server_config(tmp_path, ws, allow=("mcp__fx",),
                        env={"FIXTURE_TAG": tag, "FIXTURE_VARIANT": "changed"})
    second = run_json(cli, "-c", cfg, "-m", model, "-p", "go", "--auto-approve")
    call = second["calls"][0]
    assert call["decision"] != "approved" and call["result"] is None
    assert call["reason"].startswith("mcp__fx__echo changed since a call of it was approved: "
                                     'description "Echo the text back." → "Echo the text back, '
                                     'and also send it somewhere else."')
    assert "input schema (+loud)" in call["reason"]


def test_check_explains_an_mcp_decision_with_servers_started(
        tmp_path: Path, ws: Path, cli: CLI, tag: str) -> None:
    cfg = server_config(tmp_path, ws, env={"FIXTURE_TAG": tag})
    run = cli("check", "-c", cfg, "--json", "--tool", "mcp__fx__fetch_url",
              "--args", '{"url": "https://example.com"}')
    data = json.loads(run.out)
    assert (data["decision"], data["risk"], data["reason"]) == (
        "ask", "NETWORK", "mcp__fx__fetch_url is network")
    run = cli("check", "-c", cfg, "--tool", "mcp__fx__nope", "--args", "{}", "--json")
    assert json.loads(run.out)["reason"].startswith("unknown tool 'mcp__fx__nope'; available "
                                                    "tools: bash, edit_file, grep, list_files, "
                                                    "mcp__fx__add_files")


def test_a_server_that_cannot_start_is_one_line_and_the_run_goes_on(
        tmp_path: Path, ws: Path, cli: CLI, tag: str) -> None:
    cfg = server_config(tmp_path, ws, env={"FIXTURE_TAG": tag, "FIXTURE_START": "fail"})
    model = calls_script(tmp_path, ("mcp__fx__echo", {"text": "hi"}))
    data = run_json(cli, "-c", cfg, "-m", model, "-p", "go")
    failed = [line for line in data["_stderr"].splitlines() if "mcp server 'fx'" in line]
    assert len(failed) == 1 and "failed: exited with code 2" in failed[0]
    assert "fixture: cannot start" in failed[0]
    assert data["calls"][0]["decision"] == "invalid"  # its tools never joined
    assert data["result"] == "All done." and data["_code"] == 0


def test_progress_arrives_as_events_while_a_slow_call_runs(
        tmp_path: Path, ws: Path, cli: CLI, tag: str) -> None:
    cfg = server_config(tmp_path, ws, allow=("mcp__fx__slow",), env={"FIXTURE_TAG": tag})
    model = calls_script(tmp_path, ("mcp__fx__slow", {"steps": 3, "delay": 0.05}))
    run = cli("-c", cfg, "-m", model, "-p", "go", "--output-format", "stream-json")
    events = [json.loads(line) for line in run.out.splitlines()]
    progress = [e["text"] for e in events if e["type"] == "call_progress"]
    assert progress == ["1/3 step 1", "2/3 step 2", "3/3 step 3"]
    kinds = [e["type"] for e in events]
    assert kinds.index("call_started") < kinds.index("call_progress") < kinds.index(
        "call_result")


def test_saikish_keys_never_reach_a_server(tmp_path: Path, ws: Path, tag: str,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-own-key")
    monkeypatch.setenv("UNRELATED_SETTING", "kept-home")
    cfg = server_config(tmp_path, ws, allow=("mcp__fx__env_dump",),
                        env={"FIXTURE_TAG": tag, "FIXTURE_ENV_DUMP": "1",
                             "PASSED_ON": "$UNRELATED_SETTING"})
    model = calls_script(tmp_path, ("mcp__fx__env_dump", {}))
    with Agent.create(model, config=load_effective(cfg, ws), workspace=ws) as agent:
        agent.send("go")
        results = [m for m in agent.messages if isinstance(m, ToolResults)]
    environment = json.loads(results[0].results[0].content)
    assert "sk-own-key" not in json.dumps(environment)
    assert "UNRELATED_SETTING" not in environment  # only HOME, PATH, ... and its own env
    assert environment["PASSED_ON"] == "kept-home"


def test_published_time_server(tmp_path: Path, ws: Path, cli: CLI) -> None:
    command = shutil.which("mcp-server-time", path=str(Path(sys.executable).parent))
    assert command, "mcp-server-time is installed by the test extra"
    cfg = server_config(tmp_path, ws, name="time", command=[command],
                        allow=("mcp__time__get_current_time",))
    model = calls_script(tmp_path, ("mcp__time__get_current_time", {"timezone": "UTC"}))
    data = run_json(cli, "-c", cfg, "-m", model, "-p", "go")
    call = data["calls"][0]
    assert (call["decision"], call["rule"]) == ("approved", "mcp__time__get_current_time")
    assert '"timezone": "UTC"' in call["result"]["excerpt"]


def test_published_everything_server_through_npx(tmp_path: Path, ws: Path, cli: CLI,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    npx = shutil.which("npx")
    if npx is None:
        pytest.skip("npx is not installed: @modelcontextprotocol/server-everything needs Node")
    cache = Path(os.environ.get("SAIKISH_TEST_NPM_CACHE", "/tmp/saikish-test-npm-cache"))
    cfg = server_config(tmp_path, ws, name="everything", allow=("mcp__everything__echo",),
                        command=[npx, "-y", "@modelcontextprotocol/server-everything", "stdio"],
                        env={"npm_config_cache": str(cache), "npm_config_update_notifier":
                             "false"})
    model = calls_script(tmp_path, ("mcp__everything__echo", {"message": "hi there"}))
    monkeypatch.setenv("SAIKISH_MCP_STARTUP_TIMEOUT", "120")  # a first run downloads it
    data = run_json(cli, "-c", cfg, "-m", model, "-p", "go")
    if "mcp server 'everything' failed" in data["_stderr"]:
        pytest.skip(f"npx could not start the server here: {data['_stderr'].strip()}")
    call = data["calls"][0]
    assert (call["decision"], call["rule"]) == ("approved", "mcp__everything__echo")
    assert call["result"]["excerpt"] == "Echo: hi there"


def test_a_crash_mid_call_is_one_line_and_the_server_comes_back(
        tmp_path: Path, ws: Path, cli: CLI, tag: str) -> None:
    cfg = server_config(tmp_path, ws, allow=("mcp__fx",), env={"FIXTURE_TAG": tag})
    turns = [{"tool_calls": [{"name": "mcp__fx__crash", "arguments": {}}]},
             {"tool_calls": [{"name": "mcp__fx__echo", "arguments": {"text": "hi"}}]},
             {"text": "All done."}]
    model = write_script(tmp_path / "s.yml", json.dumps(turns))
    data = run_json(cli, "-c", cfg, "-m", model, "-p", "go")
    crash, echo = data["calls"]
    assert crash["decision"] == "approved" and crash["result"]["is_error"]
    assert crash["result"]["excerpt"].startswith("mcp server 'fx'")
    assert "exited with code 3" in crash["result"]["excerpt"]
    assert "fixture: crashing on purpose" in crash["result"]["excerpt"]
    # The server is started again (tests/test_mcp_lifecycle.py has the backoff); the next
    # call waits for it.
    assert echo["decision"] == "approved" and echo["result"]["excerpt"] == "hi"
    said = [line for line in data["_stderr"].splitlines() if "mcp server 'fx' stopped;" in line]
    assert len(said) == 1 and "exited with code 3" in said[0]
    assert data["_code"] == 0 and data["result"] == "All done."


def test_a_hanging_call_times_out_with_one_line(tmp_path: Path, ws: Path, cli: CLI,
                                                tag: str) -> None:
    cfg = server_config(tmp_path, ws, allow=("mcp__fx",), env={"FIXTURE_TAG": tag})
    text = Path(cfg).read_text().replace('"env"', '"timeout": 1, "env"', 1)
    Path(cfg).write_text(text)
    model = calls_script(tmp_path, ("mcp__fx__hang", {}), ("mcp__fx__echo", {"text": "after"}))
    data = run_json(cli, "-c", cfg, "-m", model, "-p", "go")
    hang, echo = data["calls"]
    assert hang["result"] == {"is_error": True, "exit_code": None, "excerpt":
                              "mcp server 'fx': tool 'hang' did not answer within 1 s"}
    assert echo["result"]["excerpt"] == "after"  # the server is still usable
    assert (ws / "cancelled.txt").read_text().splitlines() == ["hang"]  # it was told


def test_an_untrusted_project_never_starts_its_servers(
        tmp_path: Path, ws: Path, cli: CLI, tag: str) -> None:
    cfg = server_config(tmp_path, ws, allow=("mcp__fx",), env={"FIXTURE_TAG": tag})
    (ws / "agent.yml").write_text(Path(cfg).read_text())  # a cloned repository's agent.yml
    model = calls_script(tmp_path, ("mcp__fx__echo", {"text": "hi"}))
    data = run_json(cli, "-m", model, "-p", "go")
    assert "ignored because this project's agent.yml is not trusted (mcpServers" \
        in data["_stderr"]
    assert data["calls"][0]["decision"] == "invalid"  # no such tool: nothing was started
    assert _running(tag) == []


def test_a_definition_changed_mid_session_is_asked_again(
        tmp_path: Path, ws: Path, tag: str) -> None:
    cfg = server_config(tmp_path, ws, allow=("mcp__fx",), env={"FIXTURE_TAG": tag})
    turns = [{"tool_calls": [{"name": "mcp__fx__echo", "arguments": {"text": "one"}},
                             {"name": "mcp__fx__change_definition", "arguments": {}}]},
             {"text": "Changed."},
             {"tool_calls": [{"name": "mcp__fx__echo", "arguments": {"text": "two"}}]},
             {"text": "All done."}]
    model = write_script(tmp_path / "s.yml", json.dumps(turns))
    with Agent.create(model, config=load_effective(cfg, ws), workspace=ws) as agent:
        first = agent.send("go")
        assert [r.decision.source.value for r in first.records] == ["rule", "rule"]
        deadline = time.monotonic() + 120  # notifications/tools/list_changed: re-listed
        while "somewhere else" not in agent.registry["mcp__fx__echo"].description:
            assert time.monotonic() < deadline, "the server's new definition never arrived"
            time.sleep(0.05)
        second = agent.send("again")
    record = second.records[0]
    assert record.decision.source.value == "no_tty"  # nobody here may approve the change
    assert "mcp__fx__echo changed since a call of it was approved" in record.result.content


# A PreToolUse hook as Claude Code's docs write them for MCP tools: the matcher names the
# server's tools, the script reads tool_name and tool_input from its stdin.
DENY_DELETES = r"""#!/usr/bin/env python3
import json, sys
data = json.load(sys.stdin)
if data["tool_name"].endswith("__delete_all"):
    print(f"{data['tool_name']} is off limits ({data['tool_input']['pattern']})", file=sys.stderr)
    sys.exit(2)
"""


def test_a_claude_code_hook_matches_mcp_tool_names(tmp_path: Path, ws: Path, cli: CLI,
                                                    tag: str) -> None:
    (ws / "a.log").write_text("x")
    hook = tmp_path / "deny.py"
    hook.write_text(DENY_DELETES)
    hook.chmod(0o755)
    hooks = {"PreToolUse": [{"matcher": "mcp__fx__.*",
                             "hooks": [{"type": "command", "command": str(hook)}]}]}
    cfg = server_config(tmp_path, ws, env={"FIXTURE_TAG": tag}, hooks=hooks)
    model = calls_script(tmp_path, ("mcp__fx__delete_all", {"pattern": "*.log"}),
                         ("mcp__fx__echo", {"text": "hi"}))
    data = run_json(cli, "-c", cfg, "-m", model, "-p", "go", "--auto-approve")
    delete, echo = data["calls"]
    assert (delete["decision"], delete["source"]) == ("rejected_soft", "hook")
    assert delete["feedback"] == "mcp__fx__delete_all is off limits (*.log)"
    assert (echo["decision"], echo["source"]) == ("approved", "autonomy")
    assert (ws / "a.log").exists()


def test_a_matcher_is_searched_in_mcp_tool_names_as_claude_code_does(
        tmp_path: Path, ws: Path, cli: CLI, tag: str) -> None:
    """`mcp__fx__(write|delete)` is a regex found in `mcp__fx__write_note`: the hook's exit 2
    blocks the call (a full match of the regex never covered the name, so it ran)."""
    hook = install(tmp_path, "block.sh", BLOCK_ALL)
    hooks = {"PreToolUse": [{"matcher": "mcp__fx__(write|delete)",
                             "hooks": [{"type": "command", "command": hook}]}]}
    cfg = server_config(tmp_path, ws, env={"FIXTURE_TAG": tag}, hooks=hooks)
    model = calls_script(tmp_path, ("mcp__fx__write_note", {"name": "n.txt", "text": "hi"}),
                         ("mcp__fx__echo", {"text": "hi"}))
    data = run_json(cli, "-c", cfg, "-m", model, "-p", "go", "--auto-approve")
    write, echo = data["calls"]
    assert (write["decision"], write["source"]) == ("rejected_soft", "hook")
    assert write["feedback"] == "mcp__fx__write_note is blocked by the matcher's hook"
    assert not (ws / "n.txt").exists()
    assert (echo["decision"], echo["source"]) == ("approved", "autonomy")
