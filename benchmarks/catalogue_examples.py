"""What the catalogue's examples (`quiet`, `asks` lines) cost a `saikish check`.

Loading the catalogue splits every *.cat file into entries and parses the entries a command
needs; example lines are skipped there and judged only by the catalogue's own check. This
times that loading work for `git status` (split every file, parse [git] and [git status]),
and for a parse of every entry, over the real catalogue and over a copy with the example
lines removed, alternately in one run; medians and the ratio printed. Also prints how long
the check takes to judge every example, which no `saikish check` pays.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from saikish.engine.commands.catalogue import EXAMPLES, HERE, Catalogue
from saikish.engine.commands.catalogue.examples import broken

RUNS = 30


def without_examples(folder: Path) -> None:
    """Copy every *.cat file into `folder` with its example lines left out."""
    for path in HERE.glob("*.cat"):
        lines = path.read_text(encoding="utf-8").split("\n")
        kept = [line for line in lines if not line.lstrip().startswith(EXAMPLES)]
        (folder / path.name).write_text("\n".join(kept), encoding="utf-8")


def git_status(folder: Path) -> None:
    """What `saikish check -- 'git status'` asks of the catalogue."""
    catalogue = Catalogue(folder)
    catalogue.get("git")
    catalogue.get("git", "status")


def every_entry(folder: Path) -> None:
    """Parse every entry (the worst case: a session that meets every command)."""
    catalogue = Catalogue(folder)
    for name in catalogue.names():
        catalogue.get(*name.split())


def medians(work: Callable[[Path], None], folders: dict[str, Path]) -> dict[str, float]:
    times: dict[str, list[float]] = {name: [] for name in folders}
    for _ in range(RUNS):
        for name, folder in folders.items():
            started = time.perf_counter()
            work(folder)
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(t) * 1000 for name, t in times.items()}


def main() -> None:
    with tempfile.TemporaryDirectory() as bare:
        without_examples(Path(bare))
        folders = {"with": HERE, "without": Path(bare)}
        for label, work in (("git status", git_status), ("every entry", every_entry)):
            m = medians(work, folders)
            print(f"{label:12} with examples {m['with']:7.2f} ms, without {m['without']:7.2f} "
                  f"ms ({m['with'] / m['without']:.3f}x)")
    started = time.perf_counter()
    judged, problems = broken(Catalogue())
    print(f"the check judges {judged} examples ({len(problems)} broken) in "
          f"{(time.perf_counter() - started) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
