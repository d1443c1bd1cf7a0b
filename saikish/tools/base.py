"""The Tool type, the context a tool runs in, and argument validation (docs/SPEC.md §3)."""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from saikish.types import Risk

if TYPE_CHECKING:
    from saikish.tools.sandbox import Sandbox

Schema = Mapping[str, Any]


@dataclass
class RunContext:
    """What a running tool may use: the workspace, limits, and a cancel signal."""

    workspace: str
    output_limit: int = 30000
    bash_timeout: float = 120.0
    cancel: threading.Event = field(default_factory=threading.Event)
    # Set by the executor for the calls that must run inside the sandbox (docs/SPEC.md §4.9).
    sandbox: Sandbox | None = None
    # What Tool.state said when the call was decided: the tool refuses if it changed.
    expected_state: str | None = None
    # Credential values children must not inherit (docs/SPEC.md §4.8, saikish.childenv).
    secrets: tuple[str, ...] = ()
    # Set by the executor: asks the person from inside a running tool (docs/SPEC.md §7.3).
    confirm: Callable[[str, dict[str, Any]], bool] | None = None
    # Set by the executor: a running tool's one-line progress ("3/10 reading"), shown live.
    # May be called from another thread (an MCP server's progress notifications).
    progress: Callable[[str], None] | None = None


@dataclass(frozen=True)
class Tool:
    """A tool the model can call: its wire name, schema, risk and implementation."""

    name: str
    description: str
    schema: Schema
    run: Callable[[Mapping[str, Any], RunContext], ToolOutput]
    # The risk of one call; bash's is worked out per command by the policy instead.
    risk: Callable[[Mapping[str, Any], str], Risk] = lambda args, workspace: Risk.UNKNOWN
    # What the call's target holds now (e.g. a file's hash), noted before the person is
    # asked, so the tool can refuse to act on something other than what was shown.
    state: Callable[[Mapping[str, Any], str], str | None] | None = None
    # Always ask, whatever the autonomy level says (rules and modes still apply; §7.3).
    requires_confirmation: bool = False
    # What the tool knows about showing itself, so front ends need not switch on its name:
    # the argument Edit opens, the argument that names a call in one line, path arguments.
    editable_argument: str | None = None
    summary_argument: str | None = None
    path_arguments: tuple[str, ...] = ()
    # Other names rules may use for this tool (an MCP tool's full name, when cut to 64).
    aliases: tuple[str, ...] = ()
    # Labelled lines the approval box shows above the arguments ("server", "risk from").
    about: tuple[tuple[str, str], ...] = ()
    # What changed in the tool's definition since a call of it was last approved, or None.
    # While it says something, no rule or autonomy level approves the tool (§7.1 rug pulls).
    definition_change: Callable[[], str | None] | None = None

    def summary(self, arguments: Mapping[str, Any], width: int = 100) -> str:
        """One line naming a call: 'bash ls -la', 'write_file a.txt', else the JSON arguments."""
        value = arguments.get(self.summary_argument) if self.summary_argument else None
        detail = str(value) if value is not None else json.dumps(
            dict(arguments), ensure_ascii=False) if arguments else ""
        text = f"{self.name} {detail}".strip().replace("\n", " ⏎ ")
        return text if len(text) <= width else text[:width - 1] + "…"

    def wire_spec(self) -> dict[str, Any]:
        """The tool as the model sees it (JSON schema function spec)."""
        return {"name": self.name, "description": self.description,
                "parameters": dict(self.schema)}


@dataclass(frozen=True)
class ToolOutput:
    """What a tool produced: text for the model, and whether it failed."""

    text: str
    is_error: bool = False


def validate(schema: Schema, arguments: Mapping[str, Any]) -> str | None:
    """The first problem with `arguments` against an object schema, or None."""
    properties: Any = schema.get("properties", {})
    required: Any = schema.get("required", ())
    # A schema an MCP server wrote may be anything: a bad one makes every call invalid.
    if not isinstance(properties, Mapping) or not all(
            isinstance(spec, Mapping) for spec in properties.values()):
        return "the tool's input schema is malformed ('properties' is not a mapping of schemas)"
    if not isinstance(required, (list, tuple)) or not all(isinstance(n, str) for n in required):
        return "the tool's input schema is malformed ('required' is not a list of names)"
    for name in required:
        if name not in arguments:
            return f"missing required argument '{name}'"
    for name, value in arguments.items():
        spec = properties.get(name)
        if spec is None:
            if schema.get("additionalProperties", True) is False:
                allowed = ", ".join(properties) or "none"
                return f"unknown argument '{name}' (allowed: {allowed})"
            continue
        problem = _check_type(value, spec.get("type"))
        if problem:
            return f"argument '{name}' {problem}"
    return None


_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "object": (dict,), "array": (list,),
}


def _check_type(value: Any, expected: str | list[str] | None) -> str | None:
    if expected is None:
        return None
    names = [expected] if isinstance(expected, str) else list(expected)
    for name in names:
        kinds = _TYPES.get(name)
        if name == "null" and value is None:
            return None
        if kinds and isinstance(value, kinds) and not (
                isinstance(value, bool) and name in ("integer", "number")):
            if isinstance(value, float) and not math.isfinite(value):  # NaN, Infinity
                return f"must be a finite {name}, not {value}"
            return None
    return f"must be {' or '.join(names)}, not {type(value).__name__}"
