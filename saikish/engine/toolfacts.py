"""What the engine knows of a tool, and the check of a call's arguments (docs/SPEC.md §3).

The engine decides about tools without importing them: `ToolFacts` is the part of the
runtime's `Tool` (saikish/tools/base.py) that a decision reads, as a Protocol.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from saikish.types import Risk


class ToolFacts(Protocol):
    """The facts of one tool a decision may read (saikish.tools.base.Tool has them)."""

    @property
    def name(self) -> str:
        """The wire name."""

    @property
    def schema(self) -> Mapping[str, Any]:
        """The arguments' JSON schema."""

    @property
    def risk(self) -> Callable[[Mapping[str, Any], str], Risk]:
        """The risk of one call (arguments, workspace)."""

    @property
    def requires_confirmation(self) -> bool:
        """Always asked, whatever the autonomy level says."""

    @property
    def aliases(self) -> tuple[str, ...]:
        """Other names rules may use for it."""

    @property
    def writes_argument(self) -> str | None:
        """The path argument a call changes in place (contained after a checkpoint)."""

    @property
    def definition_change(self) -> Callable[[], str | None] | None:
        """What changed in its definition since a call of it was approved, if anything."""


def validate(schema: Mapping[str, Any], arguments: Mapping[str, Any]) -> str | None:
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
