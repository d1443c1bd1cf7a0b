"""`git archive --prefix=.git/hooks/`: members that land inside .git
(catalogue: `check git_archive`).
"""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.rules import in_git_dir
from saikish.types import Risk


def check(found: Parse) -> list[Finding]:
    # git archive --prefix=.git/hooks/ | tar -x: the members land in .git
    for prefix in found.option_values("--prefix"):
        if in_git_dir(prefix.rstrip("/") or "."):
            return [Finding(
                Risk.DESTRUCTIVE, f"git archive --prefix={prefix} names members inside .git, "
                               f"where git finds programs to run", hard=True)]
    return []
