"""Start-up cost of saikish, as ratios measured in one run (issue: --version within 3x python).

Prints the median wall time of each command over N runs, and its ratio to bare `python -c pass`.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 15


def median_seconds(argv: list[str], cwd: str) -> float:
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    py = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "one.yml"
        script.write_text("- text: hello\n")
        cases = {
            "python -c pass": [py, "-c", "pass"],
            "python -c 'import prompt_toolkit, rich'": [py, "-c", "import prompt_toolkit, rich"],
            "saikish --version": [py, "-m", "saikish", "--version"],
            "saikish -p (one-turn script)": [py, "-m", "saikish", "-p", "hi", "-m",
                                             f"script:{script}"],
        }
        results = {name: median_seconds(argv, tmp) for name, argv in cases.items()}
    base = results["python -c pass"]
    print(f"median of {RUNS} runs each")
    for name, seconds in results.items():
        print(f"{name:42} {seconds * 1000:8.1f} ms  {seconds / base:5.2f}x bare python")


if __name__ == "__main__":
    main()
