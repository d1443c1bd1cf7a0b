"""agent.yml's `mcpServers:` (docs/SPEC.md §7.1), checked with lines like the rest of the file.

```yaml
mcpServers:
  git:
    command: uvx
    args: [mcp-server-git, --repository, .]
  docs:
    url: https://example.com/mcp
    headers: {Authorization: "Bearer $DOCS_TOKEN"}
```

Each server becomes one `McpServer` that remembers the file and line it came
from and whether its file is the person's own (annotations are then believed
by default). Nothing is expanded or started here: `$VAR`s are expanded when
the server starts, so an unset variable fails that server, not the config.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from saikish.errors import ConfigError
from saikish.store.yamlfile import entries, is_null, line_of, plain, seconds

SERVER_KEYS = ("type", "command", "args", "env", "cwd", "url", "headers", "timeout",
               "startupTimeout", "trustAnnotations", "includeTools", "excludeTools")
MAX_STARTUP_TIMEOUT = 86_400.0  # a day: more would overflow the waits that use it
TYPES = ("stdio", "http", "streamable-http")
DEFAULT_TIMEOUT = 60.0
Fields = Mapping[str, tuple[yaml.Node, yaml.Node]]  # a mapping's keys: (key node, value node)
_NOT_NAME = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class McpServer:
    """One configured server, as written (variables not yet expanded)."""

    name: str  # sanitised: [A-Za-z0-9_-]
    command: str | None = None
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = DEFAULT_TIMEOUT
    # Seconds this server may take to start; None: SAIKISH_MCP_STARTUP_TIMEOUT or 30.
    startup_timeout: float | None = None
    # Hints that lower risk are believed only when True (default: the person's own file).
    trust_annotations: bool = False
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    origin: str = ""

    @property
    def transport(self) -> str:
        """'stdio' or 'http'."""
        return "http" if self.url else "stdio"

    def offers(self, tool: str) -> bool:
        """True when `tool` passes includeTools / excludeTools (exclude wins)."""
        if any(fnmatch.fnmatchcase(tool, glob) for glob in self.exclude):
            return False
        return not self.include or any(fnmatch.fnmatchcase(tool, g) for g in self.include)

    def __str__(self) -> str:
        return self.url or " ".join((self.command or "", *self.args))


@dataclass(frozen=True)
class ServerTable:
    """The servers of one or more agent.yml files; a later file's server replaces by name."""

    servers: tuple[McpServer, ...] = ()

    def __len__(self) -> int:
        return len(self.servers)

    def __iter__(self) -> Any:
        return iter(self.servers)

    def __add__(self, other: ServerTable) -> ServerTable:
        names = {s.name for s in other.servers}
        return ServerTable(tuple(s for s in self.servers if s.name not in names)
                           + other.servers)

    def __str__(self) -> str:
        return "; ".join(f"{s.name}: {s}" for s in self.servers)


def server_name(written: str) -> str:
    """A server's name as tool names use it: characters outside [A-Za-z0-9_-] become '_',
    with no '_' at either end (`mcp__git_` would read as server `git` in `mcp__git___x`)."""
    return _NOT_NAME.sub("_", written).strip("_")


def read_servers(node: yaml.Node, path: Path, own_file: bool) -> ServerTable:
    """The `mcpServers:` node as a ServerTable; ConfigError with file, line and key."""
    return _Reader(path, own_file).table(node)


