"""Claude Code's settings as a saikish agent.yml (`saikish config import-claude`, §8).

Pure: JSON values in, agent.yml values and the list of what could not be
converted out; nothing here reads a file, runs a hook or starts a server.
Rules keep Claude Code's spelling (saikish reads its aliases, §4.4); hooks and
MCP servers keep Claude Code's shape, less what saikish cannot run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from saikish.errors import RuleError
from saikish.hooks.config import EVENTS
from saikish.mcp.config import SERVER_KEYS, TYPES
from saikish.rules import parse_rule

SECTIONS = ("allow", "deny", "ask")
# Claude Code's permission modes and what to do in saikish instead.
MODES = {"acceptEdits": "toolConfirmation.autonomy: supervised",
         "bypassPermissions": "--auto-approve (per run)", "dontAsk": "--auto-deny (per run)",
         "plan": "no equivalent", "default": "nothing (it is the default)"}


@dataclass
class Conversion:
    """The agent.yml being built, and one line per thing left out (where: why)."""

    values: dict[str, Any] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def skip(self, where: str, why: str) -> None:
        self.skipped.append(f"{where}: {why}")


def convert(settings: Mapping[str, Any], mcp_json: Mapping[str, Any] | None) -> Conversion:
    """Claude Code's settings.json (and the .mcp.json beside it) as agent.yml values."""
    out = Conversion()
    for key, value in settings.items():
        if key == "permissions":
            _permissions(value, out)
        elif key == "hooks":
            _hooks(value, out)
        elif key == "mcpServers":
            _servers(value, "mcpServers", out)
        elif key != "$schema":
            out.skip(key, "not a setting saikish has")
    if mcp_json is not None:
        servers = mcp_json.get("mcpServers")
        _servers(servers, ".mcp.json mcpServers", out)
    return out


def _permissions(value: Any, out: Conversion) -> None:
    if not isinstance(value, dict):
        out.skip("permissions", "not an object")
        return
    for key, rules in value.items():
        if key not in SECTIONS:
            hint = MODES.get(str(rules), "no equivalent") if key == "defaultMode" else \
                "no equivalent in saikish"
            out.skip(f"permissions.{key}", f"not converted; in saikish: {hint}")
            continue
        kept = []
        for index, text in enumerate(rules if isinstance(rules, list) else [rules]):
            where = f"permissions.{key}[{index}] '{text}'"
            try:
                rule = parse_rule(text)
            except RuleError as exc:
                out.skip(where, str(exc).split(": ", 1)[-1])
                continue
            if rule.tools == ():
                out.skip(where, f"{rule.tool} is a Claude Code tool saikish lacks")
                continue
            kept.append(text)
        if kept:
            out.values.setdefault("permissions", {})[key] = kept


def _hooks(value: Any, out: Conversion) -> None:
    if not isinstance(value, dict):
        out.skip("hooks", "not an object")
        return
    for event, groups in value.items():
        if event not in EVENTS:
            out.skip(f"hooks.{event}", "saikish does not produce this event")
            continue
        kept_groups = []
        for index, group in enumerate(groups if isinstance(groups, list) else []):
            hooks = group.get("hooks") if isinstance(group, dict) else None
            kept = [hook for hook in hooks or [] if isinstance(hook, dict)
                    and hook.get("type") == "command"]
            for hook in (h for h in hooks or [] if h not in kept):
                kind = hook.get("type") if isinstance(hook, dict) else hook
                out.skip(f"hooks.{event}[{index}]", f"a hook of type {kind}: saikish runs "
                                                     f"hooks of type: command")
            if kept:
                kept_groups.append({**group, "hooks": kept})
        if kept_groups:
            out.values.setdefault("hooks", {})[event] = kept_groups


def _servers(value: Any, where: str, out: Conversion) -> None:
    if value is None:
        return
    if not isinstance(value, dict):
        out.skip(where, "not an object")
        return
    for name, server in value.items():
        if not isinstance(server, dict):
            out.skip(f"{where}.{name}", "not an object")
            continue
        kind = server.get("type", "stdio")
        if kind not in TYPES:
            out.skip(f"{where}.{name}", f"type {kind}: saikish speaks stdio and streamable "
                                        f"HTTP only")
            continue
        for key in (k for k in server if k not in SERVER_KEYS):
            out.skip(f"{where}.{name}.{key}", "not a server setting saikish has")
        out.values.setdefault("mcpServers", {})[name] = {
            k: v for k, v in server.items() if k in SERVER_KEYS}
