"""`saikish acp`: saikish as an Agent Client Protocol agent over stdio (docs/SPEC.md §7.4).

An editor (Zed, JetBrains, Neovim clients) starts `saikish acp`, opens
sessions and sends prompts; saikish streams `session/update`s (text, tool
calls with status and diffs) and asks `session/request_permission` where the
terminal would show its box. Rules, modes, audit and the countdown work as in
the terminal: the editor is one more Approver and one more event subscriber.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from saikish import __version__
from saikish.acp.files import editor_files
from saikish.acp.history import history_updates, text_block, tool_text
from saikish.acp.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    Connection,
    Reply,
    RpcError,
)
from saikish.acp.permission import EditorApprover
from saikish.acp.startup import announce_startup
from saikish.errors import SaikishError
from saikish.events import (
    CallDecided,
    CallFinished,
    CallProposed,
    CallStarted,
    Event,
    TextDelta,
)
from saikish.mcp.config import ServerTable, from_editor
from saikish.runtime.agent import Agent
from saikish.runtime.approval import Approver
from saikish.runtime.resume import session_folder
from saikish.sessions.catalog import SessionInfo, read_info
from saikish.sessions.log import SUFFIX
from saikish.tools.base import FileAccess, Tool
from saikish.types import Mode, ToolCall
from saikish.view import FileChange, View
from saikish.vocabulary import ERROR, MAX_ITERATIONS, tier_name

PROTOCOL_VERSION = 1
PROMPT_END_S = 30.0  # after the editor left: how long a cancelled prompt may take to end
# (cwd, approver, the editor's servers, a stored session to go on with or None) -> Agent
AgentFactory = Callable[[str, Approver, ServerTable, "SessionInfo | None"], Agent]
MODES = {Mode.EVENT_BASED: "Ask before changes", Mode.AUTO_APPROVE: "Approve every call",
         Mode.AUTO_DENY: "Reject every call that would ask"}

@dataclass
class EditorUpdates:
    """Subscriber: the event stream as session/update notifications."""

    connection: Connection
    session_id: str
    tools: Mapping[str, Tool]
    workspace: str
    files: FileAccess | None = None  # the editor's buffers, when it offers them

    def __call__(self, event: Event) -> None:
        """Send the update for `event`, if the editor shows it."""
        update = self._update(event)
        if update is not None:
            self.connection.notify("session/update",
                                   {"sessionId": self.session_id, "update": update})

    def _update(self, event: Event) -> dict[str, Any] | None:
        if isinstance(event, TextDelta):
            return {"sessionUpdate": "agent_message_chunk", "content": text_block(event.text)}
        if isinstance(event, CallProposed):
            return self._proposed(event.call)
        if isinstance(event, CallDecided):
            # Where the call ended (docs/SPEC.md §4.1): a contained run says so to the editor.
            return {"sessionUpdate": "tool_call_update", "toolCallId": event.call.id,
                    "_meta": {"saikish": {
                        "tier": tier_name(event.decision, event.assessment),
                        "decision": event.decision.outcome.value,
                        "source": event.decision.source.value}}}
        if isinstance(event, CallStarted):
            return {"sessionUpdate": "tool_call_update", "toolCallId": event.call.id,
                    "status": "in_progress"}
        if isinstance(event, CallFinished):
            ok = event.decision.approved and not event.result.is_error
            return {"sessionUpdate": "tool_call_update", "toolCallId": event.call.id,
                    "status": "completed" if ok else "failed",
                    "content": [tool_text(event.result.content)]}
        return None

    def _proposed(self, call: ToolCall) -> dict[str, Any]:
        tool = self.tools.get(call.name)
        paths = [str(call.arguments[a]) for a in (tool.path_arguments if tool else ())
                 if isinstance(call.arguments.get(a), str)]
        update: dict[str, Any] = {
            "sessionUpdate": "tool_call", "toolCallId": call.id,
            "title": tool.summary(call.arguments) if tool else call.name,
            "kind": tool.kind if tool else "other", "status": "pending",
            "rawInput": call.wire_arguments,
            "locations": [{"path": str(Path(self.workspace, p))} for p in paths]}
        diff = file_diff(tool.show(call, self.workspace, self.files)) if tool else None
        if diff is not None:
            update["content"] = [diff]
        return update


def file_diff(view: View) -> dict[str, Any] | None:
    """ACP diff content for a call that changes a file, as its tool works the change out:
    the file before and after (None when the change will fail)."""
    if not isinstance(view, FileChange) or view.new is None or not view.path:
        return None
    return {"type": "diff", "path": view.target, "oldText": view.old, "newText": view.new}


@dataclass
class EditorSession:
    """One ACP session: an Agent, its approver and whether its prompt was cancelled."""

    agent: Agent
    approver: EditorApprover
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class AcpServer:
    """Answers the editor's requests; one Agent per session."""

    connection: Connection
    make_agent: AgentFactory
    sessions: dict[str, EditorSession] = field(default_factory=dict)
    client: dict[str, Any] = field(default_factory=dict)  # the editor's clientCapabilities

    def serve(self) -> int:
        """Run until the editor closes stdin; then every session's MCP servers stop."""
        try:
            self.connection.serve(self.handle)
        finally:
            self._end_prompts()
            for session in self.sessions.values():
                session.agent.close()
        return 0

    def _end_prompts(self) -> None:
        """The editor is gone: cancel every running prompt and wait (a while) until its
        command has ended, so that nothing it started outlives saikish."""
        for session in self.sessions.values():
            session.approver.cancelled.set()
            session.agent.cancel()
        deadline = time.monotonic() + PROMPT_END_S
        for session in self.sessions.values():  # kept: no prompt starts after this
            session.lock.acquire(timeout=max(deadline - time.monotonic(), 0.0))

    def handle(self, method: str, params: Mapping[str, Any], reply: Reply | None) -> None:
        """Dispatch one request or notification."""
        handlers: dict[str, Callable[[Mapping[str, Any]], dict[str, Any] | None]] = {
            "initialize": self._initialize, "authenticate": lambda p: {},
            "session/new": self._new_session, "session/load": self._load_session,
            "session/set_mode": self._set_mode, "session/cancel": self._cancel}
        if method == "session/prompt" and reply is not None:
            self._session(params).approver.cancelled.clear()
            threading.Thread(target=self._prompt, args=(params, reply), daemon=True,
                             name="acp-prompt").start()
            return
        handler = handlers.get(method)
        if handler is None:
            if reply is not None:
                reply.error(METHOD_NOT_FOUND, f"saikish does not know {method}")
            return
        try:
            result = handler(params)
        except SaikishError as exc:  # a bad agent.yml or model: one clear line for the editor
            raise RpcError(INVALID_PARAMS, str(exc)) from None
        if reply is not None:
            reply.result(result)

    def _initialize(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """What saikish does, and only that: sessions load, prompts take text and embedded
        resources (no images or audio), MCP servers over stdio and streamable HTTP."""
        capabilities = params.get("clientCapabilities")
        self.client = dict(capabilities) if isinstance(capabilities, Mapping) else {}
        return {"protocolVersion": PROTOCOL_VERSION,
                "agentCapabilities": {
                    "loadSession": True,
                    "promptCapabilities": {"image": False, "audio": False,
                                           "embeddedContext": True},
                    "mcpCapabilities": {"http": True, "sse": False}},
                "authMethods": [], "agentInfo": {"name": "saikish", "version": __version__}}

    def _new_session(self, params: Mapping[str, Any]) -> dict[str, Any]:
        cwd, servers = _session_place(params, "session/new")
        session = self._open(cwd, servers, None)
        stored = session.agent.executor.session  # the session file session/load will read
        meta = {"saikish": {"session": stored.id, "transcriptPath": str(
            stored.transcript.path)}} if stored.transcript is not None else {}
        return {"sessionId": session.approver.session_id, "modes": _modes(stored.mode),
                **({"_meta": meta} if meta else {})}

    def _load_session(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """Go on with a stored session: its conversation is sent again as updates, then the
        answer comes (ACP's order); new prompts are appended to its file (§10.2)."""
        cwd, servers = _session_place(params, "session/load")
        wanted = str(params.get("sessionId", ""))
        if wanted in self.sessions:
            raise RpcError(INVALID_PARAMS, f"session/load: session {wanted[:80]!r} is open")
        info = stored_session(wanted, cwd)
        session = self._open(cwd, servers, info)
        for update in history_updates(session.agent.conversation.messages,
                                      session.agent.registry):
            self.connection.notify("session/update", {"sessionId": wanted, "update": update})
        return {"modes": _modes(session.agent.executor.session.mode)}

    def _open(self, cwd: str, servers: ServerTable, info: SessionInfo | None) -> EditorSession:
        """A new Agent for the editor: subscribed, its servers starting, its files the
        editor's when it offers them."""
        approver = EditorApprover(self.connection)
        agent = self.make_agent(cwd, approver, servers, info)
        stored = agent.executor.session
        session_id = approver.session_id = stored.id if stored.transcript is not None \
            else uuid.uuid4().hex
        files = agent.executor.run_context.files = editor_files(self.connection, session_id,
                                                                 self.client)
        agent.subscribe(EditorUpdates(self.connection, session_id, agent.executor.tools,
                                      stored.workspace, files))
        agent.registry.start()  # in the background, while the person writes the prompt
        session = self.sessions[session_id] = EditorSession(agent, approver)
        return session

    def _set_mode(self, params: Mapping[str, Any]) -> dict[str, Any]:
        try:
            mode = Mode(params.get("modeId"))
        except ValueError:
            raise RpcError(INVALID_PARAMS, f"unknown mode {params.get('modeId')!r}; use one "
                                           f"of {', '.join(m.value for m in Mode)}") from None
        self._session(params).agent.executor.session.mode = mode
        return {}

    def _cancel(self, params: Mapping[str, Any]) -> None:
        session = self._session(params)
        session.approver.cancelled.set()
        session.agent.cancel()  # kills a running command, runs no further call

    def _prompt(self, params: Mapping[str, Any], reply: Reply) -> None:
        session = self._session(params)
        text = prompt_text(params.get("prompt"))
        with session.lock:  # one prompt at a time per session
            try:
                announce_startup(session.agent.executor.session.mcp, self._notifier(params))
                result = session.agent.send(text)
            except Exception as exc:  # a bug must answer the request, not hang the editor
                reply.error(INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
                return
        if result.exit_reason == ERROR:
            reply.error(INTERNAL_ERROR, result.message)
        elif session.approver.cancelled.is_set():
            reply.result({"stopReason": "cancelled"})
        else:
            reply.result({"stopReason": "max_turn_requests"
                          if result.exit_reason == MAX_ITERATIONS else "end_turn"})

    def _notifier(self, params: Mapping[str, Any]) -> Callable[[dict[str, Any]], None]:
        session_id = str(params.get("sessionId"))
        return lambda update: self.connection.notify(
            "session/update", {"sessionId": session_id, "update": update})

    def _session(self, params: Mapping[str, Any]) -> EditorSession:
        session = self.sessions.get(str(params.get("sessionId")))
        if session is None:
            raise RpcError(INVALID_PARAMS, f"no session {params.get('sessionId')!r}")
        return session


def _session_place(params: Mapping[str, Any], method: str) -> tuple[str, ServerTable]:
    """session/new's and session/load's cwd (an absolute directory) and MCP servers."""
    cwd = params.get("cwd")
    if not isinstance(cwd, str) or not Path(cwd).is_absolute():
        raise RpcError(INVALID_PARAMS, f"{method} needs cwd, an absolute path")
    if not os.path.isdir(cwd):  # False for a NUL or a lone surrogate in it, too
        raise RpcError(INVALID_PARAMS, f"{method}: cwd {cwd[:200]!r} is not a directory")
    try:
        return cwd, from_editor(params.get("mcpServers"))
    except ValueError as exc:
        raise RpcError(INVALID_PARAMS, f"{method}: {exc}") from None


def stored_session(session_id: str, cwd: str) -> SessionInfo:
    """The stored session `session_id` of the workspace `cwd` (docs/SPEC.md §10.2)."""
    if not session_id or not session_id.replace("-", "").isalnum():
        raise RpcError(INVALID_PARAMS, f"session/load: {session_id[:80]!r} is no session id")
    info = read_info(session_folder() / f"{session_id}{SUFFIX}")
    if info is None:
        raise RpcError(INVALID_PARAMS, f"session/load: no stored session {session_id!r}")
    if os.path.realpath(info.workspace) != os.path.realpath(cwd):
        raise RpcError(INVALID_PARAMS, f"session/load: session {session_id} was recorded in "
                                       f"{info.workspace}; load it there")
    return info


def prompt_text(blocks: Any) -> str:
    """The prompt's text blocks (and resource links, named), as one message."""
    parts = []
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif block.get("type") == "resource_link":
            parts.append(f"[{block.get('name', '')}]({block.get('uri', '')})")
        elif block.get("type") == "resource":
            resource = block.get("resource") or {}
            parts.append(f"{resource.get('uri', '')}:\n{resource.get('text', '')}")
    return "\n".join(parts)


def _modes(current: Mode) -> dict[str, Any]:
    return {"currentModeId": current.value,
            "availableModes": [{"id": m.value, "name": MODES[m]} for m in Mode]}
