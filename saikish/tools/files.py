"""File tools: read_file, list_files, grep, write_file, edit_file (docs/SPEC.md §3).

Paths resolve against the workspace. Writes are atomic (temp file, fsync,
rename), so a failed write never leaves a truncated file behind; and a write
whose file changed on disk after the call was decided (while its approval box
was up) is refused, so the person's approval is never stretched to content
they did not see.
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from saikish.engine.boundary import is_secret
from saikish.engine.commands.risk import write_risk
from saikish.store.atomic import atomic_write
from saikish.store.readfile import MAX_BYTES, FileTooLarge, not_regular, read_regular
from saikish.tools.base import RunContext, Tool, ToolOutput
from saikish.tools.changes import apply_edit, edit_view, write_view
from saikish.tools.output import truncate
from saikish.types import Risk

SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".mypy_cache",
                       ".pytest_cache", ".ruff_cache"})
MAX_ENTRIES = 1000
MAX_MATCHES = 500
GREP_BYTES = 16 << 20  # one file searched by grep; larger ones are named as not searched


def resolve(path: str, ctx: RunContext) -> Path:
    """`path` against the workspace (absolute paths stay as they are)."""
    return Path(ctx.workspace, os.path.expanduser(path))


def file_state(args: Mapping[str, Any], workspace: str) -> str | None:
    """What the file a write targets holds now: 'absent', or its size and hash.

    None when it cannot be read (no comparison is then possible). Past MAX_BYTES, its
    size, modification time and inode stand for the content.
    """
    try:
        path = Path(workspace, os.path.expanduser(str(args.get("path", ""))))
        data = read_regular(path)
    except FileNotFoundError:
        return "absent"
    except FileTooLarge:
        return _large_state(path)
    except (OSError, ValueError):  # ValueError: a NUL or a lone surrogate in the path
        return None
    return f"{len(data)}:{hashlib.blake2b(data, digest_size=16).hexdigest()}"


def _large_state(path: Path) -> str | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return f"{info.st_size}:{info.st_mtime_ns}:{info.st_ino}"


def _changed(args: Mapping[str, Any], ctx: RunContext) -> ToolOutput | None:
    """An error result when the file is no longer what it was when the call was decided."""
    if ctx.expected_state is None or file_state(args, ctx.workspace) == ctx.expected_state:
        return None
    return ToolOutput(f"not written: {args['path']} changed on disk after this call was shown "
                      f"for approval. Read it again, then make the change again (it will be "
                      f"asked about again).", True)


def _schema(required: list[str], **props: tuple[str, str]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {k: {"type": t, "description": d} for k, (t, d) in props.items()},
        "required": required,
        "additionalProperties": False,
    }


def _read(path: Path, ctx: RunContext, cut: bool = False) -> bytes:
    """The file's bytes: through the editor when it offers its files, else from the disk."""
    if ctx.files is not None:
        return ctx.files.read_text(path).encode("utf-8", "surrogateescape")[:MAX_BYTES]
    return read_regular(path, cut=cut)


def _write(path: Path, text: str, ctx: RunContext) -> None:
    """Write the whole file: through the editor when it offers its files, else atomically."""
    if ctx.files is not None:
        ctx.files.write_text(path, text)
    else:
        atomic_write(path, text)


def read_file(args: Mapping[str, Any], ctx: RunContext) -> ToolOutput:
    """Numbered lines of a text file, from `offset` (1-based), at most `limit` lines."""
    try:
        data = _read(resolve(str(args["path"]), ctx), ctx, cut=True)
    except (OSError, ValueError) as exc:  # ValueError: a NUL or a lone surrogate in the path
        return ToolOutput(f"cannot read {args['path']}: {_why(exc)}", True)
    if b"\x00" in data[:8192]:
        return ToolOutput(f"{args['path']} is a binary file ({len(data)} bytes)", True)
    lines = data.decode("utf-8", errors="replace").splitlines()
    start = max(int(args.get("offset") or 1), 1)
    limit = int(args.get("limit") or 2000)
    chosen = lines[start - 1:start - 1 + limit]
    text = "\n".join(f"{n:6}\t{line}" for n, line in enumerate(chosen, start))
    rest = len(lines) - (start - 1 + len(chosen))
    if rest > 0:
        text += f"\n[{rest} more lines; read on with offset={start + len(chosen)}]"
    if len(data) >= MAX_BYTES:
        text += f"\n[only the first {MAX_BYTES >> 20} MB of the file were read]"
    return ToolOutput(truncate(text or "(empty file)", ctx.output_limit))


def _why(exc: Exception) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc)


def list_files(args: Mapping[str, Any], ctx: RunContext) -> ToolOutput:
    """Entries of a directory; with `glob`, every matching file below it."""
    root = resolve(str(args.get("path") or "."), ctx)
    if not root.is_dir():
        return ToolOutput(f"not a directory: {args.get('path')}", True)
    glob = args.get("glob")
    if glob:
        names = [str(p.relative_to(root)) for p in _walk(root)
                 if fnmatch.fnmatch(str(p.relative_to(root)), str(glob))
                 or fnmatch.fnmatch(p.name, str(glob))]
    else:
        names = sorted(e.name + ("/" if e.is_dir() else "") for e in os.scandir(root))
    shown = names[:MAX_ENTRIES]
    more = f"\n[{len(names) - len(shown)} more entries]" if len(names) > len(shown) else ""
    return ToolOutput("\n".join(shown) + more if shown else "(no entries)")


