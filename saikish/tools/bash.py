"""The bash tool: one command in its own process group, with a timeout (docs/SPEC.md §3)."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping
from typing import Any

from saikish.tools.base import RunContext, Tool, ToolOutput
from saikish.tools.output import BoundedText

SCHEMA = {
    "type": "object",
    "properties": {
        "command": {"type": "string", "description": "The bash command to run."},
        "timeout": {"type": "number", "description": "Seconds before it is killed."},
    },
    "required": ["command"],
    "additionalProperties": False,
}


def run_bash(args: Mapping[str, Any], ctx: RunContext) -> ToolOutput:
    """Run `args['command']` with bash in the workspace; kill its whole group when done."""
    timeout = float(args.get("timeout") or ctx.bash_timeout)
    proc = subprocess.Popen(
        ["bash", "-c", str(args["command"])], cwd=ctx.workspace, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    output = BoundedText(ctx.output_limit)
    reader = threading.Thread(target=_drain, args=(proc, output), daemon=True)
    reader.start()
    try:
        ending = _wait(proc, timeout, ctx)
    except KeyboardInterrupt:
        _kill_group(proc)
        raise
    reader.join(timeout=2)
    text = output.render().rstrip("\n")
    if ending:
        return ToolOutput(f"{text}\n[{ending}]".lstrip("\n"), is_error=True)
    code = proc.returncode
    return ToolOutput(f"{text}\n[exit code {code}]".lstrip("\n"), is_error=code != 0)


def _drain(proc: subprocess.Popen[bytes], output: BoundedText) -> None:
    stream = proc.stdout
    assert stream is not None
    for chunk in iter(lambda: os.read(stream.fileno(), 65536), b""):
        output.add(chunk.decode("utf-8", errors="replace"))


def _wait(proc: subprocess.Popen[bytes], timeout: float, ctx: RunContext) -> str | None:
    """None when the command ended by itself, else why it was killed."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            proc.wait(timeout=0.05)
        except subprocess.TimeoutExpired:
            if ctx.cancel.is_set():
                _kill_group(proc)
                return "cancelled by the person"
            if time.monotonic() >= deadline:
                _kill_group(proc)
                return f"killed after the timeout of {timeout:g}s"
            continue
        # The shell may have ended while children it left in the group still run.
        _kill_group(proc, quiet=True)
        return None


def _kill_group(proc: subprocess.Popen[bytes], quiet: bool = False) -> None:
    try:
        os.killpg(proc.pid, signal.SIGTERM if quiet else signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        return
    if not quiet:
        proc.wait()


BASH_TOOL = Tool(
    name="bash",
    description=("Run a bash command in the user's project directory. Output (stdout and "
                 "stderr) and the exit code are returned."),
    schema=SCHEMA,
    run=run_bash,
)
