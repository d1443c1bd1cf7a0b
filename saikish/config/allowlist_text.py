"""The allowlist file's text (docs/SPEC.md §4.5): its shape, and edits that keep every comment.

Rules are added and removed as *text*, at the place the YAML parser says
the list is, so a person's comments, order and formatting survive; what
the parser cannot place is refused, never guessed.
"""

from __future__ import annotations

import os

import yaml

from saikish.errors import ConfigError, RuleError, SaikishError
from saikish.rules import Rule, parse_rule
from saikish.store.yamlfile import compose, is_null, plain

HEADER = "# saikish allowlist: rules here apply to every session.\n"
SECTIONS = ("allow", "deny", "ask")
PROJECTS = "projects"
ProjectPath = str | None  # None: every project (global); else a project's absolute path


class AllowlistError(SaikishError):
    """The allowlist file cannot be changed (it does not parse, or a write failed)."""


def project_key(path: str) -> str:
    """How a project is named in the file: its absolute path with links resolved."""
    return os.path.realpath(os.path.expanduser(path))


def same_dir(written: str, path: str) -> bool:
    """True when a `projects:` key names the directory `path`."""
    return project_key(written) == project_key(path)


def project_root(path: str) -> str:
    """The project `path` is in: the nearest directory holding `.git` (a repository or a
    worktree), else `path` itself; so `cd build && saikish` is the same project."""
    start = project_key(path)
    folder = start
    while True:
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return start
        folder = parent


def names_project(written: str, workspace: str) -> bool:
    """True when a `projects:` key is for `workspace`: its project's root, or the directory
    itself (how sections were keyed before: they keep working, nothing is migrated)."""
    key = project_key(written)
    return key in (project_key(workspace), project_root(workspace))


def rule_yaml(rule: Rule) -> str:
    """The rule as one line of YAML (a flow item)."""
    dumped = yaml.safe_dump([rule.to_yaml()], default_flow_style=True, width=10_000)
    return dumped.strip()[1:-1]


def insert_rule(text: str, section: str, rule: Rule, project: ProjectPath = None,
                root: yaml.Node | None = None) -> str:
    """`text` with `rule` appended to `section` of the scope, everything else unchanged.

    `root` is `text` already composed, when the caller has it.
    """
    keys = [section] if project is None else [PROJECTS, project, section]
    if not text.strip():
        return (text or HEADER) + _block(keys, rule, 0)
    root = root if root is not None else _compose(text)
    if not isinstance(root, yaml.MappingNode):  # only comments so far
        return _at_end(text, _block(keys, rule, 0))
    return _Inserter(text, rule).into(root, None, keys, top=True)


def list_values(root: yaml.Node | None) -> dict[tuple[str, str], list[object]]:
    """Every rule list's plain values by (project key or "", section): the file's meaning.

    Comparing this before and after an edit proves the edit added exactly one
    rule where it was meant to go, without parsing every rule again.
    """
    if root is None:
        return {}
    out: dict[tuple[str, str], list[object]] = {}
    scopes = [("", root)] + [
        (project_key(str(key.value)), value) for _, projects in _children(root, PROJECTS)
        if isinstance(projects, yaml.MappingNode) for key, value in projects.value
        if isinstance(key, yaml.ScalarNode)]
    for scope, node in scopes:
        for section in SECTIONS:
            for _, items in _children(node, section):
                if isinstance(items, yaml.SequenceNode):
                    out.setdefault((scope, section), []).extend(
                        plain(item, "allowlist") for item in items.value)
    return {k: v for k, v in out.items() if v}


def compose_text(text: str) -> yaml.Node | None:
    """The node tree of an allowlist's text; AllowlistError when it does not parse."""
    return _compose(text)


def _compose(text: str) -> yaml.Node | None:
    try:
        return compose(text, "allowlist")
    except ConfigError as exc:
        raise AllowlistError(str(exc)) from None


def _at_end(text: str, block: str) -> str:
    return text + ("" if text.endswith("\n") else "\n") + block


def _key_yaml(key: str) -> str:
    dumped = yaml.safe_dump(key, width=10_000)
    return dumped.removesuffix("\n...\n").strip()


def _block(keys: list[str], rule: Rule, indent: int) -> str:
    """Block YAML for `keys` nested, ending in a one-item list holding `rule`."""
    out = "".join(" " * (indent + 2 * depth) + _key_yaml(key) + ":\n"
                  for depth, key in enumerate(keys))
    return out + " " * (indent + 2 * len(keys)) + f"- {rule_yaml(rule)}\n"


def _flow(keys: list[str], rule: Rule) -> str:
    """Flow YAML for the same nesting: 'key: {section: [rule]}' (no outer braces)."""
    value: object = [rule.to_yaml()]
    for key in reversed(keys[1:]):
        value = {key: value}
    dumped = yaml.safe_dump({keys[0]: value}, default_flow_style=True, width=10_000)
    return dumped.strip()[1:-1]


