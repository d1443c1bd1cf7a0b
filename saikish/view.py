"""What a tool call will do, as one value every front end renders (docs/SPEC.md §3): the
command it runs, the file it changes (with the file as it is now and as it will be), or
its arguments. The tool works it out with its own code (`Tool.view`), so the box, the
transcript, an editor's diff and the web page show the change the tool will make."""

from __future__ import annotations

import difflib
import enum
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


class ChangeKind(enum.Enum):
    """What a file change does to its file."""

    NEW = "new"
    OVERWRITE = "overwrite"
    APPEND = "append"
    EDIT = "edit"
    FAILS = "edit_fails"  # the edit does not apply to the file as it is: it will fail
    SPECIAL = "special"  # not a regular file (a FIFO, a device): the write will fail


@dataclass(frozen=True)
class FileChange:
    """One file before and after; `old` None: no such file; `new` None: it will fail."""

    path: str  # as the call names it
    kind: ChangeKind
    old: str | None
    new: str | None
    note: str = ""  # SPECIAL: what the file is ("a FIFO")
    requested: str = ""  # FAILS: what the edit asked for, as "- old / + new" lines
    target: str = ""  # the file itself: `path` in the workspace, ~ expanded

    def diff_lines(self) -> list[str]:
        """The unified diff (a failing edit: what it asked for)."""
        if self.new is None:
            return self.requested.splitlines()
        return list(self._diff)

    def stat(self) -> str:
        """'+12 −3': lines added and removed ('' when it will fail)."""
        if self.new is None:
            return ""
        body = [line for line in self._diff[2:] if not line.startswith("@@")]  # no headers
        added = sum(line.startswith("+") for line in body)
        removed = sum(line.startswith("-") for line in body)
        return f"+{added} −{removed}"

    @functools.cached_property
    def _diff(self) -> tuple[str, ...]:
        """The unified diff, worked out once for every front end that shows or counts it
        (the box shows the lines and the stat, json sends both)."""
        return tuple(difflib.unified_diff(
            (self.old or "").splitlines(), (self.new or "").splitlines(),
            "/dev/null" if self.old is None else f"a/{self.path}", f"b/{self.path}",
            lineterm=""))


@dataclass(frozen=True)
class Command:
    """A command line, and the files its here-documents write (`cat > f <<EOF`)."""

    command: str
    writes: tuple[FileChange, ...] = ()


@dataclass(frozen=True)
class Arguments:
    """A call shown by its arguments; `raw` is text that was not JSON, shown as sent."""

    arguments: Mapping[str, Any]
    raw: str | None = None


View = Command | FileChange | Arguments

