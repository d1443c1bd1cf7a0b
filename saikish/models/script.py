"""The script model (docs/SPEC.md §8.1): replays a YAML list of turns, one per model call."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from saikish.config.layers import yaml_problem
from saikish.errors import ConfigError
from saikish.models.base import Message, TextSink
from saikish.tools.base import Tool
from saikish.types import StopReason, ToolCall, Turn, Usage

END_OF_SCRIPT = "(end of script)"
TURN_KEYS = ("text", "tool_calls", "usage")
CALL_KEYS = ("name", "arguments", "id")


class ScriptModel:
    """Answers each model call with the next scripted turn."""

    def __init__(self, turns: Sequence[Turn], name: str = "script") -> None:
        self.turns = list(turns)
        self.name = name
        self.position = 0

    @classmethod
    def from_file(cls, path: Path) -> ScriptModel:
        """Load a script; a malformed one is a ConfigError naming the turn."""
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"cannot read script: {exc.strerror or exc}", path) from None
        except yaml.YAMLError as exc:
            line, problem = yaml_problem(exc)
            raise ConfigError(f"YAML syntax error: {problem}", path, line) from None
        return cls(parse_turns(data, str(path)), name=f"script:{path}")

    def complete(self, system: str, messages: Sequence[Message], tools: Sequence[Tool],
                 on_text: TextSink) -> Turn:
        """The next turn, its text streamed word by word; then `(end of script)`."""
        if self.position >= len(self.turns):
            on_text(END_OF_SCRIPT)
            return Turn(text=END_OF_SCRIPT)
        turn = self.turns[self.position]
        self.position += 1
        for piece in re.findall(r"\S+\s*|\s+", turn.text):
            on_text(piece)
        return turn


def parse_turns(data: Any, where: str) -> list[Turn]:
    """Turns from the YAML list `data`; errors name the turn and the key."""
    if data is None:
        return []
    if not isinstance(data, list):
        raise ConfigError("a script is a YAML list of turns ({text, tool_calls})", where)
    turns = []
    serial = 0
    for number, item in enumerate(data, 1):
        key = f"turn {number}"
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, Mapping):
            raise ConfigError("must be a mapping with text and/or tool_calls", where, key=key)
        _check_keys(item, TURN_KEYS, where, key)
        calls = []
        for index, spec in enumerate(item.get("tool_calls") or [], 1):
            serial += 1
            calls.append(_call(spec, serial, where, f"{key}.tool_calls[{index}]"))
        usage = item.get("usage") or {}
        turns.append(Turn(
            text=str(item.get("text") or ""), tool_calls=tuple(calls),
            usage=Usage(int(usage.get("input_tokens", 0)), int(usage.get("output_tokens", 0))),
            stop=StopReason.TOOL_USE if calls else StopReason.END_TURN))
    return turns


def _call(spec: Any, serial: int, where: str, key: str) -> ToolCall:
    if not isinstance(spec, Mapping) or not isinstance(spec.get("name"), str):
        raise ConfigError("a tool call needs 'name' (and 'arguments')", where, key=key)
    _check_keys(spec, CALL_KEYS, where, key)
    call_id = str(spec.get("id") or f"call_{serial}")
    arguments = spec.get("arguments", {})
    if isinstance(arguments, str):  # raw JSON text, as a model would send it
        try:
            parsed = json.loads(arguments)
        except (ValueError, RecursionError):
            parsed = None
        if not isinstance(parsed, dict):
            return ToolCall(call_id, spec["name"], {}, raw_arguments=arguments)
        arguments = parsed
    if not isinstance(arguments, Mapping):
        return ToolCall(call_id, spec["name"], {}, raw_arguments=json.dumps(arguments))
    return ToolCall(call_id, spec["name"], dict(arguments))


def _check_keys(item: Mapping[str, Any], allowed: tuple[str, ...], where: str, key: str) -> None:
    unknown = [k for k in item if k not in allowed]
    if unknown:
        raise ConfigError(f"unknown key '{unknown[0]}'; allowed: {', '.join(allowed)}",
                          where, key=key)
