"""The effective settings as a table (docs/SPEC.md §2): value and the file each came from."""

from __future__ import annotations

import os
from typing import Any

from rich.table import Table
from rich.text import Text

from saikish.config.layers import SCALARS, Config, show_value
from saikish.inert import inert


def config_table(config: Config) -> Table:
    """Every effective setting, its value and where it came from."""
    table = Table(box=None, header_style="bold")
    table.add_column("setting", no_wrap=True)
    table.add_column("value", overflow="fold", ratio=1)
    table.add_column("from", no_wrap=True)
    for key in SCALARS:
        value = _value(config, key)
        shown = "(set)" if key == "llm.apiKey" and value and not str(value).startswith("$") \
            else "(not set)" if value is None else show_value(value, 80)
        table.add_row(key, inert(shown), _from(config.origins.get(key, "default")))
    for key, rules in (("permissions.allow", config.allow), ("permissions.deny", config.deny),
                       ("permissions.ask", config.ask)):
        for rule in rules:
            table.add_row(key, inert(rule.text), _from(rule.origin))
    for key, value in (("hooks", config.hooks), ("mcpServers", config.mcp_servers)):
        if value:
            table.add_row(key, inert(show_value(value, 80)), _from(config.origins.get(key, "")))
    for item in config.ignored:
        table.add_row(Text(item.key, style="yellow"), inert(item.shown),
                      _from(item.origin, " ignored: not trusted", "yellow"))
    return table


def _from(origin: str, note: str = "", style: str = "dim") -> Text:
    """A file origin made short: ./ for the workspace, ~ for home ('path:line')."""
    for prefix, short in ((os.getcwd() + os.sep, "./"), (os.path.expanduser("~") + os.sep, "~/")):
        if origin.startswith(prefix):
            origin = short + origin[len(prefix):]
            break
    return Text(inert(origin) + note, style=style)


def _value(config: Config, key: str) -> Any:
    value: Any = config
    for part in SCALARS[key].attr.split("."):
        value = getattr(value, part)
    return getattr(value, "value", value)
