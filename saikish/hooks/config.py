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
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from saikish.errors import ConfigError
from saikish.store.yamlfile import check_tag, entries, is_null, line_of, plain, seconds

# The events saikish produces; the rest of Claude Code's are read, said once, never run.
EVENTS = ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SessionStart",
          "Notification")
CLAUDE_ONLY_EVENTS = ("PermissionRequest", "PermissionDenied", "PostToolUseFailure",
                      "SubagentStart", "SubagentStop", "PreCompact", "PostCompact",
                      "SessionEnd", "StopFailure", "TeammateIdle", "TaskCreated",
                      "TaskCompleted", "ConfigChange", "InstructionsLoaded", "CwdChanged",
                      "FileChanged", "WorktreeCreate", "WorktreeRemove", "Elicitation",
                      "ElicitationResult", "Setup")
# Events whose hooks Claude Code runs whatever their matcher says.
UNMATCHED_EVENTS = ("UserPromptSubmit", "Stop")
GROUP_KEYS = ("matcher", "hooks")
# Every key of Claude Code's hook entries; saikish acts on type, command, timeout and once.
HOOK_KEYS = ("type", "command", "timeout", "statusMessage", "once", "async", "asyncRewake",
             "shell", "if", "prompt", "model", "url", "headers", "allowedEnvVars", "server",
             "tool", "input")
FLAG_KEYS = ("once", "async", "asyncRewake")
TEXT_KEYS = ("statusMessage", "shell", "if", "prompt", "model", "url", "server", "tool")
HOOK_TYPES = ("command", "prompt", "agent", "http", "mcp_tool")
DEFAULT_TIMEOUT = 60.0
# A matcher of only these characters names tools exactly ("Edit|Write"), as in Claude Code.
EXACT_MATCHER = re.compile(r"[A-Za-z0-9_|]*")


@dataclass(frozen=True)
class HookSpec:
    """One command hook: its event, the tool-name regex it matches, where it was set."""

    event: str
    matcher: str
    command: str
    timeout: float = DEFAULT_TIMEOUT
    origin: str = ""
    once: bool = False  # run the first time it matches in a session, then never again

    def matches(self, *names: str) -> bool:
        """True when the matcher covers any of `names`, read as Claude Code reads it.

        "" and "*" cover all; letters, digits, `_` and `|` name tools exactly ("Edit|Write");
        anything else is a regex searched in the name (`mcp__fs__(write|edit)`).
        """
        if self.matcher in ("", "*") or self.event in UNMATCHED_EVENTS:
            return True
        if EXACT_MATCHER.fullmatch(self.matcher):
            return any(name in self.matcher.split("|") for name in names if name)
        return any(re.search(self.matcher, name) for name in names if name)


@dataclass(frozen=True)
class HookTable:
    """The hooks of one or more agent.yml files, in file order."""

    specs: tuple[HookSpec, ...] = ()
    # One line per thing of a file saikish read but will not run (events, types, keys).
    notes: tuple[str, ...] = ()

    def __len__(self) -> int:
        return len(self.specs)

    def __add__(self, other: HookTable) -> HookTable:
        return HookTable(self.specs + other.specs, self.notes + other.notes)

    def __str__(self) -> str:
        return "; ".join(f"{s.event}: {s.command}" for s in self.specs)

    def for_event(self, event: str) -> tuple[HookSpec, ...]:
        """The hooks of `event`, in the order they were written."""
        return tuple(s for s in self.specs if s.event == event)


def read_hooks(node: yaml.Node, path: Path) -> HookTable:
    """The `hooks:` node of an agent.yml as a HookTable; ConfigError with file and line.

    What Claude Code accepts and saikish cannot run (its other events, hook types and
    keys, keys it may add later) is kept out of the table and said in its notes, one
    line per kind; wrong types stay errors.
    """
    return _Reader(path).table(node)


@dataclass
class _Skipped:
    """What the reader kept out of the table: (what, line) per kind, for the notes."""

    events: list[tuple[str, int]] = field(default_factory=list)
    types: list[tuple[str, int]] = field(default_factory=list)
    keys: list[tuple[str, int]] = field(default_factory=list)


