"""git push's refspecs: `+main` forces and `:main` deletes a remote branch
(catalogue: `check git_push`).
"""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import Risk


def check(found: Parse) -> list[Finding]:
    # '+main' forces, ':main' deletes the remote branch: both rewrite what others have.
    for ref, index in zip(found.operands[1:], found.operand_indexes[1:], strict=False):
        if ref.startswith("+") or ref.startswith(":") or ":+" in ref:
            return [Finding(
                Risk.DESTRUCTIVE, f"git push {ref} forces or deletes a remote branch", index)]
    return []


def implied_options(found: Parse) -> set[str]:
    """Options a command's operands spell another way: `git push origin +main` is --force."""
    if found.path[:2] != ("git", "push"):
        return set()
    refs = found.operands[1:]
    implied = set()
    if any(r.startswith("+") or ":+" in r for r in refs):
        implied.add("--force")
    if any(r.startswith(":") for r in refs):
        implied |= {"--delete", "--force"}  # deleting a remote branch is forcing it away
    return implied