class _Reader:
    """Walks the `mcpServers:` tree; every error names its line and key."""

    def __init__(self, path: Path, own_file: bool) -> None:
        self.path, self.own_file = path, own_file

    def fail(self, node: yaml.Node, key: str, message: str) -> ConfigError:
        return ConfigError(message, self.path, line_of(node), key)

    def table(self, node: yaml.Node) -> ServerTable:
        servers: dict[str, McpServer] = {}
        for written, key_node, value in entries(node, self.path, "mcpServers", None):
            name = server_name(written)
            if not name:
                raise self.fail(key_node, "mcpServers", "a server needs a name")
            if "__" in name:
                raise self.fail(key_node, f"mcpServers.{written}",
                                "a server's name may not hold '__': it separates the server "
                                "from the tool in tool names (mcp__SERVER__TOOL)")
            if name in servers:
                raise self.fail(key_node, f"mcpServers.{written}",
                                f"two servers are named '{name}' once their names are made "
                                f"safe for tool names ([A-Za-z0-9_-])")
            servers[name] = self.server(name, f"mcpServers.{written}", key_node, value)
        return ServerTable(tuple(servers.values()))

    def server(self, name: str, key: str, key_node: yaml.Node, node: yaml.Node) -> McpServer:
        if is_null(node) or not isinstance(node, yaml.MappingNode):
            raise self.fail(node, key, "must be a mapping with 'command' (stdio) or 'url' "
                                       "(streamable HTTP)")
        fields = {n: (k, v) for n, k, v in entries(node, self.path, key, SERVER_KEYS)}
        kind = self.text(fields, "type", key)
        if kind is not None and kind not in TYPES:
            hint = " (the older SSE transport is not supported; use streamable HTTP)" \
                if kind == "sse" else ""
            raise self.fail(fields["type"][1], f"{key}.type",
                            f"'{kind[:40]}' is not one of: {', '.join(TYPES)}{hint}")
        command, url = self.text(fields, "command", key), self.text(fields, "url", key)
        if (command is None) == (url is None):
            raise self.fail(key_node, key, "give either 'command' (a stdio server) or 'url' "
                                           "(a streamable HTTP server), not both or neither")
        if kind is not None and (kind == "stdio") != (command is not None):
            raise self.fail(fields["type"][1], f"{key}.type",
                            f"type {kind} does not fit '{'command' if command else 'url'}'")
        if url is not None and not url.startswith(("http://", "https://", "$")):
            raise self.fail(fields["url"][1], f"{key}.url", "must be an http:// or https:// URL")
        stdio_only = [n for n in ("args", "env", "cwd") if n in fields and command is None]
        http_only = [n for n in ("headers",) if n in fields and url is None]
        for extra in stdio_only + http_only:
            kind_needed = "an HTTP" if extra == "headers" else "a stdio"
            raise self.fail(fields[extra][0], f"{key}.{extra}",
                            f"'{extra}' applies only to {kind_needed} server")
        trust = self.flag(fields, "trustAnnotations", key)
        return McpServer(
            name=name, command=command, args=self.strings(fields, "args", key),
            env=self.names(fields, "env", key), cwd=self.text(fields, "cwd", key), url=url,
            headers=self.names(fields, "headers", key),
            timeout=seconds(fields["timeout"][1] if "timeout" in fields else None, self.path,
                            f"{key}.timeout", DEFAULT_TIMEOUT),
            startup_timeout=self.startup(fields, key),
            trust_annotations=self.own_file if trust is None else trust,
            include=self.strings(fields, "includeTools", key),
            exclude=self.strings(fields, "excludeTools", key),
            origin=f"{self.path}:{line_of(key_node)}")

    def startup(self, fields: Fields, key: str) -> float | None:
        """`startupTimeout` in seconds (at most a day), or None when not given."""
        if "startupTimeout" not in fields or is_null(fields["startupTimeout"][1]):
            return None
        node = fields["startupTimeout"][1]
        value = seconds(node, self.path, f"{key}.startupTimeout", 0.0)
        if value > MAX_STARTUP_TIMEOUT:
            raise self.fail(node, f"{key}.startupTimeout",
                            f"must be at most {MAX_STARTUP_TIMEOUT:g} seconds (a day)")
        return value

    def given(self, fields: Fields, name: str, key: str) -> tuple[yaml.Node, Any, str] | None:
        """The node, the plain value and the dotted key of `name`; None when absent or empty."""
        if name not in fields or is_null(fields[name][1]):
            return None
        node = fields[name][1]
        return node, plain(node, self.path, f"{key}.{name}"), f"{key}.{name}"

    def text(self, fields: Fields, name: str, key: str) -> str | None:
        given = self.given(fields, name, key)
        if given is None:
            return None
        node, value, where = given
        if not _scalar(value) or not str(value).strip():
            raise self.fail(node, where, "must be a non-empty string")
        return str(value)

    def strings(self, fields: Fields, name: str, key: str) -> tuple[str, ...]:
        given = self.given(fields, name, key)
        if given is None:
            return ()
        node, value, where = given
        if not isinstance(value, list) or not all(_scalar(v) for v in value):
            raise self.fail(node, where, "must be a list of strings")
        return tuple(str(v) for v in value)

    def names(self, fields: Fields, name: str, key: str) -> dict[str, str]:
        given = self.given(fields, name, key)
        if given is None:
            return {}
        node, value, where = given
        if not isinstance(value, dict) or not all(_scalar(v) for v in value.values()):
            raise self.fail(node, where, "must map names to strings")
        bad = next((k for k in value if not k or "=" in k or "\0" in k), None)
        if bad is not None:
            raise self.fail(node, where, f"'{bad[:40]}' is not a valid name")
        return {k: str(v) for k, v in value.items()}

    def flag(self, fields: Fields, name: str, key: str) -> bool | None:
        given = self.given(fields, name, key)
        if given is None:
            return None
        node, value, where = given
        if not isinstance(value, bool):
            raise self.fail(node, where, "must be true or false")
        return value


