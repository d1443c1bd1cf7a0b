"""`saikish undo` (docs/SPEC.md §4.10, §8): list checkpoints, or put back what calls changed."""

from __future__ import annotations

import argparse
import contextlib
import os
from typing import TextIO

from saikish.checkpoints.store import Checkpoints
from saikish.checkpoints.values import NoCheckpoints, UndoPlan
from saikish.cli.compose import Streams, parse_args
from saikish.errors import UsageError
from saikish.store import paths
from saikish.ui.parts import stream_console
from saikish.ui.undo_view import checkpoint_table, plan_view, undone_line

QUESTION = "Restore these files? [y/N] "
EXIT_DECLINED, EXIT_NEEDS_YES = 1, 2


def undo_parser() -> argparse.ArgumentParser:
    """`saikish undo`'s command line."""
    parser = argparse.ArgumentParser(
        prog="saikish undo",
        description="Put back the files that calls nobody approved changed in this "
                    "workspace: the diff is shown first, and the undo is itself a checkpoint.")
    parser.add_argument("count", nargs="?", default="1", metavar="N",
                        help="undo the last N calls that changed files (default 1)")
    parser.add_argument("--list", action="store_true", help="show the checkpoints, newest first")
    parser.add_argument("--checkpoint", type=int, metavar="K",
                        help="undo exactly checkpoint K (a call, or an earlier undo)")
    parser.add_argument("-y", "--yes", action="store_true",
                        help="restore without asking (for scripts)")
    return parser


def undo_command(argv: list[str], io: Streams) -> int:
    """`saikish undo [--list] [N] [--checkpoint K] [--yes]`."""
    args = parse_args(undo_parser(), argv, io)
    if isinstance(args, int):
        return args
    if not args.count.isdigit() or int(args.count) < 1:
        raise UsageError(f"saikish undo {args.count}: N is how many calls to undo, 1 or more")
    try:
        checkpoints = Checkpoints.find(os.getcwd(), paths.state_dir())
    except NoCheckpoints as exc:
        if not args.list:
            raise
        print(f"{exc}", file=io.stdout)
        return 0
    console = stream_console(io.stdout)
    if args.list:
        console.print(checkpoint_table(checkpoints.history()))
        return 0
    plan = checkpoints.plan_undo(int(args.count), args.checkpoint)
    console.print(plan_view(plan))
    if plan.files and not args.yes:
        if not io.interactive():
            print("saikish: nothing restored: add --yes to restore without a terminal",
                  file=io.stderr)
            return EXIT_NEEDS_YES
        if not ask(io.stdin, io.stdout):
            print("nothing restored", file=io.stdout)
            return EXIT_DECLINED
    return _restore(checkpoints, plan, io)


def _restore(checkpoints: Checkpoints, plan: UndoPlan, io: Streams) -> int:
    done = checkpoints.undo(plan)
    print(undone_line(done, plan), file=io.stdout)
    return 0


def ask(stdin: TextIO, stdout: TextIO) -> bool:
    """A plain y/N question on a terminal; anything but y or yes (or Ctrl-D) is no."""
    stdout.write(QUESTION)
    stdout.flush()
    with contextlib.suppress(KeyboardInterrupt):
        return stdin.readline().strip().lower() in ("y", "yes")
    stdout.write("\n")
    return False
