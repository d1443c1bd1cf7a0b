"""`saikish config import-claude [--from PATH] --to FILE` (docs/SPEC.md §8).

Reads Claude Code's settings.json (and the .mcp.json beside it), converts it
(claude_import.py: nothing is run), checks the result loads as an agent.yml,
and writes it only where nothing is, unless --force. Writing a project's
agent.yml does not trust it.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import yaml

from saikish.cli.compose import Streams, parse_args
from saikish.config.claude_import import convert
from saikish.config.file import read_layer_text
from saikish.errors import ConfigError
from saikish.inert import inert
from saikish.store.atomic import atomic_write
from saikish.store.yamlfile import read_text


def import_parser() -> argparse.ArgumentParser:
    """`saikish config import-claude`'s command line."""
    parser = argparse.ArgumentParser(
        prog="saikish config import-claude",
        description="Convert Claude Code's settings.json (permissions, hooks, mcpServers) and "
                    "the .mcp.json beside it into an agent.yml. Nothing is run.")
    parser.add_argument("--from", dest="source", metavar="PATH",
                        help="a settings.json, or a project holding .claude/settings.json "
                             "(default: ./.claude/settings.json, else ~/.claude/settings.json)")
    parser.add_argument("--to", required=True, metavar="FILE", help="the agent.yml to write")
    parser.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    return parser


def import_claude(argv: list[str], io: Streams) -> int:
    """Convert, check, write; list what was left out."""
    args = parse_args(import_parser(), argv, io)
    if isinstance(args, int):
        return args
    source = settings_path(args.source)
    target = Path(args.to)
    if target.exists() and not args.force:
        print(f"saikish: {target} exists; --force overwrites it", file=io.stderr)
        return 1
    beside = (source.parent.parent if source.parent.name == ".claude" else source.parent) \
        / ".mcp.json"
    mcp_json = _json(beside) if beside.is_file() else None
    done = convert(_json(source), mcp_json)
    read = f"{source}" + (f" and {beside}" if mcp_json is not None else "")
    text = (f"# Converted from Claude Code's {read}\n"
            f"# by saikish config import-claude: review it before you use it.\n" +
            (yaml.safe_dump(done.values, sort_keys=False, allow_unicode=True, width=100)
             if done.values else ""))
    try:
        read_layer_text(text, target, "explicit")
    except ConfigError as exc:
        print(f"saikish: the converted file would not load, so it was not written: "
              f"{exc.detail} ({exc.key})", file=io.stderr)
        return 1
    atomic_write(target, text)
    _report(target, done.values, done.skipped, io)
    return 0


def settings_path(given: str | None) -> Path:
    """The settings.json to read: the one named, the one in a named project, or the
    workspace's, else the person's own; ConfigError when there is none."""
    if given is not None:
        path = Path(given).expanduser()
        candidates = [path / ".claude" / "settings.json", path / "settings.json"] \
            if path.is_dir() else [path]
    else:
        candidates = [Path(".claude") / "settings.json",
                      Path(os.path.expanduser("~")) / ".claude" / "settings.json"]
    found = next((c for c in candidates if c.is_file()), None)
    if found is None:
        raise ConfigError("no Claude Code settings.json there (--from PATH names one)",
                          candidates[0])
    return found


def _json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(read_text(path, limit=1 << 20))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"not valid JSON: {exc.msg}", path, exc.lineno) from None
    if not isinstance(data, dict):
        raise ConfigError("must be a JSON object", path, 1)
    return data


def _report(target: Path, values: dict[str, Any], skipped: list[str], io: Streams) -> None:
    rules = values.get("permissions", {})
    counts = [f"{len(rules.get(k, []))} {k}" for k in ("allow", "deny", "ask")]
    hooks = sum(len(g["hooks"]) for groups in values.get("hooks", {}).values() for g in groups)
    print(f"wrote {target}: rules {', '.join(counts)}; {hooks} hooks; "
          f"{len(values.get('mcpServers', {}))} MCP servers", file=io.stdout)
    if skipped:
        print("not converted:", file=io.stdout)
        for line in skipped:
            print(f"  {inert(line)}", file=io.stdout)
    if target.resolve().parent == Path.cwd().resolve() and target.name == "agent.yml":
        print("this is the project's agent.yml: what it loosens applies only once you have "
              "reviewed it and run 'saikish trust'", file=io.stdout)
