"""Claude Code-compatible command hooks (docs/SPEC.md §7.2): run them, combine their answers.

A hook is a program the person configured; it gets one JSON object on stdin
and answers with its exit code and stdout (hook_wire.py reads both). Hooks
run in the workspace, with the child environment (no saikish keys), in their
own process group, killed whole at their timeout. Gating hooks (PreToolUse,
UserPromptSubmit) fail closed; the others never block and are reported once.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import subprocess
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from saikish.config.layers import Config
from saikish.hooks.config import HookSpec, HookTable
from saikish.hooks.wire import (
    MAX_TEXT,
    HookAnswer,
    claude_name,
    read_answer,
    tool_input,
    tool_response,
    updated_call,
)
from saikish.tools.sandbox.childenv import child_environment
from saikish.tools.sandbox.reaper import MARKER_VARIABLE, end_all, now, start_time
from saikish.types import Assessment, Mode, ReasonKind, Source, ToolCall, ToolResult, Verdict

if TYPE_CHECKING:
    from saikish.store.audit import AuditLog

STRENGTH = {"deny": 3, "ask": 2, "allow": 1}
MAX_OUTPUT = 1 << 20  # a hook's stdout (its answer) and its stderr, each


def run_hook(spec: HookSpec, payload: Mapping[str, Any], env: Mapping[str, str],
             cwd: str) -> HookAnswer:
    """Run one hook command with `payload` on stdin; its answer, or why it broke.

    What a hook leaves running in the background (`notify &`) may go on; when saikish
    exits it is ended (saikish.tools.sandbox.orphans), and at a timeout with the hook.
    """
    marker = uuid.uuid4().hex
    try:
        # Its own session (and so process group) and a marker, as a bash call has: a
        # timeout kills everything it started (saikish.tools.sandbox.reaper).
        process = subprocess.Popen(
            ["/bin/sh", "-c", spec.command], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, cwd=cwd, env={**env, MARKER_VARIABLE: marker},
            start_new_session=True)
    except OSError as exc:
        return HookAnswer(failure=f"could not start: {exc.strerror or exc}")
    since = start_time(process.pid)
    try:
        done = _exchange(process, json.dumps(payload).encode("utf-8", "replace"),
                         spec.timeout)
    except BaseException:  # Ctrl-C or a signal while it runs: leave nothing of it behind
        _kill_all(process, marker, since)
        raise
    if isinstance(done, str):
        _kill_all(process, marker, since)
        return HookAnswer(failure=done)
    _close_pipes(process)
    out, err = (stream.decode("utf-8", "replace") for stream in done)
    return read_answer(spec.event, process.returncode, out, err)


def _exchange(process: subprocess.Popen[bytes], data: bytes,
              timeout: float) -> tuple[bytes, bytes] | str:
    """Write `data` to the hook, read its stdout and stderr (each at most MAX_OUTPUT) and
    wait for it, all within `timeout`; (stdout, stderr), or why it must be killed."""
    assert process.stdin and process.stdout and process.stderr
    deadline = time.monotonic() + timeout
    read: dict[int, bytearray] = {process.stdout.fileno(): bytearray(),
                                  process.stderr.fileno(): bytearray()}
    names = {process.stdout.fileno(): "stdout", process.stderr.fileno(): "stderr"}
    os.set_blocking(process.stdin.fileno(), False)
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdin, selectors.EVENT_WRITE)
        for stream in (process.stdout, process.stderr):
            selector.register(stream, selectors.EVENT_READ)
        while selector.get_map():
            left = deadline - time.monotonic()
            if left <= 0:
                return f"timed out after {timeout:g}s and was killed"
            for key, _ in selector.select(left):
                if key.fileobj is process.stdin:
                    data = _feed(process, selector, data)
                    continue
                chunk = os.read(key.fd, 1 << 16)
                if not chunk:
                    selector.unregister(key.fileobj)
                read[key.fd] += chunk
                if len(read[key.fd]) > MAX_OUTPUT:
                    return (f"wrote more than {MAX_OUTPUT >> 20} MB to {names[key.fd]} "
                            f"and was killed")
    try:
        process.wait(max(deadline - time.monotonic(), 0.0))
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:g}s and was killed"
    return bytes(read[process.stdout.fileno()]), bytes(read[process.stderr.fileno()])


def _feed(process: subprocess.Popen[bytes], selector: selectors.BaseSelector,
          data: bytes) -> bytes:
    """Write what the pipe takes of `data`; close stdin when all is written (or unread)."""
    assert process.stdin is not None
    try:
        data = data[os.write(process.stdin.fileno(), data):] if data else data
    except BlockingIOError:
        return data
    except OSError:  # the hook closed its stdin without reading: it need not
        data = b""
    if not data:
        selector.unregister(process.stdin)
        process.stdin.close()
    return data


def _kill_all(process: subprocess.Popen[bytes], marker: str, since: int) -> None:
    """SIGKILL to the hook and everything it started (its group, its marker, ancestry)."""
    end_all(process.pid, marker, grace=0.0, since=since, until=now())
    _close_pipes(process)  # a child that left the group may hold them: it gets EPIPE
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(timeout=5)


def _close_pipes(process: subprocess.Popen[bytes]) -> None:
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


def hook_name(spec: HookSpec) -> str:
    """How a line names a hook: its event, its command (shortened) and where it was set."""
    command = " ".join(spec.command.split())
    command = command if len(command) <= 60 else "..." + command[-57:]
    return f"{spec.event} hook '{command}' ({spec.origin})"


def hook_lines(table: HookTable) -> list[tuple[str, str, str, str, str]]:
    """(event, matcher, command, timeout, origin) of every hook, for /hooks."""
    return [(s.event, s.matcher or "*", s.command, f"{s.timeout:g}s", s.origin)
            for s in table.specs]


@dataclass(frozen=True)
class Gate:
    """The PreToolUse hooks' combined answer about one call: deny beats ask beats allow."""

    permission: str | None = None
    reason: str = ""
    rule: str | None = None  # the deciding hook's command, recorded as the rule
    updated: ToolCall | None = None  # updatedInput: a new call for the whole pipeline
    stop: str | None = None  # "continue": false
    notes: tuple[str, ...] = ()

    def endless(self) -> Gate:
        """This gate when its hooks keep rewriting the call: fails closed, the person decides."""
        if self.permission == "deny":
            return replace(self, updated=None)
        return replace(self, permission="ask", updated=None,
                       reason=f"hook '{self.rule or '?'}' kept rewriting the call; asking")

    def apply(self, assessment: Assessment, mode: Mode) -> Assessment:
        """The policy's assessment with this answer in its place in §4.1 step 3."""
        verdict = assessment.verdict
        if verdict in (Verdict.INVALID, Verdict.REJECT):
            return assessment  # escalation and deny rules stay final: no hook lifts them
        if self.permission == "deny":
            return replace(assessment, verdict=Verdict.REJECT, source=Source.HOOK,
                           reason=self.reason, rule=self.rule, proposed_rules=(),
                           kind=ReasonKind.RULE)
        if self.permission == "ask":
            if mode is Mode.AUTO_DENY:
                return replace(assessment, verdict=Verdict.REJECT, source=Source.HOOK,
                               reason=f"{self.reason}; --auto-deny asks nobody", rule=self.rule,
                               kind=ReasonKind.RULE)
            # No "always": an allow rule could never lift a hook's ask; and no flag or /auto
            # answers it: forced, like an ask rule (docs/SPEC.md §4.1 step 3).
            return replace(assessment, verdict=Verdict.ASK, source=Source.HOOK,
                           reason=self.reason, rule=self.rule, proposed_rules=(), forced=True,
                           contained=False, kind=ReasonKind.RULE)
        # An ask rule or a changed MCP tool: only the person answers, never a hook.
        forced = verdict is Verdict.ASK and assessment.forced
        if self.permission == "allow" and not forced:
            return replace(assessment, verdict=Verdict.ALLOW, source=Source.HOOK,
                           reason=self.reason, rule=self.rule, contained=False, kind=None)
        return assessment


