"""The effective settings as a table (docs/SPEC.md §2): value and the file each came from."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text

from saikish.config import SCALARS, Config, show_value
from saikish.ui.inert import inert


def config_table(config: Config) -> Table:
    """Every effective setting, its value and where it came from."""
    table = Table(box=None, header_style="bold")
    for column in ("setting", "value", "from"):
        table.add_column(column, overflow="fold")
    for key in SCALARS:
        value = _value(config, key)
        shown = "(set)" if key == "llm.apiKey" and value and not str(value).startswith("$") \
            else show_value(value, 80)
        table.add_row(key, inert(shown), Text(inert(config.origins.get(key, "default")),
                                              style="dim"))
    for key, rules in (("permissions.allow", config.allow), ("permissions.deny", config.deny),
                       ("permissions.ask", config.ask)):
        for rule in rules:
            table.add_row(key, inert(rule.text), Text(inert(rule.origin), style="dim"))
    for key, value in (("hooks", config.hooks), ("mcpServers", config.mcp_servers)):
        if value:
            table.add_row(key, inert(show_value(value, 80)),
                          Text(inert(config.origins.get(key, "")), style="dim"))
    for item in config.ignored:
        table.add_row(Text(item.key, style="yellow"), inert(item.shown),
                      Text(f"{inert(item.origin)}: ignored, not trusted", style="yellow"))
    return table


def _value(config: Config, key: str) -> Any:
    value: Any = config
    for part in SCALARS[key].attr.split("."):
        value = getattr(value, part)
    return getattr(value, "value", value)
