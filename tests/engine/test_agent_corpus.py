"""benchmarks/agent_commands.jsonl is well formed, and no row that needs a person is allowed.

The quietness figure (prompts per 100 benign rows) is measured by
benchmarks/agent_quietness.py, never asserted here.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarks.agent_quietness import CorpusError, Row, load_corpus
from saikish.engine.policy import Context, decide
from saikish.tools import builtin_tools
from saikish.types import Autonomy, Mode, ToolCall, Verdict
from tests.support.harness import Run

MIN_ROWS = 450

# Person rows saikish allows today. Each is a real gap, listed so the suite stays green
# while it is open; strict, so the entry must go when saikish starts asking.
KNOWN_MISSES: dict[str, str] = {}


def person_rows() -> list[Row]:
    return [row for row in load_corpus() if row.label == "person"]


def as_param(row: Row) -> object:
    known = row.command in KNOWN_MISSES
    marks = [pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[row.command])] if known else []
    return pytest.param(row, id=f"{row.family}:{row.command[:40]}", marks=marks)


# -- the file ----------------------------------------------------------------------------

def test_the_corpus_loads_whole() -> None:
    # load_corpus checks every line: labels, families, fields, blanks, a why on every
    # person row, no command twice; it raises naming the first bad line.
    rows = load_corpus()
    assert len(rows) >= MIN_ROWS
    assert {row.label for row in rows} == {"benign", "person"}
    assert all(row.why for row in rows if row.label == "person")
    assert len({row.command for row in rows}) == len(rows)


@pytest.mark.parametrize(("lines", "problem"), [
    (['{"label": "person", "family": "push", "command": "git push"}'],
     "x.jsonl:1: a person row needs its 'why'"),
    (['{"label": "benign", "family": "test", "command": "pytest"}',
      '{"label": "benign", "family": "test", "command": "pytest"}'],
     "x.jsonl:2: the command of line 1 again"),
    (['{"label": "fine", "family": "test", "command": "pytest"}'],
     "x.jsonl:1: label 'fine' is not one of benign, person"),
    (['{"label": "benign", "family": "tests", "command": "pytest"}'],
     "x.jsonl:1: family 'tests' is not in FAMILIES"),
    (['{"label": "benign", "family": "test", "command": "pytest "}'],
     "x.jsonl:1: the command has blanks around it"),
    (['{"label": "benign", "family": "test", "command": "pytest", "note": "x"}'],
     "x.jsonl:1: unknown keys ['note']"),
    (['{"label": "benign", "family": "test", "command": ""}'],
     "x.jsonl:1: 'command' must be a non-empty string"),
    (['["benign", "test", "pytest"]'], "x.jsonl:1: not a JSON object"),
    (['{"label": "benign",'], "x.jsonl:1: not JSON"),
])
def test_a_bad_line_is_named(tmp_path: Path, lines: list[str], problem: str) -> None:
    path = tmp_path / "x.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(CorpusError) as raised:
        load_corpus(path)
    assert str(raised.value).startswith(problem)


# -- person rows are never allowed ----------------------------------------------------

@pytest.mark.parametrize("row", [as_param(row) for row in person_rows()])
def test_a_person_row_is_not_allowed(row: Row, ws: Path) -> None:
    ctx = Context(builtin_tools(), autonomy=Autonomy.CAUTIOUS, mode=Mode.EVENT_BASED,
                  workspace=str(ws))
    assessment = decide(ToolCall("1", "bash", {"command": row.command}), ctx)
    assert assessment.verdict is not Verdict.ALLOW, (
        f"{row.command!r} needs a person ({row.why}) but is allowed: {assessment.reason}")


@pytest.mark.parametrize("sandbox", ["auto", "off"])
def test_no_person_row_is_allowed_with_or_without_the_sandbox(
        sandbox: str, ws: Path, isolated_dirs: Path, cli: Callable[..., Run]) -> None:
    # Through `saikish check`, which reads the sandbox setting from agent.yml. With the
    # sandbox, a person row may run contained (inside it: no network, no home, .git
    # read-only, docs/SPEC.md §4.1) but is never verified, which would run it as is;
    # without the sandbox it is asked or rejected.
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    config = isolated_dirs / "config"
    config.mkdir()
    (config / "agent.yml").write_text(f'sandbox: "{sandbox}"\n', encoding="utf-8")
    allowed = {}
    for row in person_rows():
        run = cli("check", "--json", "--", row.command)
        assert run.code == 0, run.err
        answer = json.loads(run.out)
        ran = answer["decision"] == "allow" and (sandbox == "off" or
                                                answer["tier"] != "contained")
        if ran and row.command not in KNOWN_MISSES:
            allowed[row.command] = f"{answer.get('tier')}: {answer['reason']}"
    assert allowed == {}
