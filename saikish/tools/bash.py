"""The bash tool (docs/SPEC.md §3): one command in its own session, with a timeout;
nothing it starts outlives it."""

from __future__ import annotations

import codecs
import math
import os
import subprocess
import threading
import time
import uuid
from collections.abc import Mapping
from typing import Any

from saikish.engine.bash.shell import analyse
from saikish.tools.base import FileAccess, RunContext, Tool, ToolOutput
from saikish.tools.changes import write_change
from saikish.tools.output import BoundedText
from saikish.tools.sandbox.childenv import child_environment, with_git_guards
from saikish.tools.sandbox.jobs import HostJob, Job, LaunchError
from saikish.tools.sandbox.reaper import MARKER_VARIABLE, end_all
from saikish.types import ToolCall
from saikish.view import Command

SCHEMA = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The bash command to run."},
        "timeout": {"type": "number", "description": "Seconds before it is killed."},
    },
    "required": ["command"],
    "additionalProperties": False,
}
POLL_S = 0.05  # how often a running call looks at Ctrl-C and the deadline


def run_bash(args: Mapping[str, Any], ctx: RunContext) -> ToolOutput:
    """Run `args['command']` with bash in the workspace; end every process it started."""
    timeout = call_timeout(args.get("timeout"), ctx.bash_timeout)
    if timeout is None:
        return ToolOutput("argument 'timeout' must be a finite number of seconds", True)
    marker = uuid.uuid4().hex
    try:
        job = spawn(str(args["command"]), ctx, marker)
    except (KeyboardInterrupt, SystemExit):  # Ctrl-C or SIGTERM while bash was starting:
        end_all(None, marker)  # what started carries the marker, though its pid is unknown
        raise
    except LaunchError as exc:  # the sandbox failed, not the command: the executor probes
        return ToolOutput(str(exc), True)
    except (OSError, ValueError) as exc:  # ValueError: a NUL or lone surrogate in the command
        return ToolOutput(f"cannot start bash: {getattr(exc, 'strerror', None) or exc}", True)
    output = BoundedText(ctx.output_limit)
    try:
        reader = threading.Thread(target=_drain, args=(job, output), daemon=True)
        reader.start()
        ending = _wait(job, timeout, ctx)
    finally:  # done, timed out, Ctrl-C or SIGTERM: the call's processes end with it
        job.end()
    reader.join(timeout=2)
    text = output.render().rstrip("\n")
    if ending:
        if timeout < _requested(args):
            ending += f" (tools.bashTimeout caps the {_requested(args):g}s asked for)"
        return ToolOutput(f"{text}\n[{ending}]".lstrip("\n"), is_error=True)
    code = job.returncode
    return ToolOutput(f"{text}\n[exit code {code}]".lstrip("\n"), is_error=code != 0)


def spawn(command: str, ctx: RunContext, marker: str) -> Job:
    """The one place a bash call starts (argv, environment, session): hooks go here.

    Outside the sandbox: its own session, so a terminal's signals reach saikish, not the
    command; the marker variable is inherited by every descendant, even one that calls
    setsid, so they can be found and ended with the call. Inside (docs/SPEC.md §4.9, a
    call nobody looked at): the sandbox runs it, with only the variables it lets in.
    """
    env = child_environment(ctx.secrets)  # keys stay home (§4.8)
    argv = ["bash", "-c", command]
    if ctx.sandbox is not None:
        return ctx.sandbox.spawn(argv, env, marker)
    proc = subprocess.Popen(
        argv, cwd=ctx.workspace, env={**with_git_guards(env), MARKER_VARIABLE: marker},
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        start_new_session=True)
    return HostJob(proc, marker)


def call_timeout(requested: Any, cap: float) -> float | None:
    """Seconds the call may run: what the model asked for, never more than `cap`.

    None for a value that is not a finite number (NaN or infinity would never end).
    """
    if requested is None or requested == 0:
        return cap
    if isinstance(requested, bool) or not isinstance(requested, (int, float)) \
            or not math.isfinite(requested):
        return None
    return min(float(requested), cap) if requested > 0 else cap


def _requested(args: Mapping[str, Any]) -> float:
    value = args.get("timeout")
    return float(value) if isinstance(value, (int, float)) and value else 0.0


def _drain(job: Job, output: BoundedText) -> None:
    stream = job.output
    # Incremental: a character split across two reads is decoded whole.
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    for chunk in iter(lambda: os.read(stream.fileno(), 65536), b""):
        output.add(decoder.decode(chunk))
    output.add(decoder.decode(b"", final=True))
    stream.close()


def _wait(job: Job, timeout: float, ctx: RunContext) -> str | None:
    """None when the command ended by itself, else why it has to be killed."""
    deadline = time.monotonic() + timeout
    while not job.wait(min(POLL_S, max(deadline - time.monotonic(), 0.0))):
        if ctx.cancel.is_set():
            return "cancelled by the person"
        if time.monotonic() >= deadline:
            return f"killed after the timeout of {timeout:g}s"
    return None


def bash_view(call: ToolCall, workspace: str, files: FileAccess | None = None) -> Command:
    """The command, and the files its here-documents write (`cat > f <<'EOF'`) as the file
    writes they are (docs/SPEC.md §4.7): cat writes each line of the body with its newline."""
    command = str(call.arguments.get("command", ""))
    writes = tuple(write_change(target.path, body + "\n" if body else "", workspace,
                                append=target.append, files=files)
                   for target, body in analyse(command).heredoc_writes)
    return Command(command, writes)


BASH_TOOL = Tool(
    name="bash",
    description=("Run a bash command in the user's project directory. Output (stdout and "
                 "stderr) and the exit code are returned."),
    schema=SCHEMA,
    run=run_bash,
    view=bash_view,
)