class _Inserter:
    """Finds (or makes) the place for one new rule, editing the text as little as it can."""

    def __init__(self, text: str, rule: Rule) -> None:
        self.text, self.rule = text, rule

    def into(self, node: yaml.Node, key: yaml.Node | None, keys: list[str],
             top: bool = False) -> str:
        if not keys:
            return self.append(node, key)
        if isinstance(node, yaml.MappingNode):
            for child_key, child in node.value:
                if isinstance(child_key, yaml.ScalarNode) and _names(child_key.value, keys[0]):
                    return self.into(child, child_key, keys[1:])
            return self.add_key(node, keys, top)
        if is_null(node) and key is not None:
            return self.fill_null(node, key, keys)
        raise AllowlistError("cannot add the rule: the file's layout is not one saikish "
                             "can edit safely")

    def add_key(self, node: yaml.MappingNode, keys: list[str], top: bool) -> str:
        text = self.text
        if node.flow_style:
            start, end = node.start_mark.index, node.end_mark.index
            inner = text[start + 1:end - 1].strip()
            body = f"{inner}, {_flow(keys, self.rule)}" if inner else _flow(keys, self.rule)
            return text[:start] + "{" + body + "}" + text[end:]
        if top:
            return _at_end(text, _block(keys, self.rule, 0))
        indent = int(node.value[0][0].start_mark.column)
        return self.insert_after(_last_line(node), _block(keys, self.rule, indent))

    def fill_null(self, node: yaml.Node, key: yaml.Node, keys: list[str]) -> str:
        start, end = node.start_mark.index, node.end_mark.index
        if start == end:  # 'key:' with nothing after it
            block = _block(keys, self.rule, int(key.start_mark.column) + 2)
            return self.insert_after(int(key.start_mark.line), block)
        return self.text[:start] + "{" + _flow(keys, self.rule) + "}" + self.text[end:]

    def append(self, node: yaml.Node, key: yaml.Node | None) -> str:
        text, item = self.text, rule_yaml(self.rule)
        if isinstance(node, yaml.SequenceNode) and node.flow_style:
            inner = text[node.start_mark.index + 1:node.end_mark.index - 1].strip()
            flow = f"[{inner}, {item}]" if inner else f"[{item}]"
            return text[:node.start_mark.index] + flow + text[node.end_mark.index:]
        if isinstance(node, yaml.SequenceNode) and node.value:
            lines = text.splitlines(keepends=True)
            first = node.value[0]
            dash = lines[first.start_mark.line][:first.start_mark.column].rstrip()
            indent = " " * (len(dash) - 1)
            return self.insert_after(_last_line(node.value[-1]), f"{indent}- {item}\n")
        if is_null(node) and key is not None:
            start, end = node.start_mark.index, node.end_mark.index
            if start != end:  # 'allow: ~'
                return text[:start] + f"[{item}]" + text[end:]
            indent = " " * (int(key.start_mark.column) + 2)
            return self.insert_after(int(key.start_mark.line), f"{indent}- {item}\n")
        raise AllowlistError("cannot add the rule: the list is not one saikish can edit")

    def insert_after(self, line: int, block: str) -> str:
        lines = self.text.splitlines(keepends=True)
        if line < len(lines) and not lines[line].endswith("\n"):
            lines[line] += "\n"
        lines.insert(line + 1, block)
        return "".join(lines)


def _names(written: str, wanted: str) -> bool:
    """A key in the file names `wanted`: the same word, or the same project directory."""
    if written == wanted:
        return True
    return os.path.isabs(wanted) and isinstance(written, str) and \
        os.path.isabs(os.path.expanduser(written)) and same_dir(written, wanted)


def delete_rule(text: str, rule_text: str, project: ProjectPath = None) -> str:
    """`text` without the list items of the scope whose rule is `rule_text`."""
    root = _compose(text)
    lines = text.splitlines(keepends=True)
    drop: set[int] = set()
    for node in _scope_lists(root, project):
        gone = [item for item in node.value if _text(item) == rule_text]
        if not gone:
            continue
        if node.flow_style:
            keep = [item for item in node.value if _text(item) != rule_text]
            flow = yaml.safe_dump([plain(i, "allowlist") for i in keep],
                                  default_flow_style=True, width=10_000).strip()
            return delete_rule(text[:node.start_mark.index] + flow +
                               text[node.end_mark.index:], rule_text, project)
        for item in gone:  # not `item not in keep`: that scan made 60,000 rules take 75 s
            drop.update(range(item.start_mark.line, _last_line(item) + 1))
    return "".join(line for n, line in enumerate(lines) if n not in drop)


def _scope_lists(root: yaml.Node | None, project: ProjectPath) -> list[yaml.SequenceNode]:
    """The rule lists of one scope: the top level, or every section naming `project`."""
    if not isinstance(root, yaml.MappingNode):
        return []
    scopes: list[yaml.Node] = [root]
    if project is not None:
        sections = [node for _, node in _children(root, PROJECTS)
                    if isinstance(node, yaml.MappingNode)]
        scopes = [value for node in sections for key, value in node.value
                  if isinstance(key, yaml.ScalarNode) and _names(key.value, project)]
    return [value for scope in scopes for section in SECTIONS
            for _, value in _children(scope, section) if isinstance(value, yaml.SequenceNode)]


def _children(node: yaml.Node, name: str) -> list[tuple[yaml.Node, yaml.Node]]:
    if not isinstance(node, yaml.MappingNode):
        return []
    return [(k, v) for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == name]


def _last_line(node: yaml.Node) -> int:
    """The line a node's own text ends on (a block node's end mark is the next token)."""
    if isinstance(node, yaml.MappingNode) and not node.flow_style and node.value:
        return _last_line(node.value[-1][1])
    if isinstance(node, yaml.SequenceNode) and not node.flow_style and node.value:
        return _last_line(node.value[-1])
    end = node.end_mark
    return int(end.line if end.column > 0 else end.line - 1)


def _text(node: yaml.Node) -> str | None:
    try:
        return parse_rule(plain(node, "allowlist")).text
    except (RuleError, ConfigError):
        return None
