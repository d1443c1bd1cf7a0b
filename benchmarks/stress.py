"""Cost of large inputs, measured in one run (issue 15): a 1 MB command through
`saikish check`, a 10 MB allowlist load, a 50 MB write_file, redaction of 250 KB
of hostile text.

Every case runs in its own process (so its peak memory is its own) with a time
limit; prints seconds and peak resident MB per case. Usage:

    python benchmarks/stress.py [--limit SECONDS] [CASE ...]
"""

from __future__ import annotations

import argparse
import io
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

MB = 1024 * 1024


def _words_command() -> str:
    return "echo " + "word " * (MB // 5)


def _chain_command() -> str:
    return " && ".join(["true"] * (MB // 8))


def _check(command: str) -> Callable[[Path], str]:
    def run(tmp: Path) -> str:
        from saikish.cli.main import main

        out, err = io.StringIO(), io.StringIO()
        code = main(["check", "--json", "--batch", "-"], stdin=io.StringIO(command + "\n"),
                    stdout=out, stderr=err)
        verdict = json.loads(out.getvalue().splitlines()[0]) if out.getvalue() else {}
        return f"exit {code}, {verdict.get('decision')}: {str(verdict.get('reason'))[:60]}"

    return run


def _allowlist(tmp: Path) -> str:
    from saikish.config.allowlist import read_state

    path = tmp / "allowlist.yaml"
    lines, size, n = ["allow:\n"], 7, 0
    while size < 10 * MB:
        line = f"  - Bash(echo rule{n} *)\n"
        lines.append(line)
        size += len(line)
        n += 1
    path.write_text("".join(lines))
    started = time.perf_counter()
    state = read_state(path)
    took = time.perf_counter() - started
    return f"{n} rules, {len(state.allow)} read (load alone {took:.2f}s)"


def _write(tmp: Path) -> str:
    from saikish.store.audit import AuditLog
    from saikish.tools import RunContext, builtin_tools
    from saikish.tools.files import file_state
    from saikish.types import Decision, Source, ToolCall

    content = ("lorem ipsum dolor sit amet, consectetur adipiscing elit\n" * (50 * MB // 56))
    args = {"path": "big.txt", "content": content}
    tool = builtin_tools()["write_file"]
    parts = []
    for step, action in (
            ("state", lambda: file_state(args, str(tmp))),
            ("write", lambda: tool.run(args, RunContext(str(tmp)))),
            ("re-check+overwrite", lambda: tool.run(args, RunContext(
                str(tmp), expected_state=file_state(args, str(tmp))))),
            ("audit", lambda: AuditLog(tmp / "audit.jsonl", "s").record(
                ToolCall("c", "write_file", args), Decision.approve(Source.USER), None))):
        started = time.perf_counter()
        action()
        parts.append(f"{step} {time.perf_counter() - started:.2f}s")
    return ", ".join(parts)


def _redact(tmp: Path) -> str:
    from saikish.store.audit import redact_text

    hostile = {"key headers": "-----BEGIN RSA PRIVATE KEY-----\n" * 8000,
               "sk- runs": "sk-" * 80_000, "token= runs": "token=" * 40_000}
    parts = []
    for name, text in hostile.items():
        started = time.perf_counter()
        redact_text(text)
        parts.append(f"{name} {time.perf_counter() - started:.3f}s")
    return ", ".join(parts)


CASES: dict[str, tuple[str, Callable[[Path], str]]] = {
    "check-words": ("saikish check: 1 MB command, one long argv", _check(_words_command())),
    "check-brackets": ("saikish check: 100k 'a[' (subscript scan)",
                       _check("echo " + "a[" * 100_000)),
    "check-semicolons": ("saikish check: 50k 'a;' (plain commands, capped)",
                         _check("echo " + "a;" * 50_000)),
    "check-chain": ("saikish check: 1 MB command, 131072 && parts", _check(_chain_command())),
    "allowlist": ("allowlist: load a 10 MB allowlist.yaml", _allowlist),
    "write": ("write_file: 50 MB (state, write, overwrite, audit)", _write),
    "redact": ("audit redaction: 250 KB of hostile text", _redact),
}


def run_case(name: str) -> None:
    """Child side: run one case, print its figures as JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        started = time.perf_counter()
        note = CASES[name][1](Path(tmp))
        seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux
    print(json.dumps({"seconds": seconds, "peak_mb": peak, "note": note}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=float, default=300.0, help="seconds per case")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("cases", nargs="*", default=list(CASES))
    args = parser.parse_args()
    if args.case:
        run_case(args.case)
        return
    print(f"{'case':<52} {'seconds':>9} {'peak MB':>8}  detail")
    for name in args.cases:
        title = CASES[name][0]
        try:
            done = subprocess.run([sys.executable, __file__, "--case", name], text=True,
                                  capture_output=True, timeout=args.limit)
        except subprocess.TimeoutExpired:
            print(f"{title:<52} {'>' + format(args.limit, 'g'):>9} {'?':>8}  timed out")
            continue
        if done.returncode != 0:
            print(f"{title:<52} {'failed':>9} {'':>8}  {done.stderr.strip()[-200:]}")
            continue
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{title:<52} {figures['seconds']:>9.2f} {figures['peak_mb']:>8.0f}  "
              f"{figures['note']}", flush=True)


if __name__ == "__main__":
    main()
