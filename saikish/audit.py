"""The audit ledger (SPEC 4.6): one JSON line per decision, secrets redacted, rotated."""

from __future__ import annotations

import fcntl
import json
import os
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from saikish.types import Assessment, Decision, ToolCall

MAX_BYTES = 5 * 1024 * 1024
BACKUPS = 3
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
    re.compile(r"(?i)(-----BEGIN [A-Z ]*PRIVATE KEY-----)[\s\S]*?"
               r"(-----END [A-Z ]*PRIVATE KEY-----)"),
]
REDACTED = "[REDACTED]"


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
    """Secrets inside free text (commands, file content) replaced by [REDACTED]."""
    for pattern in _SECRET_VALUES:
        if pattern.groups == 2:
            text = pattern.sub(lambda m: f"{m.group(1)}{REDACTED}"
                               if not m.group(1).startswith("-----") else REDACTED, text)
        else:
            text = pattern.sub(REDACTED, text)
    return text


class AuditLog:
    """Appends decisions to `<state dir>/audit.jsonl`, rotating it past `max_bytes`."""

    def __init__(self, path: Path, session_id: str, *, max_bytes: int = MAX_BYTES,
                 clock: Callable[[], float] = time.time) -> None:
        self.path, self.session_id, self.max_bytes, self.clock = path, session_id, max_bytes, clock

    def record(self, call: ToolCall, decision: Decision, assessment: Assessment | None,
               *, edited: bool = False) -> None:
        """Append one decision; an unwritable ledger never stops the agent."""
        entry = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.clock())),
            "session": self.session_id,
            "tool": call.name,
            "arguments": redact(call.wire_arguments),
            "risk": assessment.risk.name if assessment else None,
            # One vocabulary with the JSON outputs (docs/events.md): a timeout is a source,
            # an edit is a flag.
            "decision": decision.outcome.value,
            "edited": edited,
            "source": decision.source.value,
            "rule": decision.rule or (assessment.rule if assessment else None),
            "feedback": redact_text(decision.feedback) if decision.feedback else None,
        }
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path.with_name(self.path.name + ".lock"), "a") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # rotation and append by one session at a time
                if self.path.exists():
                    self._rotate_if_full(self.path.stat().st_size)
                with open(self.path, "a", encoding="utf-8") as handle:
                    handle.write(line)
        except OSError:
            pass  # the ledger is a record, not a gate: losing a line must not stop work

    def _rotate_if_full(self, size: int) -> None:
        if size < self.max_bytes:
            return
        for n in range(BACKUPS - 1, 0, -1):
            older = self.path.with_name(f"{self.path.name}.{n}")
            if older.exists():
                os.replace(older, self.path.with_name(f"{self.path.name}.{n + 1}"))
        os.replace(self.path, self.path.with_name(f"{self.path.name}.1"))


def read_tail(path: Path, count: int) -> list[dict[str, Any]]:
    """The last `count` entries (skipping lines that do not parse)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    entries = []
    for line in lines[-count:] if count > 0 else lines:
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return entries
