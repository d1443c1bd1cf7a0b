"""Git's configuration, read and written as files (docs/SPEC.md §4.9).

Read: the few keys containment needs (core.hooksPath, the user's identity), following
include.path and every includeIf.*.path (a superset is the safe side). Written: the system
and global config files a sandbox gets, with the guards in them, so that a command which
clears its environment (`env -i git ...`) still runs git under them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from saikish.tools.sandbox.environment import GIT_GUARDS

MAX_INCLUDE_DEPTH = 10
_ESCAPES = {"n": "\n", "t": "\t", "b": "\b", '"': '"', "\\": "\\"}


@dataclass(frozen=True)
class Entry:
    """One `key = value` of a config file: `key` is `section.name` or `section.sub.name`,
    section and name lower-cased as git compares them; `origin` is the file it came from."""

    key: str
    value: str
    origin: str


def read_config(path: str, home: str, depth: int = 0) -> list[Entry]:
    """The entries of the config file at `path` with its includes in place; [] when unreadable."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(1_000_000)
    except OSError:
        return []
    found: list[Entry] = []
    for key, value in parse(text):
        found.append(Entry(key, value, path))
        is_include = key == "include.path" or (key.startswith("includeif.")
                                               and key.endswith(".path"))
        if is_include and value and depth < MAX_INCLUDE_DEPTH:
            target = expand(value, home, os.path.dirname(path))
            found.extend(read_config(target, home, depth + 1))
    return found


def expand(value: str, home: str, base: str) -> str:
    """A path value of git's config: `~/` is the home, a relative path is relative to `base`."""
    if value == "~" or value.startswith("~/"):
        value = home + value[1:]
    return os.path.normpath(os.path.join(base, value))


def parse(text: str) -> Iterator[tuple[str, str]]:
    """(key, value) pairs of git config text, in order; a malformed line is skipped."""
    section = ""
    lines = iter(text.splitlines())
    for raw in lines:
        line = raw.strip()
        if line.startswith("["):
            header, _, line = line[1:].partition("]")
            section = _section(header)
            line = line.strip()
        if not line or line[0] in "#;" or not section:
            continue
        name, equals, rest = line.partition("=")
        name = name.strip().lower()
        if name.replace("-", "").isalnum():
            yield f"{section}.{name}", _value(rest, lines) if equals else "true"


def _section(header: str) -> str:
    """`core` -> core, `includeIf "gitdir:~/x/"` -> includeif.gitdir:~/x/ (sub kept as written)."""
    name, _, sub = header.partition('"')
    name = name.strip().lower()
    if sub:
        return f"{name}.{sub.rsplit(chr(34), 1)[0].replace(chr(92) * 2, chr(92))}"
    return name


def _value(rest: str, lines: Iterator[str]) -> str:
    out: list[str] = []
    quoted, index = False, 0
    while index < len(rest):
        char = rest[index]
        if char == "\\" and index + 1 == len(rest):  # continued on the next line
            rest, index = next(lines, ""), 0
            continue
        if char == "\\":
            out.append(_ESCAPES.get(rest[index + 1], rest[index + 1]))
            index += 2
            continue
        if char == '"':
            quoted = not quoted
        elif char in "#;" and not quoted:
            break
        else:
            out.append(char)
        index += 1
    return "".join(out).strip()


def global_config_files(home: str, xdg_config_home: str | None) -> tuple[str, ...]:
    """The person's global config files, in the order git reads them (later wins)."""
    xdg = xdg_config_home or os.path.join(home, ".config")
    return os.path.join(xdg, "git", "config"), os.path.join(home, ".gitconfig")


def identity(files: Sequence[str], home: str) -> tuple[tuple[str, str], ...]:
    """user.name and user.email from `files` (the last one set wins), for commits inside."""
    found: dict[str, str] = {}
    for path in files:
        for entry in read_config(path, home):
            if entry.key in ("user.name", "user.email"):
                found[entry.key] = entry.value.replace("\n", " ")
    return tuple(sorted(found.items()))


def render(entries: Sequence[tuple[str, str]]) -> str:
    """Config text for (`section.name`, value) pairs, sections in first-seen order."""
    sections: dict[str, list[str]] = {}
    for key, value in entries:
        section, _, name = key.rpartition(".")
        quoted = value.replace("\\", "\\\\").replace('"', '\\"')
        sections.setdefault(section, []).append(f'\t{name} = "{quoted}"')
    return "".join(f"[{section}]\n" + "\n".join(lines) + "\n"
                   for section, lines in sections.items())


def system_config(host_text: str) -> str:
    """The sandbox's /etc/gitconfig: the host's own, then the guards (later values win)."""
    host = host_text if not host_text or host_text.endswith("\n") else host_text + "\n"
    return host + "# saikish sandbox guards (docs/SPEC.md 4.9)\n" + render(GIT_GUARDS)


def global_config(person: Sequence[tuple[str, str]]) -> str:
    """The sandbox's ~/.gitconfig: the person's identity (so commits work) and the guards,
    nothing else of theirs (credential helpers and URL rewrites can hold tokens)."""
    return render([*person, *GIT_GUARDS])
