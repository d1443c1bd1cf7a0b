"""One agent.yml file (docs/SPEC.md §2): its schema as data, read into settings with lines.

Every value keeps the file and line it came from; every error names the
file, the line and the key, with the allowed values.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from saikish.config.model_table import PRICE_KEYS
from saikish.config.rule_hints import never_matches
from saikish.cost import Price
from saikish.errors import ConfigError, RuleError
from saikish.hooks.config import read_hooks
from saikish.mcp.config import read_servers
from saikish.rules import Rule, parse_rule
from saikish.store.yamlfile import (
    STD,
    check_tag,
    compose,
    entries,
    is_null,
    line_of,
    plain,
    read_text,
)
from saikish.types import Autonomy, Mode

PROVIDERS = ("openai", "anthropic", "ollama", "script", "demo")
STORAGES = ("storage", "memory")
SANDBOXES = ("auto", "workspace-write", "read-only", "off")
TEXT_TOOL_CALLS = ("auto", "on", "off")
MIN_WINDOW = 256  # tokens: no model saikish can drive has less

@dataclass(frozen=True)
class Key:
    """One scalar setting: where it goes in Config and how its value is checked."""

    attr: str
    kind: type
    choices: tuple[str, ...] = ()
    minimum: float | None = None


SCALARS: dict[str, Key] = {
    "llm.provider": Key("llm.provider", str, PROVIDERS),
    "llm.model": Key("llm.model", str),
    "llm.apiKey": Key("llm.api_key", str),
    "llm.baseURL": Key("llm.base_url", str),
    "llm.maxIterations": Key("llm.max_iterations", int, minimum=1),
    "llm.timeout": Key("llm.timeout", float, minimum=0.001),
    "llm.firstTokenTimeout": Key("llm.first_token_timeout", float, minimum=0.001),
    "llm.contextWindow": Key("llm.context_window", int, minimum=MIN_WINDOW),
    "llm.textToolCalls": Key("llm.text_tool_calls", str, TEXT_TOOL_CALLS),
    "llm.prices": Key("llm.prices", dict),
    "systemPrompt": Key("system_prompt", str),
    "toolConfirmation.mode": Key("confirmation.mode", str, tuple(m.value for m in Mode)),
    "toolConfirmation.timeout": Key("confirmation.timeout_ms", int, minimum=0),
    "toolConfirmation.allowedToolsStorage": Key("confirmation.storage", str, STORAGES),
    "toolConfirmation.autonomy": Key("confirmation.autonomy", str,
                                     tuple(a.value for a in Autonomy)),
    "tools.bashTimeout": Key("tools.bash_timeout", float, minimum=1),
    "tools.outputLimit": Key("tools.output_limit", int, minimum=1),
    "sandbox": Key("sandbox", str, SANDBOXES),
}
RULE_LISTS = ("permissions.allow", "permissions.deny", "permissions.ask")
OPAQUE = ("hooks", "mcpServers")


@dataclass(frozen=True)
class Setting:
    """One value of one file, with the line it is on."""

    value: Any
    origin: str


@dataclass(frozen=True)
class Layer:
    """One agent.yml, read and checked: its settings by dotted key, and its raw bytes."""

    path: Path
    kind: str  # "user" | "project" | "explicit"
    settings: Mapping[str, Setting]
    data: bytes = b""


def read_layer(path: Path, kind: str) -> Layer:
    """Read and validate one agent.yml."""
    return read_layer_text(read_text(path, limit=1 << 20), path, kind)  # no agent.yml is 1 MB


def read_layer_text(text: str, path: Path, kind: str) -> Layer:
    """Validate `text` as the agent.yml at `path` would be (before it is written there)."""
    root = compose(text, path)
    settings = {} if root is None else _Reader(path, kind).settings(root)
    return Layer(path, kind, settings, text.encode("utf-8"))


def read_mcp_json(path: Path) -> Layer:
    """A workspace's `.mcp.json` (Claude Code's `{"mcpServers": {...}}`) as a project layer:
    its servers start only once the person trusts this file (docs/SPEC.md §7.1, §4.8)."""
    text = read_text(path, limit=1 << 20)
    root = compose(text, path)  # JSON is YAML: errors and origins keep their lines
    settings = {}
    if root is not None:
        for name, _, node in entries(root, path, "", ("mcpServers",)):
            settings[name] = Setting(read_servers(node, path, own_file=False),
                                     f"{path}:{line_of(node)}")
    return Layer(path, "project", settings, text.encode("utf-8"))


Node = yaml.Node
SECTIONS = {"llm": "llm", "toolConfirmation": "toolConfirmation", "tools": "tools",
            "permissions": "permissions"}


class _Reader:
    """Walks the composed YAML tree so that each error knows its line."""

    def __init__(self, path: Path, kind: str) -> None:
        self.path, self.kind = path, kind

    def fail(self, node: Node, key: str, message: str) -> ConfigError:
        return ConfigError(message, self.path, line_of(node), key)

    def origin(self, node: Node) -> str:
        return f"{self.path}:{line_of(node)}"

    def mapping(self, node: Node, key: str, allowed: tuple[str, ...]) -> list[tuple[str, Node]]:
        return [(f"{key}.{name}" if key else name, value)
                for name, _, value in entries(node, self.path, key, allowed)]

    def settings(self, root: Node) -> dict[str, Setting]:
        top = tuple(k for k in SCALARS if "." not in k) + tuple(SECTIONS) + OPAQUE
        out: dict[str, Setting] = {}
        for key, node in self.mapping(root, "", top):
            if key in SECTIONS:
                children = tuple(k.partition(".")[2] for k in (*SCALARS, *RULE_LISTS)
                                 if k.startswith(key + "."))
                for full, child in self.mapping(node, key, children):
                    out[full] = Setting(self.value(full, child), self.origin(child))
            else:
                out[key] = Setting(self.value(key, node), self.origin(node))
        return out

    def value(self, key: str, node: Node) -> Any:
        if key in RULE_LISTS:
            return self.rules(node, key)
        if key == "hooks":
            return read_hooks(node, self.path)
        if key == "mcpServers":  # annotations are believed by default in the person's own files
            return read_servers(node, self.path, own_file=self.kind != "project")
        if key in OPAQUE:
            return plain(node, self.path, key)
        if key == "llm.prices":
            return self.prices(node, key)
        if key == "llm.textToolCalls" and isinstance(plain(node, self.path, key), bool):
            return "on" if plain(node, self.path, key) else "off"  # YAML reads on/off as bools
        spec = SCALARS[key]
        if spec.choices:
            return self.choice(node, key, spec.choices)
        if spec.minimum is not None:
            return self.number(node, key, spec.kind, spec.minimum)
        return self.scalar(node, key, str, "a string")

    def scalar(self, node: Node, key: str, kind: type, what: str) -> Any:
        value = plain(node, self.path, key) if isinstance(node, yaml.ScalarNode) else None
        if isinstance(value, bool) or value is None:
            raise self.fail(node, key, f"must be {what}")
        if kind is str and isinstance(value, (str, int, float)):
            return str(value)
        if kind is int and isinstance(value, int):
            return value
        if kind is float and isinstance(value, (int, float)):
            return float(value)
        raise self.fail(node, key, f"must be {what}, not '{str(node.value)[:40]}'")

    def choice(self, node: Node, key: str, allowed: tuple[str, ...]) -> str:
        if isinstance(node, yaml.ScalarNode) and node.tag == STD + "bool" and not node.style:
            # YAML 1.1 reads an unquoted `off` (the documented `sandbox: off`) as false.
            written = "off" if node.value.lower() in ("off", "false", "no") else node.value
            if written in allowed:
                return written
            raise self.fail(node, key, f"'{node.value[:40]}' is not one of: {', '.join(allowed)}")
        value = self.scalar(node, key, str, "a string")
        if value not in allowed:
            raise self.fail(node, key, f"'{value[:40]}' is not one of: {', '.join(allowed)}")
        return str(value)

    def number(self, node: Node, key: str, kind: type, minimum: float) -> Any:
        value = self.scalar(node, key, kind, f"a number >= {minimum:g}")
        if value < minimum:
            raise self.fail(node, key, f"must be >= {minimum:g}, not {value}")
        return value

    def prices(self, node: Node, key: str) -> tuple[tuple[str, Price], ...]:
        """`llm.prices`: model glob -> {input, output, cachedInput, cacheWrite} in USD/M."""
        out = []
        for glob, glob_node, value in entries(node, self.path, key, None):
            where = f"{key}.{glob}"
            fields = {PRICE_KEYS[name]: self.number(child, f"{where}.{name}", float, 0)
                      for name, _, child in entries(value, self.path, where, tuple(PRICE_KEYS))}
            if "input" not in fields or "output" not in fields:
                raise self.fail(glob_node, where, "needs input and output (US dollars per "
                                                  "million tokens)")
            out.append((glob, Price(**fields)))
        return tuple(out)

    def rules(self, node: Node, key: str) -> tuple[Rule, ...]:
        if is_null(node):
            return ()
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, key, "must be a list of rules")
        check_tag(node, self.path, key)
        out = []
        for item in node.value:
            origin = self.origin(item)
            try:
                rule = parse_rule(plain(item, self.path, key), origin)
            except RuleError as exc:
                message = str(exc).removeprefix(f"{origin}: ")
                raise self.fail(item, key, message) from None
            problem = never_matches(rule)
            if problem:  # a deny rule that never matches denies nothing: never silent
                raise self.fail(item, key, problem)
            out.append(rule)
        return tuple(out)
