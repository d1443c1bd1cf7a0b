"""`saikish acp` end to end: the official ACP Python SDK's client is the editor (§7.4)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

acp = pytest.importorskip("acp", reason="agent-client-protocol is in the test extra")
from acp import text_block  # noqa: E402
from acp.schema import (  # noqa: E402
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    EnvVariable,
    FileSystemCapabilities,
    McpServerStdio,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)
from acp.stdio import spawn_agent_process  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
Choose = Callable[[Any, list[PermissionOption]], RequestPermissionResponse]


def pick(option: str, meta: dict[str, Any] | None = None) -> Choose:
    def choose(tool_call: Any, options: list[PermissionOption]) -> RequestPermissionResponse:
        assert option in [o.option_id for o in options]
        return RequestPermissionResponse(
            outcome=AllowedOutcome(option_id=option, outcome="selected"),
            field_meta={"saikish": meta} if meta else None)
    return choose


def cancelled(tool_call: Any, options: list[PermissionOption]) -> RequestPermissionResponse:
    return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


@dataclass
class Editor:
    """The editor side: answers permission questions from a script, records updates."""

    answers: list[Choose]
    asked: list[tuple[Any, list[str]]] = field(default_factory=list)
    updates: list[dict[str, Any]] = field(default_factory=list)
    # Set to cancel the prompt when a call starts running (the editor's stop button).
    cancel_running: bool = False
    conn: Any = None

    async def request_permission(self, session_id: str, tool_call: Any,
                                 options: list[PermissionOption],
                                 **kwargs: Any) -> RequestPermissionResponse:
        self.asked.append((tool_call, [o.kind for o in options]))
        answer = self.answers.pop(0)
        if answer is cancelled:  # the person pressed stop while the question was up
            await self.conn.cancel(session_id=session_id)
        return answer(tool_call, options)

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        data = update.model_dump(by_alias=True, exclude_none=True)
        self.updates.append(data)
        if self.cancel_running and data.get("status") == "in_progress":
            await self.conn.cancel(session_id=session_id)

    def text(self) -> str:
        return "".join(u["content"]["text"] for u in self.updates
                       if u["sessionUpdate"] == "agent_message_chunk")

    def statuses(self, call_id: str) -> list[str]:
        return [u["status"] for u in self.updates
                if u.get("toolCallId") == call_id and "status" in u]


def script(tmp_path: Path, text: str) -> str:
    path = tmp_path / "script.yml"
    path.write_text(text, encoding="utf-8")
    return f"script:{path}"


async def converse(editor: Editor, ws: Path, model: str, *prompts: str,
                   flags: tuple[str, ...] = (), mode: str | None = None,
                   servers: tuple[Any, ...] = ()) -> list[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # Permission tests: with the sandbox off, `touch a` is asked as before the contained
    # tier (docs/SPEC.md §4.1); a contained call never reaches the editor's dialog.
    if "--sandbox" not in flags:
        flags = (*flags, "--sandbox", "off")
    # The SDK types its client as a Protocol that the test's plain Editor class fills.
    client: Any = editor
    async with spawn_agent_process(client, sys.executable, "-m", "saikish", "acp", "-m", model,
                                   *flags, env=env, cwd=ws) as (conn, _process):
        editor.conn = conn
        init = await conn.initialize(protocol_version=1)
        assert init.protocol_version == 1 and init.agent_info and \
            init.agent_info.name == "saikish"
        session = await conn.new_session(cwd=str(ws), mcp_servers=list(servers))
        if mode is not None:
            await conn.set_session_mode(session_id=session.session_id, mode_id=mode)
        stops = []
        for prompt in prompts:
            response = await conn.prompt(session_id=session.session_id,
                                         prompt=[text_block(prompt)])
            stops.append(str(response.stop_reason))
        return stops


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout=60))


TWO_CALLS = """\
- text: Let me look.
  tool_calls:
    - {name: bash, arguments: {command: ls}}
    - {name: write_file, arguments: {path: notes.txt, content: "hello\\n"}}
