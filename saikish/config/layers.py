"""Layered agent.yml -> a frozen Config (docs/SPEC.md §2, §4.8). Errors name file, line, key.

Layers, later over earlier: built-in defaults, the user's `<config dir>/agent.yml`,
the workspace's `./.mcp.json` and `./agent.yml` (the project's: they may only tighten
until the person trusts them), and `--config PATH` (named by the person, so trusted).
Each setting remembers the file and line it came from, so `saikish config`
can say where every value is set.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from saikish.config.file import (
    OPAQUE,
    PROVIDERS,
    RULE_LISTS,
    SCALARS,
    Layer,
    Setting,
    read_layer,
    read_mcp_json,
)
from saikish.cost import Price
from saikish.errors import ConfigError
from saikish.hooks.config import HookTable
from saikish.mcp.config import ServerTable
from saikish.rules import Rule
from saikish.store import paths
from saikish.store.yamlfile import yaml_problem
from saikish.tools.sandbox.placeholders import is_stand_in
from saikish.types import Autonomy, Mode

__all__ = ["PROVIDERS", "SCALARS", "Config", "ConfigError", "Ignored", "Layer", "Setting",
           "load_config", "load_effective", "read_layer", "read_layers", "yaml_problem"]

DEFAULT = "default"
# The longest default wait for a first token (a local server's): what an untrusted
# project's llm.firstTokenTimeout is compared with (models/waiting.py has the defaults).
LOCAL_FIRST_TOKEN_S = 900.0


@dataclass(frozen=True)
class LLMConfig:
    """Which model to talk to, and how."""

    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    base_url: str | None = None
    max_iterations: int = 50
    # Seconds of silence between tokens before a stream is abandoned (docs/SPEC.md §2).
    timeout: float = 60.0
    # Seconds to wait for the first token; None: a default for local or hosted (§10.5).
    first_token_timeout: float | None = None
    # Tokens the model reads and writes in one call; None: the server's or the table's.
    context_window: int | None = None
    # auto | on | off: read <tool_call> blocks in the answer text as calls (§10.5).
    text_tool_calls: str = "auto"
    # (model glob, Price) pairs over saikish/data/models.yml (§10.4).
    prices: tuple[tuple[str, Price], ...] = ()


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
class Ignored:
    """A setting of an untrusted project agent.yml that was not applied, and why."""

    key: str
    origin: str
    why: str
    # The value as the file wrote it, shortened, for the trust question.
    shown: str = ""


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
    ask: tuple[Rule, ...] = ()
    sandbox: str = "auto"
    hooks: HookTable = field(default_factory=HookTable)
    mcp_servers: ServerTable = field(default_factory=ServerTable)
    # Where each setting came from ("path:line", or "default"), for `saikish config`.
    origins: Mapping[str, str] = field(default_factory=dict, compare=False)
    # Settings of an untrusted project file that were not applied.
    ignored: tuple[Ignored, ...] = ()
    # The files read, in layer order.
    files: tuple[Path, ...] = ()

    def warnings(self) -> tuple[str, ...]:
        """The warnings this config owes the person: how many settings of an untrusted
        project file were ignored, and where to see them (one line, not one each); what
        of the hooks saikish read but will not run (one line per kind)."""
        lines = []
        for where in dict.fromkeys(item.origin.rpartition(":")[0] for item in self.ignored):
            items = [item for item in self.ignored if item.origin.startswith(where + ":")]
            count, keys = len(items), ", ".join(dict.fromkeys(item.key for item in items))
            lines.append(f"{where}: {count} setting{'s' if count > 1 else ''} ignored because "
                         f"this project's {Path(where).name} is not trusted ({keys}); "
                         f"'saikish trust --show' says what each would change; review the "
                         f"file, then run 'saikish trust'")
        return (*lines, *self.hooks.notes)

    def secrets(self) -> tuple[str, ...]:
        """The credential values saikish holds, which no child process may see (§4.8)."""
        found = [os.environ.get(name, "") for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")]
        if self.llm.api_key:
            found.append(_expand_quietly(self.llm.api_key))
        return tuple(value for value in found if value)


def _order(*values: str) -> Callable[[Any], float]:
    return lambda value: float(values.index(value))


# How strict a value is (higher = stricter), for every setting an untrusted project may
# tighten. A setting missing here is never taken from an untrusted project.
STRICTNESS: dict[str, Callable[[Any], float]] = {
    "llm.maxIterations": lambda v: -v,
    "llm.timeout": lambda v: -v,
    "llm.firstTokenTimeout": lambda v: -(v if v is not None else LOCAL_FIRST_TOKEN_S),
    "llm.contextWindow": lambda v: 0.0,  # a fact about the model: it loosens nothing
    "toolConfirmation.mode": _order("auto-approve", "event-based", "auto-deny"),
    "toolConfirmation.timeout": lambda v: -v if v else float("-inf"),  # 0 waits forever
    "toolConfirmation.allowedToolsStorage": _order("storage", "memory"),
    "toolConfirmation.autonomy": _order("full-auto", "supervised", "cautious", "manual"),
    "tools.bashTimeout": lambda v: -v,
    "tools.outputLimit": lambda v: -v,
    "sandbox": _order("off", "auto", "workspace-write", "read-only"),
}
TIGHTENING_LISTS = ("permissions.deny", "permissions.ask")
WHY = {"llm.provider": "redirects credentials", "llm.model": "redirects credentials",
       "llm.apiKey": "redirects credentials", "llm.baseURL": "redirects credentials",
       "hooks": "runs code", "mcpServers": "runs code",
       "systemPrompt": "changes the model's instructions",
       "permissions.allow": "loosens approvals",
       "llm.prices": "changes the costs shown",
       "llm.textToolCalls": "changes what counts as a tool call"}


def read_layers(explicit: str | None, cwd: Path) -> tuple[Layer, ...]:
    """The files of §2 that exist, in layer order (user, project, --config)."""
    user = paths.config_dir() / "agent.yml"
    project = cwd / "agent.yml"
    named = Path(explicit) if explicit else None
    if named is not None and not _present(named):
        raise ConfigError("no such config file", named)
    candidates = [(user, "user")]
    # The project's file is limited, unless it is the user's own or named by --config.
    if _real(project) not in {_real(user), _real(named or user)}:
        candidates.append((project, "project"))
    layers = [read_layer(p, kind) for p, kind in candidates if _present(p)]
    # Claude Code's project servers, untrusted until the person trusts this file as well
    # (docs/SPEC.md §7.1); under the project's agent.yml, which wins for the same name.
    if _present(cwd / ".mcp.json"):
        layers.insert(1 if _present(user) else 0, read_mcp_json(cwd / ".mcp.json"))
    if named is not None:
        layers.append(read_layer(named, "explicit"))
    return tuple(layers)


def _present(path: Path) -> bool:
    # A directory or unreadable file named agent.yml is reported by read_text, not skipped;
    # the sandbox's stand-in for a missing one (an empty, dated directory) is no file; so
    # is one in a directory that cannot be searched (a stat that fails, not a traceback).
    try:
        return (path.exists() or path.is_symlink()) and not is_stand_in(path)
    except OSError:
        return True


def _real(path: Path) -> str:
    return os.path.realpath(path)


def load_config(path: Path | None) -> Config:
    """One agent.yml, trusted (tests and `--config`-only uses); defaults when None."""
    if path is None:
        return Config()
    return merge((read_layer(path, "explicit"),))


def load_effective(explicit: str | None, cwd: Path,
                   trusted: Callable[[Layer], bool] = lambda layer: False) -> Config:
    """The layered config for a run in `cwd`; `trusted` says whether a project file is."""
    return merge(read_layers(explicit, cwd), trusted)


def project_layers(layers: tuple[Layer, ...]) -> tuple[Layer, ...]:
    """The workspace's own files among `layers`: its agent.yml and its .mcp.json."""
    return tuple(layer for layer in layers if layer.kind == "project")


