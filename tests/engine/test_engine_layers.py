"""The engine is a layer of its own: it imports only itself and the vocabulary.

docs/SPEC.md §4 and docs/architecture.md: `decide()` is pure, so the engine never imports
the tools, the terminal, the runtime or a front end. Read from the source (ast), so an
import inside a function counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "saikish"
ENGINE = PACKAGE / "engine"
# What an engine module may import from saikish: itself and the shared vocabulary (the
# rules are part of it: every floor passes Rule values), and the records helper (a leaf:
# it imports nothing of saikish's, tested below).
ALLOWED = ("saikish.engine", "saikish.types", "saikish.errors", "saikish.rules",
           "saikish.claude_names", "saikish.records")


def test_the_records_helper_imports_nothing_of_saikish() -> None:
    assert saikish_imports(PACKAGE / "records.py") == []


def saikish_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every saikish module `path` imports, wherever the import is."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module] if node.module != "saikish" else \
                [f"saikish.{alias.name}" for alias in node.names]
            found += [(node.lineno, name) for name in names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, name) for line, name in found if name.split(".")[0] == "saikish"]


@pytest.mark.parametrize("path", sorted(ENGINE.rglob("*.py")),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_engine_imports_nothing_above_it(path: Path) -> None:
    upward = [f"line {line}: {name}" for line, name in saikish_imports(path)
              if not name.startswith(ALLOWED)]
    assert not upward, f"{path.relative_to(PACKAGE)} imports above the engine: {upward}"


def test_the_walk_sees_imports_inside_functions(tmp_path: Path) -> None:
    # The check itself must catch a late import, or the test above proves nothing.
    sample = tmp_path / "m.py"
    sample.write_text("def f():\n    from saikish.tools.base import Tool\n"
                      "    import saikish.ui.repl\n")
    assert saikish_imports(sample) == [(2, "saikish.tools.base"), (3, "saikish.ui.repl")]
