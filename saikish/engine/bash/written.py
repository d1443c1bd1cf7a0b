"""What the person wrote, where the engine had to read something else (docs/SPEC.md §8).

bashlex cannot read `$(( ))`, so the preparse puts a run-time word in its place. That
word carries the expression, so that reasons and `check --json` can show the command
as it was written, never an internal placeholder.
"""

from __future__ import annotations

import re
from dataclasses import replace

from saikish.types import Assessment

_ARITH = "SAIKISH_ARITH_"
_ARITH_WORD = re.compile(r"\$\{SAIKISH_ARITH_([0-9a-f]*)\}")


def arithmetic_word(expression: str) -> str:
    """The run-time word read in place of `$(( expression ))`: `${SAIKISH_ARITH_<hex>}`."""
    return "${" + _ARITH + expression.encode("utf-8", "surrogatepass").hex() + "}"


def as_written(text: str) -> str:
    """`text` (a word, a reason) with each such word shown as the `$(( ))` it stands for."""
    if _ARITH not in text:
        return text
    return _ARITH_WORD.sub(lambda m: "$((" + bytes.fromhex(m.group(1)).decode(
        "utf-8", "surrogatepass") + "))", text)


def assessment_as_written(assessment: Assessment) -> Assessment:
    """The reason and the commands of `assessment` as the person wrote them (the rules it
    proposes keep their words: a rule matches the words the engine reads)."""
    if _ARITH not in assessment.reason and not any(
            _ARITH in word for c in assessment.commands for word in (*c.argv, c.caveat or "")):
        return assessment
    commands = tuple(replace(c, argv=tuple(map(as_written, c.argv)),
                             caveat=as_written(c.caveat) if c.caveat else c.caveat)
                     for c in assessment.commands)
    return replace(assessment, reason=as_written(assessment.reason), commands=commands)
