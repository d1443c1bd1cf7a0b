"""What /mcp and /audit print, at the width a person's terminal has (docs/SPEC.md §9)."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from rich.console import Console

from saikish.config.layers import Config
from saikish.mcp.host import ServerLine
from tests.mcp.test_mcp_attacks import ECHO_SCHEMA, _tool

LONG = ("Search the issue tracker of the repository for open issues that mention the given "
        "words, newest first, with their labels and assignees")


def test_slash_mcp_cuts_a_description_at_a_word_and_says_so(tmp_path: Path) -> None:
    from saikish.ui.commands import _mcp

    tool = _tool(tmp_path, name="search", schema=ECHO_SCHEMA, description=LONG)
    out = io.StringIO()
    mcp = SimpleNamespace(lines=lambda: [ServerLine("gh", "ready", "1 tools", "agent.yml:2",
                                                    (tool,))])
    repl = SimpleNamespace(session=SimpleNamespace(config=Config(), mcp=mcp,
                                                   workspace=str(tmp_path)),
                           console=Console(file=out, width=200),
                           say=lambda text, style="dim": None)
    _mcp(repl, "")
    line = next(line for line in out.getvalue().splitlines() if "mcp__srv__search" in line)
    shown = line.split("UNKNOWN", 1)[1].strip()
    assert shown.endswith("…"), shown
    kept = shown.removesuffix("…").rstrip()
    assert LONG.startswith(kept) and LONG[len(kept)] == " ", shown  # whole words only


ENTRIES: list[dict[str, Any]] = [
    {"time": "2026-11-22T15:14:55Z", "workspace": "/home/someone/projects/a-long-project-name",
     "tool": "bash", "arguments": {"command": "git status && npm install left-pad && rm -rf "
                                              "node_modules/.cache"},
     "risk": "DESTRUCTIVE", "decision": "rejected_soft", "source": "user", "rule": None},
    {"time": "2026-11-22T15:15:01Z", "workspace": "/srv/x",
     "tool": "mcp__github__create_pull_request", "arguments": {"title": "x"},
     "risk": "NETWORK", "decision": "approved", "source": "rule",
     "rule": "mcp__github__create_pull_request(title=*)"},
]


def test_slash_audit_keeps_one_line_per_decision_at_100_columns() -> None:
    from saikish.ui.tables import audit_table

    out = io.StringIO()
    Console(file=out, width=100).print(audit_table(ENTRIES))
    lines = out.getvalue().splitlines()
    assert len(lines) == 3, out.getvalue()  # the header and one line each, nothing wrapped
    assert all(len(line) <= 100 for line in lines)
    for word in ("rejected_soft", "DESTRUCTIVE", "approved", "2026-11-22"):
        assert word in out.getvalue()  # the short words are never cut
    assert "git status && npm" in lines[1] and "…" in lines[1]


def test_audit_off_a_terminal_keeps_whole_lines_without_padding() -> None:
    from saikish.ui.parts import stream_console
    from saikish.ui.tables import audit_table

    out = io.StringIO()
    stream_console(out).print(audit_table(ENTRIES))
    text = out.getvalue()
    assert "rm -rf node_modules/.cache" in text and "(title=*)" in text
    assert max(len(line) for line in text.splitlines()) < 250  # sized to content
