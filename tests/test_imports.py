"""The import graph (STYLE: no import circles; the composition root is imported by nobody)."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "saikish"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _type_checking_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def imports_of(path: Path, known: set[str], typing: bool = False) -> set[str]:
    """Every saikish module `path` imports at run time (also inside functions), and with
    `typing` also those imported for type checking only."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = set() if typing else {id(n) for block in ast.walk(tree)
                                    if _type_checking_only(block) for n in ast.walk(block)}
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return {name for name in found if name in known}


@functools.cache  # read once per run: every test below only reads it
def graph(typing: bool = False) -> dict[str, set[str]]:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    known = set(paths)
    # `from saikish import __version__` reads the package's own attribute: no edge.
    return {name: imports_of(path, known, typing) - {name, "saikish"}
            for name, path in paths.items()}


def cycle_from(start: str, edges: dict[str, set[str]]) -> list[str] | None:
    stack: list[tuple[str, list[str]]] = [(start, [start])]
    seen = set()
    while stack:
        node, trail = stack.pop()
        for nxt in sorted(edges.get(node, ())):
            if nxt == start:
                return [*trail, nxt]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*trail, nxt]))
    return None


def test_the_graph_sees_the_imports_it_should() -> None:
    edges = graph()  # a walker that finds nothing would make the tests below pass vacuously
    assert "saikish.cli.compose" in edges["saikish.cli.main"]
    assert "saikish.cli.compose" in edges["saikish.ui.repl"]  # imported inside a method
    assert "saikish.runtime.approval" in edges["saikish.runtime.executor"]


def test_nobody_imports_the_command_line() -> None:
    importers = sorted(m for m, deps in graph().items() if "saikish.cli.main" in deps)
    assert importers == ["saikish.__main__"]


def test_the_layers_have_no_import_circles() -> None:
    """Not even through imports made for type checking only: a circle there is still two
    modules that each need the other to be understood."""
    edges = graph(typing=True)
    circles = [c for m in sorted(edges) if (c := cycle_from(m, edges))]
    assert circles == []


# docs/architecture.md: each floor imports only the floors below it (or its own).
FLOORS = (
    ("types", "errors", "events", "cost", "inert", "view", "vocabulary", "rules",
     "claude_names", "records"),  # the vocabulary (rules: the allowlist's language)
    ("engine",),  # pure decisions
    ("store",),  # what is kept on disk
    ("config", "tools", "hooks", "mcp", "checkpoints", "models", "context", "sessions"),
    ("runtime",),  # one session: agent, executor, approvals
    ("ui", "acp", "remote", "cli"),  # the front ends
    ("__init__", "__main__"),
)


def floor(module: str) -> int:
    top = "__init__" if module == "saikish" else module.split(".")[1]
    return next(i for i, names in enumerate(FLOORS) if top in names)


def test_no_floor_imports_a_floor_above_it() -> None:
    edges = graph(typing=True)
    upward = sorted(f"{m} -> {d}" for m, deps in edges.items() for d in deps
                    if floor(d) > floor(m))
    assert upward == []


def test_every_module_is_on_a_floor() -> None:
    missing = sorted(m for m in graph() if m != "saikish" and not any(
        m.split(".")[1] in names for names in FLOORS))
    assert missing == []


def test_the_approval_seam_and_events_import_only_the_vocabulary() -> None:
    edges = graph()
    assert edges["saikish.runtime.approval"] == {"saikish.types", "saikish.tools.base",
                                                 "saikish.runtime.reasons", "saikish.view"}
    # Why a call is asked is read off the policy's values: pure knowledge, no decisions.
    assert edges["saikish.runtime.reasons"] == {"saikish.types", "saikish.tools.base",
                                                "saikish.engine.boundary",
                                                "saikish.tools.sandbox.launcher"}
    assert edges["saikish.events"] == {"saikish.types", "saikish.view"}


CORE = ("saikish.runtime.agent", "saikish.runtime.executor", "saikish.runtime.approval",
        "saikish.events", "saikish.runtime.subscribers", "saikish.vocabulary",
        "saikish.acp.server", "saikish.acp.jsonrpc", "saikish.tools.function")


def test_the_core_has_no_terminal_code() -> None:
    """The API, the stream and the editor front end work without ui/ (docs/SPEC.md §7.3)."""
    edges = graph()
    seen = {m: sorted(d for d in edges[m] if d.startswith("saikish.ui")) for m in CORE}
    assert seen == {m: [] for m in CORE}


def test_every_event_type_has_its_json_fields() -> None:
    from saikish.events import EVENT_TYPES
    from saikish.vocabulary import EVENT_FIELDS

    assert set(EVENT_FIELDS) == set(EVENT_TYPES)


def _loaded_after(tmp_path: Path, *flags: str) -> list[str]:
    """Run saikish -p in a fresh interpreter; the remote modules and threads it had."""
    import subprocess
    import sys

    script = tmp_path / "s.yml"
    script.write_text("- text: hi\n  tool_calls:\n    - {name: bash, arguments: {command: ls}}\n")
    code = ("import sys, threading; from saikish.cli.main import main\n"
            f"main(['-m', 'script:{script}', '-p', 'go', *{list(flags)!r}])\n"
            "names = [m for m in sys.modules if m.split('.')[0] == 'websockets'\n"
            "         or m.startswith('saikish.remote')]\n"
            "names += [t.name for t in threading.enumerate() if t.name.startswith('remote')]\n"
            "print(sorted(set(n.split('.')[0] if n.startswith('websockets') else n\n"
            "                 for n in names)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, cwd=tmp_path, stdin=subprocess.DEVNULL)
    return list(ast.literal_eval(done.stdout.strip().splitlines()[-1]))


def test_the_remote_channel_costs_nothing_unless_asked_for(tmp_path: Path) -> None:
    """No websockets, no saikish.remote, no remote-* thread without --remote (§7.5)."""
    assert _loaded_after(tmp_path) == []
    # The control: with --remote the same probe sees them (so the test above can fail).
    with_remote = _loaded_after(tmp_path, "--remote", "--timeout", "1")
    assert "websockets" in with_remote and "saikish.remote.server" in with_remote
