"""Cost of the sandbox per call (issue: under 15 ms added), measured in one run.

Runs a trivial `true` through the bash tool with and without the sandbox and
prints the medians, the time added per call and the ratio; then the same for a
bare subprocess.run (the launcher's own cost, without the tool's wait loop);
and the one-time probe at session start. Runs alternate (plain, sandboxed,
plain, ...) so that both sides see the same load on a shared machine.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

from saikish.tools import RunContext, builtin_tools
from saikish.tools.sandbox import SandboxMode, start_sandbox

RUNS = 60
TARGET_MS = 15.0


def timed_ms(action: Callable[[], object]) -> float:
    """Wall time of one call of `action`, in ms."""
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def alternate(plain: Callable[[], object], inside: Callable[[], object]) -> tuple[float, float]:
    """Median ms of each, measured in alternation."""
    pairs = [(timed_ms(plain), timed_ms(inside)) for _ in range(RUNS)]
    return statistics.median(p for p, _ in pairs), statistics.median(i for _, i in pairs)


def report(name: str, plain: float, inside: float) -> None:
    """One block of figures."""
    added = inside - plain
    verdict = "met" if added < TARGET_MS else "MISSED"
    print(f"{name}: {plain:6.2f} ms plain, {inside:6.2f} ms sandboxed, "
          f"{added:6.2f} ms added ({inside / plain:4.2f}x; target < {TARGET_MS:g} ms: {verdict})")


def main() -> int:
    bash = builtin_tools()["bash"]
    argv = ["bash", "-c", "true"]
    with tempfile.TemporaryDirectory() as workspace:
        probe_ms = timed_ms(lambda: start_sandbox(SandboxMode.AUTO, workspace))
        setup = start_sandbox(SandboxMode.AUTO, workspace)
        if setup.sandbox is None:
            print(f"no sandbox here: {setup.problem}")
            return 1
        sandbox = setup.sandbox
        plain_ctx, inside_ctx = RunContext(workspace), RunContext(workspace, sandbox=sandbox)
        tool = alternate(lambda: bash.run({"command": "true"}, plain_ctx),
                         lambda: bash.run({"command": "true"}, inside_ctx))
        raw = alternate(lambda: subprocess.run(argv, cwd=workspace, check=True),
                        lambda: subprocess.run(sandbox.wrap(argv), cwd=workspace, check=True))
    print(f"`true`, median of {RUNS} alternating runs each")
    report("through the bash tool", *tool)
    report("bare subprocess.run  ", *raw)
    print(f"probe at session start: {probe_ms:.2f} ms (once)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
