"""The added cost per call of one trivial PreToolUse hook (docs/SPEC.md §7.2).

A batch of read_file calls is decided and run by the executor with no hooks,
then with one hook that answers nothing (`exit 0`, through /bin/sh as every
hook is), then with a python hook that reads its stdin and prints an allow.
The runs alternate (the machine is shared and noisy); medians per call are
printed, and the hook's share of a call.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from saikish.config.layers import Config
from saikish.hooks.config import HookSpec, HookTable
from saikish.hooks.runner import Hooks
from saikish.runtime.approval import NoTerminalApprover
from saikish.runtime.executor import Executor
from saikish.runtime.session import Session
from saikish.tools import RunContext, builtin_tools
from saikish.types import ToolCall

CALLS, ROUNDS = 20, 7
PYTHON_HOOK = (f"{sys.executable} -c 'import json,sys; json.load(sys.stdin); "
               f"print(json.dumps({{\"hookSpecificOutput\": {{\"permissionDecision\": "
               f"\"allow\"}}}}))'")


def per_call(workspace: str, command: str | None) -> float:
    """Seconds per call of one batch, with `command` as the only PreToolUse hook."""
    session = Session(Config(), workspace)
    if command is not None:
        session.hooks = Hooks(HookTable((HookSpec("PreToolUse", "", command, 10, "bench"),)),
                              workspace)
    executor = Executor(session, builtin_tools(), NoTerminalApprover(),
                        run_context=RunContext(workspace))
    calls = [ToolCall(str(n), "read_file", {"path": "f.txt"}) for n in range(CALLS)]
    started = time.perf_counter()
    outcome = executor.run_batch(calls)
    elapsed = time.perf_counter() - started
    assert all(r.decision.approved for r in outcome.records)  # nothing was asked
    return elapsed / CALLS


def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        (Path(workspace) / "f.txt").write_text("hello\n")
        kinds = {"no hook": None, "exit 0 hook": "exit 0", "python allow hook": PYTHON_HOOK}
        times: dict[str, list[float]] = {name: [] for name in kinds}
        for _ in range(ROUNDS):
            for name, command in kinds.items():
                times[name].append(per_call(workspace, command))
    median = {name: statistics.median(values) * 1000 for name, values in times.items()}
    base = median["no hook"]
    for name, value in median.items():
        added = "" if name == "no hook" else f"   (+{value - base:.2f} ms per call)"
        print(f"{name:18} {value:7.2f} ms per call{added}")


if __name__ == "__main__":
    main()