- text: Done.
"""


def test_a_prompt_streams_text_and_tool_calls_with_status_and_diff(ws: Path,
                                                                    tmp_path: Path) -> None:
    editor = Editor([pick("allow_once")])
    stops = run(converse(editor, ws, script(tmp_path, TWO_CALLS), "take notes"))
    assert stops == ["end_turn"]
    assert editor.text() == "Let me look.Done."
    assert (ws / "notes.txt").read_text() == "hello\n"
    assert editor.statuses("call_1") == ["pending", "in_progress", "completed"]
    assert editor.statuses("call_2") == ["pending", "in_progress", "completed"]
    started = next(u for u in editor.updates if u.get("toolCallId") == "call_2"
                   and u["sessionUpdate"] == "tool_call")
    assert (started["kind"], started["title"]) == ("edit", "write_file notes.txt")
    assert started["content"] == [{"type": "diff", "path": str(ws / "notes.txt"),
                                   "newText": "hello\n"}]
    # Only the write was asked about (ls is read-only); "always" names its rule.
    [(tool_call, kinds)] = editor.asked
    assert tool_call.tool_call_id == "call_2" and tool_call.raw_input == {
        "path": "notes.txt", "content": "hello\n"}
    assert kinds == ["allow_once", "allow_always", "reject_once", "reject_always"]


def test_reject_once_carries_feedback_and_the_batch_goes_on(ws: Path, tmp_path: Path) -> None:
    model = script(tmp_path, """\
- tool_calls:
    - {name: bash, arguments: {command: touch a}}
    - {name: bash, arguments: {command: touch b}}
- text: ok
""")
    editor = Editor([pick("reject_once", {"feedback": "not a"}), pick("allow_once")])
    assert run(converse(editor, ws, model, "go")) == ["end_turn"]
    assert not (ws / "a").exists() and (ws / "b").exists()
    failed = [u for u in editor.updates if u.get("toolCallId") == "call_1"
              and u.get("status") == "failed"]
    assert "Feedback: not a" in failed[0]["content"][0]["content"]["text"]


def test_reject_always_rejects_and_remembers_a_deny_rule(ws: Path, tmp_path: Path) -> None:
    model = script(tmp_path, """\
- tool_calls:
    - {name: bash, arguments: {command: touch a}}
    - {name: bash, arguments: {command: touch b}}
    - {name: bash, arguments: {command: mkdir c}}
- text: went on
""")
    editor = Editor([pick("reject_always"), pick("allow_once")])
    assert run(converse(editor, ws, model, "go")) == ["end_turn"]
    # The choice names the rule it remembers, as "Always" names the one it adds.
    assert editor.asked[0][0].tool_call_id == "call_1"
    # `touch b` is denied by the remembered rule without a question; `mkdir c` is asked.
    assert [t.tool_call_id for t, _ in editor.asked] == ["call_1", "call_3"]
    assert not (ws / "a").exists() and not (ws / "b").exists() and (ws / "c").is_dir()
    assert editor.statuses("call_2") == ["pending", "failed"]
    assert editor.text() == "went on"  # reject, not stop: the batch and the loop go on
    saved = (tmp_path / "config" / "allowlist.yaml").read_text()
    assert "deny:" in saved and "Bash(touch *)" in saved
    audit = [json.loads(line) for line in
             (tmp_path / "state" / "audit.jsonl").read_text().splitlines()]
    assert [(e["decision"], e["source"]) for e in audit][:2] == [
        ("rejected_soft", "user"), ("rejected_soft", "deny_rule")]


def test_reject_always_names_its_rule(ws: Path, tmp_path: Path) -> None:
    model = script(tmp_path, "- tool_calls: [{name: bash, arguments: {command: touch a}}]\n"
                             "- text: ok\n")
    names: list[str] = []

    def choose(tool_call: Any, options: list[PermissionOption]) -> RequestPermissionResponse:
        names.extend(o.name for o in options)
        return pick("reject_once")(tool_call, options)

    run(converse(Editor([choose]), ws, model, "go"))
    assert names == ["Yes", "Always: Bash(touch *)", "No, tell it why",
                     "Never: Bash(touch *)"]


def test_allow_always_saves_the_rule_and_the_next_prompt_does_not_ask(
        ws: Path, tmp_path: Path) -> None:
    model = script(tmp_path, """\
