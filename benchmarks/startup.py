"""Start-up cost of saikish, as ratios measured in one run (target: --version within 3x python).

Times the installed console script (`saikish`, next to this Python), the way a
person starts it, against bare `python -c pass`; and the time until the first
REPL prompt is on a pseudo-terminal. Prints medians over RUNS runs.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNS = 15
PTY_RUNS = 7


def median_seconds(argv: list[str], cwd: str) -> float:
    """Median wall time of running `argv` to completion."""
    times = []
    for _ in range(RUNS):
        started = time.perf_counter()
        subprocess.run(argv, cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def first_prompt_seconds(argv: list[str], cwd: str, env: dict[str, str]) -> float:
    """Median time from spawning the REPL in a pty until its prompt is drawn."""
    import pexpect

    times = []
    for _ in range(PTY_RUNS):
        started = time.perf_counter()
        child = pexpect.spawn(argv[0], argv[1:], cwd=cwd, env=env, encoding="utf-8",
                              timeout=30, dimensions=(24, 80))
        child.expect_exact("›")
        times.append(time.perf_counter() - started)
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
        child.close()
    return statistics.median(times)


def console_script() -> str:
    """The `saikish` console script installed beside this interpreter."""
    found = shutil.which("saikish", path=str(Path(sys.executable).parent))
    if found is None:
        raise SystemExit("no saikish console script beside this Python: pip install -e . first")
    return found


def compile_package() -> None:
    """Byte-compile saikish first, as pip does on install (PYTHONDONTWRITEBYTECODE may be set)."""
    import compileall

    import saikish

    compileall.compile_dir(str(Path(saikish.__file__).parent), quiet=1)


def main() -> None:
    """Measure and print each case and its ratio to bare Python."""
    py, saikish = sys.executable, console_script()
    compile_package()
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "one.yml"
        script.write_text("- text: hello\n")
        cases = {
            "python -c pass": [py, "-c", "pass"],
            "python -c 'import prompt_toolkit, rich'": [py, "-c", "import prompt_toolkit, rich"],
            "saikish --version": [saikish, "--version"],
            "saikish --help": [saikish, "--help"],
            "python -m saikish --version": [py, "-m", "saikish", "--version"],
            "saikish -p (one-turn script)": [saikish, "-p", "hi", "-m", f"script:{script}"],
        }
        results = {name: median_seconds(argv, tmp) for name, argv in cases.items()}
        env = {**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1",
               "SAIKISH_CONFIG_DIR": str(Path(tmp) / "config"),
               "SAIKISH_STATE_DIR": str(Path(tmp) / "state")}
        results["saikish: first REPL prompt in a pty"] = first_prompt_seconds(
            [saikish, "-m", f"script:{script}"], tmp, env)
    base = results["python -c pass"]
    print(f"console script: {saikish}")
    print(f"median of {RUNS} runs each ({PTY_RUNS} for the pty)")
    for name, seconds in results.items():
        print(f"{name:42} {seconds * 1000:8.1f} ms  {seconds / base:5.2f}x bare python")


if __name__ == "__main__":
    main()
