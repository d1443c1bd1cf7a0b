"""Which parts of a call the sandbox contains, and which need a person (docs/SPEC.md §4.1).

A call the engine does not verify still runs without a person when everything it
would do stays inside what the sandbox and the checkpoints contain: code that runs
in the workspace, writes inside it (undoable), reads of system files the sandbox
shows. It needs a person for the network, for writes outside the workspace or into
git metadata and saikish's own config, for reads of the home or of secrets, and for
recursive or bulk deletes. Each judgement here fails closed: a part this module
does not recognise as contained needs a person.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from saikish.engine import boundary
from saikish.engine.bash.shell import SimpleCommand, Target
from saikish.engine.commands.grammar import Parse
from saikish.engine.commands.risk import Classification
from saikish.rules import in_git_dir, real_path, workspace_relative
from saikish.types import Risk

# Outside the workspace, the directories a sandboxed command sees as on the host: system
# files and toolchains, never a home or another project. A read there (not of a secret)
# shows nothing the model could not know; /tmp inside is the session's private one.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
               "/nix", "/proc", "/sys", "/dev", "/tmp", "/run", "/snap")
# Writes that land in the sandbox's private temp dir.
PRIVATE_DIRS = ("/tmp",)
# saikish's own configuration inside a workspace: a write there could loosen its rules.
OWN_CONFIG = ("agent.yml", ".saikish")
# Deleting more named files than this in one command is a bulk delete.
MAX_DELETES = 10


@dataclass(frozen=True)
class Containment:
    """What can run contained in this session (docs/SPEC.md §4.1, §4.9, §4.10)."""

    # A working sandbox runs bash calls that nobody looked at.
    sandbox: bool = False
    # File changes are checkpointed (saikish undo): in-workspace edits may run unasked.
    checkpoints: bool = False
    # The person turned the sandbox off and runs --auto-approve: what would be contained
    # runs unsandboxed, as they chose.
    unsandboxed: bool = False
    # Real paths the sandbox keeps read-only besides `.git` and OWN_CONFIG (the directory
    # core.hooksPath names, a worktree's git dir): a write there needs a person.
    protected: tuple[str, ...] = ()
    # Why there is no sandbox, said when a call that would be contained is asked.
    missing: str = ""
    # Why nothing can be undone ("no undo: ..."): a contained call that can write is asked.
    no_undo: str = ""


def write_contained(path: str, workspace: str, protected: Sequence[str] = ()) -> bool:
    """True when a write of `path` stays inside what the sandbox and checkpoints contain."""
    relative = workspace_relative(path, workspace)
    if os.path.isabs(relative):
        return _under(relative, PRIVATE_DIRS) and not _under(relative, (_home(),))
    first = relative.split(os.sep, 1)[0]
    if in_git_dir(relative) or first in OWN_CONFIG or first.lower() in OWN_CONFIG:
        return False
    full = boundary.resolve(path, workspace)
    return not any(full == p or full.startswith(p.rstrip(os.sep) + os.sep) for p in protected)


def read_contained(path: str, workspace: str) -> bool:
    """True when the sandbox makes a read of `path` harmless: no secret, and inside the
    workspace or in a system directory (the home and other projects are not visible)."""
    if boundary.is_secret(path, workspace):
        return False
    full = boundary.resolve(path, workspace)
    if boundary.inside(path, workspace):
        return True
    # The home is never a system directory, even where it lies under one (/tmp/home).
    return _under(full, SYSTEM_DIRS) and not _under(full, (_home(),))


def _home() -> str:
    return real_path(os.path.expanduser("~"))


def _under(full: str, roots: Sequence[str]) -> bool:
    return any(full == root or full.startswith(root + os.sep) for root in roots)


def command_need(command: SimpleCommand, found: Classification, workspace: str,
                 protected: Sequence[str] = ()) -> str | None:
    """Why this simple command needs a person, or None when the sandbox contains it."""
    risk = found.risk
    if risk is Risk.ESCALATION:
        return "it runs as another user"
    parse = command.parse
    # Its own writes too (touch agent.yml, mkdir .saikish, cp x ../y): those the policy
    # judged part of the command's job are not checks of their own.
    if any(t.known and not write_contained(t.path, workspace, protected)
           for t in command.writes):
        return "it writes outside the workspace, or git metadata or saikish's config"
    if risk is Risk.NETWORK and not _only_fetches(parse):
        return "it reaches the network, which the sandbox does not have"
    if parse is not None and parse.path[:1] == ("git",) and risk.rank >= Risk.WRITE.rank:
        return "it writes git metadata, which the sandbox keeps read-only"
    if risk is Risk.DESTRUCTIVE:
        return _delete_need(command, found, workspace, protected)
    return None


def _only_fetches(parse: Parse | None) -> bool:
    """A runner whose only network use is fetching what it runs (`npx`, `uvx`): in the
    sandbox it runs what is there, or fails on the wall. An option that reaches the
    network (a registry, a URL) is network of its own."""
    return parse is not None and parse.fetches and not any(
        f.risk is Risk.NETWORK for f in parse.findings)


def _delete_need(command: SimpleCommand, found: Classification, workspace: str,
                 protected: Sequence[str]) -> str | None:
    """A destructive command is contained only as a few named deletes inside the
    workspace, which a checkpoint restores; recursive, forced or bulk forms need a person."""
    targets = command.writes
    if found.named or found.hard or not targets:
        return "it destroys more than a checkpoint can restore (recursive, forced or bulk)"
    if len(targets) > MAX_DELETES or any(t.glob or not t.known for t in targets):
        return "it deletes files it names only by a pattern or at run time (a bulk delete)"
    if not all(write_contained(t.path, workspace, protected) for t in targets):
        return "it deletes outside the workspace, or git metadata or saikish's config"
    return None


def write_need(target: Target, workspace: str, protected: Sequence[str] = ()) -> str | None:
    """Why a write needs a person, or None when the sandbox contains it (a target only
    known at run time lands where the sandbox lets it: the workspace or its temp dir)."""
    if not target.known or write_contained(target.path, workspace, protected):
        return None
    return "it writes outside the workspace, or git metadata or saikish's config"


def read_need(target: Target, concern: str, workspace: str) -> str | None:
    """Why a read the boundary asks about (`concern`, policy's words) needs a person, or
    None when the sandbox makes it harmless."""
    if concern in (RUN_TIME_PATH, RUN_TIME_DIRECTORY):
        # A place only known at run time: the sandbox shows no home and no secret store.
        return None
    if concern == GLOB_SECRETS:
        return "it may read files that hold secrets"
    place = os.path.dirname(target.path) or "." if target.glob else target.path
    return None if read_contained(place, workspace) else \
        "it reads outside the workspace or a file that holds secrets"


# The read boundary's concerns about paths it cannot see (permits.target_read_concern).
RUN_TIME_PATH = "its path is only known at run time"
RUN_TIME_DIRECTORY = "is in a directory only known at run time"
GLOB_SECRETS = "may match files that hold secrets"
