"""Modes that set set-user-ID or set-group-ID (chmod, install) (catalogue: `check setuid`)."""

from __future__ import annotations

import re

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import Risk


def check(found: Parse) -> list[Finding]:
    modes = list(found.operands[:1]) + [v for n, v in found.options if n == "--mode" and v]
    for mode in modes:
        if re.fullmatch(r"[0-7]*[4267][0-7]{3}", mode) or re.search(r"[ugoa]*[+=][rwxXt]*s", mode):
            return [Finding(
                Risk.DESTRUCTIVE, f"mode {mode} sets set-user-ID or set-group-ID", hard=True)]
    return []
