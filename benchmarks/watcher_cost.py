"""What nothing-outlives-saikish costs (issue 26), in one run.

1. Start-up: `saikish --version` run through the console script's entry (the watcher
   forked above saikish, both subreapers) against main() called without them, alternated
   RUNS times; medians and their difference.
2. Memory: the watcher's own memory (Private_Clean + Private_Dirty, and Pss, from
   /proc/PID/smaps_rollup) while saikish below it runs a call, next to saikish's.
3. The end of a call: the reaper's look at the process table with ancestry (one /proc
   pass), median over RUNS looks.

    python benchmarks/watcher_cost.py [RUNS]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from saikish.tools.sandbox.reaper import survivors

WITH = [sys.executable, "-c", "from saikish.cli.main import entry; entry()", "--version"]
WITHOUT = [sys.executable, "-c", "import sys; from saikish.cli.main import main; "
           "sys.exit(main(['--version']))"]


def started_ms(argv: list[str]) -> float:
    begun = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - begun) * 1000


def memory_kb(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines()[1:]:
        name, value = line.split(":", 1)
        fields[name] = int(value.split()[0])
    return {"private": fields["Private_Clean"] + fields["Private_Dirty"], "pss": fields["Pss"]}


def memory_during_a_call() -> tuple[dict[str, int], dict[str, int]]:
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "s.yml"
        script.write_text(json.dumps([{"tool_calls": [{"name": "bash", "arguments": {
            "command": f"touch {scratch}/running; sleep 30"}}]}, {"text": "done"}]))
        proc = subprocess.Popen([sys.executable, "-m", "saikish", "-p", "go", "-m",
                                 f"script:{script}", "--autonomy", "full-auto", "--sandbox",
                                 "off"], cwd=scratch, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        try:
            while not (Path(scratch) / "running").exists():
                time.sleep(0.05)
            child = int(Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()[0])
            return memory_kb(proc.pid), memory_kb(child)
        finally:
            proc.terminate()
            proc.wait()


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    with_ms, without_ms = [], []
    for _ in range(runs):
        with_ms.append(started_ms(WITH))
        without_ms.append(started_ms(WITHOUT))
    a, b = statistics.median(with_ms), statistics.median(without_ms)
    print(f"saikish --version, median of {runs}: with the watcher {a:.1f} ms, "
          f"without {b:.1f} ms: +{a - b:.1f} ms ({a / b:.2f}x)")
    watcher, saikish = memory_during_a_call()
    print(f"memory during a call: watcher private {watcher['private']} kB (Pss "
          f"{watcher['pss']} kB); saikish private {saikish['private']} kB (Pss "
          f"{saikish['pss']} kB)")
    looks = []
    for _ in range(runs):
        begun = time.perf_counter()
        survivors(os.getpid(), "no-such-marker", since=1 << 62)
        looks.append((time.perf_counter() - begun) * 1000)
    count = sum(1 for name in os.listdir("/proc") if name.isdigit())
    print(f"one look at the call's processes (ancestry included), {count} processes: "
          f"median {statistics.median(looks):.2f} ms")


if __name__ == "__main__":
    main()
