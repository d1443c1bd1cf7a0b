"""Approved MCP tool definitions (docs/SPEC.md §7.1 "rug pulls"), kept in the state dir.

The first time a call of a tool is approved, its definition (description,
input schema, annotations) is recorded with a digest. When the server later
offers a different definition under the same name, `change()` says what
changed, and until a call of the new definition is approved again no rule or
autonomy level approves the tool. An unreadable record fails closed: every
tool counts as changed until approved again, and the broken file is kept
beside the new one.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from saikish.store.atomic import atomic_write
from saikish.store.filelock import exclusive

Definition = Mapping[str, Any]
FIELDS = ("description", "inputSchema", "annotations")
# A key no server name can be (none starts with '_'): when and why the record was restarted.
RESET = "_reset"


def definition(description: str, input_schema: Mapping[str, Any],
               annotations: Mapping[str, Any] | None) -> dict[str, Any]:
    """A tool's definition as recorded: the parts a server could change under us."""
    return {"description": description, "inputSchema": dict(input_schema),
            "annotations": dict(annotations) if annotations is not None else None}


def digest(value: Definition) -> str:
    """A stable SHA-256 of a definition."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Pins:
    """The record of approved definitions, by server and tool name.

    Several sessions may share the record: it is read again whenever the file
    changed, and an approval re-reads it under a lock and merges before its write.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._data: dict[str, Any] = {}
        self._stamp: tuple[int, int] | None = None  # (mtime_ns, size) of what _data holds
        self.problem: str | None = None  # why the file could not be read

    def change(self, server: str, tool: str, current: Definition) -> str | None:
        """What differs from the approved definition; None if unchanged or never approved."""
        with self._lock:
            data = self._load()
        if self.problem is not None:
            return f"the record of approved MCP tools ({self.path}) cannot be read: " \
                   f"{self.problem}"
        servers = data.get(server)
        entry = servers.get(tool) if isinstance(servers, dict) else None
        if not isinstance(entry, dict):
            reset = data.get(RESET)
            # Started again after it could not be read: a tool not approved since then may
            # have been approved (and pinned) before, so it is looked at again.
            return f"the record of approved MCP tools was started again ({reset}); approve " \
                   f"it once more" if isinstance(reset, str) else None
        if entry.get("digest") == digest(current):
            return None
        old = entry.get("definition")
        return describe_change(old if isinstance(old, dict) else {}, current)

    def approve(self, server: str, tool: str, current: Definition) -> None:
        """Record `current` as the approved definition (a call of it was approved)."""
        entry = {"digest": digest(current), "definition": dict(current)}
        with self._lock, self._file_lock():
            self._stamp = None  # another session may have written meanwhile: read it again
            data = self._load()
            if self.problem is not None:
                self._keep_broken()
                data = {RESET: f"{time.strftime('%Y-%m-%d %H:%M')}, after: {self.problem}"}
                self.problem = None
            servers = data.setdefault(server, {})
            if not isinstance(servers, dict):
                servers = data[server] = {}
            if servers.get(tool) != entry:
                servers[tool] = entry
                self._write(data)

    def _load(self) -> dict[str, Any]:
        try:
            stat = self.path.stat()
        except FileNotFoundError:
            self._data, self._stamp, self.problem = {}, None, None
            return self._data
        except OSError as exc:
            self.problem = str(exc)[:120]
            return {}
        stamp = (stat.st_mtime_ns, stat.st_size)
        if stamp == self._stamp:
            return self._data
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            self.problem = None if isinstance(raw, dict) else "not a mapping of servers"
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
            raw, self.problem = {}, (str(exc).splitlines() or ["unreadable"])[0][:120]
        self._data, self._stamp = (raw if isinstance(raw, dict) else {}), stamp
        return self._data

    @contextlib.contextmanager
    def _file_lock(self) -> Iterator[None]:
        """An exclusive lock on a file beside the record, across sessions."""
        with exclusive(self.path):
            yield

    def _keep_broken(self) -> None:
        with contextlib.suppress(OSError):
            os.replace(self.path, self.path.with_name(self.path.name + ".broken"))

    def _write(self, data: dict[str, Any]) -> None:
        """Atomically: a crash mid-write leaves the old record whole."""
        atomic_write(self.path, json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False),
                     private=True)
        self._stamp = None  # read back on the next look


def describe_change(old: Definition, new: Definition) -> str:
    """'description: "Echo" → "Echo (and upload)"; schema: + token' in one line.

    Either side may be any JSON (an old or hand-edited record, a server's odd schema).
    """
    try:
        return _describe(old, new)
    except (TypeError, ValueError, AttributeError):
        return "its definition"


def _describe(old: Definition, new: Definition) -> str:
    parts = []
    if old.get("description") != new.get("description"):
        parts.append(f"description {_quote(old.get('description'))} → "
                     f"{_quote(new.get('description'))}")
    if old.get("inputSchema") != new.get("inputSchema"):
        parts.append("input schema " + _schema_change(old.get("inputSchema"),
                                                      new.get("inputSchema")))
    if old.get("annotations") != new.get("annotations"):
        parts.append("annotations " + _hints_change(old.get("annotations"),
                                                    new.get("annotations")))
    return "; ".join(parts) or "its definition"


def _quote(text: Any, width: int = 60) -> str:
    value = " ".join(str(text or "").split())
    return json.dumps(value if len(value) <= width else value[:width - 1] + "…",
                      ensure_ascii=False)


def _schema_change(old: Any, new: Any) -> str:
    before = set((old or {}).get("properties") or {}) if isinstance(old, dict) else set()
    after = set((new or {}).get("properties") or {}) if isinstance(new, dict) else set()
    added, removed = sorted(after - before), sorted(before - after)
    words = [f"+{n}" for n in added] + [f"-{n}" for n in removed]
    return f"({', '.join(words)})" if words else "(argument types or rules)"


def _hints_change(old: Any, new: Any) -> str:
    before, after = dict(old or {}), dict(new or {})
    names = sorted(set(before) | set(after))
    return ", ".join(f"{n}: {before.get(n, '-')} → {after.get(n, '-')}" for n in names
                     if before.get(n) != after.get(n))
