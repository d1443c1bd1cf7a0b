"""The REPL's input history file, degrading to memory when the file fails (docs/SPEC.md §9)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from prompt_toolkit.history import FileHistory


class SafeHistory(FileHistory):
    """FileHistory that never raises: an unreadable or unwritable file becomes one warning.

    prompt_toolkit calls these methods inside its event loop, where an exception
    shows an "Unhandled exception" screen on every Enter; here the history goes
    on in memory for the session and the REPL says so once.
    """

    def __init__(self, path: Path) -> None:
        super().__init__(str(path))
        self.path = path
        self.failed = False
        self._warning: str | None = None

    def load_history_strings(self) -> Iterable[str]:
        """The saved entries, newest first; none when the file cannot be read."""
        try:
            return list(super().load_history_strings())
        except OSError as exc:
            self._fail("read", exc)
            return []

    def store_string(self, string: str) -> None:
        """Append one entry to the file, unless the file has already failed."""
        if self.failed:
            return
        try:
            super().store_string(string)
        except OSError as exc:
            self._fail("save", exc)

    def take_warning(self) -> str | None:
        """The one-line warning, once, when the file failed."""
        warning, self._warning = self._warning, None
        return warning

    def _fail(self, verb: str, exc: OSError) -> None:
        self.failed = True
        self._warning = (f"cannot {verb} the input history {self.path}: "
                         f"{exc.strerror or exc}; history is kept for this session only")
