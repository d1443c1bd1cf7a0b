"""The session files of the state dir: list, find by id, remove (docs/SPEC.md §10.2).

Listing reads only the head of each file (its header and first prompt), so a
folder of long sessions lists at once.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from saikish.errors import UsageError
from saikish.sessions.log import SUFFIX

HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class SessionInfo:
    """One stored session: id, file, workspace, first prompt, and when and how big."""

    id: str
    path: Path
    workspace: str
    model: str
    first_prompt: str
    updated: float  # the file's modification time
    size: int  # bytes


def list_sessions(folder: Path, workspace: str | None = None) -> list[SessionInfo]:
    """The sessions with at least one prompt, newest first; only `workspace`'s when given."""
    try:
        paths = [p for p in folder.iterdir() if p.name.endswith(SUFFIX)]
    except OSError:
        return []
    infos = [info for path in paths if (info := read_info(path)) is not None]
    chosen = [i for i in infos if i.first_prompt and (workspace is None or
                                                      i.workspace == workspace)]
    return sorted(chosen, key=lambda i: i.updated, reverse=True)


def read_info(path: Path) -> SessionInfo | None:
    """What the head of a session file says; None when it is no session file."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(HEAD_BYTES)
            stat = os.fstat(handle.fileno())
    except OSError:
        return None
    header: dict[str, object] = {}
    prompt = ""
    for line in head.decode("utf-8", "replace").split("\n"):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict) and record.get("type") == "session" and not header:
            header = record
        elif isinstance(record, dict) and record.get("type") == "user":
            prompt = str(record.get("text") or "")
            break
    if not header:
        return None
    return SessionInfo(path.name.removesuffix(SUFFIX), path, str(header.get("workspace", "")),
                       str(header.get("model", "")), prompt, stat.st_mtime, stat.st_size)


def find_session(folder: Path, prefix: str, workspace: str | None = None) -> SessionInfo:
    """The one session whose id starts with `prefix`; a usage error names what went wrong."""
    found = [i for i in list_sessions(folder) if i.id.startswith(prefix)] if prefix else []
    if not found:
        raise UsageError(f"no session '{prefix}'; 'saikish sessions' lists them")
    if len(found) > 1:
        raise UsageError(f"'{prefix}' names {len(found)} sessions ("
                         f"{', '.join(i.id for i in found[:5])}); give more of the id")
    info = found[0]
    if workspace is not None and info.workspace != workspace:
        raise UsageError(f"session {info.id} was recorded in {info.workspace}; resume it "
                         f"from there (its calls and paths belong to that workspace)")
    return info


def latest(folder: Path, workspace: str) -> SessionInfo | None:
    """The most recent session of `workspace`."""
    found = list_sessions(folder, workspace)
    return found[0] if found else None
