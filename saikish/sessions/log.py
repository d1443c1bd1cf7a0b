"""A session file being written (docs/SPEC.md §10.2): one whole line per event, at once.

Each record is redacted like the audit log and appended with one write() to a file
opened O_APPEND, so a crash loses at most the event it was writing. The file is
locked while a saikish process holds it, so two processes never write one session.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from saikish.errors import SaikishError
from saikish.events import CallDecided, Event
from saikish.sessions.records import VERSION, decision_record, redacted
from saikish.store.jsonl import append_line

SUFFIX = ".jsonl"


class SessionBusy(SaikishError):
    """Another saikish process has the session open."""


def sessions_dir(state_dir: Path) -> Path:
    """Where session files live."""
    return state_dir / "sessions"


class SessionLog:
    """Appends a conversation's records to `<state dir>/sessions/<id>.jsonl`.

    A new session's file appears with its first record (a REPL opened and closed
    leaves nothing behind); its header line comes first.
    """

    def __init__(self, path: Path, header: Mapping[str, Any] | None = None) -> None:
        self.path = path
        self.header = dict(header or {})
        self._lock: IO[bytes] | None = None
        self._header_due = header is not None
        self.failed = ""  # why records are no longer written, said once

    @property
    def id(self) -> str:
        """The session id: the file's name."""
        return self.path.name.removesuffix(SUFFIX)

    @classmethod
    def new(cls, folder: Path, session_id: str, header: Mapping[str, Any]) -> SessionLog:
        """A new session; its file is made with the first record."""
        return cls(folder / f"{session_id}{SUFFIX}",
                   {"type": "session", "version": VERSION, "id": session_id, **header})

    @classmethod
    def resume(cls, path: Path, header: Mapping[str, Any]) -> SessionLog:
        """Go on writing an existing session (whose first line is `header`); SessionBusy
        when another process has it."""
        log = cls(path)
        log.header = dict(header)
        log._hold()
        return log

    def successor(self, session_id: str) -> SessionLog:
        """A new session beside this one, with the same header (for /clear)."""
        header = {k: v for k, v in self.header.items() if k not in ("type", "version", "id")}
        return SessionLog.new(self.path.parent, session_id, header)

    def _hold(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        # flock on the file itself: held by this open file, whatever other fds write to it.
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        lock = os.fdopen(fd, "ab")
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            lock.close()
            raise SessionBusy(f"session {self.id} is open in another saikish; end that one "
                              f"first") from None
        self._lock = lock

    def append(self, record: Mapping[str, Any]) -> None:
        """Write one record now; a full disk is said once and never stops the session."""
        if self.failed:
            return
        if self._header_due:
            self._header_due = False
            try:
                self._hold()
            except OSError as exc:
                self.failed = f"the session file {self.path} cannot be written " \
                              f"({exc.strerror or exc}); this session is not saved"
                return
            self.append({**self.header, "created": _now()})
        entry = {"time": _now(), **record}
        line = json.dumps(redacted(entry), ensure_ascii=False) + "\n"
        try:
            append_line(self.path, line.encode("utf-8", "backslashreplace"))
        except OSError as exc:
            self.failed = f"the session file {self.path} cannot be written " \
                          f"({exc.strerror or exc}); this session is not saved"

    def __call__(self, event: Event) -> None:
        """As a subscriber: every decided call is recorded (for /transcript)."""
        if isinstance(event, CallDecided):
            self.append(decision_record(event))

    @property
    def exists(self) -> bool:
        """True once the file has been written."""
        return not self._header_due and self.path.exists()

    def close(self) -> None:
        """Let other processes open the session again."""
        if self._lock is not None:
            with contextlib.suppress(OSError):
                self._lock.close()
            self._lock = None


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
