"""MCP servers over a session's life (docs/SPEC.md §7.1): the start-up limit and the setting
its message names, a server that dies mid-session started again with backoff.

Real `saikish -p` processes and the real fixture server (tests/fixtures/mcp_server.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from saikish.mcp.client import CallResult, Servers, ServerSpec, ServerStatus, State
from saikish.models.base import ToolResults
from saikish.models.openai_compat import wire_messages as openai_messages
from saikish.types import Image, ToolResult
from tests.mcp.test_mcp_client import PNG_1X1
from tests.support.wire_server import Reply, serve

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "tests" / "fixtures" / "mcp_server.py"


def config(tmp: Path, ws: Path, **entry: Any) -> Path:
    """An agent.yml with one fixture server `fx` (JSON is YAML); `entry` adds to it."""
    server: dict[str, Any] = {"command": sys.executable, "args": [str(FIXTURE)],
              "env": {"FIXTURE_DIR": str(ws)}}
    for key, value in entry.items():
        server[key] = {**server[key], **value} if isinstance(value, dict) else value
    path = tmp / "cfg.yml"
    text = {"mcpServers": {"fx": server}, "permissions": {"allow": ["mcp__fx"]}}
    path.write_text(json.dumps(text, indent=1) + "\n", encoding="utf-8")
    return path


def script(tmp: Path, *turns: dict[str, Any]) -> str:
    path = tmp / "script.yml"
    path.write_text(json.dumps(list(turns)), encoding="utf-8")
    return f"script:{path}"


def headless(ws: Path, cfg: Path, model: str, *flags: str,
             env: dict[str, str] | None = None) -> dict[str, Any]:
    """`saikish -p` with JSON output, as a real process; its answer."""
    run = subprocess.run(
        [sys.executable, "-m", "saikish", "-p", "go", "-m", model, "-c", str(cfg),
         "--output-format", "json", "--sandbox", "off", *flags],
        capture_output=True, text=True, cwd=ws, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})
    assert "Traceback" not in run.stderr, run.stderr
    data: dict[str, Any] = json.loads(run.stdout)
    return data


def test_a_server_too_slow_to_start_names_its_own_setting(ws: Path, tmp_path: Path) -> None:
    cfg = config(tmp_path, ws, startupTimeout=0.5, env={"FIXTURE_START": "hang"})
    model = script(tmp_path,
                   {"tool_calls": [{"name": "mcp__fx__echo", "arguments": {"text": "x"}}]},
                   {"text": "fine"})
    data = headless(ws, cfg, model)
    why = (f"did not start within 0.5 s; give it longer with startupTimeout in its entry "
           f"({cfg}:3) (seconds)")
    assert data["result"] == "fine"
    [echo] = data["calls"]  # the call waited for its server, which then failed: no such tool
    assert echo["decision"] == "invalid"
    assert echo["feedback"].startswith("unknown tool 'mcp__fx__echo'")
    assert data["warnings"] == [f"mcp server 'fx' failed: {why}"]


def test_the_default_limit_names_both_settings(ws: Path, tmp_path: Path) -> None:
    cfg = config(tmp_path, ws, env={"FIXTURE_START": "hang"})
    model = script(tmp_path,
                   {"tool_calls": [{"name": "mcp__fx__echo", "arguments": {"text": "x"}}]},
                   {"text": "fine"})
    data = headless(ws, cfg, model, env={"SAIKISH_MCP_STARTUP_TIMEOUT": "0.5"})
    assert data["warnings"] == [
        f"mcp server 'fx' failed: did not start within 0.5 s; give it longer with "
        f"startupTimeout in its entry ({cfg}:3), or SAIKISH_MCP_STARTUP_TIMEOUT for every "
        f"server (seconds)"]


def test_a_run_that_never_calls_a_slow_server_does_not_wait_for_it(
        ws: Path, tmp_path: Path) -> None:
    """The server would start only once `gate` exists, which never happens: had the run
    waited for it (5 minutes of startupTimeout), the subprocess would time out."""
    cfg = config(tmp_path, ws, startupTimeout=300,
                 env={"FIXTURE_START": f"wait:{tmp_path / 'gate'}"})
    data = headless(ws, cfg, script(tmp_path, {"text": "answered at once"}))
    assert data["result"] == "answered at once"
    assert data["warnings"] == ["mcp server 'fx' was still starting: its tools were not offered"]


def test_a_command_that_is_not_there_fails_before_the_first_turn(
        ws: Path, tmp_path: Path) -> None:
    cfg = config(tmp_path, ws, command="saikish-no-such-mcp-server", args=[])
    data = headless(ws, cfg, script(tmp_path, {"text": "fine"}))
    assert data["warnings"] == [
        "mcp server 'fx' failed: command 'saikish-no-such-mcp-server' not found"]


def test_a_bad_startup_timeout_is_a_config_error_with_its_line(ws: Path,
                                                                tmp_path: Path) -> None:
    cfg = config(tmp_path, ws, startupTimeout=-1)
    run = subprocess.run(
        [sys.executable, "-m", "saikish", "-p", "go", "-m", "script:/dev/null", "-c", str(cfg)],
        capture_output=True, text=True, cwd=ws, timeout=60, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"{cfg}:" in run.stderr and "mcpServers.fx.startupTimeout" in run.stderr
    assert "must be a number of seconds > 0, not '-1'" in run.stderr


def test_a_server_that_dies_mid_session_is_started_again(ws: Path, tmp_path: Path) -> None:
    cfg = config(tmp_path, ws)
    model = script(tmp_path,
                   {"tool_calls": [{"name": "mcp__fx__crash", "arguments": {}}]},
                   {"tool_calls": [{"name": "mcp__fx__echo", "arguments": {"text": "back"}}]},
                   {"text": "done"})
    data = headless(ws, cfg, model)
    crash, echo = data["calls"]
    assert crash["result"]["is_error"] and "exited with code 3" in crash["result"]["excerpt"]
    # The next call waits for the server to be back (1 s of backoff, then its start).
    assert echo["result"] == {"is_error": False, "exit_code": None, "excerpt": "back"}
    assert data["warnings"] == [
        "mcp server 'fx' stopped; starting again in 1 s (restart 1 of 5) after: exited with "
        "code 3: fixture: crashing on purpose",
        "mcp server 'fx': started again"]
    assert data["result"] == "done"


def test_a_server_that_keeps_dying_is_given_up(tmp_path: Path) -> None:
    """Each restart waits twice as long; past the last one the server has failed."""
    changes: list[ServerStatus] = []
    spec = ServerSpec("fx", command=sys.executable, args=(str(FIXTURE),), cwd=str(tmp_path),
                      env={"PATH": os.environ["PATH"], "FIXTURE_DIR": str(tmp_path)},
                      restarts=2)
    servers = Servers([spec], log_dir=tmp_path / "logs", on_change=changes.append)
    servers.start()
    servers.wait_ready(60)
    why = "exited with code 3: fixture: crashing on purpose"
    try:
        for _ in range(3):  # the call after a crash waits for the restart
            assert servers.call("fx", "crash", {}) == CallResult(
                f"mcp server 'fx' stopped during tool 'crash': {why}", is_error=True)
        assert [(c.state, c.reason) for c in changes] == [
            (State.READY, ""),
            (State.STARTING, f"starting again in 1 s (restart 1 of 2) after: {why}"),
            (State.READY, "started again"),
            (State.STARTING, f"starting again in 2 s (restart 2 of 2) after: {why}"),
            (State.READY, "started again"),
            (State.FAILED, why)]
        assert servers.call("fx", "echo", {"text": "x"}) == CallResult(
            f"mcp server 'fx' is not running (failed: {why})", is_error=True)
    finally:
        servers.close()


def anthropic_sse(*events: dict[str, Any]) -> bytes:
    return b"".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)


def tool_use_turn(call_id: str, name: str) -> bytes:
    return anthropic_sse(
        {"type": "message_start", "message": {"usage": {"input_tokens": 5}}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": "{}"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"},
         "usage": {"output_tokens": 3}},
        {"type": "message_stop"})


def text_turn(text: str) -> bytes:
    return anthropic_sse(
        {"type": "message_start", "message": {"usage": {"input_tokens": 5}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text",
                                                                      "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta",
                                                              "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"},
         "usage": {"output_tokens": 3}},
        {"type": "message_stop"})


def test_an_image_from_a_server_reaches_a_model_that_takes_images(
        ws: Path, tmp_path: Path) -> None:
    cfg = config(tmp_path, ws)
    with serve(Reply(tool_use_turn("toolu_1", "mcp__fx__image")),
               Reply(text_turn("a transparent pixel"))) as server:
        data = headless(ws, cfg, "anthropic:claude-test",
                        env={"ANTHROPIC_API_KEY": "sk-ant-test",
                             "ANTHROPIC_BASE_URL": server.url})
        follow_up = server.requests[1]["messages"]
    assert data["result"] == "a transparent pixel"
    [result] = [block for message in follow_up for block in message["content"]
                if block.get("type") == "tool_result"]
    text, image = result["content"]
    assert text["text"] == "[image 1: image/png, 70 B, attached]\na pixel"
    assert image == {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                 "data": PNG_1X1}}


def test_an_openai_compatible_model_is_told_the_image_was_not_sent() -> None:
    result = ToolResult("call_1", "mcp__fx__image", "[image 1: image/png, 70 B, attached]",
                        images=(Image("image/png", PNG_1X1),))
    [message] = openai_messages("", [ToolResults((result,))])
    assert message == {"role": "tool", "tool_call_id": "call_1", "content":
                       "[image 1: image/png, 70 B, attached]\n[1 image above not shown: images "
                       "are not sent to this provider]"}
