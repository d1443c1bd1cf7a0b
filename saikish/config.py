"""agent.yml -> a frozen Config (docs/SPEC.md §2). Every error names the file, line and key."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from saikish import paths
from saikish.errors import ConfigError, RuleError
from saikish.rules import Rule, parse_rule
from saikish.types import Autonomy, Mode

PROVIDERS = ("openai", "anthropic", "ollama", "script", "demo")
STORAGES = ("storage", "memory")


@dataclass(frozen=True)
class LLMConfig:
    """Which model to talk to, and how."""

    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    base_url: str | None = None
    max_iterations: int = 50


@dataclass(frozen=True)
class ConfirmationConfig:
    """How calls that need a person are handled."""

    mode: Mode = Mode.EVENT_BASED
    timeout_ms: int = 30000
    storage: str = "storage"
    autonomy: Autonomy = Autonomy.CAUTIOUS


@dataclass(frozen=True)
class ToolsConfig:
    """Limits of the built-in tools."""

    bash_timeout: float = 120.0
    output_limit: int = 30000


@dataclass(frozen=True)
class Config:
    """Everything agent.yml can say, with defaults for what it does not."""

    path: Path | None = None
    llm: LLMConfig = field(default_factory=LLMConfig)
    system_prompt: str = (
        "You are saikish, a careful assistant working in the user's project from their "
        "terminal. Use the tools to inspect and change files and run commands. Every call "
        "that changes something may be shown to the user for approval; when a call is "
        "rejected, ask the user how to proceed instead of retrying it."
    )
    confirmation: ConfirmationConfig = field(default_factory=ConfirmationConfig)
    tools: ToolsConfig = field(default_factory=ToolsConfig)
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    hooks: Any = None
    mcp_servers: Any = None


def find_config(explicit: str | None, cwd: Path) -> Path | None:
    """docs/SPEC.md §2 lookup order: --config, ./agent.yml, <config dir>/agent.yml, none."""
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise ConfigError("no such config file", path)
        return path
    for candidate in (cwd / "agent.yml", paths.config_dir() / "agent.yml"):
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Path | None) -> Config:
    """Read and validate `path`; built-in defaults when None."""
    if path is None:
        return Config()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read: {exc}", path) from None
    return parse_config(text, path)


def parse_config(text: str, path: Path) -> Config:
    """Validate YAML `text` from `path` into a Config."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        line, problem = yaml_problem(exc)
        raise ConfigError(f"YAML syntax error: {problem}", path, line) from None
    if root is None:
        return Config(path=path)
    return _Reader(path).config(root)


def yaml_problem(exc: yaml.YAMLError) -> tuple[int | None, str]:
    """(line, message) of a YAML error: where the broken construct starts, and what broke."""
    context = getattr(exc, "context_mark", None)
    problem_mark = getattr(exc, "problem_mark", None)
    mark = context or problem_mark
    problem = getattr(exc, "problem", None) or str(exc)
    if context is not None and getattr(exc, "context", None):
        problem = f"{exc.context} (line {context.line + 1}): {problem}"  # type: ignore[attr-defined]
    return (mark.line + 1 if mark else None), problem


_LLM_KEYS = {"api_key": "llm.apiKey", "base_url": "llm.baseURL"}


def llm_value(config: Config, provider: str, field_name: str) -> str | None:
    """agent.yml's llm.apiKey / llm.baseURL, expanded, when they are meant for `provider`."""
    value = getattr(config.llm, field_name)
    if not value or config.llm.provider not in (None, provider):
        return None
    return expand_env(value, _LLM_KEYS[field_name], config)


def expand_env(value: str, what: str, config: Config) -> str:
    """Expand $VAR and ${VAR}; an unset variable is an error now that it is needed."""

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name not in os.environ:
            raise ConfigError(f"environment variable {name} is not set", config.path, key=what)
        return os.environ[name]

    return re.sub(r"\$\{(\w+)\}|\$(\w+)", substitute, value)


# --- the schema walker --------------------------------------------------------

Node = yaml.Node


