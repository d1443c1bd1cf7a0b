"""The editor's file system over ACP (docs/SPEC.md §7.4): `fs/read_text_file` and
`fs/write_text_file`, used by the file tools when the editor offers them, so what the
model reads is the buffer the person sees (unsaved changes included) and its edits
land in that buffer."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from saikish.acp.jsonrpc import Connection, RpcError


@dataclass(frozen=True)
class EditorFiles:
    """FileAccess through one editor session; what the editor refuses is an OSError."""

    connection: Connection
    session_id: str
    reads: bool
    writes: bool

    def read_text(self, path: Path) -> str:
        """The editor's text of `path`; from the disk when the editor does not offer reads."""
        if not self.reads:
            return path.read_text(encoding="utf-8")
        answer = self._ask("fs/read_text_file", path, {})
        content = (answer or {}).get("content")
        if not isinstance(content, str):
            raise OSError(f"the editor sent no text for {path}")
        return content

    def write_text(self, path: Path, content: str) -> None:
        """Write through the editor; to the disk when the editor does not offer writes."""
        if not self.writes:
            from saikish.store.atomic import atomic_write

            atomic_write(path, content)
            return
        self._ask("fs/write_text_file", path, {"content": content})

    def _ask(self, method: str, path: Path, extra: Mapping[str, Any]) -> dict[str, Any] | None:
        if self.connection.closed:
            raise OSError("the editor has gone")
        try:
            return self.connection.request(method, {"sessionId": self.session_id,
                                                    "path": str(path), **extra})
        except RpcError as exc:
            raise OSError(f"the editor refused: {exc.message[:300]}") from None


def editor_files(connection: Connection, session_id: str,
                 capabilities: Mapping[str, Any]) -> EditorFiles | None:
    """EditorFiles when the editor's `clientCapabilities.fs` offers reads or writes."""
    fs = capabilities.get("fs") if isinstance(capabilities, Mapping) else None
    if not isinstance(fs, Mapping):
        return None
    reads, writes = fs.get("readTextFile") is True, fs.get("writeTextFile") is True
    return EditorFiles(connection, session_id, reads, writes) if reads or writes else None
