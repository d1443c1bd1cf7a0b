"""Checkpoints as git objects: a commit per checkpoint (its message the JSON record, its
tree the files after the call) and a ref to the tree before it.

`refs/saikish/checkpoints/N` -> the commit; `refs/saikish/before/N` -> the tree
before. Nothing else keeps objects alive, so dropping the two refs of a
checkpoint lets `git gc` free what only it held.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping

from saikish.checkpoints.git import ShadowGit
from saikish.checkpoints.values import Checkpoint

CHECKPOINTS, BEFORE = "refs/saikish/checkpoints/", "refs/saikish/before/"
FORMAT = "--format=%(refname)%00%(objectname)%00%(contents)%00"


def history(git: ShadowGit) -> tuple[Checkpoint, ...]:
    """Every checkpoint the store holds, newest first (records that are not ours skipped)."""
    fields = git.run("for-each-ref", FORMAT, CHECKPOINTS).decode("utf-8", "replace").split("\0")
    found = []
    for ref, commit, message in zip(fields[0::3], fields[1::3], fields[2::3], strict=False):
        number = ref.strip().removeprefix(CHECKPOINTS)
        if number.isdigit():
            checkpoint = Checkpoint.parse(int(number), commit.strip(), message.strip())
            if checkpoint is not None:
                found.append(checkpoint)
    return tuple(sorted(found, key=lambda c: c.number, reverse=True))


def write(git: ShadowGit, draft: Checkpoint, tree: str) -> Checkpoint:
    """Store `draft` (its number is given here) with `tree` as the files after it."""
    number = _next_number(git)
    commit = git.run("commit-tree", tree, "-F", "-",
                     data=draft.message().encode("utf-8", "surrogateescape")).decode().strip()
    # The counter first: a crash between the two leaves a gap, never a number used twice.
    (git.store / "next").write_text(f"{number + 1}\n", encoding="utf-8")
    git.run("update-ref", "--stdin", data=(
        f"option no-deref\nupdate HEAD {commit}\n"
        f"create {CHECKPOINTS}{number} {commit}\ncreate {BEFORE}{number} {draft.before}\n"
    ).encode())
    return Checkpoint(number, draft.time, draft.tool, draft.summary, draft.added, draft.modified,
                      draft.deleted, draft.too_big, draft.undid, draft.before, commit)


def base(git: ShadowGit) -> None:
    """Point HEAD at a commit of the index, so `git status` compares against it (first use)."""
    tree = git.run("write-tree").decode().strip()
    commit = git.run("commit-tree", tree, "-m", "base").decode().strip()
    git.run("update-ref", "--no-deref", "HEAD", commit)


def drop(git: ShadowGit, numbers: Iterable[int]) -> None:
    """Forget checkpoints (their objects go at the next gc)."""
    lines = "".join(f"delete {CHECKPOINTS}{n}\ndelete {BEFORE}{n}\n" for n in numbers)
    if lines:
        git.run("update-ref", "--stdin", data=lines.encode())


def raw_changes(git: ShadowGit, old: str, new: str) -> dict[str, tuple[str, str, str]]:
    """path -> (old mode, old object, status letter) between two trees (or commits)."""
    fields = git.run("diff-tree", "-r", "-z", "--no-renames", "--raw", old, new).split(b"\0")
    changes: dict[str, tuple[str, str, str]] = {}
    for head, path in zip(fields[0::2], fields[1::2], strict=False):
        parts = head.decode("ascii").lstrip(":").split()
        if len(parts) == 5:
            changes[os.fsdecode(path)] = (parts[0], parts[2], parts[4][:1])
    return changes


def _next_number(git: ShadowGit) -> int:
    """The counter file, or one past the newest checkpoint when it is missing or broken."""
    with contextlib.suppress(OSError, ValueError):
        return int((git.store / "next").read_text(encoding="utf-8"))
    newest = history(git)
    return newest[0].number + 1 if newest else 1


def mapping_lines(entries: Mapping[str, tuple[str, str] | None], null: str) -> bytes:
    """`update-index -z --index-info` input: a mode and object per path (None removes it)."""
    out = bytearray()
    for path, entry in entries.items():
        mode, sha = entry or ("0", null)
        out += f"{mode} {sha}\t".encode() + os.fsencode(path) + b"\0"
    return bytes(out)
