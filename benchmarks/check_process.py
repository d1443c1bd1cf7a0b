"""`saikish check -- 'git status'` as a whole process, against `python -c "import bashlex"`.

Target: within 1.5x. bashlex rebuilds its parser tables at every import; saikish ships
them (saikish/engine/bash/bashlex_tables.py), so it pays less for bashlex than bashlex itself does.
Both are timed alternately in one run (the machine is shared and noisy); medians printed.
Every run may write bytecode caches, as a normal Python does (an environment with
PYTHONDONTWRITEBYTECODE would otherwise time compiling saikish's sources, not running it),
and one untimed run first brings them up to date.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time

RUNS = 15
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - started


def main() -> None:
    saikish = shutil.which("saikish") or ""
    check = [saikish] if saikish else [sys.executable, "-m", "saikish"]
    check += ["check", "--", "git status"]
    bashlex = [sys.executable, "-c", "import bashlex"]
    bare = [sys.executable, "-c", "pass"]
    times: dict[str, list[float]] = {"check": [], "bashlex": [], "bare": []}
    timed(check)  # bytecode caches up to date
    for _ in range(RUNS):
        times["check"].append(timed(check))
        times["bashlex"].append(timed(bashlex))
        times["bare"].append(timed(bare))
    median = {k: statistics.median(v) * 1000 for k, v in times.items()}
    print(f"bare python:              {median['bare']:7.1f} ms")
    print(f'python -c "import bashlex": {median["bashlex"]:5.1f} ms')
    print(f"saikish check -- 'git status': {median['check']:5.1f} ms "
          f"({median['check'] / median['bashlex']:.2f}x import bashlex; target 1.5x)")


if __name__ == "__main__":
    main()
