"""Tables shared by the REPL and the subcommands: rules in force, the audit ledger."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from datetime import timezone
from typing import Any

from rich.table import Table
from rich.text import Text

from saikish.engine.policy import RuleSet
from saikish.ui.inert import inert


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


def audit_table(entries: Iterable[Mapping[str, Any]]) -> Table:
    """Audit entries, oldest first: when (local time), where, what, and the decision."""
    table = Table(box=None, header_style="bold")
    for column in ("when", "workspace", "tool", "arguments", "risk", "decision", "source",
                   "rule"):
        table.add_column(column, overflow="fold", no_wrap=column == "when")
    for entry in entries:
        args = entry.get("arguments")
        if isinstance(args, Mapping):
            args = args.get("command") or args.get("path") or args
        decision = str(entry.get("decision", ""))
        style = {"approved": "green", "edited": "green", "changed": "yellow"}.get(decision, "red")
        table.add_row(local_time(str(entry.get("time", ""))),
                      inert(short_path(str(entry.get("workspace") or ""))),
                      inert(str(entry.get("tool", ""))), inert(str(args))[:60],
                      str(entry.get("risk") or ""), Text(decision, style=style),
                      str(entry.get("source", "")), inert(str(_rule_column(entry, decision))))
    return table


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
