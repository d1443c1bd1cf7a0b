"""GTFOBins-style rows for more binaries (admin): data only, checked by
tests/test_engine_attacks2.py (see its docstring for what each field means)."""

from __future__ import annotations

from tests.gtfo import G, Gtfo

GTFO: list[Gtfo] = [
]

# (binary, everyday read-only command, None or the reason it is asked today)
BENIGN: list[tuple[str, str, str | None]] = [
]

__all__ = ["G", "GTFO", "BENIGN"]
