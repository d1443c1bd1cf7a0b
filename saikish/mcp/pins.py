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
import tempfile
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

Definition = Mapping[str, Any]
FIELDS = ("description", "inputSchema", "annotations")


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
    """The record of approved definitions, by server and tool name."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._data: dict[str, dict[str, Any]] | None = None
        self.problem: str | None = None  # why the file could not be read

    def change(self, server: str, tool: str, current: Definition) -> str | None:
        """What differs from the approved definition; None if unchanged or never approved."""
        with self._lock:
            data = self._load()
            if self.problem is not None:
                return f"the record of approved MCP tools ({self.path}) cannot be read: " \
                       f"{self.problem}"
            entry = data.get(server, {}).get(tool)
        if not isinstance(entry, dict) or entry.get("digest") == digest(current):
            return None
        old = entry.get("definition")
        return describe_change(old if isinstance(old, dict) else {}, current)

    def approve(self, server: str, tool: str, current: Definition) -> None:
        """Record `current` as the approved definition (a call of it was approved)."""
        with self._lock:
            data = self._load()
            entry = {"digest": digest(current), "definition": dict(current)}
            if data.get(server, {}).get(tool) == entry:
                return
            if self.problem is not None:
                self._keep_broken()
                data, self.problem = {}, None
            data.setdefault(server, {})[tool] = entry
            self._write(data)

    def _load(self) -> dict[str, dict[str, Any]]:
        if self._data is not None:
            return self._data
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raw = {}
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            self.problem, raw = str(exc).splitlines()[0][:120], {}
        if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
            self.problem, raw = self.problem or "not a mapping of servers to tools", {}
        self._data = raw
        return raw

    def _keep_broken(self) -> None:
        with contextlib.suppress(OSError):
            os.replace(self.path, self.path.with_name(self.path.name + ".broken"))

    def _write(self, data: dict[str, dict[str, Any]]) -> None:
        """Atomically: a crash mid-write leaves the old record whole."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle, temp = tempfile.mkstemp(dir=self.path.parent, prefix=".mcp-pins.")
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            json.dump(data, out, indent=1, sort_keys=True, ensure_ascii=False)
        os.replace(temp, self.path)
        self._data = data


def describe_change(old: Definition, new: Definition) -> str:
    """'description: "Echo" → "Echo (and upload)"; schema: + token' in one line."""
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
