"""The Tool type, the context a tool runs in, and argument validation (docs/SPEC.md §3)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from saikish.engine.toolfacts import validate
from saikish.tools.sandbox.jobs import Job
from saikish.types import Image, Risk, ToolCall
from saikish.view import Arguments, View

Schema = Mapping[str, Any]
__all__ = ["FileAccess", "RunContext", "Schema", "Tool", "ToolOutput", "validate"]


class FileAccess(Protocol):
    """Where the file tools read and write text when it is not the disk: an editor's
    buffers over ACP (docs/SPEC.md §7.4). OSError says what failed."""

    def read_text(self, path: Path) -> str:
        """The file's text as the editor has it (unsaved changes included)."""

    def write_text(self, path: Path, content: str) -> None:
        """Write the whole file through the editor."""


class Spawner(Protocol):
    """Where a call nobody looked at runs (tools/sandbox/launcher.py's `Sandbox`)."""

    def spawn(self, argv: Sequence[str], env: Mapping[str, str], marker: str) -> Job:
        """Start `argv` inside with the allowed part of `env`."""


@dataclass
class RunContext:
    """What a running tool may use: the workspace, limits, and a cancel signal."""

    workspace: str
    output_limit: int = 30000
    bash_timeout: float = 120.0
    cancel: threading.Event = field(default_factory=threading.Event)
    # Set by the executor for the calls that must run inside the sandbox (docs/SPEC.md §4.9).
    sandbox: Spawner | None = None
    # What Tool.state said when the call was decided: the tool refuses if it changed.
    expected_state: str | None = None
    # Credential values children must not inherit (docs/SPEC.md §4.8, tools/sandbox/childenv).
    secrets: tuple[str, ...] = ()
    # Set by the executor: asks the person from inside a running tool (docs/SPEC.md §7.3).
    confirm: Callable[[str, dict[str, Any]], bool] | None = None
    # Set by the executor: a running tool's one-line progress ("3/10 reading"), shown live.
    # May be called from another thread (an MCP server's progress notifications).
    progress: Callable[[str], None] | None = None
    # Set by `saikish acp` when the editor offers its file system: read_file, write_file and
    # edit_file go through it, so unsaved buffers are seen and edits land in them.
    files: FileAccess | None = None


@dataclass(frozen=True)
class Tool:
    """A tool the model can call: its wire name, schema, risk and implementation."""

    name: str
    description: str
    schema: Schema
    run: Callable[[Mapping[str, Any], RunContext], ToolOutput]
    # The risk of one call; bash's is worked out per command by the policy instead.
    risk: Callable[[Mapping[str, Any], str], Risk] = lambda args, workspace: Risk.UNKNOWN
    # What the call's target holds now (e.g. a file's hash), noted before the person is
    # asked, so the tool can refuse to act on something other than what was shown.
    state: Callable[[Mapping[str, Any], str], str | None] | None = None
    # Always ask, whatever the autonomy level says (rules and modes still apply; §7.3).
    requires_confirmation: bool = False
    # What the tool knows about showing itself, so front ends need not switch on its name:
    # the argument Edit opens, the argument that names a call in one line, path arguments.
    editable_argument: str | None = None
    summary_argument: str | None = None
    path_arguments: tuple[str, ...] = ()
    # The path argument a call changes in place (write_file, edit_file): inside the workspace
    # such a call can run contained, after a checkpoint (docs/SPEC.md §4.1, §4.10).
    writes_argument: str | None = None
    # Other names rules may use for this tool (an MCP tool's full name, when cut to 64).
    aliases: tuple[str, ...] = ()
    # Labelled lines the approval box shows above the arguments ("server", "risk from").
    about: tuple[tuple[str, str], ...] = ()
    # What changed in the tool's definition since a call of it was last approved, or None.
    # While it says something, no rule or autonomy level approves the tool (§7.1 rug pulls).
    definition_change: Callable[[], str | None] | None = None
    # What a call will do, as one value every front end renders (saikish/view.py): the
    # command, the file change with its diff, or (by default) the arguments.
    # `files`: an editor's buffers, read instead of the disk when it offers them (§7.4).
    view: Callable[[ToolCall, str, FileAccess | None], View] = field(
        default=lambda call, workspace, files: Arguments(call.wire_arguments,
                                                         call.raw_arguments))
    # What kind of thing the tool does, in the Agent Client Protocol's words (§7.4):
    # read, edit, delete, move, search, execute, think, fetch or other.
    kind: str = "other"

    def show(self, call: ToolCall, workspace: str, files: FileAccess | None = None) -> View:
        """What `call` will do (saikish/view.py); a view the tool cannot work out (arguments
        of the wrong type) is the arguments themselves."""
        try:
            return self.view(call, workspace, files)
        except (TypeError, ValueError, OSError):
            return Arguments(call.wire_arguments, call.raw_arguments)

    def summary(self, arguments: Mapping[str, Any], width: int = 100) -> str:
        """One line naming a call: 'bash ls -la', 'write_file a.txt', else the JSON arguments."""
        text = f"{self.name} {self.detail(arguments)}".strip().replace("\n", " ⏎ ")
        return text if len(text) <= width else text[:width - 1] + "…"

    def detail(self, arguments: Mapping[str, Any]) -> str:
        """What names a call of this tool beside its name: the summary argument ('ls -la',
        'a.txt'), else the arguments as JSON; '' for none."""
        value = arguments.get(self.summary_argument) if self.summary_argument else None
        return str(value) if value is not None else json.dumps(
            dict(arguments), ensure_ascii=False) if arguments else ""

    def wire_spec(self) -> dict[str, Any]:
        """The tool as the model sees it (JSON schema function spec)."""
        return {"name": self.name, "description": self.description,
                "parameters": dict(self.schema)}


@dataclass(frozen=True)
class ToolOutput:
    """What a tool produced: text for the model, and whether it failed."""

    text: str
    is_error: bool = False
    images: tuple[Image, ...] = ()  # for the models that take them; `text` names each
