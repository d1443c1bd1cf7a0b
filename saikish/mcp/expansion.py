"""Environment variables in MCP server settings, with Claude Code's syntax (docs/SPEC.md §7.1).

`${VAR}` and `$VAR` are the variable; `${VAR:-default}` is the default when the
variable is unset or empty (as in the shell and Claude Code's `.mcp.json`);
`$$` is one literal `$`. Pure: the caller says what an unset variable means.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

VARIABLE = re.compile(r"\$\$|\$\{(\w+)(?::-([^}]*))?\}|\$(\w+)")


class UnsetVariable(Exception):
    """A variable the value needs is not set, and the value gives no default."""

    def __init__(self, name: str) -> None:
        super().__init__(f"environment variable {name} is not set")
        self.name = name


def expand(value: str, environ: Mapping[str, str],
           used: Callable[[str], None] = lambda name: None) -> str:
    """`value` with its variables replaced; `used(name)` is told each one taken from
    `environ` (it may raise to refuse it); UnsetVariable when one is missing."""

    def substitute(match: re.Match[str]) -> str:
        if match.group(0) == "$$":
            return "$"
        name, default = match.group(1) or match.group(3), match.group(2)
        if environ.get(name):
            used(name)
            return environ[name]
        if default is not None:
            return default
        if name in environ:  # set but empty, and no default: empty, as the shell gives
            return ""
        raise UnsetVariable(name)

    return VARIABLE.sub(substitute, value)