def combine(answers: list[tuple[HookSpec, HookAnswer]], call: ToolCall,
            workspace: str) -> Gate:
    """The PreToolUse answers of several hooks as one Gate; a broken hook counts as ask."""
    best: tuple[int, str, str, HookSpec] | None = None
    notes: list[str] = []
    updated, stop = None, None
    for spec, answer in answers:
        permission, reason = answer.permission, answer.reason
        if answer.failure:
            # Fails closed: a hook that could not answer cannot vouch for the call.
            permission, reason = "ask", f"{hook_name(spec)} {answer.failure}"
            notes.append(f"{reason}: asking instead")
        elif answer.block:
            permission = "deny"
        if answer.system_message:
            notes.append(f"{hook_name(spec)}: {answer.system_message}")
        stop = stop or answer.stop
        updated = updated or answer.updated_input
        if permission in STRENGTH and (best is None or STRENGTH[permission] > best[0]):
            best = (STRENGTH[permission], permission, reason, spec)
    if best is None:
        gate = Gate(notes=tuple(notes), stop=stop)
    else:
        _, permission, reason, spec = best
        reason = reason or f"{permission} by {hook_name(spec)}"
        gate = Gate(permission, reason, spec.command, stop=stop, notes=tuple(notes))
    if updated is not None and gate.permission != "deny":
        gate = replace(gate, updated=updated_call(call, updated, workspace))
    return gate


@dataclass(frozen=True)
class PromptGate:
    """The UserPromptSubmit hooks' answer: drop the prompt (and why), or context to add."""

    blocked: str | None = None
    context: str = ""
    notes: tuple[str, ...] = ()


