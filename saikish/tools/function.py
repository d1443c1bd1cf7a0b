"""Tools from plain Python functions (docs/SPEC.md §7.3): `@tool`, `Toolset`, `ctx.confirm`.

The JSON schema comes from the signature, the type hints and the docstring
(Google-style `Args:` or `:param name:` lines); a parameter named `ctx` gets a
`ToolContext`, whose `confirm()` asks through the same approver, countdown,
audit and modes as a tool call.
"""

from __future__ import annotations

import inspect
import json
import re
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal, overload

from saikish.tools.base import RunContext, Tool, ToolOutput
from saikish.types import Risk

RiskSpec = Risk | str | Callable[[Mapping[str, Any], str], Risk] | None
_SCALARS: dict[Any, str] = {str: "string", int: "integer", float: "number", bool: "boolean"}
PATH_NAMES = frozenset({"path", "file", "file_path", "filename", "directory", "dir"})
_PARAM_DOC = re.compile(r"^\s*(?::param\s+)?(\w+)\s*(?:\([^)]*\))?\s*:\s*(.+)$")


@dataclass(frozen=True)
class ToolContext:
    """What a function tool gets as `ctx`: the workspace, and a way to ask the person."""

    run: RunContext

    @property
    def workspace(self) -> str:
        """The directory the agent works in."""
        return self.run.workspace

    def confirm(self, message: str, payload: Mapping[str, Any] | None = None) -> bool:
        """Ask the person from inside a running tool; False when refused or nobody can answer.

        Goes through the executor's approver and mode (docs/SPEC.md §7.3); with
        no executor behind the tool it fails closed.
        """
        if self.run.confirm is None:
            return False  # fails closed: nobody to ask means no
        return self.run.confirm(message, dict(payload or {}))


@overload
def tool(fn: Callable[..., Any], /) -> Tool: ...
@overload
def tool(*, name: str | None = None, description: str | None = None, risk: RiskSpec = None,
         requires_confirmation: bool = False) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(fn: Callable[..., Any] | None = None, /, *, name: str | None = None,
         description: str | None = None, risk: RiskSpec = None,
         requires_confirmation: bool = False) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Turn a function into a Tool: `@tool` or `@tool(risk="read_only", ...)`."""

    def build(function: Callable[..., Any]) -> Tool:
        summary, params = _docstring(function)
        schema = schema_for(function, params)
        strings = [n for n, s in schema["properties"].items() if s.get("type") == "string"]
        return Tool(name=name or function.__name__, description=description or summary,
                    schema=schema, run=_runner(function),
                    risk=risk_function(risk), requires_confirmation=requires_confirmation,
                    summary_argument=strings[0] if strings else None,
                    path_arguments=tuple(n for n in schema["properties"] if n in PATH_NAMES))

    return build(fn) if fn is not None else build


@dataclass(frozen=True)
class Toolset:
    """A group of tools with shared settings: `Toolset(tools, requires_confirmation=True)`."""

    tools: tuple[Tool, ...]
    requires_confirmation: bool | None = None
    risk: RiskSpec = None

    def __init__(self, tools: Iterable[Tool], *, requires_confirmation: bool | None = None,
                 risk: RiskSpec = None) -> None:
        object.__setattr__(self, "tools", tuple(tools))
        object.__setattr__(self, "requires_confirmation", requires_confirmation)
        object.__setattr__(self, "risk", risk)

    def __iter__(self) -> Iterator[Tool]:
        """The tools, with the set's settings applied."""
        for item in self.tools:
            if self.requires_confirmation is not None:
                item = replace(item, requires_confirmation=self.requires_confirmation)
            if self.risk is not None:
                item = replace(item, risk=risk_function(self.risk))
            yield item


def flatten(items: Iterable[Tool | Toolset]) -> list[Tool]:
    """Tools and Toolsets as one list of tools; a repeated name is a mistake."""
    out: list[Tool] = []
    for item in items:
        out.extend(item if isinstance(item, Toolset) else (item,))
    names = [t.name for t in out]
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise ValueError(f"two tools are named {repeated[0]!r}; tool names must be unique")
    return out


def risk_function(risk: RiskSpec) -> Callable[[Mapping[str, Any], str], Risk]:
    """`risk=` as the Tool's risk callable; unknown when not given (asks unless allowed)."""
    if callable(risk):
        return risk
    fixed = Risk.UNKNOWN if risk is None else risk if isinstance(risk, Risk) \
        else _risk_named(risk)
    return lambda arguments, workspace: fixed


def _risk_named(text: str) -> Risk:
    try:
        return Risk[text.upper().replace("-", "_")]
    except KeyError:
        names = ", ".join(r.name.lower() for r in Risk)
        raise ValueError(f"unknown risk {text!r}; use one of {names}") from None


def schema_for(function: Callable[..., Any], docs: Mapping[str, str] | None = None
               ) -> dict[str, Any]:
    """The JSON schema of `function`'s parameters (`ctx` excluded)."""
    hints = typing.get_type_hints(function)
    properties: dict[str, Any] = {}
    required = []
    for param in inspect.signature(function).parameters.values():
        if param.name == "ctx" or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        spec = json_type(hints.get(param.name, Any))
        if docs and param.name in docs:
            spec["description"] = docs[param.name]
        if param.default is not param.empty:
            spec["default"] = param.default
        else:
            required.append(param.name)
        properties[param.name] = spec
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False}


def json_type(hint: Any) -> dict[str, Any]:
    """The JSON schema of one type hint (str, int, list[str], Literal, X | None...)."""
    if hint in _SCALARS:
        return {"type": _SCALARS[hint]}
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return {"enum": list(args)}
    if origin in (typing.Union, types.UnionType):
        options = [json_type(a) for a in args if a is not type(None)]
        nullable = len(options) < len(args)
        if len(options) == 1 and "type" in options[0]:
            kind = options[0]["type"]
            return {**options[0], "type": [kind, "null"]} if nullable else options[0]
        return {"anyOf": options + ([{"type": "null"}] if nullable else [])}
    if hint is list or origin in (list, tuple, set, frozenset):
        return {"type": "array", **({"items": json_type(args[0])} if args else {})}
    if hint is dict or origin is dict:
        return {"type": "object"}
    return {}  # Any or a type JSON cannot name: accept what comes


def _docstring(function: Callable[..., Any]) -> tuple[str, dict[str, str]]:
    """The summary paragraph and the per-parameter lines of a docstring."""
    text = inspect.getdoc(function) or ""
    summary = text.split("\n\n")[0].replace("\n", " ").strip() or function.__name__
    params = {}
    for line in text.splitlines():
        match = _PARAM_DOC.match(line)
        if match and match.group(1) not in ("Args", "Returns", "Raises"):
            params[match.group(1)] = match.group(2).strip()
    return summary, params


def _runner(function: Callable[..., Any]) -> Callable[[Mapping[str, Any], RunContext],
                                                      ToolOutput]:
    wants_ctx = "ctx" in inspect.signature(function).parameters

    def run(arguments: Mapping[str, Any], context: RunContext) -> ToolOutput:
        extra = {"ctx": ToolContext(context)} if wants_ctx else {}
        value = function(**arguments, **extra)
        if isinstance(value, ToolOutput):
            return value
        if isinstance(value, str):
            return ToolOutput(value)
        return ToolOutput(json.dumps(value, ensure_ascii=False, default=str))

    return run
