"""man formats a file given by path, or pages from a directory given by path: no
boundary sees it (catalogue: `check man`).
"""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk


def check(found: Parse) -> list[Finding]:
    # man -l FILE, or any operand with a '/', formats a file: no boundary sees it.
    if any(n == "--local-file" for n, _ in found.options) or \
            any("/" in w for w in found.operands):
        return [Finding(Risk.UNKNOWN, "man reads a file given by path", hard=True,
                        kind=ReasonKind.READS_OUTSIDE)]
    # man -M DIR:DIR... searches those directories for pages, and a page there may
    # include any file (`.so /root/.ssh/id_rsa`): even a workspace directory reads outside.
    if found.option_values("--manpath"):
        return [Finding(Risk.UNKNOWN, "man -M reads manual pages from a directory given by "
                        "path", hard=True, kind=ReasonKind.READS_OUTSIDE)]
    return []
