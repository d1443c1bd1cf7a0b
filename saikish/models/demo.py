"""The built-in demo (docs/SPEC.md §8.1): the whole approval flow, offline, in a scratch dir."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from saikish.models.script import ScriptModel, parse_turns

NOTES = """# Project notes

- Try saikish offline with the demo model.
- Read-only commands run without asking.
"""


def make_workspace() -> Path:
    """A fresh temporary workspace with a file or two to look at."""
    root = Path(tempfile.mkdtemp(prefix="saikish-demo-"))
    (root / "notes.md").write_text(NOTES, encoding="utf-8")
    (root / "README.md").write_text("# demo\n\nA scratch project for the saikish demo.\n",
                                    encoding="utf-8")
    return root


def is_scratch(root: Path) -> bool:
    """True for a workspace make_workspace made (the demo may write there, nowhere else)."""
    return root.name.startswith("saikish-demo-") and \
        root.resolve().parent == Path(tempfile.gettempdir()).resolve()


def remove_workspace(root: Path) -> None:
    """Delete the demo workspace (only ever one made by make_workspace)."""
    if root.name.startswith("saikish-demo-"):
        shutil.rmtree(root, ignore_errors=True)


def demo_model() -> ScriptModel:
    """The demo conversation as a script model."""
    return ScriptModel(parse_turns(_TURNS, "demo"), name="demo")


_TURNS = [
    {"text": "Hi! I am saikish's offline demo model. I work in a scratch directory that is "
             "removed when you quit. First a safe look around: read-only commands run "
             "without asking.",
     "tool_calls": [{"name": "bash", "arguments": {"command": "ls -la && cat notes.md"}}]},
    {"text": "Now a chain. It writes a file and runs Python: nothing in it needs you, so it "
             "runs contained, inside the sandbox after a checkpoint (/undo puts it back). "
             "Without a sandbox saikish stops and shows each part with its risk instead.",
     "tool_calls": [{"name": "bash", "arguments": {
         "command": "mkdir -p src && printf 'print(\"hello from saikish\")\\n' > src/hello.py"
                    " && python3 src/hello.py"}}]},
    {"text": "Next a file write inside the workspace: contained too, and the transcript says "
             "what changed. Writes outside it, the network and git history need you.",
     "tool_calls": [{"name": "write_file", "arguments": {
         "path": "notes.md", "content": NOTES + "- Writes show a diff before they happen.\n"}}]},
    {"text": "Finally a risky command: a recursive delete needs you. saikish stops and shows "
             "it; try n and tell me why: I will get your feedback instead of running it.",
     "tool_calls": [{"name": "bash", "arguments": {"command": "rm -rf src"}}]},
    {"text": "That is the whole flow: what saikish understands runs quietly; what it cannot "
             "verify runs contained in the sandbox, undoable; anything that needs you (the "
             "network, writes outside the project, git history, bulk deletes) is shown first "
             "and you decide. 'a' saves a rule to your allowlist (see `saikish allowlist "
             "show`). Use `-m openai:gpt-4.1-mini`, `-m anthropic:claude-sonnet-4-5` or "
             "`-m ollama:qwen3` to work for real."},
]