def grep(args: Mapping[str, Any], ctx: RunContext) -> ToolOutput:
    """Lines matching a regular expression, as path:line:text."""
    try:
        pattern = re.compile(str(args["pattern"]))
    except re.error as exc:
        return ToolOutput(f"invalid regular expression: {exc}", True)
    root = resolve(str(args.get("path") or "."), ctx)
    files = [root] if root.is_file() else _walk(root)
    glob = args.get("glob")
    hits: list[str] = []
    secret: list[str] = []
    skipped: list[str] = []
    for file in files:
        if glob and not fnmatch.fnmatch(file.name, str(glob)):
            continue
        if file != root and is_secret(str(file), ctx.workspace):
            # Searching a tree must not read keys the person was never asked about (4.8).
            secret.append(str(file.relative_to(root)))
            continue
        hits.extend(_grep_file(file, pattern, root, MAX_MATCHES - len(hits), skipped))
        if len(hits) >= MAX_MATCHES:
            hits.append(f"[stopped after {MAX_MATCHES} matches]")
            break
    if secret:
        hits.append(f"[not searched, may hold secrets: {_some(secret)}; read_file asks for them]")
    if skipped:
        hits.append(f"[not searched: {_some(skipped)}]")
    return ToolOutput(truncate("\n".join(hits) or "(no matches)", ctx.output_limit))


def _some(names: list[str]) -> str:
    return ", ".join(names[:10]) + (" ..." if len(names) > 10 else "")


def _grep_file(file: Path, pattern: re.Pattern[str], root: Path, room: int,
               skipped: list[str]) -> list[str]:
    label = file.name if file == root else str(file.relative_to(root))
    try:
        data = read_regular(file, GREP_BYTES)
    except FileNotFoundError:
        return []
    except OSError as exc:  # a device, a FIFO, a link to /dev/zero, a huge file
        skipped.append(f"{label} ({exc.strerror})")
        return []
    if b"\x00" in data[:8192]:
        return []
    out = []
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), 1):
        if pattern.search(line):
            out.append(f"{label}:{number}:{line[:500]}")
            if len(out) >= room:
                break
    return out


def _walk(root: Path) -> Iterator[Path]:
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            yield Path(directory, name)


def write_file(args: Mapping[str, Any], ctx: RunContext) -> ToolOutput:
    """Create or overwrite a file with `content`."""
    path = resolve(str(args["path"]), ctx)
    changed = _changed(args, ctx)
    if changed:
        return changed
    special = not_regular(path)
    if special:  # a rename over /dev/null or a FIFO would replace it with a plain file
        return ToolOutput(f"cannot write {args['path']}: it is {special}, not a regular file",
                          True)
    try:
        existed = path.exists()
        _write(path, str(args["content"]), ctx)
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path, a lone surrogate
        return ToolOutput(f"cannot write {args['path']}: {getattr(exc, 'strerror', None) or exc}",
                          True)
    verb = "overwrote" if existed else "created"
    return ToolOutput(f"{verb} {args['path']} ({len(str(args['content']))} characters)")


def edit_file(args: Mapping[str, Any], ctx: RunContext) -> ToolOutput:
    """Replace `old_string` by `new_string` (once, unless `replace_all`)."""
    path = resolve(str(args["path"]), ctx)
    try:
        text = _read(path, ctx).decode("utf-8")
    except (OSError, ValueError) as exc:  # ValueError: not UTF-8, or a NUL in the path
        return ToolOutput(f"cannot read {args['path']}: {_why(exc)}", True)
    new = apply_edit(text, args)
    if isinstance(new, ToolOutput):
        return new
    changed = _changed(args, ctx)
    if changed:
        return changed
    try:
        _write(path, new, ctx)
    except (OSError, ValueError) as exc:
        return ToolOutput(f"cannot write {args['path']}: {getattr(exc, 'strerror', None) or exc}",
                          True)
    return ToolOutput(f"edited {args['path']}")


def _read_only(args: Mapping[str, Any], workspace: str) -> Risk:
    return Risk.READ_ONLY


def _writes(args: Mapping[str, Any], workspace: str) -> Risk:
    return write_risk(str(args.get("path", "")), workspace)


FILE_TOOLS = (
    Tool("read_file", "Read a text file; lines are numbered.",
         _schema(["path"], path=("string", "File path, relative to the project."),
                 offset=("integer", "First line to read (1-based)."),
                 limit=("integer", "Most lines to read.")), read_file, _read_only),
    Tool("list_files", "List a directory, or with glob every matching file below it.",
         _schema(["path"], path=("string", "Directory."),
                 glob=("string", "Glob such as '*.py'.")), list_files, _read_only),
    Tool("grep", "Search files for a regular expression.",
         _schema(["pattern"], pattern=("string", "Python regular expression."),
                 path=("string", "File or directory (default: the project)."),
                 glob=("string", "Only files whose name matches.")), grep, _read_only),
    Tool("write_file", "Create or overwrite a file with the given content.",
         _schema(["path", "content"], path=("string", "File path."),
                 content=("string", "The whole new content.")), write_file, _writes,
         state=file_state, view=write_view),
    Tool("edit_file", "Replace an exact string in a file.",
         _schema(["path", "old_string", "new_string"], path=("string", "File path."),
                 old_string=("string", "Exact text to replace."),
                 new_string=("string", "Replacement text."),
                 replace_all=("boolean", "Replace every occurrence.")), edit_file, _writes,
         state=file_state, view=edit_view),
)
