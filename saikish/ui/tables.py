"""Tables shared by the REPL and the subcommands: rules in force, the audit ledger."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from datetime import timezone
from typing import Any

from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text

from saikish.engine.policy import RuleSet
from saikish.inert import inert


def rules_table(rules: RuleSet) -> Table:
    """Every rule in force with its kind and where it comes from."""
    table = Table(box=None, header_style="bold")
    for column in ("", "rule", "from"):
        table.add_column(column)
    rows = [("deny", r) for r in rules.deny] + [("allow", r) for r in rules.allow]
    for kind, rule in rows:
        style = "red" if kind == "deny" else "green"
        table.add_row(Text(kind, style=style), Text(inert(rule.text)),
                      Text(inert(_origin(rule.origin)), style="dim"))
    if not rows:
        table.add_row("", Text("(no rules)", style="dim"), "")
    return table


def _origin(origin: str) -> str:
    """'agent.yml:12' for a file origin (the full path is in the header), else as given."""
    return os.path.basename(origin) if os.sep in origin else (origin or "session")


AUDIT_COLUMNS = ("when", "workspace", "tool", "arguments", "risk", "decision", "source",
                 "rule")
# How the texts share the room the short words leave (the words keep their width).
_SHARES = {"workspace": 1, "tool": 2, "arguments": 4, "rule": 2}


class AuditTable:
    """Audit entries, oldest first, one line each at any width: when (local time), where,
    what, and the decision. Texts that do not fit end in "…" (`audit --json` has all)."""

    def __init__(self, entries: Iterable[Mapping[str, Any]]) -> None:
        self.rows = [_audit_row(entry) for entry in entries]

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.table(options.max_width)

    def table(self, width: int) -> Table:
        """The table for `width` columns: no wider than its content, never wrapped."""
        natural = {c: max([len(c)] + [len(row[c].plain) for row in self.rows])
                   for c in AUDIT_COLUMNS}
        texts = dict(_SHARES)
        room = width - 2 * len(AUDIT_COLUMNS) - sum(natural[c] for c in AUDIT_COLUMNS
                                                    if c not in texts)
        if room < 40:  # a narrow terminal: where it ran is the first to go
            texts.pop("workspace")
            room += 2
        widths = _share({c: natural[c] for c in texts}, texts, room)
        table = Table(box=None, header_style="bold")
        shown = [c for c in AUDIT_COLUMNS if c in widths or c not in _SHARES]
        for column in shown:
            table.add_column(column, no_wrap=True, overflow="ellipsis",
                             width=widths.get(column, natural[column]))
        for row in self.rows:
            cells = dict(row)
            if "workspace" in widths:  # a path is cut at its start: its end names the project
                cells["workspace"] = Text(_tail(row["workspace"].plain, widths["workspace"]))
            table.add_row(*(cells[c] for c in shown))
        return table


def _share(natural: dict[str, int], weights: dict[str, int], room: int) -> dict[str, int]:
    """Widths for the texts: each its natural width if its share allows, the rest split
    by weight among those that need more."""
    widths: dict[str, int] = {}
    left = dict(natural)
    while left:
        total = sum(weights[c] for c in left)
        share = {c: max(3, room * weights[c] // total) for c in left}
        fits = [c for c in left if left[c] <= share[c]]
        if not fits:
            widths.update(share)
            return widths
        for column in fits:
            widths[column] = left.pop(column)
            room -= widths[column]
    return widths


def audit_table(entries: Iterable[Mapping[str, Any]]) -> AuditTable:
    """The audit ledger's table (see AuditTable)."""
    return AuditTable(entries)


def _audit_row(entry: Mapping[str, Any]) -> dict[str, Text]:
    args = entry.get("arguments")
    if isinstance(args, Mapping):
        args = args.get("command") or args.get("path") or args
    decision = str(entry.get("decision", ""))
    style = {"approved": "green", "edited": "green", "changed": "yellow"}.get(decision, "red")
    cells = {"when": local_time(str(entry.get("time", ""))),
             "workspace": short_path(str(entry.get("workspace") or "")),
             "tool": str(entry.get("tool", "")), "arguments": " ".join(str(args).split()),
             "risk": str(entry.get("risk") or ""), "source": str(entry.get("source", "")),
             "rule": str(_rule_column(entry, decision))}
    row = {column: Text(inert(text)) for column, text in cells.items()}
    row["decision"] = Text(decision, style=style)
    return row


def _tail(path: str, width: int) -> str:
    """The end of a long path, which names the project: '…/projects/app'."""
    return path if len(path) <= width else "…" + path[-(width - 1):]


def _rule_column(entry: Mapping[str, Any], decision: str) -> object:
    """The rule that decided; for a call's changed files, what changed and how to undo it."""
    if decision == "changed":
        return entry.get("feedback") or ""
    return entry.get("rule") or ""


def local_time(stamp: str) -> str:
    """'2026-11-22T15:14:55Z' as '2026-11-22 16:14:55' in local time (as given if unreadable)."""
    from datetime import datetime

    try:
        moment = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return stamp
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def short_path(path: str) -> str:
    """`path` with the home directory written as ~ ('' stays '')."""
    home = os.path.expanduser("~")
    if path == home or path.startswith(home + os.sep):
        return "~" + path[len(home):]
    return path
