"""`saikish config` and `saikish trust` (docs/SPEC.md §2, §4.8): where settings come from.

`config` shows every effective setting and the file and line it came from
(`config import-claude` is importcmd.py);
`trust` shows, grants or revokes trust in the workspace's own agent.yml.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.text import Text

from saikish.cli.compose import Streams, parse_args
from saikish.config.layers import Config, Layer, merge, project_layers, read_layers
from saikish.config.trust import TrustStore, ignored_in, load_config_trusted
from saikish.inert import inert
from saikish.ui.settings import config_table


def config_command(argv: list[str], io: Streams) -> int:
    """`saikish config`: the effective settings and the file each came from."""
    if argv[:1] == ["import-claude"]:
        from saikish.cli.import_claude import import_claude

        return import_claude(argv[1:], io)
    parser = argparse.ArgumentParser(prog="saikish config",
                                     description="Show the effective settings and their files.")
    parser.add_argument("-c", "--config", metavar="PATH")
    args = parse_args(parser, argv, io)
    if isinstance(args, int):
        return args
    config = load_config_trusted(args.config, Path.cwd())
    console = Console(file=io.stdout, highlight=False, width=220)
    files = ", ".join(str(p) for p in config.files) or "none (built-in defaults)"
    console.print(Text(f"files: {inert(files)}"), soft_wrap=True)
    console.print(config_table(config))
    return 0


def trust_command(argv: list[str], io: Streams) -> int:
    """`saikish trust [--show | --revoke]` for the workspace's agent.yml and .mcp.json."""
    parser = argparse.ArgumentParser(
        prog="saikish trust",
        description="Trust the workspace's agent.yml and .mcp.json (by path and SHA-256: "
                    "any change asks again), show what trusting them changes, or revoke trust.")
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--show", action="store_true", help="show the files' trust and settings")
    group.add_argument("--revoke", action="store_true", help="stop trusting the files")
    args = parse_args(parser, argv, io)
    if isinstance(args, int):
        return args
    layers = read_layers(None, Path.cwd())
    projects = project_layers(layers)
    if not projects:
        print(f"no agent.yml or .mcp.json in {Path.cwd()}: nothing to trust", file=io.stdout)
        return 0 if args.show else 1
    untrusted = merge(layers)
    for project in projects:
        _trust_one(project, untrusted, args, io)
    return 0


def _trust_one(project: Layer, untrusted: Config, args: argparse.Namespace,
               io: Streams) -> None:
    store = TrustStore.default()
    if args.revoke:
        had = store.revoke(project.path)
        print(f"{'trust revoked' if had else 'was not trusted'}: {project.path} (the REPL "
              f"asks again)", file=io.stdout)
        return
    answer = store.answer(project)
    if args.show:
        state = {True: "trusted", False: "not trusted (answered no)",
                 None: "not trusted (never answered, or changed since)"}[answer]
        print(f"{project.path}: {state}", file=io.stdout)
        _list(untrusted, project, "settings that apply only when trusted:", io)
        return
    store.record(project, True)
    print(f"trusted: {project.path} (until it changes)", file=io.stdout)
    _list(untrusted, project, "now applied:", io)


def _list(config: Config, project: Layer, heading: str, io: Streams) -> None:
    ignored = ignored_in(config, project)
    if not ignored:
        print("  (none: the file only tightens)", file=io.stdout)
        return
    print(heading, file=io.stdout)
    for item in ignored:
        print(f"  {inert(item.origin)}: {item.key}: {inert(item.shown)}  ({item.why})",
              file=io.stdout)
