"""Claude Code's hook protocol as values (docs/SPEC.md §7.2): tool names in, answers out.

Pure: no processes here (hooks.py runs them). A hook script written for
Claude Code sees our tools under Claude Code's names and argument names, and
what it prints is read the way Claude Code reads it, except that a gating
hook's failure fails closed instead of being ignored.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from saikish.types import Autonomy, Mode, ToolCall, ToolResult

# Our tool -> (Claude Code's tool, {our argument: Claude Code's argument}).
CLAUDE_TOOLS: dict[str, tuple[str, dict[str, str]]] = {
    "bash": ("Bash", {"command": "command", "timeout": "timeout"}),
    "write_file": ("Write", {"path": "file_path", "content": "content"}),
    "edit_file": ("Edit", {"path": "file_path", "old_string": "old_string",
                           "new_string": "new_string", "replace_all": "replace_all"}),
    "read_file": ("Read", {"path": "file_path", "offset": "offset", "limit": "limit"}),
    "list_files": ("Glob", {"glob": "pattern", "path": "path"}),
    "grep": ("Grep", {"pattern": "pattern", "path": "path", "glob": "glob"}),
}
PATHS = ("file_path",)
PERMISSIONS = ("allow", "deny", "ask")


def claude_name(tool: str) -> str:
    """The name Claude Code gives our `tool` (its own name for tools Claude Code lacks)."""
    return CLAUDE_TOOLS.get(tool, (tool, {}))[0]


def tool_input(call: ToolCall, workspace: str) -> dict[str, Any]:
    """`call`'s arguments under Claude Code's names; `file_path` absolute, as Claude Code's."""
    if call.name not in CLAUDE_TOOLS:
        return dict(call.arguments)
    names = CLAUDE_TOOLS[call.name][1]
    out = {names.get(key, key): value for key, value in call.arguments.items()}
    for key in PATHS:
        if isinstance(out.get(key), str):
            out[key] = os.path.normpath(os.path.join(workspace, out[key]))
    if call.name == "list_files" and "pattern" not in out:
        out["pattern"] = "*"
    return out


def permission_mode(mode: Mode, autonomy: Autonomy) -> str:
    """Claude Code's `permission_mode` nearest to our mode and autonomy (docs/SPEC.md §7.2).

    --auto-approve answers every question yes: bypassPermissions. --auto-deny answers
    no unless a rule permits: dontAsk. Supervised and full-auto run workspace edits
    unasked: acceptEdits. Cautious and manual ask: default.
    """
    if mode is Mode.AUTO_APPROVE:
        return "bypassPermissions"
    if mode is Mode.AUTO_DENY:
        return "dontAsk"
    return "acceptEdits" if autonomy in (Autonomy.SUPERVISED, Autonomy.FULL_AUTO) else "default"


# How our tools end their text: bash's "[exit code N]" or why it was stopped.
BASH_ENDING = re.compile(r"\n?\[(exit code (-?\d+)|killed after [^\]]*|cancelled by [^\]]*)\]\Z")


def tool_response(call: ToolCall, result: ToolResult, workspace: str) -> dict[str, Any]:
    """PostToolUse's `tool_response` in the shape Claude Code gives `call`'s tool.

    Our own `output` and `is_error` stay beside Claude Code's fields, for scripts
    written against saikish.
    """
    ours: dict[str, Any] = {"output": result.content, "is_error": result.is_error}
    given = tool_input(call, workspace)
    path = given.get("file_path", "")
    if call.name == "bash":
        ending = BASH_ENDING.search(result.content)
        stopped = ending is not None and ending.group(2) is None
        stdout = result.content[:ending.start()] if ending else result.content
        # bash's stderr is merged into its stdout, as the model sees it.
        return {"stdout": stdout, "stderr": "", "interrupted": stopped, "isImage": False,
                **ours}
    if call.name in ("write_file", "edit_file"):
        shaped = {"filePath": path, "success": not result.is_error}
        if call.name == "edit_file":
            shaped.update(oldString=given.get("old_string", ""),
                          newString=given.get("new_string", ""),
                          replaceAll=bool(given.get("replace_all", False)))
        else:
            shaped["content"] = given.get("content", "")
        return {**shaped, **ours}
    if call.name == "read_file" and not result.is_error:
        lines = result.content.count("\n") + 1 if result.content else 0
        return {"type": "text", "file": {"filePath": path, "content": result.content,
                                         "numLines": lines}, **ours}
    return ours


