"""The hand-edited allowlist file (docs/SPEC.md §4.5): read with line numbers, append, remove, lock.

Rules are added and removed as *text*, at the place the YAML parser says
the list is, so a person's comments, order and formatting survive. Every
write is checked by parsing the result, done under a lock file, and lands by
rename: concurrent sessions never lose each other's rules, and a crash never
leaves half a file. A file that does not parse is never written.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from saikish.config import yaml_problem
from saikish.errors import RuleError, SaikishError
from saikish.rules import Rule, parse_rule

HEADER = "# saikish allowlist: rules here apply to every session.\n"
SECTIONS = ("allow", "deny")


class AllowlistError(SaikishError):
    """The allowlist file cannot be changed (it does not parse, or a write failed)."""


@dataclass(frozen=True)
class AllowlistState:
    """The rules the file holds now, and what was wrong with it."""

    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    errors: tuple[str, ...] = ()
    # False when part of the deny list could not be read: allow nothing on trust.
    deny_complete: bool = True


class Allowlist:
    """One allowlist file; `current()` re-reads it whenever it changed on disk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._state = AllowlistState()

    def current(self) -> AllowlistState:
        """The file's rules as they are now (hand edits apply to the next call)."""
        stamp = _stamp(self.path)
        if stamp != self._stamp:
            self._state = read_state(self.path)
            self._stamp = stamp
        return self._state

    def add(self, rule: Rule, section: str = "allow") -> bool:
        """Append `rule` under `section`; False when it was there already."""
        with self._locked() as text:
            state = parse_state(text, self.path)
            if state.errors:
                raise AllowlistError(f"{state.errors[0]}; not changing the file until it is fixed")
            if rule.text in {r.text for r in getattr(state, section)}:
                return False
            expected = _texts(state)
            expected[section].append(rule.text)
            self._write(insert_rule(text, section, rule), expected)
        return True

    def remove(self, rule_text: str) -> bool:
        """Remove every rule written as `rule_text`; False when there was none."""
        with self._locked() as text:
            state = parse_state(text, self.path)
            if state.errors:
                raise AllowlistError(f"{state.errors[0]}; not changing the file until it is fixed")
            expected = {k: [t for t in v if t != rule_text] for k, v in _texts(state).items()}
            if expected == _texts(state):
                return False
            self._write(delete_rule(text, rule_text), expected)
        return True

    @contextlib.contextmanager
    def _locked(self) -> Iterator[str]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock = self.path.with_name(self.path.name + ".lock")
        with open(lock, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield self.path.read_text(encoding="utf-8") if self.path.exists() else ""
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def _write(self, new: str, expected: dict[str, list[str]]) -> None:
        if _texts(parse_state(new, self.path)) != expected:
            # Our own edit did not give exactly the rules intended: refuse, lose nothing.
            raise AllowlistError(f"{self.path}: could not update the file safely")
        fd, tmp = tempfile.mkstemp(prefix=".allowlist.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                handle.write(new)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._stamp = None


def _texts(state: AllowlistState) -> dict[str, list[str]]:
    return {"allow": [r.text for r in state.allow], "deny": [r.text for r in state.deny]}


def read_state(path: Path) -> AllowlistState:
    """Parse the file at `path`; a missing file has no rules and no errors."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return AllowlistState()
    except (OSError, UnicodeDecodeError) as exc:
        return AllowlistState(errors=(f"{path}: cannot read: {exc}",), deny_complete=False)
    return parse_state(text, path)


def parse_state(text: str, path: Path) -> AllowlistState:
    """The rules in `text`, each error with file and line; never raises."""
    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError as exc:
        line, problem = yaml_problem(exc)
        where = f"{path}:{line}" if line else str(path)
        return AllowlistState(errors=(f"{where}: {problem}",), deny_complete=False)
    if root is None:
        return AllowlistState()
    if not isinstance(root, yaml.MappingNode):
        return AllowlistState(errors=(f"{path}:{root.start_mark.line + 1}: the file must be a "
                                      f"mapping with 'allow:' and 'deny:' lists",),
                              deny_complete=False)
    found: dict[str, list[Rule]] = {"allow": [], "deny": []}
    errors: list[str] = []
    deny_complete = True
    for key, value in root.value:
        where = f"{path}:{key.start_mark.line + 1}"
        if key.value not in SECTIONS:
            errors.append(f"{where}: unknown key '{key.value}'; allowed: allow, deny")
            continue
        rules, problems = _rules(value, path, key.value)
        found[key.value].extend(rules)
        errors.extend(problems)
        deny_complete &= not (problems and key.value == "deny")
    return AllowlistState(tuple(found["allow"]), tuple(found["deny"]), tuple(errors),
                          deny_complete)


def _rules(node: yaml.Node, path: Path, section: str) -> tuple[list[Rule], list[str]]:
    if isinstance(node, yaml.ScalarNode) and node.tag.endswith(":null"):
        return [], []
    if not isinstance(node, yaml.SequenceNode):
        return [], [f"{path}:{node.start_mark.line + 1}: '{section}' must be a list of rules"]
    rules, errors = [], []
    for item in node.value:
        origin = f"{path}:{item.start_mark.line + 1}"
        try:
            rules.append(parse_rule(_load(item), origin))
        except RuleError as exc:
            errors.append(str(exc))
    return rules, errors


def _load(node: yaml.Node) -> Any:
    return yaml.safe_load(yaml.serialize(node))


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino


# -- text edits -------------------------------------------------------------------

def rule_yaml(rule: Rule) -> str:
    """The rule as one line of YAML (a flow item)."""
    dumped = yaml.safe_dump([rule.to_yaml()], default_flow_style=True, width=10_000)
    return dumped.strip()[1:-1]


def insert_rule(text: str, section: str, rule: Rule) -> str:
    """`text` with `rule` appended to the `section` list, everything else unchanged."""
    item = rule_yaml(rule)
    if not text.strip():
        return (text or HEADER) + f"{section}:\n  - {item}\n"
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    value = _section(root, section)
    if value is None:  # no such key yet: add it at the end
        return text + ("" if text.endswith("\n") else "\n") + f"{section}:\n  - {item}\n"
    key, node = value
    if isinstance(node, yaml.SequenceNode) and node.flow_style:
        inner = text[node.start_mark.index + 1:node.end_mark.index - 1].strip()
        flow = f"[{inner}, {item}]" if inner else f"[{item}]"
        return text[:node.start_mark.index] + flow + text[node.end_mark.index:]
    lines = text.splitlines(keepends=True)
    if isinstance(node, yaml.SequenceNode) and node.value:
        first, last = node.value[0], node.value[-1]
        dash = lines[first.start_mark.line][:first.start_mark.column].rstrip()
        indent = " " * (len(dash) - 1)
        end_line = _last_line(last)
    else:  # 'allow:' with nothing after it
        indent = " " * (key.start_mark.column + 2)
        end_line = key.start_mark.line
    if end_line < len(lines) and not lines[end_line].endswith("\n"):
        lines[end_line] += "\n"
    lines.insert(end_line + 1, f"{indent}- {item}\n")
    return "".join(lines)


def delete_rule(text: str, rule_text: str) -> str:
    """`text` without the list items whose rule is `rule_text`."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    for section in SECTIONS:
        found = _section(root, section)
        if found is None or not isinstance(found[1], yaml.SequenceNode):
            continue
        node = found[1]
        keep = [item for item in node.value if _text(item) != rule_text]
        if len(keep) == len(node.value):
            continue
        if node.flow_style:
            flow = yaml.safe_dump([_load(i) for i in keep], default_flow_style=True,
                                  width=10_000).strip()
            return delete_rule(text[:node.start_mark.index] + flow +
                               text[node.end_mark.index:], rule_text)
        for item in node.value:
            if item not in keep:
                drop.update(range(item.start_mark.line, _last_line(item) + 1))
    return "".join(line for n, line in enumerate(lines) if n not in drop)


def _last_line(node: yaml.Node) -> int:
    """The line a node's own text ends on (a block node's end mark is the next token)."""
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        return _last_line(node.value[-1][1])
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return _last_line(node.value[-1])
    end = node.end_mark
    return end.line if end.column > 0 else end.line - 1


def _text(node: yaml.Node) -> str | None:
    try:
        return parse_rule(_load(node)).text
    except RuleError:
        return None


def _section(root: yaml.Node | None, section: str) -> tuple[yaml.Node, yaml.Node] | None:
    if not isinstance(root, yaml.MappingNode):
        return None
    for key, value in root.value:
        if key.value == section:
            return key, value
    return None
