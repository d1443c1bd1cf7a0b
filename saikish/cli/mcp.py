"""`saikish mcp add | list | get | remove` (docs/SPEC.md §8): servers in the person's agent.yml.

`add` and `remove` edit the person's own agent.yml (or `--config FILE`) as
text, keeping its comments (mcp/edit.py); the new text is read back as
agent.yml before it is written, so a file saikish would refuse is never left
behind. `list` and `get` show the servers in force, with where each was set.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from saikish.cli.compose import Streams, parse_args
from saikish.config.file import read_layer_text
from saikish.config.trust import load_config_trusted
from saikish.errors import UsageError
from saikish.inert import inert
from saikish.mcp.config import McpServer, ServerTable, server_name
from saikish.mcp.edit import EditError, add_server, remove_server
from saikish.store import paths
from saikish.store.atomic import atomic_write
from saikish.store.yamlfile import read_text


def mcp_parser() -> argparse.ArgumentParser:
    """`saikish mcp`'s command line."""
    parser = argparse.ArgumentParser(
        prog="saikish mcp", description="Add, list, show or remove MCP servers in your "
        "agent.yml (comments kept). add NAME -- COMMAND [ARGS...] | add NAME URL.")
    parser.add_argument("action", choices=("add", "list", "get", "remove"))
    parser.add_argument("name", nargs="?")
    parser.add_argument("target", nargs="*", help="the command and its arguments, or a URL")
    parser.add_argument("-e", "--env", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("-H", "--header", action="append", default=[], metavar="'KEY: VALUE'")
    parser.add_argument("-t", "--transport", choices=("stdio", "http"))
    parser.add_argument("--timeout", type=float, metavar="SECONDS")
    parser.add_argument("-c", "--config", metavar="FILE",
                        help="the agent.yml to edit (default: your own)")
    return parser


def mcp_command(argv: list[str], io: Streams) -> int:
    """Dispatch one `saikish mcp` action."""
    before, dash, after = _split(argv)
    args = parse_args(mcp_parser(), before, io, intermixed=True)
    if isinstance(args, int):
        return args
    args.target = [*args.target, *after] if dash else args.target
    if args.action == "list":
        return _list(args, io)
    if not args.name:
        raise UsageError(f"saikish mcp {args.action} NAME")
    if args.action == "get":
        return _get(args, io)
    file = Path(args.config) if args.config else paths.config_dir() / "agent.yml"
    text = read_text(file) if file.exists() else ""
    if args.action == "add" and args.name in {s.name for s in _servers(text, file)}:
        print(f"saikish: {file}: a server named '{args.name}' is already there (saikish mcp "
              f"remove {args.name} first)", file=io.stderr)
        return 1
    try:
        if args.action == "add":
            new = add_server(text, _name(args.name), _entry(args), str(file))
        else:
            new = remove_server(text, args.name, str(file))
    except EditError as exc:
        print(f"saikish: {exc}", file=io.stderr)
        return 1
    _write_checked(file, text, new, args)
    done = "added to" if args.action == "add" else "removed from"
    print(f"mcp server '{args.name}' {done} {file}", file=io.stdout)
    return 0


def _split(argv: list[str]) -> tuple[list[str], bool, list[str]]:
    if "--" not in argv:
        return argv, False, []
    at = argv.index("--")
    return argv[:at], True, argv[at + 1:]


def _name(written: str) -> str:
    if server_name(written) != written or "__" in written:
        raise UsageError(f"'{written}' cannot name a server: use letters, digits, '-' and "
                         f"'_' (no '__')")
    return written


def _entry(args: argparse.Namespace) -> dict[str, Any]:
    """The server's settings from the command line; UsageError says what is missing."""
    if not args.target:
        raise UsageError("saikish mcp add NAME -- COMMAND [ARGS...], or add NAME URL")
    url = args.target[0].startswith(("http://", "https://"))
    if args.transport == "http" and not (url and len(args.target) == 1):
        raise UsageError("--transport http takes one http:// or https:// URL")
    entry: dict[str, Any] = {"url": args.target[0]} if url and args.transport != "stdio" \
        else {"command": args.target[0], "args": args.target[1:]}
    if entry.get("args") == []:
        del entry["args"]
    pairs = [(args.env, "=", "env", "KEY=VALUE"), (args.header, ":", "headers", "'KEY: VALUE'")]
    for given, sep, key, shape in pairs:
        for item in given:
            name, found, value = item.partition(sep)
            if not found or not name.strip():
                raise UsageError(f"--{key.rstrip('s')} {item!r}: expected {shape}")
            entry.setdefault(key, {})[name.strip()] = value.strip() if sep == ":" else value
    if args.timeout is not None:
        entry["timeout"] = args.timeout
    return entry


def _write_checked(file: Path, old: str, new: str, args: argparse.Namespace) -> None:
    """Write `new` only when it reads as an agent.yml whose servers changed as asked."""
    before = _servers(old, file)
    after = _servers(new, file)  # ConfigError (file, line, key) when the server is wrong
    expected = {s.name for s in before} ^ {args.name}
    if {s.name for s in after} != expected:
        raise EditError(f"{file}: the edit would not change the servers as asked; "
                        f"edit the file by hand")
    atomic_write(file, new)


def _servers(text: str, file: Path) -> ServerTable:
    if not text.strip():
        return ServerTable()
    setting = read_layer_text(text, file, "explicit").settings.get("mcpServers")
    return setting.value if setting is not None else ServerTable()


def _list(args: argparse.Namespace, io: Streams) -> int:
    config = load_config_trusted(args.config, Path.cwd())
    for warning in config.warnings():
        print(f"saikish: {warning}", file=io.stderr)
    if not config.mcp_servers:
        print("no MCP servers (saikish mcp add NAME -- COMMAND adds one)", file=io.stdout)
    for server in config.mcp_servers:
        print(f"{server.name}: {inert(str(server))}  ({inert(server.origin)})", file=io.stdout)
    return 0


def _get(args: argparse.Namespace, io: Streams) -> int:
    config = load_config_trusted(args.config, Path.cwd())
    found: McpServer | None = next((s for s in config.mcp_servers if s.name == args.name), None)
    if found is None:
        print(f"saikish: no MCP server named '{args.name}' (saikish mcp list shows them)",
              file=io.stderr)
        return 1
    rows = [("name", found.name), ("set in", found.origin), ("transport", found.transport),
            ("command", " ".join((found.command or "", *found.args)).strip()),
            ("url", found.url or ""), ("env", ", ".join(found.env)),
            ("headers", ", ".join(found.headers)), ("timeout", f"{found.timeout:g}s")]
    for label, value in rows:
        if value:
            print(f"{label}: {inert(value)}", file=io.stdout)
    return 0
