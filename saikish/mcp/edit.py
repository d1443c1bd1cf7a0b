"""`mcpServers:` of the person's agent.yml edited as text (`saikish mcp`, docs/SPEC.md §8).

As the allowlist's edits (allowlist_text.py): a server is added as one line
where the YAML parser says the mapping is, or its lines are removed, so every
comment and the rest of the file survive; a layout saikish cannot edit safely
is refused, never guessed. The caller checks the result by reading it again.
"""

from __future__ import annotations

from typing import Any

import yaml

from saikish.errors import SaikishError
from saikish.store.yamlfile import compose, is_null

KEY = "mcpServers"


class EditError(SaikishError):
    """The file cannot be changed this way; the message says why and what to do."""


def server_yaml(name: str, entry: dict[str, Any]) -> str:
    """`name: {command: ..., args: [...]}` as one line of flow YAML."""
    dumped = yaml.safe_dump({name: entry}, default_flow_style=True, width=10_000,
                            sort_keys=False)
    return dumped.strip()[1:-1]


def add_server(text: str, name: str, entry: dict[str, Any], where: str) -> str:
    """`text` with the server added under `mcpServers:`, everything else unchanged."""
    line = server_yaml(name, entry)
    root = compose(text, where) if text.strip() else None
    servers = _servers(root)
    if servers is None:
        return _at_end(text, f"{KEY}:\n  {line}\n")
    key, node = servers
    if is_null(node):
        if node.start_mark.index != node.end_mark.index:  # 'mcpServers: ~'
            return text[:node.start_mark.index] + "{" + line + "}" + text[node.end_mark.index:]
        return _insert_after(text, key.start_mark.line, f"  {line}\n")
    if not isinstance(node, yaml.MappingNode):
        raise EditError(f"{where}: mcpServers is not a mapping; fix it by hand first")
    if node.flow_style:
        inner = text[node.start_mark.index + 1:node.end_mark.index - 1].strip()
        body = f"{inner}, {line}" if inner else line
        return text[:node.start_mark.index] + "{" + body + "}" + text[node.end_mark.index:]
    indent = " " * node.value[0][0].start_mark.column
    last = node.value[-1][1].end_mark
    end_line = last.line if last.column > 0 else last.line - 1
    return _insert_after(text, end_line, f"{indent}{line}\n")


def remove_server(text: str, name: str, where: str) -> str:
    """`text` without the lines of server `name`; EditError when it is not there alone."""
    servers = _servers(compose(text, where) if text.strip() else None)
    if servers is None or not isinstance(servers[1], yaml.MappingNode):
        raise EditError(f"{where}: no mcpServers to remove '{name}' from")
    node = servers[1]
    for index, (key, value) in enumerate(node.value):
        if isinstance(key, yaml.ScalarNode) and key.value == name:
            if node.flow_style:
                raise EditError(f"{where}:{key.start_mark.line + 1}: mcpServers is written "
                                f"on one line; remove '{name}' by hand")
            lines = text.splitlines(keepends=True)
            end = value.end_mark.line if value.end_mark.column > 0 else value.end_mark.line - 1
            if index + 1 < len(node.value):  # never past the next server's first line
                end = min(end, node.value[index + 1][0].start_mark.line - 1)
            return "".join(lines[:key.start_mark.line] + lines[end + 1:])
    raise EditError(f"{where}: no server named '{name}' (saikish mcp list shows them)")


def _servers(root: yaml.Node | None) -> tuple[yaml.Node, yaml.Node] | None:
    if root is None or is_null(root):
        return None
    if not isinstance(root, yaml.MappingNode):
        raise EditError("the file is not a mapping of settings; fix it by hand first")
    return next(((k, v) for k, v in root.value
                 if isinstance(k, yaml.ScalarNode) and k.value == KEY), None)


def _at_end(text: str, block: str) -> str:
    return text + ("" if not text or text.endswith("\n") else "\n") + block


def _insert_after(text: str, line: int, block: str) -> str:
    lines = text.splitlines(keepends=True)
    if line < len(lines) and not lines[line].endswith("\n"):
        lines[line] += "\n"
    return "".join(lines[:line + 1] + [block] + lines[line + 1:])