class _Reader:
    """Walks the `hooks:` tree; every error names its line and key."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.skipped = _Skipped()

    def fail(self, node: yaml.Node, key: str, message: str) -> ConfigError:
        return ConfigError(message, self.path, line_of(node), key)

    def entries(self, node: yaml.Node, key: str,
                allowed: tuple[str, ...]) -> list[tuple[str, yaml.Node, yaml.Node]]:
        """The mapping's entries; keys outside `allowed` are noted, not refused."""
        out = []
        for name, key_node, value in entries(node, self.path, key, None):
            if name in allowed:
                out.append((name, key_node, value))
            else:
                self.skipped.keys.append((f"{key}.{name}", line_of(key_node)))
        return out

    def items(self, node: yaml.Node, key: str, what: str) -> list[yaml.Node]:
        if is_null(node):
            return []
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, key, f"must be a list of {what}")
        check_tag(node, self.path, key)
        return list(node.value)

    def table(self, node: yaml.Node) -> HookTable:
        specs: list[HookSpec] = []
        for event, key_node, groups in entries(node, self.path, "hooks", None):
            key = f"hooks.{event}"
            found = [self.group(event, group, key)
                     for group in self.items(groups, key, "{matcher, hooks} entries")]
            if event in EVENTS:
                specs.extend(spec for group in found for spec in group)
            else:
                self.event_skipped(event, key_node)
        return HookTable(tuple(specs), self.notes())

    def event_skipped(self, event: str, node: yaml.Node) -> None:
        """An event saikish does not produce: noted; a miscased one of ours is an error."""
        ours = [known for known in EVENTS if known.lower() == event.lower()]
        if ours:
            raise self.fail(node, f"hooks.{event}", f"unknown event; did you mean {ours[0]}?")
        known = "" if event in CLAUDE_ONLY_EVENTS else " (not an event saikish knows)"
        self.skipped.events.append((event + known, line_of(node)))

    def notes(self) -> tuple[str, ...]:
        heads = (("events", "hooks for {} never run: saikish does not produce these events"),
                 ("types", "hooks of {} are skipped: saikish runs hooks of type: command"),
                 ("keys", "{} ignored: keys saikish does not use"))
        out = []
        for kind, text in heads:
            found: list[tuple[str, int]] = getattr(self.skipped, kind)
            if found:
                listed = ", ".join(f"{what} (line {line})" for what, line in found)
                out.append(f"{self.path}:{found[0][1]}: " + text.format(listed))
        return tuple(out)

    def group(self, event: str, node: yaml.Node, key: str) -> list[HookSpec]:
        fields = {name: value for name, _, value in self.entries(node, key, GROUP_KEYS)}
        matcher = self.matcher(fields.get("matcher"), f"{key}.matcher")
        if "hooks" not in fields:
            raise self.fail(node, f"{key}.hooks", "missing: the list of commands to run")
        hooks = [self.hook(event, matcher, item, f"{key}.hooks")
                 for item in self.items(fields["hooks"], f"{key}.hooks",
                                        "{type: command, command, timeout} entries")]
        return [spec for spec in hooks if spec is not None]

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

    def hook(self, event: str, matcher: str, node: yaml.Node, key: str) -> HookSpec | None:
        fields = {name: value for name, _, value in self.entries(node, key, HOOK_KEYS)}
        kind = plain(fields["type"], self.path, f"{key}.type") if "type" in fields else None
        if not isinstance(kind, str) or not kind:
            raise self.fail(fields.get("type", node), f"{key}.type",
                            "must be a string: saikish runs hooks of type: command"
                            if kind is not None else
                            "missing: saikish runs hooks of type: command")
        flags = self.check_values(fields, key)
        if kind != "command":
            known = "" if kind in HOOK_TYPES else " (not a type saikish knows)"
            self.skipped.types.append((f"type: {kind}{known}", line_of(fields["type"])))
            return None
        command = plain(fields["command"], self.path, f"{key}.command") \
            if "command" in fields else None
        if not isinstance(command, str) or not command.strip():
            raise self.fail(fields.get("command", node), f"{key}.command",
                            "must be the command line to run, a non-empty string")
        return HookSpec(event, matcher, command, self.timeout(fields.get("timeout"), key),
                        f"{self.path}:{line_of(fields['command'])}", once=flags.get("once", False))

    def check_values(self, fields: dict[str, yaml.Node], key: str) -> dict[str, bool]:
        """The types of the keys saikish reads but does not act on; the flags' values."""
        flags = {}
        for name, node in fields.items():
            value = plain(node, self.path, f"{key}.{name}")
            if name in FLAG_KEYS and not isinstance(value, bool):
                raise self.fail(node, f"{key}.{name}", "must be true or false")
            if name in TEXT_KEYS and not isinstance(value, str):
                raise self.fail(node, f"{key}.{name}", "must be a string")
            if name in FLAG_KEYS:
                flags[name] = bool(value)
        return flags

    def timeout(self, node: yaml.Node | None, key: str) -> float:
        return seconds(node, self.path, f"{key}.timeout", DEFAULT_TIMEOUT)
