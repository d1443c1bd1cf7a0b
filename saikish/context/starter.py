"""A starter AGENTS.md for `/init` (docs/SPEC.md §10.1), from what the workspace shows.

Pure apart from reading a few well-known files: the build and test commands of
Python, Node, Rust and Go projects and of a Makefile. The person sees the text
before anything is written, and fills in what only they know.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

NPM_SCRIPTS = (("test", "Test"), ("build", "Build"), ("lint", "Lint"),
               ("typecheck", "Type check"), ("format", "Format"))
MAKE_TARGETS = (("test", "Test"), ("build", "Build"), ("lint", "Lint"), ("check", "Check"))


def starter_agents_md(workspace: Path) -> str:
    """The text of a new AGENTS.md for `workspace`."""
    commands = project_commands(workspace)
    lines = ["# AGENTS.md", "",
             "Instructions for coding agents working in this project (saikish, Codex and "
             "others that read AGENTS.md).", "",
             "## Project", "",
             f"{workspace.name}: (one or two lines: what it is, who uses it).", "",
             "## Commands", ""]
    lines += [f"- {label}: `{command}`" for label, command in commands] or \
        ["- (how to build, test and lint; saikish found none)"]
    lines += ["", "## Conventions", "",
              "- (how code should look here; what to avoid)", "",
              "## Before you finish", "",
              "- Run the tests" + (" and linters above" if commands else "") +
              "; they must pass.", ""]
    return "\n".join(lines)


def project_commands(workspace: Path) -> list[tuple[str, str]]:
    """(label, command) pairs a project's own files name, Python first."""
    return [*_python(workspace), *_node(workspace), *_cargo(workspace), *_go(workspace),
            *_make(workspace)]


def _python(workspace: Path) -> list[tuple[str, str]]:
    text = _text(workspace / "pyproject.toml")
    if text is None:
        return []
    found = [("Test", "python -m pytest")] if "pytest" in text or \
        (workspace / "tests").is_dir() else []
    found += [(label, command) for tool, label, command in
              (("ruff", "Lint", "ruff check ."), ("mypy", "Type check", "mypy ."))
              if tool in text]
    return found


def _node(workspace: Path) -> list[tuple[str, str]]:
    data = _json(workspace / "package.json")
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return []
    runner = "pnpm" if (workspace / "pnpm-lock.yaml").exists() else \
        "yarn" if (workspace / "yarn.lock").exists() else "npm"
    return [(label, f"{runner} test" if name == "test" else f"{runner} run {name}")
            for name, label in NPM_SCRIPTS if name in scripts]


def _cargo(workspace: Path) -> list[tuple[str, str]]:
    if not (workspace / "Cargo.toml").is_file():
        return []
    return [("Build", "cargo build"), ("Test", "cargo test"), ("Lint", "cargo clippy")]


def _go(workspace: Path) -> list[tuple[str, str]]:
    if not (workspace / "go.mod").is_file():
        return []
    return [("Build", "go build ./..."), ("Test", "go test ./..."), ("Lint", "go vet ./...")]


def _make(workspace: Path) -> list[tuple[str, str]]:
    text = _text(workspace / "Makefile")
    if text is None:
        return []
    targets = set(re.findall(r"^([A-Za-z][\w-]*)\s*:(?!=)", text, re.MULTILINE))
    return [(label, f"make {name}") for name, label in MAKE_TARGETS if name in targets]


def _text(path: Path) -> str | None:
    if not path.is_file():  # a FIFO named Makefile must not hang /init
        return None
    try:
        return path.read_text(encoding="utf-8", errors="replace")[:200_000]
    except OSError:
        return None


def _json(path: Path) -> Any:
    text = _text(path)
    try:
        return json.loads(text) if text is not None else None
    except ValueError:
        return None