def merge(layers: tuple[Layer, ...],
          trusted: Callable[[Layer], bool] = lambda layer: False) -> Config:
    """Apply `layers` over the defaults; an untrusted project layer may only tighten."""
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    rules: dict[str, list[Rule]] = {name: [] for name in RULE_LISTS}
    opaque: dict[str, Any] = {}
    ignored: list[Ignored] = []
    for layer in layers:
        limited = layer.kind == "project" and not trusted(layer)
        for key, setting in layer.settings.items():
            why = _refusal(key, setting.value, values) if limited else None
            if why:
                ignored.append(Ignored(key, setting.origin, why, show_value(setting.value)))
            elif key in RULE_LISTS:
                rules[key].extend(setting.value)
                origins[key] = ", ".join(filter(None, (origins.get(key), setting.origin)))
            elif key in OPAQUE:
                opaque[key] = _merge_opaque(opaque.get(key), setting.value)
                origins[key] = setting.origin
            else:
                values[key], origins[key] = setting.value, setting.origin
    return _build(values, rules, opaque, origins, tuple(ignored),
                  tuple(layer.path for layer in layers))


def _refusal(key: str, value: Any, before: Mapping[str, Any]) -> str | None:
    """Why an untrusted project may not set `key` to `value`, or None when it tightens."""
    if key in TIGHTENING_LISTS:
        return None
    strictness = STRICTNESS.get(key)
    if strictness is None:
        return WHY.get(key, "loosens approvals")
    current = before.get(key, _default(key))
    if strictness(value) < strictness(current):
        return f"loosens {key} from {current} to {value}"
    return None