- tool_calls: [{name: bash, arguments: {command: touch a}}]
- text: one
- tool_calls: [{name: bash, arguments: {command: touch b}}]
- text: two
""")
    editor = Editor([pick("allow_always")])
    assert run(converse(editor, ws, model, "first", "second")) == ["end_turn", "end_turn"]
    assert (ws / "a").exists() and (ws / "b").exists() and len(editor.asked) == 1
    assert "Bash(touch *)" in (tmp_path / "config" / "allowlist.yaml").read_text()


def test_an_edit_in_meta_runs_the_edited_call(ws: Path, tmp_path: Path) -> None:
    model = script(tmp_path, "- tool_calls: [{name: bash, arguments: {command: touch a}}]\n"
                             "- text: ok\n")
    editor = Editor([pick("allow_once", {"arguments": {"command": "touch edited"}}),
                     pick("allow_once")])
    run(converse(editor, ws, model, "go"))
    assert (ws / "edited").exists() and not (ws / "a").exists()
    # The edited call is decided again from the start, as a person's edit in the terminal.
    assert [t.raw_input for t, _ in editor.asked] == [{"command": "touch a"},
                                                      {"command": "touch edited"}]


def test_cancel_while_asked_stops_the_prompt(ws: Path, tmp_path: Path) -> None:
    model = script(tmp_path, """\
- tool_calls:
    - {name: bash, arguments: {command: touch a}}
    - {name: bash, arguments: {command: touch b}}
