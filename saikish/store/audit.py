"""The audit ledger (docs/SPEC.md §4.6): one JSON line per decision, secrets redacted, rotated.

Each line is written whole: one write() of a complete line to a file opened
with O_APPEND. A line torn by a crash (kill -9, a full disk) is closed off
before the next entry, and skipped when read, so it never swallows its neighbour.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from saikish.errors import SaikishError
from saikish.store.filelock import exclusive
from saikish.store.jsonl import append_line
from saikish.types import Assessment, Decision, ToolCall
from saikish.vocabulary import tier_name

MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 3
# Longer argument strings (a 50 MB write_file) are logged by their head only.
TEXT_LIMIT = 32 * 1024
_SECRET_KEYS = re.compile(r"(api[_-]?key|token|secret|passw(or)?d|authorization|credential|"
                          r"private[_-]?key|cookie|session[_-]?id)", re.IGNORECASE)
_SECRET_VALUES = [
    re.compile(r"\b(sk-(?:ant-|proj-)?[A-Za-z0-9_\-]{12,})"),
    re.compile(r"\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),
    re.compile(r"\b(AKIA[0-9A-Z]{16})\b"),
    re.compile(r"\b(xox[abpr]-[A-Za-z0-9-]{10,})"),
    re.compile(r"\b(AIza[0-9A-Za-z_\-]{30,})"),
    re.compile(r"(?i)\b(bearer\s+[A-Za-z0-9._\-~+/]{8,}=*)"),
    re.compile(r"(?i)((?:api[_-]?key|token|secret|password|passwd)[\"']?\s*[:=]\s*[\"']?)"
               r"([^\s\"'&]{4,})"),
]
# Key blocks are matched in two linear steps, not one lazy regex: an unterminated
# header made that regex scan to the end from every header (quadratic).
_KEY_BEGIN = re.compile(r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----")
_KEY_END = re.compile(r"-----END [A-Z ]{0,40}PRIVATE KEY-----")
REDACTED = "[REDACTED]"


class AuditError(SaikishError):
    """The audit ledger cannot be read."""

    exit_code = 1


def redact(value: Any, key: str = "") -> Any:
    """`value` with API keys, tokens and passwords replaced by [REDACTED]."""
    if isinstance(value, Mapping):
        return {k: redact(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v, key) for v in value]
    if isinstance(value, str):
        if key and _SECRET_KEYS.search(key) and value:
            return REDACTED
        return redact_text(value)
    return value


def redact_text(text: str) -> str:
    """Secrets inside free text (commands, file content) replaced by [REDACTED]; linear time."""
    text = _redact_key_blocks(text)
    for pattern in _SECRET_VALUES:
        if pattern.groups == 2:
            text = pattern.sub(lambda m: f"{m.group(1)}{REDACTED}", text)
        else:
            text = pattern.sub(REDACTED, text)
    return text


def _redact_key_blocks(text: str) -> str:
    out: list[str] = []
    position = 0
    while (begin := _KEY_BEGIN.search(text, position)) is not None:
        out += [text[position:begin.start()], REDACTED]
        end = _KEY_END.search(text, begin.end())
        if end is None:  # unterminated: all that follows may be key material
            return "".join(out)
        position = end.end()
    return "".join(out) + text[position:]


def head_only(value: Any) -> Any:
    """`value` with every string longer than TEXT_LIMIT cut to its head, saying so.

    The cut drops the partial word at the edge, so no secret is logged half-way
    (too short for redaction to recognise it).
    """
    if isinstance(value, Mapping):
        return {k: head_only(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [head_only(v) for v in value]
    if not isinstance(value, str) or len(value) <= TEXT_LIMIT:
        return value
    end = TEXT_LIMIT
    while end > 0 and not value[end - 1].isspace():
        end -= 1
    return f"{value[:end]}[... {len(value) - end} more characters not logged]"


class AuditUnwritable(SaikishError):
    """The ledger could not be written (a full or read-only disk); said once per log."""

    def __init__(self, path: Path, problem: OSError) -> None:
        # The event stream says an error's `notice` as it is (saikish/events.py).
        self.notice = (f"the audit log {path} cannot be written "
                       f"({problem.strerror or problem}): decisions are not being recorded")
        super().__init__(self.notice)


def decision_entry(call: ToolCall, decision: Decision, assessment: Assessment | None, *,
                   session: str, now: float, workspace: str | None = None,
                   edited: bool = False) -> dict[str, Any]:
    """One ledger line as a dict: the audit file and the remote channel (§7.5) share it."""
    return {
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)),
        "session": session,
        **({"workspace": workspace} if workspace else {}),
        "tool": call.name,
        "arguments": redact(head_only(call.wire_arguments)),
        "risk": assessment.risk.name if assessment else None,
        # One vocabulary with the JSON outputs (docs/events.md): a timeout is a source,
        # an edit is a flag.
        "decision": decision.outcome.value,
        "tier": tier_name(decision, assessment),
        "edited": edited,
        "source": decision.source.value,
        "rule": decision.rule or (assessment.rule if assessment else None),
        "feedback": redact_text(head_only(decision.feedback)) if decision.feedback else None,
        # A person's answer from the web page says so (docs/SPEC.md §7.5).
        **({"via": decision.via} if decision.via else {}),
    }


class AuditLog:
    """Appends decisions to `<state dir>/audit.jsonl`, rotating it past `max_bytes`."""

    def __init__(self, path: Path, session_id: str, *, max_bytes: int = MAX_BYTES,
                 clock: Callable[[], float] = time.time, workspace: str | None = None) -> None:
        self.path, self.session_id, self.max_bytes, self.clock = path, session_id, max_bytes, clock
        self.workspace = workspace
        self.told = False  # whether a failure to write was said already

    def record(self, call: ToolCall, decision: Decision, assessment: Assessment | None,
               *, edited: bool = False) -> None:
        """Append one decision. An unwritable ledger never stops the agent, but the first
        failure raises AuditUnwritable, which the event stream says once; later ones pass."""
        problem = self._write(decision_entry(call, decision, assessment,
                                             session=self.session_id, now=self.clock(),
                                             workspace=self.workspace, edited=edited))
        if problem is not None and not self.told:
            self.told = True
            raise AuditUnwritable(self.path, problem)

    def hook_failure(self, event: str, command: str, detail: str) -> None:
        """Append a non-gating hook's failure (docs/SPEC.md §7.2: logged, never blocking)."""
        self._write({
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.clock())),
            "session": self.session_id,
            **({"workspace": self.workspace} if self.workspace else {}),
            "tool": f"hook:{event}", "arguments": None, "risk": None,
            "decision": "failed", "edited": False, "source": "hook",
            "rule": redact_text(head_only(command)), "feedback": redact_text(head_only(detail)),
        })

    def files_changed(self, call: ToolCall, files: dict[str, Any]) -> None:
        """Append what a call nobody approved changed: its checkpoint and files (§4.10)."""
        self._write({
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.clock())),
            "session": self.session_id,
            **({"workspace": self.workspace} if self.workspace else {}),
            # The call's command or path names it; its content is on its decision's line.
            "tool": call.name, "arguments": redact(head_only(
                {k: v for k, v in call.arguments.items() if k in ("command", "path")})),
            "risk": None, "decision": "changed", "edited": False, "source": "checkpoint",
            "rule": None, "feedback": files["text"], "files": redact(files)})

    def _write(self, entry: dict[str, Any]) -> OSError | None:
        """Append `entry`; the error when it could not be (the ledger is a record, not a
        gate: losing a line must not stop work)."""
        # A lone surrogate (from the model's JSON) is written as its JSON escape, not raised.
        line = (json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with exclusive(self.path):  # rotation and append by one session at a time
                if self.path.exists():
                    self._rotate_if_full(self.path.stat().st_size)
                append_line(self.path, line)
        except OSError as problem:
            return problem
        return None

    def _rotate_if_full(self, size: int) -> None:
        if size < self.max_bytes:
            return
        for n in range(BACKUPS - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{n}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{self.path.name}.{n + 1}"))
        os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))


def read_tail(path: Path, count: int) -> list[dict[str, Any]]:
    """The last `count` entries; torn or foreign lines are skipped, never fatal."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    except OSError as exc:
        raise AuditError(f"cannot read the audit log {path}: {exc.strerror or exc}") from None
    # Split on newlines only: U+2028 and friends may sit raw inside a JSON string.
    entries = [e for line in data.decode("utf-8", "replace").split("\n")
               if (e := _entry(line)) is not None]
    return entries[-count:] if count > 0 else entries


def _entry(line: str) -> dict[str, Any] | None:
    """One ledger line; a torn line glued to a whole one (written before lines were
    closed off) gives the whole one."""
    for start in (0, line.rfind('{"time": ')):
        if start < 0 or not line[start:].strip():
            continue
        try:
            value = json.loads(line[start:])
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            entry: dict[str, Any] = _printable(value)
            return entry
    return None


def _printable(value: Any) -> Any:
    """Lone surrogates (kept as JSON escapes in the file) become U+FFFD for display."""
    if isinstance(value, dict):
        return {k: _printable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable(v) for v in value]
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return value
