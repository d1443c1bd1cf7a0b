"""jq/yq programs that read the environment or files (catalogue: `check jq`)."""

from __future__ import annotations

import re

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk

# import/include read module and data files (`import "x" as $d;` reads x.json).
# jq 1.6 reads `$ ENV` (a blank after `$`) as $ENV.
_JQ_UNSAFE = re.compile(r"\$\s*ENV\b|\benv\b|\bload(_str)?\s*\(|\bstrenv\s*\(|\binput_filename\b|"
                        r"\bimport\b|\binclude\b")


def check(found: Parse) -> list[Finding]:
    if found.option_values("--from-file", "-f"):
        return [Finding(
            Risk.UNKNOWN, "the jq/yq program is in a file saikish does not read (it may read "
                          "the environment or files)", hard=True, kind=ReasonKind.SECRET)]
    if any(_JQ_UNSAFE.search(word) for word in found.operands[:1]):
        return [Finding(
            Risk.UNKNOWN, "the jq/yq program reads the environment or a file", hard=True,
            kind=ReasonKind.SECRET)]
    return []
