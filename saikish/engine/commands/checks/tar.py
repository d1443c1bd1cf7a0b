"""GNU tar reads HOST:FILE archives through a remote shell (catalogue: `check tar`)."""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk


def check(found: Parse) -> list[Finding]:
    # GNU tar: an archive name with a colon is HOST:FILE, reached with rsh (--force-local
    # turns that off): a read-only listing that opens a remote shell.
    if any(n in ("--force-local", "--rsh-command") for n, _ in found.options):
        return []  # local, or the remote shell's own option already asks
    for name in found.option_values("--file"):
        if ":" in name and "/" not in name.split(":", 1)[0]:
            return [Finding(Risk.UNKNOWN, f"tar reaches {name} on another machine through a remote "
                               f"shell", hard=True, kind=ReasonKind.NETWORK)]
    return []
