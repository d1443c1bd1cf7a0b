"""agent.yml's `hooks:` in Claude Code's shape, checked with lines (docs/SPEC.md §7.2).

```yaml
hooks:
  PreToolUse:
    - matcher: "Bash|write_file"
      hooks:
        - {type: command, command: ./scripts/check-call.sh, timeout: 10}
```

Each command becomes one `HookSpec` that remembers the file and line it came
from, so `/hooks` can say where every hook was set.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from saikish.errors import ConfigError
from saikish.yamlfile import check_tag, entries, is_null, line_of, plain, seconds

EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart",
          "Notification")
GROUP_KEYS = ("matcher", "hooks")
HOOK_KEYS = ("type", "command", "timeout")
DEFAULT_TIMEOUT = 60.0


@dataclass(frozen=True)
class HookSpec:
    """One command hook: its event, the tool-name regex it matches, where it was set."""

    event: str
    matcher: str
    command: str
    timeout: float = DEFAULT_TIMEOUT
    origin: str = ""

    def matches(self, *names: str) -> bool:
        """True when the matcher covers any of `names` ("" or "*" covers all)."""
        if self.matcher in ("", "*"):
            return True
        return any(re.fullmatch(self.matcher, name) for name in names if name)


@dataclass(frozen=True)
class HookTable:
    """The hooks of one or more agent.yml files, in file order."""

    specs: tuple[HookSpec, ...] = ()

    def __len__(self) -> int:
        return len(self.specs)

    def __add__(self, other: HookTable) -> HookTable:
        return HookTable(self.specs + other.specs)

    def __str__(self) -> str:
        return "; ".join(f"{s.event}: {s.command}" for s in self.specs)

    def for_event(self, event: str) -> tuple[HookSpec, ...]:
        """The hooks of `event`, in the order they were written."""
        return tuple(s for s in self.specs if s.event == event)


def read_hooks(node: yaml.Node, path: Path) -> HookTable:
    """The `hooks:` node of an agent.yml as a HookTable; ConfigError with file and line."""
    return _Reader(path).table(node)


class _Reader:
    """Walks the `hooks:` tree; every error names its line and key."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def fail(self, node: yaml.Node, key: str, message: str) -> ConfigError:
        return ConfigError(message, self.path, line_of(node), key)

    def entries(self, node: yaml.Node, key: str,
                allowed: tuple[str, ...]) -> list[tuple[str, yaml.Node, yaml.Node]]:
        return entries(node, self.path, key, allowed)

    def items(self, node: yaml.Node, key: str, what: str) -> list[yaml.Node]:
        if is_null(node):
            return []
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, key, f"must be a list of {what}")
        check_tag(node, self.path, key)
        return list(node.value)

    def table(self, node: yaml.Node) -> HookTable:
        specs: list[HookSpec] = []
        for event, _, groups in self.entries(node, "hooks", EVENTS):
            key = f"hooks.{event}"
            for group in self.items(groups, key, "{matcher, hooks} entries"):
                specs.extend(self.group(event, group, key))
        return HookTable(tuple(specs))

    def group(self, event: str, node: yaml.Node, key: str) -> list[HookSpec]:
        fields = {name: value for name, _, value in self.entries(node, key, GROUP_KEYS)}
        matcher = self.matcher(fields.get("matcher"), f"{key}.matcher")
        if "hooks" not in fields:
            raise self.fail(node, f"{key}.hooks", "missing: the list of commands to run")
        return [self.hook(event, matcher, item, f"{key}.hooks")
                for item in self.items(fields["hooks"], f"{key}.hooks",
                                       "{type: command, command, timeout} entries")]

    def matcher(self, node: yaml.Node | None, key: str) -> str:
        if node is None or is_null(node):
            return ""
        value = plain(node, self.path, key)
        if not isinstance(value, str):
            raise self.fail(node, key, "must be a string (a regex on the tool name)")
        try:
            re.compile(value if value != "*" else "")
        except re.error as exc:
            raise self.fail(node, key, f"not a valid regex: {exc}") from None
        return value

    def hook(self, event: str, matcher: str, node: yaml.Node, key: str) -> HookSpec:
        fields = {name: value for name, _, value in self.entries(node, key, HOOK_KEYS)}
        kind = plain(fields["type"], self.path, f"{key}.type") if "type" in fields else None
        if kind != "command":
            raise self.fail(fields.get("type", node), f"{key}.type",
                            f"'{kind}' is not one of: command" if kind is not None
                            else "missing: saikish runs hooks of type: command")
        command = plain(fields["command"], self.path, f"{key}.command") \
            if "command" in fields else None
        if not isinstance(command, str) or not command.strip():
            raise self.fail(fields.get("command", node), f"{key}.command",
                            "must be the command line to run, a non-empty string")
        return HookSpec(event, matcher, command, self.timeout(fields.get("timeout"), key),
                        f"{self.path}:{line_of(fields['command'])}")

    def timeout(self, node: yaml.Node | None, key: str) -> float:
        return seconds(node, self.path, f"{key}.timeout", DEFAULT_TIMEOUT)
