"""The hand-edited allowlist file (docs/SPEC.md §4.5): read with line numbers, append, remove, lock.

The file has global lists (`allow`, `deny`, `ask`) and one section per
project under `projects:`, keyed by the project's absolute path; it lives in
the person's config dir, never in a repository, so a clone cannot plant
rules. Rules are added and removed as *text*, at the place the YAML parser
says the list is, so a person's comments, order and formatting survive.
Every write is checked by parsing the result, done under a lock file, and
lands by rename (through a symlink, onto the file it points at): concurrent
sessions never lose each other's rules, and a crash never leaves half a
file. A file that does not parse is never written.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml

from saikish.config.allowlist_text import (
    HEADER,
    PROJECTS,
    SECTIONS,
    AllowlistError,
    ProjectPath,
    compose_text,
    delete_rule,
    insert_rule,
    list_values,
    names_project,
    project_key,
    project_root,
    rule_yaml,
    same_dir,
)
from saikish.config.rule_hints import never_matches
from saikish.errors import ConfigError, RuleError
from saikish.rules import Rule, parse_rule
from saikish.store.atomic import atomic_write
from saikish.store.filelock import exclusive
from saikish.store.yamlfile import (
    STD,
    check_tag,
    compose,
    is_null,
    line_of,
    plain,
    read_text,
)

__all__ = ["HEADER", "Allowlist", "AllowlistError", "AllowlistState", "ProjectRules",
           "delete_rule", "insert_rule", "names_project", "parse_state", "project_key",
           "project_root", "read_state", "rule_yaml", "same_dir"]

@dataclass(frozen=True)
class ProjectRules:
    """One `projects:` section: the rules for one workspace."""

    path: str
    line: int
    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    ask: tuple[Rule, ...] = ()
    # False when part of its deny or ask list could not be read.
    complete: bool = True


@dataclass(frozen=True)
class AllowlistState:
    """The rules the file holds now, and what was wrong with it."""

    allow: tuple[Rule, ...] = ()
    deny: tuple[Rule, ...] = ()
    errors: tuple[str, ...] = ()
    # False when part of a deny or ask list could not be read: allow nothing on trust.
    deny_complete: bool = True
    ask: tuple[Rule, ...] = ()
    projects: tuple[ProjectRules, ...] = ()

    def project(self, workspace: str) -> ProjectRules:
        """The rules of the project `workspace` is in (every section naming it, merged)."""
        found = [p for p in self.projects if names_project(p.path, workspace)]
        return ProjectRules(
            project_root(workspace), found[0].line if found else 0,
            tuple(r for p in found for r in p.allow), tuple(r for p in found for r in p.deny),
            tuple(r for p in found for r in p.ask), all(p.complete for p in found))


class Allowlist:
    """One allowlist file; `current()` re-reads it whenever it changed on disk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._stamp: tuple[int, int, int] | None = None
        self._state = AllowlistState()

    def current(self) -> AllowlistState:
        """The file's rules as they are now (hand edits apply to the next call)."""
        stamp = _stamp(self.path)
        if stamp != self._stamp or stamp is None:
            self._state = read_state(self.path)
            self._stamp = stamp
        return self._state

    def add(self, rule: Rule, section: str = "allow", project: ProjectPath = None) -> bool:
        """Append `rule` under `section` of the scope; False when it was there already."""
        key = None if project is None else project_key(project)
        with self._locked() as text:
            state, root = self._parsed(text)
            if rule.text in _texts(state).get((key or "", section), []):
                return False
            new = insert_rule(text, section, rule, key, root)
            expected = list_values(root)
            expected.setdefault((key or "", section), []).append(rule.to_yaml())
            # Checked by value, not by parsing every rule again: linear and cheap on big files.
            self._land(new, list_values(compose_text(new)) == expected)
        return True

    def remove(self, rule_text: str, project: ProjectPath = None) -> bool:
        """Remove every rule written as `rule_text` from the scope; False when there was none."""
        key = "" if project is None else project_key(project)
        with self._locked() as text:
            state, _ = self._parsed(text)
            before = _texts(state)
            expected = {k: [t for t in v if not (k[0] == key and t == rule_text)]
                        for k, v in before.items()}
            if expected == before:
                return False
            new = delete_rule(text, rule_text, key or None)
            self._land(new, _nonempty(_texts(parse_state(new, self.path))) == _nonempty(expected))
        return True

    def _parsed(self, text: str) -> tuple[AllowlistState, yaml.Node | None]:
        state, root = _parse(text, self.path)
        if state.errors:
            raise AllowlistError(f"{state.errors[0]}; not changing the file until it is fixed")
        return state, root

    @contextlib.contextmanager
    def _locked(self) -> Iterator[str]:
        target = self.target()
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(exclusive(target))
            except OSError as exc:
                raise AllowlistError(f"{self.path}: cannot lock: {exc.strerror or exc}") \
                    from None
            yield self._text(target)

    def target(self) -> Path:
        """The file really written: a symlinked allowlist is edited where it points."""
        return Path(os.path.realpath(self.path))

    def _text(self, target: Path) -> str:
        if not target.exists() and not target.is_symlink():
            return ""
        try:
            return read_text(target)
        except ConfigError as exc:
            raise AllowlistError(f"{exc}; not changing the file") from None

    def _land(self, new: str, as_intended: bool) -> None:
        if not as_intended:
            # Our own edit did not give exactly the rules intended: refuse, lose nothing.
            raise AllowlistError(f"{self.path}: could not update the file safely")
        target = self.target()
        try:
            atomic_write(target, new)
        except OSError as exc:
            raise AllowlistError(f"{self.path}: cannot write: {exc.strerror or exc}; "
                                 f"the file is unchanged") from None
        self._stamp = None


