"""What the sandbox adds to a call (issue 27: at most 5 ms, quiet and under load), in one run.

Five ways of running `true`, measured in alternation so that each sees the same load:

    bare       subprocess.run(["true"]): the floor
    tool       the bash tool, unsandboxed
    runner     the bash tool in the sandbox, through the session's runner (what saikish does)
    one-shot   the bash tool in the sandbox, a bubblewrap of its own per call
    wrap       subprocess.run of a one-shot bubblewrap argv (the launcher alone)

first on the machine as it is ("quiet"), then under a load this script makes itself:
LOAD busy-loop processes (default 2 per core), each ending by itself after LOAD_S
seconds at most, and killed when the measurement is done. Prints medians, the time each
adds over `tool` and over `bare`, and whether the runner met the 5 ms target.

    python benchmarks/sandbox_overhead.py [RUNS] [LOAD]
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from saikish.tools import RunContext, builtin_tools
from saikish.tools.sandbox.launcher import Sandbox, SandboxMode, start_sandbox

TARGET_MS = 5.0
LOAD_S = 120.0
BUSY = f"import time\nend = time.monotonic() + {LOAD_S}\nwhile time.monotonic() < end: pass\n"
Way = tuple[str, Callable[[], object]]


def timed_ms(action: Callable[[], object]) -> float:
    """Wall time of one call of `action`, in ms."""
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def medians(ways: list[Way], runs: int) -> dict[str, float]:
    """The median ms of each way, measured round-robin `runs` times (after one warm-up)."""
    for _, action in ways:
        action()
    samples: dict[str, list[float]] = {name: [] for name, _ in ways}
    for _ in range(runs):
        for name, action in ways:
            samples[name].append(timed_ms(action))
    return {name: statistics.median(values) for name, values in samples.items()}


@contextmanager
def load(processes: int) -> Iterator[None]:
    """`processes` busy loops, each bounded in time, killed on the way out."""
    busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(processes)]
    try:
        time.sleep(1.0)  # let the load average show them
        yield
    finally:
        for proc in busy:
            proc.kill()
            proc.wait()


def ways(workspace: str, sandbox: Sandbox) -> list[Way]:
    """The five ways of running `true` (see the module docstring)."""
    bash = builtin_tools()["bash"]
    plain = RunContext(workspace)
    runner = RunContext(workspace, sandbox=sandbox)
    one_shot = RunContext(workspace, sandbox=replace(sandbox, persistent=False))
    wrapped = sandbox.wrap(["true"])
    return [
        ("bare", lambda: subprocess.run(["true"], check=True)),
        ("tool", lambda: bash.run({"command": "true"}, plain)),
        ("runner", lambda: bash.run({"command": "true"}, runner)),
        ("one-shot", lambda: bash.run({"command": "true"}, one_shot)),
        ("wrap", lambda: subprocess.run(wrapped, cwd=workspace, check=True)),
    ]


def report(title: str, found: dict[str, float]) -> None:
    """One block of figures."""
    print(f"\n{title} (load average {os.getloadavg()[0]:.1f})")
    for name, ms in found.items():
        over_tool = f"{ms - found['tool']:+7.2f} ms over tool" if name != "bare" else ""
        print(f"  {name:9} {ms:7.2f} ms  {ms / found['bare']:6.1f}x bare  {over_tool}")
    added = found["runner"] - found["tool"]
    verdict = "met" if added <= TARGET_MS else "MISSED"
    print(f"  the sandbox adds {added:+.2f} ms per call through the runner "
          f"(target <= {TARGET_MS:g} ms: {verdict}); "
          f"a bubblewrap per call adds {found['one-shot'] - found['tool']:+.2f} ms")


def main(argv: list[str]) -> int:
    runs = int(argv[0]) if argv else 40
    processes = int(argv[1]) if len(argv) > 1 else 2 * (os.cpu_count() or 1)
    with tempfile.TemporaryDirectory(dir="/var/tmp") as workspace:
        started = time.perf_counter()
        setup = start_sandbox(SandboxMode.AUTO, workspace)
        probe_ms = (time.perf_counter() - started) * 1000
        if setup.sandbox is None:
            print(f"no sandbox here: {setup.problem}")
            return 1
        try:
            print(f"`true`, median of {runs} rounds; session start (probe): {probe_ms:.1f} ms")
            report("quiet", medians(ways(workspace, setup.sandbox), runs))
            with load(processes):
                report(f"under load ({processes} busy processes)",
                       medians(ways(workspace, setup.sandbox), runs))
        finally:
            setup.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
