"""Cost of checkpoints (issue 27): what a snapshot around a call costs in a real workspace.

Builds a workspace of 2,000 small source files in 100 directories plus a
node_modules of 20,000 files, then times, with the real shadow git store:
the first snapshot (everything copied once), a call that changes nothing,
a call that changes one file (before + after + the checkpoint written), and
`saikish undo`'s plan and restore. Prints medians in milliseconds, and how
many files the store holds (node_modules must not be among them). The load
average is printed too: on a busy machine every git process is slower.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from saikish.checkpoints.store import Checkpoints

SOURCE_FILES, MODULE_FILES, ROUNDS = 2_000, 20_000, 15


def build(workspace: Path, source: int, modules: int) -> None:
    for n in range(source):
        folder = workspace / "src" / f"pkg{n % 100}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{n}.py").write_text(f"def f{n}():\n    return {n}\n" * 20)
    for n in range(modules):
        folder = workspace / "node_modules" / f"dep{n % 500}" / "lib"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"file{n}.js").write_text(f"module.exports = {n};\n")


def ms(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def call(checkpoints: Checkpoints, change: Callable[[], object]) -> None:
    pending = checkpoints.before("bash", "benchmark")
    change()
    checkpoints.after(pending)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        workspace, state = Path(tmp, "work"), Path(tmp, "state")
        workspace.mkdir()
        build(workspace, SOURCE_FILES, MODULE_FILES)
        checkpoints = Checkpoints.open(str(workspace), state)
        first = ms(lambda: call(checkpoints, lambda: None))
        unchanged = [ms(lambda: call(checkpoints, lambda: None)) for _ in range(ROUNDS)]
        target = workspace / "src" / "pkg7" / "mod7.py"
        one = [ms(partial(call, checkpoints, partial(target.write_text, f"x = {n}\n")))
               for n in range(ROUNDS)]
        plan = [ms(lambda: checkpoints.plan_undo(1)) for _ in range(3)]
        restore = ms(lambda: checkpoints.undo(checkpoints.plan_undo(1)))
        kept = len(checkpoints.git.run("ls-files", "-z").split(b"\0")) - 1
        version = checkpoints.git.run("version").decode().split()[-1]
    print(f"workspace: {SOURCE_FILES:,} source files + node_modules of {MODULE_FILES:,} files "
          f"(git {version}, python {sys.version.split()[0]}, {os.cpu_count()} cores, load "
          f"{os.getloadavg()[0]:.1f})")
    print(f"{'first snapshot (copies everything once)':<48} {first:8.1f} ms")
    print(f"{'call that changes nothing (median)':<48} {statistics.median(unchanged):8.1f} ms")
    print(f"{'call that changes 1 file (median)':<48} {statistics.median(one):8.1f} ms")
    print(f"{'undo: plan with diff (median)':<48} {statistics.median(plan):8.1f} ms")
    print(f"{'undo: plan + restore + record':<48} {restore:8.1f} ms")
    print(f"files in the store's index: {kept:,} (node_modules copied: "
          f"{'no' if kept <= SOURCE_FILES else 'YES'})")


if __name__ == "__main__":
    main()
