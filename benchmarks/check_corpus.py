"""`saikish check --batch` over the NL2Bash corpus: time per command against bashlex alone.

Targets: under 0.5 ms per command, within 1.2x bashlex's own parse time (issue 21), no crash.
Each round starts cold: the parses saikish keeps for commands it has read are dropped, so
no round is timed on what an earlier round read.
"""

from __future__ import annotations

import collections
import contextlib
import io
import json
import statistics
import sys
import time
from pathlib import Path

ROUNDS = 5
CORPUS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "corpus" / "nl2bash.cm"


def bashlex_alone(lines: list[str]) -> float:
    import bashlex

    started = time.perf_counter()
    for line in lines:
        with contextlib.suppress(Exception):  # only timed: errors are part of the cost
            bashlex.parse(line)
    return time.perf_counter() - started


def saikish_check(lines: list[str]) -> tuple[float, collections.Counter[str]]:
    from saikish.cli.main import main
    from saikish.engine.commands import grammar

    grammar.forget()
    out = io.StringIO()
    stdin = io.StringIO("\n".join(lines) + "\n")
    started = time.perf_counter()
    code = main(["check", "--batch", "-"], stdin=stdin, stdout=out, stderr=sys.stderr)
    elapsed = time.perf_counter() - started
    if code != 0:
        raise SystemExit(f"saikish check exited {code}")
    decisions = collections.Counter(json.loads(line)["decision"]
                                    for line in out.getvalue().splitlines())
    if sum(decisions.values()) != len(lines):
        raise SystemExit("not every line got a decision")
    return elapsed, decisions


def main() -> None:
    if not CORPUS.exists():
        raise SystemExit(f"{CORPUS} is missing: tests/fixtures is part of the repository")
    lines = CORPUS.read_text(encoding="utf-8", errors="replace").splitlines()
    import bashlex  # noqa: F401 - build its tables before timing either side

    # Alternated, so both sides see the same load; the ratio of each pair, then the median
    # (this machine is shared: one side timed alone varies by a third between runs).
    pairs = []
    decisions: collections.Counter[str] = collections.Counter()
    for _ in range(ROUNDS):
        parse = bashlex_alone(lines)
        check, decisions = saikish_check(lines)
        pairs.append((parse, check))
    parse = min(p for p, _ in pairs)
    check = min(c for _, c in pairs)
    ratios = sorted(c / p for p, c in pairs)
    n = len(lines)
    print(f"commands:            {n}")
    print(f"bashlex parse alone: {parse:6.2f} s  {parse / n * 1000:.3f} ms/command (best)")
    print(f"saikish check:       {check:6.2f} s  {check / n * 1000:.3f} ms/command (best)")
    print(f"ratio per round:     median {statistics.median(ratios):.2f}x bashlex "
          f"(range {ratios[0]:.2f}x-{ratios[-1]:.2f}x over {ROUNDS} alternated rounds; "
          f"target 1.2x)")
    print("decisions:           " + ", ".join(f"{k} {v}" for k, v in sorted(decisions.items())))


if __name__ == "__main__":
    main()