def show_value(value: Any, limit: int = 200) -> str:
    """A setting's value as one short line (rules by their text)."""
    if isinstance(value, tuple) and all(isinstance(v, Rule) for v in value):
        text = ", ".join(r.text for r in value)
    elif isinstance(value, tuple) and all(isinstance(v, tuple) and len(v) == 2 and
                                          isinstance(v[1], Price) for v in value):
        text = "; ".join(f"{glob}: ${p.input:g} in, ${p.output:g} out per million tokens"
                         for glob, p in value) or "(none)"
    elif isinstance(value, (dict, list)):
        text = yaml.safe_dump(value, default_flow_style=True, width=10_000).strip()
    else:
        text = str(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _default(key: str) -> Any:
    value: Any = Config()
    for part in SCALARS[key].attr.split("."):
        value = getattr(value, part)
    if isinstance(value, (Mode, Autonomy)):
        return value.value
    return value


def _merge_opaque(old: Any, new: Any) -> Any:
    """mcpServers merge by server name; hooks by event, lists appended."""
    if isinstance(old, HookTable) and isinstance(new, HookTable):
        return old + new
    if isinstance(old, ServerTable) and isinstance(new, ServerTable):
        return old + new
    if not isinstance(old, dict) or not isinstance(new, dict):
        return new
    out = dict(old)
    for name, value in new.items():
        both = isinstance(out.get(name), list) and isinstance(value, list)
        out[name] = out[name] + value if both else value
    return out


def _build(values: Mapping[str, Any], rules: Mapping[str, list[Rule]],
           opaque: Mapping[str, Any], origins: dict[str, str], ignored: tuple[Ignored, ...],
           files: tuple[Path, ...]) -> Config:
    parts: dict[str, dict[str, Any]] = {"llm": {}, "confirmation": {}, "tools": {}, "": {}}
    for key, value in values.items():
        section, _, attr = SCALARS[key].attr.rpartition(".")
        if attr == "mode":
            value = Mode(value)
        elif attr == "autonomy":
            value = Autonomy(value)
        parts[section][attr] = value
    for key in SCALARS:
        origins.setdefault(key, DEFAULT)
    return Config(
        path=files[-1] if files else None, llm=LLMConfig(**parts["llm"]),
        confirmation=ConfirmationConfig(**parts["confirmation"]),
        tools=ToolsConfig(**parts["tools"]), **parts[""],
        allow=tuple(rules["permissions.allow"]), deny=tuple(rules["permissions.deny"]),
        ask=tuple(rules["permissions.ask"]), hooks=opaque.get("hooks") or HookTable(),
        mcp_servers=opaque.get("mcpServers") or ServerTable(), origins=origins, ignored=ignored,
        files=files)


# -- llm values --------------------------------------------------------------------------

# $VAR and ${VAR}, as agent.yml may write them in values read from the environment.
ENV_VARIABLE = re.compile(r"\$\{(\w+)\}|\$(\w+)")
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
            where = config.origins.get(what, str(config.path or "config"))
            raise ConfigError(f"environment variable {name} is not set", where, key=what)
        return os.environ[name]

    return ENV_VARIABLE.sub(substitute, value)


def _expand_quietly(value: str) -> str:
    return ENV_VARIABLE.sub(lambda m: os.environ.get(m.group(1) or m.group(2), ""), value)


