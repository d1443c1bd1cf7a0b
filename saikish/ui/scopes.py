"""The allowlist by scope (docs/SPEC.md §4.5): config, global, each project, this session."""

from __future__ import annotations

import os
from collections.abc import Sequence

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from saikish.config.allowlist import AllowlistState, ProjectRules, names_project, project_root
from saikish.config.layers import Config
from saikish.inert import inert
from saikish.rules import Rule

STYLE = {"deny": "red", "ask": "yellow", "allow": "green"}


def scope_view(state: AllowlistState, config: Config, workspace: str,
               session: Sequence[Rule] = ()) -> RenderableType:
    """Every rule grouped by scope; the current project is marked, vanished ones reported."""
    parts: list[RenderableType] = []
    parts += _group("config (agent.yml)", config.deny, config.ask, config.allow)
    parts += _group("global (every project)", state.deny, state.ask, state.allow)
    current = [p for p in state.projects if names_project(p.path, workspace)]
    others = [p for p in state.projects if p not in current]
    for project in current + others:
        parts += _group(_heading(project, project in current), project.deny, project.ask,
                        project.allow)
    if not current:
        parts.append(Text(f"project {inert(project_root(workspace))} (current): no rules yet",
                          style="dim", no_wrap=True, overflow="ignore"))
    parts += _group("this session", (), (), tuple(session))
    return Group(*parts)


def vanished(state: AllowlistState) -> list[ProjectRules]:
    """Project sections whose directory no longer exists (kept, but worth knowing)."""
    return [p for p in state.projects if not os.path.isdir(os.path.expanduser(p.path))]


def _heading(project: ProjectRules, current: bool) -> str:
    mark = " (current)" if current else ""
    gone = "" if os.path.isdir(os.path.expanduser(project.path)) else \
        " (path no longer exists)"
    return f"project {project.path}{mark}{gone}"


def _group(title: str, deny: Sequence[Rule], ask: Sequence[Rule],
           allow: Sequence[Rule]) -> list[RenderableType]:
    rows = [("deny", r) for r in deny] + [("ask", r) for r in ask] + \
        [("allow", r) for r in allow]
    if not rows and not title.startswith("project"):
        return []
    table = Table(box=None, show_header=False, padding=(0, 1, 0, 2))
    for column in ("kind", "rule", "from"):
        table.add_column(column, overflow="fold")
    for kind, rule in rows:
        table.add_row(Text(kind, style=STYLE[kind]), inert(rule.text),
                      Text(inert(os.path.basename(rule.origin) if os.sep in rule.origin
                                 else rule.origin), style="dim"))
    if not rows:
        table.add_row("", Text("(no rules)", style="dim"), "")
    return [Text(inert(title), style="bold", no_wrap=True, overflow="ignore"), table]
