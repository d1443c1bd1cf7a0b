"""What hands environment values to the model: the one place that knows (docs/SPEC.md §4.8).

Two ways print a variable: a command whose catalogue entry says it prints the environment
(`prints-env`: printenv, env with no command, `declare -p`, `make -p`, `gh auth token`...),
and a word that expands one (`echo $NAME`, `${!name}`). Both are judged alike: printing
every variable is the ENVIRONMENT concern (a rule naming the command may allow it), and
printing one whose name says it holds a credential (boundary.is_secret_variable) is a
finding no rule covers, whichever way it is printed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from saikish.engine.boundary import ENVIRONMENT, is_secret_variable
from saikish.engine.commands.parsed import Finding
from saikish.types import ReasonKind, Risk

if TYPE_CHECKING:
    from saikish.engine.bash.shell import SimpleCommand

ALL = "*"
# `$NAME`, `${NAME...}`, and `${!NAME}` (indirect: any variable, named at run time).
_EXPANSION = re.compile(r"\$\{(!)|\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def printed(command: SimpleCommand) -> tuple[str, ...]:
    """The variables a command hands to its output (or anywhere): names, ALL for every one."""
    names = list(command.parse.env_printed if command.parse else ())
    for word in command.argv[1:]:
        for indirect, name in _EXPANSION.findall(word) if "$" in word else ():
            names.append(ALL if indirect else name)  # ${!x}: whichever x names
    return tuple(dict.fromkeys(names))


def secret_findings(command: SimpleCommand) -> list[Finding]:
    """A finding for a secret-named variable the command prints or expands."""
    for name in printed(command):
        if name != ALL and is_secret_variable(name):
            return [Finding(Risk.UNKNOWN, f"it hands ${name} to the model or elsewhere, "
                                          f"which may hold a secret", hard=True,
                                          kind=ReasonKind.SECRET)]
    return []


def expanded_secret(text: str, commands: Iterable[SimpleCommand],
                    arithmetic: Iterable[str]) -> str | None:
    """A secret-named variable `text` expands or evaluates somewhere no command's words
    show it (a here-string, an assignment, a `for` list, a here-document, arithmetic:
    `x=$TOKEN; echo $x`), or None. Quotes are not read: `'$TOKEN'` counts too, the safe
    mistake. `arithmetic`: the names the text evaluates as arithmetic (`let
    x=AWS_SECRET_ACCESS_KEY`, ${a[TOKEN]}): a value that is no number comes back in bash's
    error message."""
    named = [name for _, name in _EXPANSION.findall(text) if name] + sorted(arithmetic)
    secrets = [name for name in named if is_secret_variable(name)]
    if not secrets:
        return None  # the common case: no command needs to be asked what it prints
    shown = {name for command in commands for name in printed(command)}
    return next((name for name in secrets if name not in shown), None)


def environment_concern(command: SimpleCommand) -> str | None:
    """ENVIRONMENT when the command prints every variable (or one named at run time)."""
    return ENVIRONMENT if ALL in printed(command) else None
