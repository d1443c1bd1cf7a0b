"""Time to the first token of `saikish -p` with slow MCP servers configured, as ratios
measured in one run (target: within 1.2x of no servers, docs/SPEC.md §7.1).

Runs `saikish -p --output-format stream-json` with a script model (no network) and
times from spawning it until the first `text_delta` line, in three configurations:
no MCP server; two stdio fixture servers that take SLOW_S seconds to start; the same
two servers when the model calls one of them (the call waits for its server, so that
run's first token is the model's own and the call's result comes after the start).
Medians over RUNS runs, interleaved so that load on the machine hits each alike.
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

RUNS = 7
SLOW_S = 3.0
ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "mcp_server.py"


def write_config(folder: Path, servers: int) -> Path:
    """An agent.yml with `servers` fixture servers that each start after SLOW_S seconds."""
    table = {f"slow{n}": {"command": sys.executable, "args": [str(FIXTURE)],
                          "env": {"FIXTURE_START": f"slow:{SLOW_S}", "FIXTURE_DIR": str(folder)}}
             for n in range(servers)}
    path = folder / f"cfg{servers}.yml"
    path.write_text(json.dumps({"mcpServers": table, "permissions": {"allow": ["mcp__slow0"]}}),
                    encoding="utf-8")
    return path


def write_model(folder: Path, calls_server: bool) -> str:
    turns: list[dict[str, object]] = [{"text": "hello from the model"}]
    if calls_server:
        turns = [{"text": "calling", "tool_calls": [
            {"name": "mcp__slow0__echo", "arguments": {"text": "x"}}]}, {"text": "done"}]
    path = folder / f"model{int(calls_server)}.yml"
    path.write_text(json.dumps(turns), encoding="utf-8")
    return f"script:{path}"


def first_token_seconds(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(seconds to the first text_delta line, seconds to the end of the run)."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True)
    first = None
    assert process.stdout is not None
    for line in process.stdout:
        if first is None and json.loads(line).get("type") == "text_delta":
            first = time.perf_counter() - started
    process.wait()
    if first is None:
        raise SystemExit(f"no text_delta from {' '.join(argv)}")
    return first, time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        env = {**os.environ, "PYTHONPATH": str(ROOT),
               "SAIKISH_CONFIG_DIR": str(folder / "config"),
               "SAIKISH_STATE_DIR": str(folder / "state")}
        base = [sys.executable, "-m", "saikish", "-p", "hi", "--output-format", "stream-json",
                "--sandbox", "off"]
        setups = {
            "no servers": [*base, "-m", write_model(folder, False), "-c",
                           str(write_config(folder, 0))],
            "two slow servers": [*base, "-m", write_model(folder, False), "-c",
                                 str(write_config(folder, 2))],
            "two slow servers, one called": [*base, "-m", write_model(folder, True), "-c",
                                             str(write_config(folder, 2))],
        }
        firsts: dict[str, list[float]] = {name: [] for name in setups}
        totals: dict[str, list[float]] = {name: [] for name in setups}
        for _ in range(RUNS):
            for name, argv in setups.items():
                first, total = first_token_seconds(argv, folder, env)
                firsts[name].append(first)
                totals[name].append(total)
    none = statistics.median(firsts["no servers"])
    print(f"time to first token, median of {RUNS} (servers start after {SLOW_S:g} s):")
    for name in setups:
        first, total = statistics.median(firsts[name]), statistics.median(totals[name])
        print(f"  {name:30} first token {first * 1000:7.0f} ms ({first / none:4.2f}x none)"
              f"   whole run {total * 1000:7.0f} ms")


if __name__ == "__main__":
    main()