def _scalar(value: Any) -> bool:
    """A YAML value that reads as a string (a number too, never true/false)."""
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def from_editor(entries: Any) -> ServerTable:
    """The servers an editor names in ACP's `session/new` (`mcpServers`), as a ServerTable.

    ACP's shape: `{name, command, args, env: [{name, value}]}` for stdio and
    `{type: "http", name, url, headers: [{name, value}]}`; the editor's servers are
    the person's own, so their annotations are believed. ValueError says what is wrong.
    """
    if entries is None:
        return ServerTable()
    if not isinstance(entries, list):
        raise ValueError("mcpServers must be a list")
    servers: dict[str, McpServer] = {}
    for index, entry in enumerate(entries):
        where = f"mcpServers[{index}]"
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise ValueError(f"{where} needs a name")
        name = server_name(entry["name"])
        if not name or "__" in name or name in servers:
            raise ValueError(f"{where}: '{entry['name'][:40]}' cannot name a server here "
                             f"(empty, holds '__', or used twice)")
        kind = entry.get("type", "stdio")
        pairs = _pairs(entry.get("headers" if kind != "stdio" else "env"), where)
        if kind == "stdio" and isinstance(entry.get("command"), str) and entry["command"]:
            args = entry.get("args") or []
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                raise ValueError(f"{where}.args must be a list of strings")
            servers[name] = McpServer(name, command=entry["command"], args=tuple(args),
                                      env=pairs, trust_annotations=True,
                                      origin=f"the editor ({where})")
        elif kind == "http" and str(entry.get("url", "")).startswith(("http://", "https://")):
            servers[name] = McpServer(name, url=entry["url"], headers=pairs,
                                      trust_annotations=True, origin=f"the editor ({where})")
        else:
            raise ValueError(f"{where}: give a stdio server (command) or type http with an "
                             f"http(s) url; '{str(kind)[:20]}' servers are not supported")
    return ServerTable(tuple(servers.values()))


def _pairs(items: Any, where: str) -> dict[str, str]:
    """ACP's [{name, value}] list as a mapping."""
    if items is None:
        return {}
    if not isinstance(items, list) or not all(
            isinstance(i, dict) and isinstance(i.get("name"), str) and i["name"]
            and isinstance(i.get("value"), str) for i in items):
        raise ValueError(f"{where}: env and headers are lists of {{name, value}} strings")
    return {i["name"]: i["value"] for i in items}

