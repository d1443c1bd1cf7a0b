"""URLs that read local files or open raw sockets (file:, dict:, gopher:, telnet:)
(catalogue: `check urls`).
"""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk


def check(found: Parse) -> list[Finding]:
    # curl file:///etc/shadow is a local read dressed as a download.
    for word, index in zip(found.operands, found.operand_indexes, strict=False):
        if word.lower().startswith(("file:", "dict:", "gopher:", "telnet:")):
            return [Finding(Risk.UNKNOWN, f"{word} reads a local file or opens a raw socket", index,
                            hard=True, kind=ReasonKind.READS_OUTSIDE)]
    return []