class _Reader:
    """Walks the composed YAML tree so that each error knows its line."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, node: Node, key: str, message: str) -> ConfigError:
        return ConfigError(message, self.path, node.start_mark.line + 1, key)

    def mapping(self, node: Node, key: str, allowed: Mapping[str, Any]) -> dict[str, Node]:
        if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
            return {}
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, key, "must be a mapping")
        out: dict[str, Node] = {}
        for key_node, value_node in node.value:
            name = key_node.value
            full = f"{key}.{name}" if key else str(name)
            if name not in allowed:
                raise self.fail(key_node, full,
                                f"unknown key; allowed: {', '.join(allowed)}")
            out[name] = value_node
        return out

    def scalar(self, node: Node, key: str, kind: type, what: str) -> Any:
        value = _load(node) if isinstance(node, yaml.ScalarNode) else None
        if isinstance(value, bool) or value is None:
            raise self.fail(node, key, f"must be {what}")
        if kind is str and isinstance(value, (str, int, float)):
            return str(value)
        if kind is int and isinstance(value, int):
            return value
        if kind is float and isinstance(value, (int, float)):
            return float(value)
        raise self.fail(node, key, f"must be {what}, not '{node.value}'")

    def choice(self, node: Node, key: str, allowed: tuple[str, ...]) -> str:
        value = self.scalar(node, key, str, "a string")
        if value not in allowed:
            raise self.fail(node, key, f"'{value}' is not one of: {', '.join(allowed)}")
        return str(value)

    def positive(self, node: Node, key: str, kind: type, minimum: float = 0) -> Any:
        value = self.scalar(node, key, kind, f"a number >= {minimum}")
        if value < minimum:
            raise self.fail(node, key, f"must be >= {minimum}, not {value}")
        return value

    def config(self, root: Node) -> Config:
        sections: dict[str, Callable[[Node], tuple[str, Any]]] = {
            "llm": lambda n: ("llm", self.llm(n)),
            "systemPrompt": lambda n: ("system_prompt", self.scalar(n, "systemPrompt", str,
                                                                    "a string")),
            "toolConfirmation": lambda n: ("confirmation", self.confirmation(n)),
            "tools": lambda n: ("tools", self.tools(n)),
            "permissions": lambda n: ("permissions", self.permissions(n)),
            "hooks": lambda n: ("hooks", _load(n)),
            "mcpServers": lambda n: ("mcp_servers", _load(n)),
        }
        values: dict[str, Any] = {"path": self.path}
        for name, node in self.mapping(root, "", sections).items():
            attr, value = sections[name](node)
            if attr == "permissions":
                values["allow"], values["deny"] = value
            else:
                values[attr] = value
        return Config(**values)

    def llm(self, node: Node) -> LLMConfig:
        fields = {"provider": "provider", "model": "model", "apiKey": "api_key",
                  "baseURL": "base_url", "maxIterations": "max_iterations"}
        out: dict[str, Any] = {}
        for name, value in self.mapping(node, "llm", fields).items():
            key = f"llm.{name}"
            if name == "provider":
                out["provider"] = self.choice(value, key, PROVIDERS)
            elif name == "maxIterations":
                out["max_iterations"] = self.positive(value, key, int, 1)
            else:
                out[fields[name]] = self.scalar(value, key, str, "a string")
        return LLMConfig(**out)

    def confirmation(self, node: Node) -> ConfirmationConfig:
        fields = ("mode", "timeout", "allowedToolsStorage", "autonomy")
        out: dict[str, Any] = {}
        for name, value in self.mapping(node, "toolConfirmation", dict.fromkeys(fields)).items():
            key = f"toolConfirmation.{name}"
            if name == "mode":
                out["mode"] = Mode(self.choice(value, key, tuple(m.value for m in Mode)))
            elif name == "timeout":
                out["timeout_ms"] = self.positive(value, key, int, 0)
            elif name == "allowedToolsStorage":
                out["storage"] = self.choice(value, key, STORAGES)
            else:
                out["autonomy"] = Autonomy(
                    self.choice(value, key, tuple(a.value for a in Autonomy)))
        return ConfirmationConfig(**out)

    def tools(self, node: Node) -> ToolsConfig:
        fields = {"bashTimeout": "bash_timeout", "outputLimit": "output_limit"}
        out: dict[str, Any] = {}
        for name, value in self.mapping(node, "tools", fields).items():
            kind = float if name == "bashTimeout" else int
            out[fields[name]] = self.positive(value, f"tools.{name}", kind, 1)
        return ToolsConfig(**out)

    def permissions(self, node: Node) -> tuple[tuple[Rule, ...], tuple[Rule, ...]]:
        lists: dict[str, tuple[Rule, ...]] = {"allow": (), "deny": ()}
        for name, value in self.mapping(node, "permissions", lists).items():
            lists[name] = self.rules(value, f"permissions.{name}")
        return lists["allow"], lists["deny"]

    def rules(self, node: Node, key: str) -> tuple[Rule, ...]:
        if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
            return ()
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, key, "must be a list of rules")
        out = []
        for item in node.value:
            origin = f"{self.path}:{item.start_mark.line + 1}"
            try:
                out.append(parse_rule(_load(item), origin))
            except RuleError as exc:
                message = str(exc).removeprefix(f"{origin}: ")
                raise self.fail(item, key, message) from None
        return tuple(out)


def _load(node: Node) -> Any:
    """The plain Python value of one YAML node."""
    return yaml.safe_load(yaml.serialize(node))
