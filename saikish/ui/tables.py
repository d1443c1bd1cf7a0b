"""Tables shared by the REPL and the subcommands: rules in force, the audit ledger."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from rich.table import Table
from rich.text import Text

from saikish.policy import RuleSet
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
    """Audit entries, oldest first."""
    table = Table(box=None, header_style="bold")
    for column in ("time", "tool", "arguments", "risk", "decision", "source", "rule"):
        table.add_column(column, overflow="fold")
    for entry in entries:
        args = entry.get("arguments")
        if isinstance(args, Mapping):
            args = args.get("command") or args.get("path") or args
        decision = str(entry.get("decision", ""))
        style = "green" if decision in ("approved", "edited") else "red"
        table.add_row(str(entry.get("time", ""))[11:19], inert(str(entry.get("tool", ""))),
                      inert(str(args))[:60], str(entry.get("risk") or ""),
                      Text(decision, style=style), str(entry.get("source", "")),
                      inert(str(entry.get("rule") or "")))
    return table
