"""Inputs that were read without a bound are capped, cut with a note, and said.

Before: one SSE line (a 4 MB gzip body inflating to gigabytes) was held whole in memory;
a hook's 200 MB of stdout was read whole and its 5 MB additionalContext was put into the
conversation (and resent with every model call); an MCP result was read in quadratic
time; and every tool of a server listing 1,000 was sent with every request.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from saikish.config.layers import load_config
from saikish.events import Notice, Recorder
from saikish.models.base import UserMessage
from saikish.models.script import ScriptModel, parse_turns
from saikish.runtime.agent import Agent
from tests.models.test_providers import call, chunk, sse
from tests.support.harness import ROOT, Run, write_script
from tests.support.wire_server import Reply, serve

CLI = Callable[..., Run]
RAW_SERVER = ROOT / "tests" / "fixtures" / "raw_mcp_server.py"
DEADLINE = 240


def gzip_line(megabytes: int) -> bytes:
    """A gzip body holding `data: ` and one line of `megabytes` MB of 'a' with no end.

    Built from one steady deflate block repeated (after the window is full of 'a', each
    full flush of another megabyte gives the same bytes), so gigabytes cost milliseconds.
    """
    block = b"a" * (1 << 20)
    deflate = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = deflate.compress(b"data: " + block) + deflate.flush(zlib.Z_FULL_FLUSH)
    steady = deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    assert steady == deflate.compress(block) + deflate.flush(zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(b"data: " + block)
    for _ in range(megabytes - 1):
        crc = zlib.crc32(block, crc)
    size = 6 + megabytes * len(block)
    header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
    trailer = crc.to_bytes(4, "little") + (size % (1 << 32)).to_bytes(4, "little")
    return header + first + steady * (megabytes - 1) + deflate.flush() + trailer


def user_config(url: str) -> None:
    config = Path(os.environ["SAIKISH_CONFIG_DIR"])
    config.mkdir(parents=True, exist_ok=True)
    (config / "agent.yml").write_text(json.dumps({"llm": {
        "provider": "openai", "model": "m", "baseURL": f"{url}/v1", "apiKey": "sk-test"}}))


def test_an_endless_compressed_sse_line_is_stopped_not_held(ws: Path) -> None:
    body = gzip_line(2048)  # 2 GB of one line, in about 2 MB
    headers = {"content-type": "text/event-stream", "content-encoding": "gzip"}
    pieces = [body[i:i + (1 << 16)] for i in range(0, len(body), 1 << 16)]
    with serve(Reply(body, headers=headers, split=lambda b: pieces)) as server:
        user_config(server.url)

        def one_gigabyte() -> None:  # before the fix the run held the whole line
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

        run = subprocess.run([sys.executable, "-m", "saikish", "-p", "hi", "-m", "openai:m"],
                             cwd=ws, capture_output=True, text=True, timeout=DEADLINE,
                             preexec_fn=one_gigabyte)
    assert run.returncode == 1, run.stderr
    assert run.stderr == ("saikish: openai: request failed: the server sent more than 16 MB "
                          "in one event; stopped reading\n")
    assert len(server.requests) == 1  # not retried: the same server would send it again


def hook_config(tmp_path: Path, event: str, command: str) -> Path:
    path = tmp_path / "agent.yml"
    path.write_text(json.dumps({"hooks": {event: [{"matcher": "", "hooks": [
        {"type": "command", "command": command}]}]}}))
    return path


def agent(config: Path, ws: Path, turns: list[object]) -> tuple[Agent, Recorder]:
    bot = Agent.create(ScriptModel(parse_turns(turns, "test")), workspace=ws,
                       config=load_config(config))
    heard = Recorder()
    bot.subscribe(heard)
    return bot, heard


def test_a_hook_printing_200_mb_is_killed_at_the_bound(tmp_path: Path, ws: Path) -> None:
    flood = "head -c 200000000 /dev/zero | tr '\\0' x"
    bot, _ = agent(hook_config(tmp_path, "UserPromptSubmit", flood), ws, [{"text": "never"}])
    result = bot.send("hi")
    assert (result.exit_reason, bot.messages) == ("stopped", [])
    assert result.message.endswith("wrote more than 1 MB to stdout and was killed")


def test_a_hooks_huge_additional_context_is_cut_and_said(tmp_path: Path, ws: Path) -> None:
    script = tmp_path / "context.py"
    script.write_text("import json\nprint(json.dumps({'hookSpecificOutput': {'hookEventName': "
                      "'UserPromptSubmit', 'additionalContext': 'c' * 900000}}))\n")
    bot, heard = agent(hook_config(tmp_path, "UserPromptSubmit", f"python3 {script}"), ws,
                       [{"text": "ok"}])
    assert bot.send("hi").text == "ok"
    first = bot.messages[0]
    assert isinstance(first, UserMessage)
    assert first.text == ("hi\n\n" + "c" * 10_000 +
                          "\n[cut by saikish: 890,000 more characters]")
    notes = [e.text for e in heard.events if isinstance(e, Notice)]
    assert any("sent more than 10,000 characters in additionalContext (900,000 characters): "
               "cut to 10,000" in n for n in notes)


def mcp_config(tmp_path: Path, **env: str) -> str:
    path = tmp_path / "cfg.yml"
    path.write_text(json.dumps({
        "mcpServers": {"raw": {"command": sys.executable, "args": [str(RAW_SERVER)],
                               "env": env}},
        "permissions": {"allow": ["mcp__raw"]}}))
    return str(path)


def test_at_most_128_tools_go_with_a_request(ws: Path, tmp_path: Path) -> None:
    # The first request does not wait for the server (§7.1); the model's call of one of its
    # tools waits for it, and the request after that carries its tools, up to the cap.
    first = sse(chunk(call(0, "call_0", "mcp__raw__t0", "{}")), chunk(finish="tool_calls"))
    answer = sse(chunk(content="fine"), chunk(finish="stop"))
    with serve(Reply(first), Reply(answer)) as server:
        user_config(server.url)
        run = subprocess.run([sys.executable, "-m", "saikish", "-p", "hi", "-m", "openai:m",
                              "-c", mcp_config(tmp_path, RAW_TOOLS="1000")], cwd=ws,
                             capture_output=True, text=True, timeout=DEADLINE)
    assert run.returncode == 0, run.stderr
    sent = [tool["function"]["name"] for tool in server.requests[1]["tools"]]
    assert len(sent) == 128 and sent[-1] == "mcp__raw__t121"  # after the 6 built-in tools
    assert ("878 MCP tools are not offered to the model: at most 128 tools go with a "
            "request. Left out: mcp__raw__t122, mcp__raw__t123") in run.stderr


def run_json(cli: CLI, *argv: str) -> dict[str, Any]:
    run = cli(*argv, "--output-format", "json")
    assert "Traceback" not in run.err
    data: dict[str, Any] = json.loads(run.out)
    return data


def test_a_60_mb_mcp_result_arrives_and_is_cut_for_the_model(cli: CLI, tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yml", "- tool_calls:\n    - {name: mcp__raw__t0, "
                                             "arguments: {}}\n- text: done\n")
    data = run_json(cli, "-p", "go", "-m", model, "-c", mcp_config(tmp_path, RAW_RESULT_MB="60"))
    (call,) = data["calls"]
    assert (call["decision"], call["result"]["is_error"]) == ("approved", False)
    assert call["result"]["excerpt"].startswith("xxxx")
