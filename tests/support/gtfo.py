"""The row type of the GTFOBins-style attack tables (tests/engine/test_attacks_gtfobins.py and the
tests/support/gtfo_rows_*.py data modules it includes)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from saikish.types import ReasonKind as Why


@dataclass(frozen=True)
class Gtfo:
    """One form of one binary: which part blocks it (with a rule, and with none), and the
    kind of reason why."""

    binary: str
    kind: str  # shell, command, write, read, upload, download, suid
    command: str
    rules: tuple[str, ...]  # the permissive prefix rules in force for the first check
    part: str
    why: Why  # the kind of reason the part blocks for
    hole: str | None  # allowed under the prefix rule today (xfail strict)
    part0: str
    why0: Why
    hole0: str | None  # allowed with no rule at all today (xfail strict)


def G(binary: str, kind: str, command: str, rules: tuple[str, ...], part: str, why: Why,
      hole: str | None, part0: str, why0: Why, hole0: str | None) -> Gtfo:
    """A row (short name: the table below is long)."""
    return Gtfo(binary, kind, command, rules, part, why, hole, part0, why0, hole0)


def _mark(reason: str | None, kind: str = "HOLE") -> list[pytest.MarkDecorator]:
    """xfail(strict) when the row is a known defect."""
    return [pytest.mark.xfail(strict=True, reason=f"{kind}: {reason}")] if reason else []
