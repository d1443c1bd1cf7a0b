"""Reading a hand-edited YAML file safely: every problem is one ConfigError with its line.

agent.yml and allowlist.yaml are composed to nodes (so every value keeps the
line it is on) and turned into plain values here, node by node, without
re-serialising: tags, odd dates, complex keys, huge numbers, deep nesting
and alias bombs each become one clear error instead of an exception.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import yaml

from saikish.errors import ConfigError
from saikish.store.readfile import FileTooLarge, NotRegularFile, read_regular

# libyaml composes ten times faster; its marks count characters like the Python parser's.
_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
STD = "tag:yaml.org,2002:"
MAX_DEPTH = 40  # nesting deeper than any real config: refused, not recursed into
MAX_NODES = 10_000  # per plain value: aliases cannot multiply one small file into gigabytes


def read_text(path: Path, limit: int = 64 << 20) -> str:
    """The file's text; ConfigError naming the file (and the line, for bad UTF-8).

    Only a regular file is read, and at most `limit` bytes: a repository's
    agent.yml linked to /dev/zero or a FIFO must not hang or fill memory.
    """
    try:
        data = read_regular(path, limit)
    except IsADirectoryError:
        raise ConfigError("is a directory, not a file", path) from None
    except NotRegularFile:
        raise ConfigError("is not a regular file", path) from None
    except FileTooLarge:
        raise ConfigError(f"is larger than {limit >> 20} MB", path) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", path) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise ConfigError(f"not valid UTF-8 (byte 0x{data[exc.start]:02x})", path,
                          line) from None


def compose(text: str, path: Path | str) -> yaml.Node | None:
    """The node tree of `text`; ConfigError with the line of a syntax error."""
    try:
        _check_depth(text, path)  # before composing: libyaml's composer recurses in C
        node: yaml.Node | None = yaml.compose(text, Loader=_LOADER)
    except yaml.reader.ReaderError as exc:
        line = text[:exc.position].count("\n") + 1
        raise ConfigError(f"character {exc.character!r} is not allowed in YAML", path,
                          line) from None
    except UnicodeEncodeError as exc:  # a lone surrogate: not text a file can hold
        line = text[:exc.start].count("\n") + 1
        raise ConfigError("not valid text (a lone surrogate)", path, line) from None
    except yaml.YAMLError as exc:
        where, problem = yaml_problem(exc)
        raise ConfigError(f"YAML syntax error: {problem}", path, where) from None
    except RecursionError:
        raise ConfigError("nested too deeply", path) from None
    return node


def yaml_problem(exc: yaml.YAMLError) -> tuple[int | None, str]:
    """(line, message) of a YAML error: where the broken construct starts, and what broke."""
    context = getattr(exc, "context_mark", None)
    problem_mark = getattr(exc, "problem_mark", None)
    mark = context or problem_mark
    problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
    if context is not None and getattr(exc, "context", None):
        problem = f"{exc.context} (line {context.line + 1}): {problem}"  # type: ignore[attr-defined]
    return (mark.line + 1 if mark else None), problem


def line_of(node: yaml.Node) -> int:
    """The 1-based line a node starts on."""
    return int(node.start_mark.line) + 1


def key_name(key: yaml.Node, path: Path | str, where: str) -> str:
    """A mapping key as text; complex keys ([a, b]: x) and tags are refused."""
    if not isinstance(key, yaml.ScalarNode):
        raise ConfigError("a key must be a plain name, not a list or mapping", path,
                          line_of(key), where or None)
    check_tag(key, path, where)
    return str(key.value)


def entries(node: yaml.Node, path: Path | str, where: str,
            allowed: tuple[str, ...] | None) -> list[tuple[str, yaml.Node, yaml.Node]]:
    """A mapping's (name, key node, value node), in file order; every key in `allowed`.

    `where` is the dotted key of the mapping ("" at the top); `allowed=None` takes
    any name (a mapping of user-chosen names, such as server names).
    """
    if is_null(node):
        return []
    if not isinstance(node, yaml.MappingNode):
        raise ConfigError("must be a mapping", path, line_of(node), where or None)
    check_tag(node, path, where)
    out = []
    for key_node, value in node.value:
        name = key_name(key_node, path, where)
        if allowed is not None and name not in allowed:
            raise ConfigError(f"unknown key; allowed: {', '.join(allowed)}", path,
                              line_of(key_node), f"{where}.{name}" if where else name)
        out.append((name, key_node, value))
    return out


def seconds(node: yaml.Node | None, path: Path | str, where: str, default: float) -> float:
    """A number of seconds > 0 (a timeout); `default` when the key is absent or empty."""
    if node is None or is_null(node):
        return default
    value = plain(node, path, where)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise ConfigError(f"must be a number of seconds > 0, not '{str(value)[:40]}'", path,
                          line_of(node), where)
    return float(value)


def is_null(node: yaml.Node) -> bool:
    """True for an empty value ('key:' with nothing after it, '~', 'null')."""
    return isinstance(node, yaml.ScalarNode) and node.tag == STD + "null"


def plain(node: yaml.Node, path: Path | str, where: str = "") -> Any:
    """The plain Python value of a node: str, int, float, bool, None, list, dict."""
    return _Plain(path, where).value(node, 0)


class _Plain:
    """One conversion, with its node budget."""

    def __init__(self, path: Path | str, where: str) -> None:
        self.path, self.where, self.left = path, where, MAX_NODES

    def fail(self, node: yaml.Node, message: str) -> ConfigError:
        return ConfigError(message, self.path, line_of(node), self.where or None)

    def value(self, node: yaml.Node, depth: int) -> Any:
        self.left -= 1
        if self.left < 0 or depth > MAX_DEPTH:
            raise self.fail(node, "value is too large or nested too deeply")
        if isinstance(node, yaml.SequenceNode):
            check_tag(node, self.path, self.where)
            return [self.value(item, depth + 1) for item in node.value]
        if isinstance(node, yaml.MappingNode):
            check_tag(node, self.path, self.where)
            out: dict[str, Any] = {}
            for key, item in node.value:
                out[key_name(key, self.path, self.where)] = self.value(item, depth + 1)
            return out
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, "is not a YAML value saikish understands")
        return self.scalar(node)

    def scalar(self, node: yaml.ScalarNode) -> Any:
        tag, text = node.tag, str(node.value)
        check_tag(node, self.path, self.where)
        if tag == STD + "null":
            return None
        if tag == STD + "bool":
            return text.lower() in ("yes", "true", "on", "y")
        if tag == STD + "int":
            return self.integer(node, text)
        if tag == STD + "float":
            return self.number(node, text)
        # Strings, and timestamps kept as written: a date is never a setting here.
        return text

    def integer(self, node: yaml.ScalarNode, text: str) -> int:
        digits = text.replace("_", "")
        if len(digits) > 30:
            raise self.fail(node, f"number too large: {text[:20]}...")
        try:
            return int(yaml.SafeLoader.construct_yaml_int(_CONSTRUCTOR, node))
        except (ValueError, TypeError):
            raise self.fail(node, f"not a number: {text[:40]}") from None

    def number(self, node: yaml.ScalarNode, text: str) -> float:
        try:
            value = float(yaml.SafeLoader.construct_yaml_float(_CONSTRUCTOR, node))
        except (ValueError, TypeError, OverflowError):
            raise self.fail(node, f"not a number: {text[:40]}") from None
        if not math.isfinite(value):
            raise self.fail(node, f"must be a finite number, not {text[:40]}")
        return value


def check_tag(node: yaml.Node, path: Path | str, where: str) -> None:
    """Refuse YAML tags (`!custom`, `!!binary`, `!!python/...`): no setting needs one."""
    tag = str(node.tag)
    known = ("str", "int", "float", "bool", "null", "timestamp", "seq", "map")
    if not tag.startswith(STD) or tag.removeprefix(STD) not in known:
        raise ConfigError(f"YAML tag '{tag}' is not supported here", path, line_of(node),
                          where or None)


def _check_depth(text: str, path: Path | str) -> None:
    """Refuse documents nested deeper than MAX_DEPTH; the event stream is read iteratively."""
    depth = 0
    for event in yaml.parse(text, Loader=_LOADER):
        if isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                mark = event.start_mark
                raise ConfigError("nested too deeply", path, mark.line + 1 if mark else None)
        elif isinstance(event, (yaml.SequenceEndEvent, yaml.MappingEndEvent)):
            depth -= 1


_CONSTRUCTOR = yaml.SafeLoader("")
