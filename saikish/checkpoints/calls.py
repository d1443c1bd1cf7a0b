"""Where the executor meets checkpoints: which calls get one, and the snapshots around a run.

`checkpointed(...)` wraps `tool.run`: a snapshot before, one after, and a
`FilesChanged` event when the call changed files. A snapshot that fails before
the call stops it from running (the promise of undo would be broken) and turns
checkpoints off, so the next call is decided knowing undo is unavailable.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator

from saikish.checkpoints.store import Checkpoints
from saikish.checkpoints.values import CheckpointError
from saikish.events import Event, FilesChanged, Notice
from saikish.types import Decision, Risk, Source, ToolCall

# The built-in tools that can change files in the workspace (docs/SPEC.md §3).
WRITING_TOOLS = frozenset({"bash", "write_file", "edit_file"})
SUMMARY_CHARS = 80


def needs_checkpoint(call: ToolCall, decision: Decision, risk: Risk | None) -> bool:
    """True for a call that can write and that no person approved in the box.

    A call a person approved runs as they saw it; a read-only one changes nothing.
    An unknown risk (None) counts as writing.
    """
    return (call.name in WRITING_TOOLS and decision.source is not Source.USER
            and risk is not Risk.READ_ONLY)


@contextlib.contextmanager
def checkpointed(checkpoints: Checkpoints | None, call: ToolCall, decision: Decision,
                 risk: Risk | None, publish: Callable[[Event], None]) -> Iterator[None]:
    """Snapshots around the block that runs `call`; raises CheckpointError before it runs
    when the first snapshot fails."""
    if checkpoints is None or not checkpoints.available or \
            not needs_checkpoint(call, decision, risk):
        yield
        return
    try:
        pending = checkpoints.before(call.name, summary(call))
    except CheckpointError as exc:
        raise CheckpointError(f"not run: no checkpoint could be taken, so it could not be "
                              f"undone ({exc})") from None
    try:
        yield
    finally:  # also after Ctrl-C or a tool's crash: what it changed so far is recorded
        try:
            checkpoint = checkpoints.after(pending)
        except CheckpointError as exc:
            publish(Notice(f"no checkpoint of this call: {exc}"))
        else:
            if checkpoint is not None:
                publish(FilesChanged(call, checkpoint.number, checkpoint.added,
                                     checkpoint.modified, checkpoint.deleted,
                                     checkpoint.too_big))


def summary(call: ToolCall) -> str:
    """A call in one short line: its command or path, else its arguments."""
    arguments = call.arguments
    value = arguments.get("command") or arguments.get("path")
    text = str(value) if value is not None else json.dumps(dict(arguments), ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS - 1] + "…"