- text: never
""")
    editor = Editor([cancelled])
    assert run(converse(editor, ws, model, "go")) == ["cancelled"]
    assert not (ws / "a").exists() and not (ws / "b").exists()
    assert len(editor.asked) == 1 and "never" not in editor.text()


def test_cancel_kills_a_running_command(ws: Path, tmp_path: Path) -> None:
    model = script(tmp_path, "- tool_calls: [{name: bash, arguments: {command: sleep 50}}]\n"
                             "- text: never\n")
    editor = Editor([], cancel_running=True)
    assert run(converse(editor, ws, model, "go", flags=("--auto-approve", "--sandbox",
                                                       "off"))) == ["cancelled"]
    result = [u for u in editor.updates if u.get("toolCallId") == "call_1"
              and u.get("status") in ("completed", "failed")]
    assert "cancelled by the person" in result[0]["content"][0]["content"]["text"]
    assert "never" not in editor.text()  # no further model call after a cancel


def test_modes_work_as_in_the_terminal(ws: Path, tmp_path: Path) -> None:
    model = script(tmp_path, "- tool_calls: [{name: bash, arguments: {command: touch a}}]\n"
                             "- text: ok\n")
    editor = Editor([])
    run(converse(editor, ws, model, "go", flags=("--auto-deny",)))
    assert editor.asked == [] and not (ws / "a").exists()
    audit = [json.loads(line) for line in
             (tmp_path / "state" / "audit.jsonl").read_text().splitlines()]
    assert [(e["decision"], e["source"]) for e in audit] == [("rejected_soft", "mode")]


def test_a_raw_json_rpc_conversation(ws: Path, tmp_path: Path) -> None:
    """The messages of the ACP specification's examples, written by hand on the wire."""
    model = script(tmp_path, "- text: Hello from saikish.\n")
    lines = [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": 1, "clientCapabilities": {
             "fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True}}},
        {"jsonrpc": "2.0", "id": 1, "method": "session/new",
         "params": {"cwd": str(ws), "mcpServers": []}},
        {"jsonrpc": "2.0", "id": 9, "method": "no/such", "params": {}},
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    first = subprocess.run([sys.executable, "-m", "saikish", "acp", "-m", model],
                           input="".join(json.dumps(m) + "\n" for m in lines), text=True,
                           capture_output=True, env=env, cwd=ws, timeout=60, check=False)
    answers = [json.loads(line) for line in first.stdout.splitlines()]
    assert answers[0]["result"]["protocolVersion"] == 1
    capabilities = answers[0]["result"]["agentCapabilities"]
    assert capabilities["loadSession"] is True
    assert capabilities["mcpCapabilities"] == {"http": True, "sse": False}
    assert set(answers[1]["result"]) == {"sessionId", "modes", "_meta"}
    stored = answers[1]["result"]["_meta"]["saikish"]  # what session/load will read later
    assert stored["transcriptPath"] == str(tmp_path / "state" / "sessions" /
                                           f"{stored['session']}.jsonl")
    assert answers[2] == {"jsonrpc": "2.0", "id": 9, "error": {
        "code": -32601, "message": "saikish does not know no/such"}}
    assert first.returncode == 0 and first.stderr == ""


def test_the_editor_can_switch_the_mode(ws: Path, tmp_path: Path) -> None:
    model = script(tmp_path, "- tool_calls: [{name: bash, arguments: {command: touch a}}]\n"
                             "- text: ok\n")
    editor = Editor([])
    run(converse(editor, ws, model, "go", mode="auto-approve"))
    assert editor.asked == [] and (ws / "a").exists()


def test_an_editor_that_never_answers_meets_the_countdown(ws: Path, tmp_path: Path) -> None:
    model = script(tmp_path, """\
- tool_calls:
    - {name: bash, arguments: {command: touch a}}
    - {name: bash, arguments: {command: touch b}}
- text: never
""")
    never = asyncio.Event()

    def silent(tool_call: Any, options: list[PermissionOption]) -> RequestPermissionResponse:
        raise AssertionError("not reached")

    class Silent(Editor):
        async def request_permission(self, session_id: str, tool_call: Any,
                                     options: list[PermissionOption],
                                     **kwargs: Any) -> RequestPermissionResponse:
            self.asked.append((tool_call, [o.kind for o in options]))
            await never.wait()  # the person walked away
            return silent(tool_call, options)

    editor = Silent([])
    assert run(converse(editor, ws, model, "go", flags=("--timeout", "0.3"))) == ["end_turn"]
    assert len(editor.asked) == 1 and not (ws / "a").exists() and not (ws / "b").exists()
    audit = [json.loads(line) for line in
             (tmp_path / "state" / "audit.jsonl").read_text().splitlines()]
    assert [(e["decision"], e["source"]) for e in audit] == [("rejected_hard", "timeout")]


def test_the_editors_mcp_servers_are_started_and_their_calls_asked(
        ws: Path, tmp_path: Path) -> None:
    fixture = ROOT / "tests" / "fixtures" / "mcp_server.py"
    server = McpServerStdio(name="fx", command=sys.executable, args=[str(fixture)],
                            env=[EnvVariable(name="FIXTURE_DIR", value=str(ws))])
    model = script(tmp_path, """\
- tool_calls:
    - {name: mcp__fx__write_note, arguments: {name: n.txt, text: from the editor}}
- text: Done.
""")
    editor = Editor([pick("allow_once")])
    stops = run(converse(editor, ws, model, "note it", servers=(server,)))
    assert stops == ["end_turn"]
    [(tool_call, _)] = editor.asked  # WRITE under cautious: the editor's person is asked
    assert tool_call.raw_input == {"name": "n.txt", "text": "from the editor"}
    assert (ws / "n.txt").read_text() == "from the editor"



def test_a_contained_call_runs_unasked_and_the_editor_is_told_its_tier(
        ws: Path, tmp_path: Path) -> None:
    # With the machine's sandbox (bubblewrap, installed by .ci/run), `touch a` needs no
    # person: the editor's dialog never opens, and the update says where it ran (§4.1).
    model = script(tmp_path, """\
- tool_calls:
    - {name: bash, arguments: {command: touch a}}
    - {name: bash, arguments: {command: curl -s https://example.invalid}}
- text: ok
""")
    editor = Editor([pick("reject_once", {"feedback": "no network"})])
    assert run(converse(editor, ws, model, "go", flags=("--sandbox", "auto"))) == ["end_turn"]
    assert (ws / "a").exists()
    assert [call.raw_input for call, _ in editor.asked] == [
        {"command": "curl -s https://example.invalid"}]
    tiers = {u["toolCallId"]: u["field_meta"]["saikish"]["tier"] if "field_meta" in u else
             u["_meta"]["saikish"]["tier"] for u in editor.updates
             if "_meta" in u or "field_meta" in u}
    assert tiers == {"call_1": "contained", "call_2": "asked"}


@dataclass
class BufferEditor(Editor):
    """An editor whose open buffer differs from the disk (the SDK's fs methods)."""

    buffers: dict[str, str] = field(default_factory=dict)

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kwargs: Any) -> ReadTextFileResponse:
        return ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kwargs: Any) -> WriteTextFileResponse:
        self.buffers[path] = content
        return WriteTextFileResponse()