@dataclass
class Hooks:
    """The hooks in force for one session, and which failures were already reported."""

    table: HookTable
    workspace: str
    session_id: str = ""
    secrets: tuple[str, ...] = ()
    transcript_path: str = ""
    told: set[str] = field(default_factory=set)
    started: bool = False
    # Claude Code's permission_mode for the session's mode and autonomy now (hook_wire).
    permission_mode: Callable[[], str] = lambda: "default"
    # The `once: true` hooks that already ran this session.
    spent: set[HookSpec] = field(default_factory=set)
    # Where non-gating failures are logged (every time; they are shown once).
    audit: AuditLog | None = None

    @classmethod
    def from_config(cls, config: Config, workspace: str, session_id: str = "",
                    permission_mode: Callable[[], str] = lambda: "default") -> Hooks:
        """The hooks of `config` (an untrusted project's were dropped when it was merged)."""
        return cls(config.hooks, workspace, session_id, config.secrets(),
                   permission_mode=permission_mode)

    def __len__(self) -> int:
        return len(self.table)

    def environment(self) -> dict[str, str]:
        """The child environment, with the project directory under both names."""
        env = child_environment(self.secrets)
        env["CLAUDE_PROJECT_DIR"] = env["SAIKISH_PROJECT_DIR"] = self.workspace
        return env

    def _run(self, event: str, names: tuple[str, ...],
             **fields: Any) -> list[tuple[HookSpec, HookAnswer]]:
        specs = [s for s in self.table.for_event(event)
                 if s.matches(*names) and s not in self.spent]
        if not specs:
            return []
        self.spent.update(s for s in specs if s.once)
        payload = {"session_id": self.session_id, "transcript_path": self.transcript_path,
                   "cwd": self.workspace, "permission_mode": self.permission_mode(),
                   "hook_event_name": event, **fields}
        env = self.environment()
        return [(spec, run_hook(spec, payload, env, self.workspace)) for spec in specs]

    def _tool_fields(self, call: ToolCall) -> dict[str, Any]:
        return {"tool_name": claude_name(call.name), "saikish_tool": call.name,
                "tool_input": tool_input(call, self.workspace), "tool_use_id": call.id}

    def pre_tool(self, call: ToolCall) -> Gate | None:
        """The PreToolUse hooks' answer about `call`; None when no hook matches it."""
        answers = self._run("PreToolUse", (claude_name(call.name), call.name),
                            **self._tool_fields(call))
        return combine(answers, call, self.workspace) if answers else None

    def post_tool(self, call: ToolCall, result: ToolResult) -> tuple[str, tuple[str, ...]]:
        """Text PostToolUse hooks add to `result` for the model, and lines for the person."""
        answers = self._run("PostToolUse", (claude_name(call.name), call.name),
                            **self._tool_fields(call),
                            tool_response=tool_response(call, result, self.workspace))
        added = [f"[PostToolUse hook: {text}]" for _, a in answers
                 for text in (a.reason if a.block else "", a.context) if text]
        return "\n".join(added), self._notes(answers)

    def prompt(self, text: str) -> PromptGate:
        """UserPromptSubmit: the prompt is dropped (exit 2, block, failure) or gets context."""
        answers = self._run("UserPromptSubmit", ("",), prompt=text)
        notes = self._notes(answers, gating=True)
        for spec, answer in answers:
            if answer.failure:  # fails closed: a prompt check that broke lets nothing through
                return PromptGate(f"{hook_name(spec)} {answer.failure}", notes=notes)
            if answer.block or answer.stop is not None:
                why = answer.reason or answer.stop or "blocked"
                return PromptGate(f"{hook_name(spec)} blocked the prompt: {why}", notes=notes)
        context = "\n".join(a.context for _, a in answers if a.context)
        return PromptGate(None, context, notes)

    def stop(self, active: bool) -> tuple[str | None, tuple[str, ...]]:
        """Stop: the reason a hook gives the model to go on, or None to let it stop."""
        answers = self._run("Stop", ("",), stop_hook_active=active)
        reasons = [a.reason for _, a in answers if a.block and not a.failure]
        return ("\n".join(reasons) if reasons else None), self._notes(answers)

    def session_start(self) -> tuple[str, tuple[str, ...]]:
        """SessionStart (once per session): context for the model, and lines for the person."""
        if self.started:
            return "", ()
        self.started = True
        answers = self._run("SessionStart", ("startup",), source="startup")
        return "\n".join(a.context for _, a in answers if a.context), self._notes(answers)

    def notify(self, message: str) -> tuple[str, ...]:
        """Notification: an approval is waiting for the person; never blocks."""
        return self._notes(self._run("Notification", ("permission_prompt",), message=message,
                                     notification_type="permission_prompt"))

    def _notes(self, answers: list[tuple[HookSpec, HookAnswer]],
               gating: bool = False) -> tuple[str, ...]:
        """System messages, and each non-gating hook's failure once per session."""
        notes = []
        for spec, answer in answers:
            if answer.system_message:
                notes.append(f"{hook_name(spec)}: {answer.system_message}")
            if answer.cut:
                notes.append(f"{hook_name(spec)} sent more than {MAX_TEXT:,} characters in "
                             f"{answer.cut}: cut to {MAX_TEXT:,}")
            if answer.failure and not gating and self.audit is not None:
                self.audit.hook_failure(spec.event, spec.command, answer.failure)
            if answer.failure and (gating or spec.origin + spec.command not in self.told):
                self.told.add(spec.origin + spec.command)
                notes.append(f"{hook_name(spec)} {answer.failure}" +
                             ("" if gating else " (ignored; said once)"))
        return tuple(notes)
