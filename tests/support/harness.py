"""Shared test fixtures (loaded by tests/conftest.py): isolated config/state dirs, the fixture
files, a CLI runner."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from saikish.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
# Wire captures and the NL2Bash corpus travel with the repository (tests/fixtures/README.md).
SHARED = ROOT / "tests" / "fixtures"


def shared_path(*parts: str) -> Path:
    """A file under tests/fixtures; a missing one fails the test rather than skipping it."""
    path = SHARED.joinpath(*parts)
    assert path.exists(), f"{path} is missing: tests/fixtures is part of the repository"
    return path


@pytest.fixture(autouse=True)
def isolated_dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Every test gets its own config and state dirs, and runs in its own workspace."""
    monkeypatch.setenv("SAIKISH_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("SAIKISH_STATE_DIR", str(tmp_path / "state"))
    # A test that lets a command through by mistake must not reach the real home.
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL",
                 "OLLAMA_HOST", "VISUAL", "EDITOR",
                 # pytest-xdist's workers export COLUMNS=80 and LINES=24, and rich prefers
                 # them to the size of the terminal a pty test opens.
                 "COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)
    workspace = tmp_path / "work"
    workspace.mkdir()
    monkeypatch.chdir(workspace)
    return tmp_path


@dataclass
class Run:
    """What a CLI run printed and returned."""

    code: int
    out: str
    err: str


class _Pipe(io.StringIO):
    def isatty(self) -> bool:
        return False


@pytest.fixture
def cli() -> Callable[..., Run]:
    """Run main(argv) with piped (non-terminal) stdin/stdout/stderr."""

    def run(*argv: str, stdin: str = "") -> Run:
        out, err = _Pipe(), _Pipe()
        code = main(list(argv), stdin=_Pipe(stdin), stdout=out, stderr=err)
        return Run(code, out.getvalue(), err.getvalue())

    return run


def write_script(path: Path, text: str) -> str:
    """Write a script-model YAML file; returns the -m value for it."""
    path.write_text(text, encoding="utf-8")
    return f"script:{path}"


@pytest.fixture
def ws(isolated_dirs: Path) -> Path:
    """The test's workspace: an empty directory that is also the current directory."""
    return isolated_dirs / "work"
