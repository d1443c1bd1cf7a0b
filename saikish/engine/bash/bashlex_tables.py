"""bashlex with its LALR tables read from a file instead of rebuilt at every start.

bashlex builds its parser tables from its grammar each time it is imported (about 100 ms,
most of `saikish check`'s run time). The tables depend only on the grammar, so they are
computed once, stored in bashlex_tables.json beside this module with a signature of the
grammar they belong to, and used only when that signature matches the installed
bashlex's grammar; otherwise bashlex builds them as usual. JSON, not pickle: loading the
tables cannot run code.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

TABLES = Path(__file__).resolve().parent / "bashlex_tables.json"


def load() -> ModuleType:
    """The bashlex module, its parser built from the stored tables when they fit.

    bashlex's package __init__ builds the parser as soon as anything of it is imported,
    so the package is first entered as an empty module, its yacc is given the stored
    tables, and then the package's own __init__ runs as usual.
    """
    import importlib.util
    import sys

    if "bashlex.parser" in sys.modules:
        loaded: ModuleType = sys.modules["bashlex"]
        return loaded
    spec = importlib.util.find_spec("bashlex")
    if spec is None or spec.loader is None or not spec.submodule_search_locations:
        import bashlex  # not a normal package: import it the ordinary way

        plain: ModuleType = bashlex
        return plain
    package = importlib.util.module_from_spec(spec)
    sys.modules["bashlex"] = package
    try:
        import bashlex.yacc as yacc

        built = yacc.LRTable
        yacc.LRTable = _stored_table(built)
        try:
            spec.loader.exec_module(package)
        finally:
            yacc.LRTable = built
    except BaseException:
        for name in [n for n in sys.modules if n == "bashlex" or n.startswith("bashlex.")]:
            del sys.modules[name]
        raise
    return package


def signature(grammar: Any) -> str:
    """A digest of the grammar's productions and precedence: the tables' identity."""
    text = "\n".join(str(p) for p in grammar.Productions)
    text += repr(sorted(grammar.Precedence.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def dump(table: Any, grammar: Any) -> dict[str, Any]:
    """The JSON form of a built table."""
    return {"signature": signature(grammar),
            "action": {str(k): v for k, v in table.lr_action.items()},
            "goto": {str(k): v for k, v in table.lr_goto.items()}}


def _stored_table(built: Any) -> Any:
    def make(grammar: Any, log: Any = None) -> Any:
        stored = _read()
        if stored is None or stored.get("signature") != signature(grammar):
            return built(grammar, log)  # another bashlex: build as it always does
        return _Table(grammar, stored)

    return make


def _read() -> dict[str, Any] | None:
    try:
        data = json.loads(TABLES.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


class _Table:
    """What bashlex's LRParser reads from an LRTable."""

    def __init__(self, grammar: Any, stored: dict[str, Any]) -> None:
        self.lr_productions = grammar.Productions
        self.lr_action = {int(k): v for k, v in stored["action"].items()}
        self.lr_goto = {int(k): v for k, v in stored["goto"].items()}
        self.sr_conflicts: list[Any] = []
        self.rr_conflicts: list[Any] = []

    def bind_callables(self, pdict: dict[str, Any]) -> None:
        """Bind each production to its parser function, as LRTable does."""
        for production in self.lr_productions:
            production.bind(pdict)
