"""Claude Code's permission rule names as saikish's (docs/SPEC.md §4.4): pure strings.

rules.py reads a rule naming one of these with the saikish tools it covers.
"""

from __future__ import annotations

# Claude Code's file tools as ours (docs/SPEC.md §4.4): the tools a rule naming one covers.
# Claude Code's Edit rules cover every tool that edits files, its Read rules every tool
# that reads them (Grep and Glob too).
_EDITS, _READS = ("write_file", "edit_file"), ("read_file", "list_files", "grep")
CLAUDE_ALIASES: dict[str, tuple[str, ...]] = {
    "Write": _EDITS, "Edit": _EDITS, "MultiEdit": _EDITS, "Read": _READS}
# Claude Code tools saikish lacks: a rule for one parses, matches nothing, and is warned.
CLAUDE_ONLY_TOOLS = ("WebFetch", "WebSearch", "Task", "TodoWrite", "Agent", "NotebookRead")


def claude_path(glob: str) -> str:
    """Claude Code's path pattern as ours: `//abs` is absolute, `/x` and `./x` are the
    project's (the workspace's) `x`, `~/x` is the home's, `x` is the workspace's."""
    if glob.startswith("//"):
        return glob[1:]
    if glob.startswith("/"):
        return glob[1:] or "."
    return glob[2:] or "." if glob.startswith("./") else glob