def test_the_sdk_client_loads_a_session_and_its_buffers_are_used(ws: Path,
                                                                 tmp_path: Path) -> None:
    (ws / "todo.txt").write_text("on disk\n")
    first = script(tmp_path, """\
- tool_calls:
    - {name: edit_file, arguments: {path: todo.txt, old_string: "in buffer", new_string: done}}
- text: edited
""")
    later = tmp_path / "later.yml"
    later.write_text("- text: loaded\n")
    editor = BufferEditor([], buffers={str(ws / "todo.txt"): "in buffer\n"})

    async def both() -> tuple[str, list[dict[str, Any]]]:
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        client: Any = editor
        capabilities = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True,
                                                                  write_text_file=True))
        async with spawn_agent_process(client, sys.executable, "-m", "saikish", "acp", "-m",
                                       first, "--auto-approve", "--sandbox", "off", env=env,
                                       cwd=ws) as (conn, _process):
            await conn.initialize(protocol_version=1, client_capabilities=capabilities)
            session = await conn.new_session(cwd=str(ws), mcp_servers=[])
            await conn.prompt(session_id=session.session_id, prompt=[text_block("fix it")])
        replayed = Editor([])
        client = replayed
        async with spawn_agent_process(client, sys.executable, "-m", "saikish", "acp", "-m",
                                       f"script:{later}", env=env, cwd=ws) as (conn, _process):
            init = await conn.initialize(protocol_version=1)
            assert init.agent_capabilities and init.agent_capabilities.load_session
            await conn.load_session(cwd=str(ws), session_id=session.session_id,
                                    mcp_servers=[])
            response = await conn.prompt(session_id=session.session_id,
                                         prompt=[text_block("and now?")])
            assert str(response.stop_reason) == "end_turn"
        return session.session_id, replayed.updates

    _, updates = run(both())
    assert editor.buffers[str(ws / "todo.txt")] == "done\n"  # the edit landed in the buffer
    assert (ws / "todo.txt").read_text() == "on disk\n"
    kinds = [u["sessionUpdate"] for u in updates]
    assert kinds[:4] == ["user_message_chunk", "tool_call", "tool_call_update",
                         "agent_message_chunk"]
    assert updates[0]["content"]["text"] == "fix it" and updates[3]["content"]["text"] == "edited"
    assert updates[-1] == {"sessionUpdate": "agent_message_chunk",
                           "content": {"type": "text", "text": "loaded"}}
