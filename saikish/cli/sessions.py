"""`saikish sessions`, and which session `--continue` / `--resume` mean (docs/SPEC.md §8,
§10.2)."""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING

from saikish.cli.compose import Streams, parse_args
from saikish.errors import UsageError
from saikish.runtime.resume import session_folder
from saikish.sessions.catalog import SessionInfo, find_session, latest, list_sessions
from saikish.sessions.log import SessionBusy, SessionLog
from saikish.sessions.replay import read_records

if TYPE_CHECKING:
    from rich.console import Console


def sessions_parser() -> argparse.ArgumentParser:
    """`saikish sessions`' command line."""
    parser = argparse.ArgumentParser(
        prog="saikish sessions",
        description="The stored conversations: list them (this workspace's, or --all), show "
                    "one, remove one. Resume one with saikish --resume ID or --continue.")
    parser.add_argument("action", nargs="?", choices=("list", "show", "rm"), default="list")
    parser.add_argument("id", nargs="?", help="a session id (or the start of one)")
    parser.add_argument("--last", action="store_true",
                        help="show: the last session of this workspace")
    parser.add_argument("--all", action="store_true", help="list: every workspace's sessions")
    parser.add_argument("--json", action="store_true",
                        help="list: one JSON object per session; show: the file's JSON lines")
    return parser


def sessions_command(argv: list[str], io: Streams) -> int:
    """List, show or remove stored sessions."""
    args = parse_args(sessions_parser(), argv, io)
    if isinstance(args, int):
        return args
    if args.action == "list":
        return _list(args, io)
    info = _named(args, os.getcwd())
    if args.action == "show":
        return _show(info, args.json, io)
    return _remove(info, io)


def _list(args: argparse.Namespace, io: Streams) -> int:
    if args.id or args.last:
        raise UsageError("saikish sessions list takes no id (show ID, rm ID)")
    infos = list_sessions(session_folder(), None if args.all else os.getcwd())
    if args.json:
        for info in infos:
            print(json.dumps({"id": info.id, "path": str(info.path),
                              "workspace": info.workspace, "model": info.model,
                              "first_prompt": info.first_prompt, "updated": info.updated,
                              "size": info.size}, ensure_ascii=False), file=io.stdout)
        return 0
    if not infos:
        where = "" if args.all else " for this workspace (--all for every workspace)"
        print(f"no stored sessions{where}", file=io.stdout)
        return 0
    from saikish.ui.sessions import sessions_table

    _console(io).print(sessions_table(infos, workspaces=args.all))
    return 0


def _named(args: argparse.Namespace, workspace: str) -> SessionInfo:
    if args.last and args.action == "show" and not args.id:
        found = latest(session_folder(), workspace)
        if found is None:
            raise UsageError("no stored session for this workspace")
        return found
    if not args.id:
        raise UsageError(f"saikish sessions {args.action} needs a session id"
                         + (" (or --last)" if args.action == "show" else ""))
    return find_session(session_folder(), args.id)


def _show(info: SessionInfo, raw: bool, io: Streams) -> int:
    records = read_records(info.path)
    if raw:
        for record in records:
            print(json.dumps(record, ensure_ascii=False), file=io.stdout)
        return 0
    from saikish.ui.transcript import transcript

    console = _console(io)
    for line in transcript(records):
        console.print(line, soft_wrap=True)
    return 0


def _remove(info: SessionInfo, io: Streams) -> int:
    try:
        SessionLog.resume(info.path, {}).close()  # never pull a file from under a live session
    except SessionBusy:
        raise UsageError(f"session {info.id} is open in a running saikish; end it first") \
            from None
    info.path.unlink()
    print(f"removed session {info.id} ({info.path})", file=io.stdout)
    return 0


def _console(io: Streams) -> Console:
    from rich.console import Console

    return Console(file=io.stdout, highlight=False, soft_wrap=True)


def chosen_session(args: argparse.Namespace, workspace: str, io: Streams,
                   interactive: bool) -> SessionInfo | None:
    """The session `--continue` or `--resume [ID]` names; None for a new one."""
    folder = session_folder()
    if getattr(args, "continue_session", False):
        found = latest(folder, workspace)
        if found is None:
            print("saikish: no earlier session in this workspace; starting a new one",
                  file=io.stderr)
        return found
    wanted = getattr(args, "resume", None)
    if wanted is None:
        return None
    if wanted:
        return find_session(folder, wanted, workspace)
    if not interactive:
        raise UsageError("--resume without an id needs a terminal to pick from; give the "
                         "id ('saikish sessions' lists them) or use --continue")
    from prompt_toolkit import prompt

    from saikish.ui.sessions import pick_session

    return pick_session(list_sessions(folder, workspace), _console(io), prompt)