def updated_call(call: ToolCall, updated: Mapping[str, Any], workspace: str) -> ToolCall:
    """A hook's `updatedInput` as a new call of our tool (Claude Code's names mapped back)."""
    merged = {**tool_input(call, workspace), **updated}
    names = {theirs: ours for ours, theirs in CLAUDE_TOOLS.get(call.name, ("", {}))[1].items()}
    arguments = {names.get(key, key): value for key, value in merged.items()}
    if call.name == "list_files" and arguments.get("glob") == "*" and "glob" not in call.arguments:
        del arguments["glob"]
    return ToolCall(call.id, call.name, arguments)


@dataclass(frozen=True)
class HookAnswer:
    """What one hook run said, read the way Claude Code reads it; `failure` when it broke."""

    permission: str | None = None  # allow | deny | ask (PreToolUse)
    block: bool = False  # exit 2, or "decision": "block"
    reason: str = ""
    updated_input: Mapping[str, Any] | None = None
    context: str = ""  # additionalContext (or plain stdout where Claude Code adds it)
    stop: str | None = None  # "continue": false, with its stopReason
    system_message: str = ""
    failure: str = ""
    # What was cut to MAX_TEXT characters ("additionalContext (5,000,000 characters)").
    cut: str = ""


# Text a hook hands the model (context, reasons) is cut here: it stays in the conversation
# and is sent again with every model call. Claude Code caps hook output at 10,000 too.
MAX_TEXT = 10_000
# Events whose plain (non-JSON) stdout Claude Code adds to the model's context.
CONTEXT_EVENTS = ("UserPromptSubmit", "SessionStart")


def read_answer(event: str, code: int, stdout: str, stderr: str) -> HookAnswer:
    """One finished hook process as a HookAnswer (exit 0, exit 2, anything else); text
    for the model is cut to MAX_TEXT characters, with a note (it is resent every turn)."""
    return _capped(_answer(event, code, stdout, stderr))


def _capped(answer: HookAnswer) -> HookAnswer:
    cut = [f"{name} ({len(getattr(answer, field)):,} characters)"
           for field, name in (("context", "additionalContext"), ("reason", "reason"),
                               ("system_message", "systemMessage"))
           if len(getattr(answer, field)) > MAX_TEXT]
    if not cut:
        return answer
    return replace(answer, context=_cut(answer.context), reason=_cut(answer.reason),
                   system_message=_cut(answer.system_message), cut=", ".join(cut))


def _cut(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    return text[:MAX_TEXT] + f"\n[cut by saikish: {len(text) - MAX_TEXT:,} more characters]"


def _answer(event: str, code: int, stdout: str, stderr: str) -> HookAnswer:
    if code == 2:
        return HookAnswer(block=True, reason=stderr.strip() or "blocked (exit 2)")
    if code != 0:
        said = stderr.strip().splitlines()
        detail = f": {said[-1][:200]}" if said else ""
        what = f"was killed by signal {-code}" if code < 0 else f"exited with status {code}"
        return HookAnswer(failure=f"{what}{detail}")
    text = stdout.strip()
    if not text.startswith(("{", "[")):
        return HookAnswer(context=text if event in CONTEXT_EVENTS else "")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested past any answer
        return HookAnswer(failure=f"printed output that is not valid JSON ({exc})")
    if not isinstance(data, dict):
        return HookAnswer(failure="printed JSON that is not an object")
    return _from_json(data)


def _from_json(data: Mapping[str, Any]) -> HookAnswer:
    special = data.get("hookSpecificOutput") or {}
    permission = special.get("permissionDecision") if isinstance(special, dict) else None
    legacy = data.get("decision")
    if permission is None and legacy in ("approve", "block"):
        permission = {"approve": "allow", "block": "deny"}[legacy]
    checks = ((permission is None or permission in PERMISSIONS,
               f"permissionDecision '{permission}' is not one of: {', '.join(PERMISSIONS)}"),
              (isinstance(special, dict), "hookSpecificOutput is not an object"),
              (legacy in (None, "approve", "block"), f"decision '{legacy}' is not block"))
    for ok, problem in checks:
        if not ok:
            return HookAnswer(failure=f"printed JSON saikish cannot use: {problem}")
    assert isinstance(special, dict)
    updated = special.get("updatedInput")
    if updated is not None and not isinstance(updated, dict):
        return HookAnswer(failure="printed JSON saikish cannot use: updatedInput is not an object")
    reason = special.get("permissionDecisionReason") or data.get("reason") or ""
    stop = None if data.get("continue", True) is not False else \
        str(data.get("stopReason") or "stopped by a hook")
    return HookAnswer(permission=permission, block=legacy == "block", reason=str(reason),
                      updated_input=updated, context=str(special.get("additionalContext") or ""),
                      stop=stop, system_message=str(data.get("systemMessage") or ""))