def _texts(state: AllowlistState) -> dict[tuple[str, str], list[str]]:
    """Every rule text by (scope, section); scope "" is global."""
    out: dict[tuple[str, str], list[str]] = {}
    for section in SECTIONS:
        out[("", section)] = [r.text for r in getattr(state, section)]
    for project in state.projects:
        for section in SECTIONS:
            key = (project_key(project.path), section)
            out.setdefault(key, []).extend(r.text for r in getattr(project, section))
    return out


def _nonempty(texts: dict[tuple[str, str], list[str]]) -> dict[tuple[str, str], list[str]]:
    return {k: v for k, v in texts.items() if v}


def read_state(path: Path) -> AllowlistState:
    """Parse the file at `path`; a missing file has no rules and no errors."""
    if not path.exists() and not path.is_symlink():
        return AllowlistState()
    try:
        text = read_text(path)
    except ConfigError as exc:
        return AllowlistState(errors=(str(exc),), deny_complete=False)
    return parse_state(text, path)


def parse_state(text: str, path: Path) -> AllowlistState:
    """The rules in `text`, each error with file and line; never raises."""
    return _parse(text, path)[0]


def _parse(text: str, path: Path) -> tuple[AllowlistState, yaml.Node | None]:
    try:
        root = compose(text, path)
    except ConfigError as exc:
        return AllowlistState(errors=(str(exc),), deny_complete=False), None
    if root is None:
        return AllowlistState(), None
    if not isinstance(root, yaml.MappingNode):
        return AllowlistState(errors=(f"{path}:{line_of(root)}: the file must be a mapping "
                                      f"with 'allow:', 'deny:', 'ask:' and 'projects:'",),
                              deny_complete=False), root
    reader = _StateReader(path)
    found, complete = reader.lists(root, "", SECTIONS + (PROJECTS,))
    return AllowlistState(tuple(found["allow"]), tuple(found["deny"]), tuple(reader.errors),
                          reader.complete and complete, tuple(found["ask"]),
                          tuple(reader.projects)), root


class _StateReader:
    """Collects rules and errors from one parsed file; never raises."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.errors: list[str] = []
        self.complete = True
        self.projects: list[ProjectRules] = []

    def error(self, node: yaml.Node, message: str) -> None:
        self.errors.append(f"{self.path}:{line_of(node)}: {message}")

    def lists(self, node: yaml.MappingNode, where: str,
              allowed: tuple[str, ...]) -> tuple[dict[str, list[Rule]], bool]:
        """The rule lists of one scope's mapping, and whether its deny/ask lists are whole."""
        found: dict[str, list[Rule]] = {name: [] for name in SECTIONS}
        complete = True
        for key, value in node.value:
            name = key.value if isinstance(key, yaml.ScalarNode) else None
            if name not in allowed:
                shown = name if name is not None else "(a list or mapping)"
                self.error(key, f"unknown key '{shown}'{where}; allowed: {', '.join(allowed)}")
                complete = False
                continue
            if name == PROJECTS:
                self.read_projects(value)
                continue
            before = len(self.errors)
            found[str(name)].extend(self.rules(value, str(name)))
            if len(self.errors) > before and name in ("deny", "ask"):
                complete = False
        return found, complete

    def read_projects(self, node: yaml.Node) -> None:
        if is_null(node):
            return
        if not isinstance(node, yaml.MappingNode):
            self.error(node, "'projects' maps absolute workspace paths to their rules")
            self.complete = False  # whose deny rules were meant is unknown: fail closed
            return
        for key, value in node.value:
            written = key.value if isinstance(key, yaml.ScalarNode) else None
            if not isinstance(written, str) or not os.path.isabs(os.path.expanduser(written)):
                self.error(key, "a project is named by its absolute path, e.g. /home/me/app")
                self.complete = False
                continue
            if is_null(value):
                self.projects.append(ProjectRules(written, line_of(key)))
                continue
            if not isinstance(value, yaml.MappingNode):
                self.error(value, f"project {written}: must map allow/deny/ask to rule lists")
                self.complete = False
                continue
            found, complete = self.lists(value, f" in project {written}", SECTIONS)
            self.projects.append(ProjectRules(
                written, line_of(key), tuple(found["allow"]), tuple(found["deny"]),
                tuple(found["ask"]), complete))

    def rules(self, node: yaml.Node, section: str) -> list[Rule]:
        if is_null(node):
            return []
        if not isinstance(node, yaml.SequenceNode):
            self.error(node, f"'{section}' must be a list of rules")
            return []
        try:
            check_tag(node, self.path, section)
        except ConfigError as exc:
            self.errors.append(str(exc))
            return []
        rules = []
        for item in node.value:
            origin = f"{self.path}:{line_of(item)}"
            try:
                rule = parse_rule(_value(item, self.path, section), origin)
            except (RuleError, ConfigError) as exc:
                self.errors.append(str(exc))
                continue
            problem = never_matches(rule)
            if problem:  # said like a rule that does not parse: deny lists count as broken
                self.errors.append(f"{origin}: {problem}")
            else:
                rules.append(rule)
        return rules


def _value(node: yaml.Node, path: Path, section: str) -> object:
    """A rule's plain value; most are plain strings, read without the general walk."""
    if isinstance(node, yaml.ScalarNode) and node.tag == STD + "str":
        return node.value
    return plain(node, path, section)


def _stamp(path: Path) -> tuple[int, int, int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size, st.st_ino
