"""Which wall of the sandbox a failed command hit, told to the model (docs/SPEC.md §4.9).

A command that failed inside prints the errno's words (Read-only file system, Device or
resource busy, No such file or directory, Network is unreachable) and usually the path.
Each line is read with the paths it names: a write into git metadata or saikish's config,
a write elsewhere outside the workspace, a path that exists on the host but is hidden
inside (the home, a secret store), the network. The model is told which, so that it can
ask for the call to run outside, which goes to the person.
"""

from __future__ import annotations

import enum
import os
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from saikish.tools.sandbox.layout import Mount, shows


class Wall(enum.Enum):
    """A wall of the sandbox, and what the model is told about it."""

    PROTECTED = "git metadata (.git and its hooks), agent.yml and .saikish/ are read-only in it"
    WRITE = "it can write only in the workspace and its private temp dir"
    WRITE_NOWHERE = "it can write only in its private temp dir"
    HIDDEN = ("it cannot see {path}: the home (but for toolchain directories) and secret "
              "stores such as ~/.ssh are hidden from it")
    NETWORK = "it has no network (loopback only, and nothing of the host listens there)"


WRITE_ERRORS = ("Read-only file system", "EROFS")
# A rename or removal of a mount point: only protected paths are mount points inside.
BUSY_ERRORS = ("Device or resource busy", "EBUSY")
# A protected name that did not exist has an empty directory as its stand-in: creating
# it finds one, writing to it finds a directory.
EXISTS_ERRORS = ("File exists", "EEXIST", "Is a directory", "EISDIR")
MISSING_ERRORS = ("No such file or directory", "ENOENT", "does not exist")
SEATBELT_DENIED = ("Operation not permitted",)  # macOS denies with EPERM
NETWORK_ERRORS = (
    "Network is unreachable", "ENETUNREACH", "Could not resolve host",
    "Temporary failure in name resolution", "Name or service not known", "getaddrinfo",
    "EAI_AGAIN", "Connection refused", "ECONNREFUSED", "Couldn't connect to server",
)
_QUOTED = re.compile(r"'([^'\n]+)'|\"([^\"\n]+)\"|‘([^’\n]+)’|`([^'`\n]+)'")
_WORD = re.compile(r"[^\s:'\"‘’`,;()]+")


@dataclass(frozen=True)
class View:
    """What the sandbox lets a command see and change, enough to place a path."""

    workspace: str
    writable: bool
    protected: tuple[str, ...]
    home: str
    mounts: tuple[Mount, ...] = ()  # empty on macOS: `hidden` is worked out from the home
    macos: bool = False

    def is_protected(self, path: str) -> bool:
        """True when `path` is, or is below, a protected path."""
        return any(path == p or path.startswith(p.rstrip("/") + "/") for p in self.protected)

    def hidden(self, path: str) -> bool:
        """True when `path` exists on the host but is not seen inside."""
        if not os.path.lexists(path):
            return False
        if self.macos:
            return _below(path, self.home) and not _below(path, self.workspace)
        return not shows(self.mounts, path)


def walls_hit(output: str, view: View) -> list[tuple[Wall, str]]:
    """The walls `output` shows the command hit, each once, with the path when known."""
    found: dict[Wall, str] = {}
    for line in output.splitlines()[-200:]:  # the end of a long output says why it failed
        for wall, path in _line_walls(line, view):
            found.setdefault(wall, path)
    return list(found.items())


def explain(output: str, view: View, mode: str, outside_argument: str) -> str | None:
    """One line for the model naming the walls hit, or None when none shows."""
    hit = walls_hit(output, view)
    if not hit:
        return None
    reasons = "; ".join(wall.value.format(path=_shown(path, view.home)) for wall, path in hit)
    return (f"[This ran in the {mode} sandbox and may have failed because {reasons}. If it "
            f"must, call it again with \"{outside_argument}\": true and say why; the person "
            f"will be asked to approve it.]")


def _line_walls(line: str, view: View) -> Iterator[tuple[Wall, str]]:
    denied = view.macos and _has(line, SEATBELT_DENIED)
    paths = list(_paths(line, view.workspace))
    if _has(line, WRITE_ERRORS + BUSY_ERRORS + EXISTS_ERRORS) or denied:
        guarded = _first(paths, view.is_protected)
        if guarded is not None:
            yield Wall.PROTECTED, guarded
        elif _has(line, WRITE_ERRORS) or denied:
            yield (Wall.WRITE if view.writable else Wall.WRITE_NOWHERE), ""
    if _has(line, MISSING_ERRORS) or denied:
        hidden = _first(paths, view.hidden)
        if hidden is not None:
            yield Wall.HIDDEN, hidden
    if _has(line, NETWORK_ERRORS):
        yield Wall.NETWORK, ""


def _paths(line: str, workspace: str) -> Iterator[str]:
    """The absolute, normalised paths `line` may name: quoted first, then its words."""
    quoted = [next(g for g in match.groups() if g) for match in _QUOTED.finditer(line)]
    words = [word for word in _WORD.findall(line) if "/" in word or "." in word]
    for word in (*quoted, *words):  # a quoted word is an operand: a name, even without a dot
        yield os.path.normpath(os.path.join(workspace, os.path.expanduser(word)))


def _first(paths: Sequence[str], test: Callable[[str], bool]) -> str | None:
    return next((path for path in paths if test(path)), None)


def _has(line: str, needles: Sequence[str]) -> bool:
    return any(needle in line for needle in needles)


def _below(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _shown(path: str, home: str) -> str:
    return "~" + path[len(home):] if path and _below(path, home) and home != "/" else path
