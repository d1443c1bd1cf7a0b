"""Cost of the sandbox per call (issue: under 15 ms added), measured in one run.

Runs a trivial `true` through the bash tool with and without the sandbox and
prints the medians, the time added per call and the ratio; then the same for a
bare subprocess.run (the launcher's own cost, without the tool's wait loop);
and the one-time probe at session start.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time

from saikish.tools import RunContext, builtin_tools
from saikish.tools.sandbox import SandboxMode, start_sandbox

RUNS = 40
TARGET_MS = 15.0


def median_ms(context: RunContext) -> float:
    """The median wall time of `true` through the bash tool, in ms."""
    bash = builtin_tools()["bash"]
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        output = bash.run({"command": "true"}, context)
        times.append(time.perf_counter() - started)
        if output.is_error:
            raise SystemExit(f"`true` failed: {output.text}")
    return statistics.median(times) * 1000


def median_raw_ms(argv: list[str], cwd: str) -> float:
    """The median wall time of subprocess.run(argv), in ms."""
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(argv, cwd=cwd, check=True, stdin=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> int:
    with tempfile.TemporaryDirectory() as workspace:
        started = time.perf_counter()
        setup = start_sandbox(SandboxMode.AUTO, workspace)
        probe_ms = (time.perf_counter() - started) * 1000
        if setup.sandbox is None:
            print(f"no sandbox here: {setup.problem}")
            return 1
        plain = median_ms(RunContext(workspace))
        inside = median_ms(RunContext(workspace, sandbox=setup.sandbox))
        argv = ["bash", "-c", "true"]
        raw_plain = median_raw_ms(argv, workspace)
        raw_inside = median_raw_ms(setup.sandbox.wrap(argv), workspace)
    added = inside - plain
    print(f"median of {RUNS} runs of `true` through the bash tool")
    print(f"{'without the sandbox':24} {plain:7.2f} ms")
    print(f"{'inside the sandbox':24} {inside:7.2f} ms  {inside / plain:5.2f}x")
    print(f"{'added per call':24} {added:7.2f} ms  (target < {TARGET_MS:g} ms: "
          f"{'met' if added < TARGET_MS else 'MISSED'})")
    print(f"{'launcher alone':24} {raw_inside - raw_plain:7.2f} ms added  "
          f"({raw_plain:.2f} -> {raw_inside:.2f} ms, subprocess.run without the tool)")
    print(f"{'probe at session start':24} {probe_ms:7.2f} ms  (once)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
