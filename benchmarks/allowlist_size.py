"""Cost of a large allowlist (issue 15: a 10 MB allowlist loads in time linear in its size).

Writes allowlists of 1.25, 2.5, 5 and 10 MB (global rules and project sections, as a
person's file would grow), then prints the time to load each, to add one rule and to
remove one, and the seconds per MB: a flat column means linear (`remove` was quadratic:
75 s on 60,000 rules).
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from saikish.config.allowlist import Allowlist, read_state
from saikish.rules import parse_rule

SIZES_MB = (1.25, 2.5, 5.0, 10.0)


def allowlist_text(megabytes: float) -> str:
    lines = ["# a large hand-kept allowlist\n", "allow:\n"]
    size, n = 0, 0
    while size < megabytes * 1_000_000:
        line = (f"  - Bash(npm run task{n} *)   # added by hand\n" if n % 3 else
                f"  - {{tool: write_file, when: {{path: 'docs/{n}/**'}}}}\n")
        lines.append(line)
        size += len(line)
        n += 1
    lines.append("projects:\n  /home/me/app:\n    deny:\n      - Bash(make deploy)\n")
    return "".join(lines)


def timed(action: object) -> float:
    started = time.perf_counter()
    action()  # type: ignore[operator]
    return time.perf_counter() - started


def main() -> None:
    print(f"{'size':>8} {'load s':>8} {'add s':>8} {'remove s':>9} {'load s/MB':>10} "
          f"{'add s/MB':>9} {'remove s/MB':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for megabytes in SIZES_MB:
            path = Path(tmp, f"allowlist-{megabytes}.yaml")
            path.write_text(allowlist_text(megabytes))
            load = timed(lambda p=path: read_state(p))
            add = timed(lambda p=path: Allowlist(p).add(parse_rule("Bash(echo done)"),
                                                         "allow", "/home/me/app"))
            remove = timed(lambda p=path: Allowlist(p).remove("Bash(npm run task1 *)"))
            print(f"{megabytes:>6}MB {load:8.2f} {add:8.2f} {remove:9.2f} "
                  f"{load / megabytes:10.3f} {add / megabytes:9.3f} {remove / megabytes:12.3f}")


if __name__ == "__main__":
    main()
