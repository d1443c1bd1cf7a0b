"""Start-up cost of saikish, as ratios measured in one run (target: --version within 3x python).

Times the installed console script (`saikish`, next to this Python), the way a
person starts it, against bare `python -c pass`; the time until the first REPL
prompt is on a pseudo-terminal, with no MCP server and with two stdio servers
configured (target: within 1.2x, docs/SPEC.md §7.1: servers start after the
prompt); and the time from start to tools listed for each test server. Prints
medians over RUNS runs.
"""

from __future__ import annotations

import json
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
FIXTURE = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "mcp_server.py"


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
        none = results["saikish: first REPL prompt in a pty"] = first_prompt_seconds(
            [saikish, "-m", f"script:{script}"], tmp, env)
        servers = Path(tmp) / "two-servers.yml"
        servers.write_text(json.dumps({"mcpServers": {
            name: {"command": py, "args": [str(FIXTURE)], "env": {"FIXTURE_DIR": tmp}}
            for name in ("one", "two")}}))
        two = results["first REPL prompt, two stdio MCP servers"] = first_prompt_seconds(
            [saikish, "-m", f"script:{script}", "-c", str(servers)], tmp, env)
        ready = ready_seconds(tmp)
    base = results["python -c pass"]
    print(f"console script: {saikish}")
    print(f"median of {RUNS} runs each ({PTY_RUNS} for the pty)")
    for name, seconds in results.items():
        print(f"{name:42} {seconds * 1000:8.1f} ms  {seconds / base:5.2f}x bare python")
    print(f"first prompt with two MCP servers / with none: {two / none:.2f}x (target 1.2x)")
    for name, seconds in ready.items():
        print(f"start to tools listed, {name:30} {seconds * 1000:8.1f} ms")


def ready_seconds(tmp: str) -> dict[str, float]:
    """Seconds from start() to tools listed, per test server (the first includes the SDK import,
    so it runs in a fresh process)."""
    code = (
        "import json, sys, time; from pathlib import Path\n"
        "from saikish.mcp.client import Servers, ServerSpec\n"
        "specs = [ServerSpec(n, command=c[0], args=tuple(c[1:]), env=dict(e), cwd=d)\n"
        "         for n, c, e, d in json.loads(sys.argv[1])]\n"
        "servers = Servers(specs, log_dir=Path(sys.argv[2]))\n"
        "servers.start(); servers.wait_ready(60)\n"
        "print(json.dumps({s.name: [s.state.name, s.ready_after_s] for s in servers.status()}))\n"
        "servers.close()\n")
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PATH", "LANG", "TERM")}
    time_server = shutil.which("mcp-server-time", path=str(Path(sys.executable).parent))
    out: dict[str, float] = {}
    for name, command in (("fixture (stdio)", [sys.executable, str(FIXTURE)]),
                          ("mcp-server-time", [time_server or "mcp-server-time"])):
        runs = []
        for _ in range(5):
            specs = [[name, command, {**env, "FIXTURE_DIR": tmp}, tmp]]
            done = subprocess.run([sys.executable, "-c", code, json.dumps(specs),
                                   str(Path(tmp) / "logs")], capture_output=True, text=True,
                                  check=True)
            state, seconds = json.loads(done.stdout)[name]
            if state != "READY":
                raise SystemExit(f"{name} did not start: {state}")
            runs.append(seconds)
        out[name] = statistics.median(runs)
    return out


if __name__ == "__main__":
    main()
