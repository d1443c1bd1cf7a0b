"""shopt options that change what later commands do in ways the analysis does not follow
(catalogue: `check shopt`).
"""

from __future__ import annotations

from saikish.engine.commands.parsed import Finding, Parse
from saikish.types import ReasonKind, Risk

# shopt options that change what later commands do in ways the analysis does not follow.
_SHOPT_UNSEEN = frozenset({"cdable_vars", "lastpipe", "expand_aliases", "execfail",
                           "sourcepath", "extdebug"})


def check(found: Parse) -> list[Finding]:
    named = [w for w in found.operands if w in _SHOPT_UNSEEN]
    if named and any(n == "-s" for n, _ in found.options):
        return [Finding(Risk.UNKNOWN, f"shopt -s {named[0]} changes what the commands after it do, "
                           f"which saikish does not follow", hard=True, kind=ReasonKind.EXEC)]
    return []
