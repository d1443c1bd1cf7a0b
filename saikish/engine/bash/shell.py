"""A bash string -> every simple command it will run (docs/SPEC.md §4.2, §4.7). Fails closed.

bashlex gives the tree; the words themselves are re-read from the source span, because
bashlex's own quote removal is wrong for cases such as 'r''m' and $'\\x72m'. What bashlex
cannot parse but models write every day (quoted here-documents, `$(( ))`, `[[ ]]`, `time`
mid-pipeline) is rewritten first by the preparse module. Each simple command is read with
its catalogue grammar, which also says what it runs (wrappers, runners, `-exec`, `-c`
scripts): those are followed. Anything not understood is reported in
`ShellAnalysis.opaque`, and the policy then asks instead of allowing.
"""

from __future__ import annotations

from dataclasses import replace

from saikish.engine.bash.arithmetic import (
    POSITIONAL,
    SUBSCRIPT_CODE,
    _closure,
    _subscript_code,
    arithmetic_names,
)
from saikish.engine.bash.facts import ShellAnalysis, SimpleCommand, Target
from saikish.engine.bash.hijack import is_hijack_var
from saikish.engine.bash.walker import MAX_COMMANDS, _Walker
from saikish.engine.bash.words import (
    CATALOGUE,
    ESCALATORS,
    XARGS_INPUT,
    mentions_escalation,
    unquote,
)
from saikish.engine.commands.grammar import Word

__all__ = ["CATALOGUE", "ESCALATORS", "MAX_COMMANDS", "XARGS_INPUT", "ShellAnalysis",
           "SimpleCommand", "Target", "analyse", "arithmetic_names", "mentions_escalation",
           "unquote"]


def analyse(command: str) -> ShellAnalysis:
    """Every simple command `command` runs; never raises."""
    walker = _Walker()
    try:
        walker.script(Word(command), depth=0, via=())
    except RecursionError:
        walker.opaque.append("nesting too deep to analyse")
    if set(walker.bodies) - walker.used:  # a quoted here-document bashlex never saw
        walker.opaque.append("a here-document saikish could not place")
    if _subscript_code(command):
        # x='a[$(id)]'; echo $((x)): arithmetic, ${!x}, ${s:x}, b[x] evaluate the value a
        # name holds, and the subscript in it runs; quoting hides it from every parser.
        walker.opaque.append(SUBSCRIPT_CODE)
    if "=~" in command:
        walker.tainted.add("BASH_REMATCH")  # [[ $(<f) =~ (.*) ]]: the match is data
    arithmetic = frozenset(arithmetic_names(command))
    assigned = next((n for n in sorted(arithmetic) if is_hijack_var(n)), None)
    if assigned:  # let PATH=0, ${x[HOME=0]}: arithmetic assigns as well as reads
        walker.opaque.append(f"arithmetic names {assigned}, which it may set, changing "
                             f"what runs")
    tainted = _closure(walker.tainted, walker.names)
    evaluated = tainted & arithmetic
    if evaluated:
        # read i < f; echo $((i)): bash evaluates i's value, and f may hold 'a[$(cmd)]'.
        name = sorted(evaluated)[0].replace(POSITIONAL, "1")
        walker.opaque.append(f"arithmetic evaluates ${name}, which holds data only known "
                             f"at run time: an array subscript in it would run")
    commands = [replace(c, shadowed=True) if c.basename in walker.functions and not c.via
                else c for c in walker.commands]
    return ShellAnalysis(tuple(commands), tuple(dict.fromkeys(walker.opaque)),
                         walker.raw_escalation, tuple(walker.heredoc_writes),
                         walker.parser_fault, tuple(dict.fromkeys(walker.rewritten)),
                         arithmetic)

