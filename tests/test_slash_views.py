"""What /mcp and /audit print, at the width a person's terminal has (docs/SPEC.md §9)."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console

from saikish.config import Config
from saikish.mcp.host import ServerLine
from tests.test_mcp_attacks import ECHO_SCHEMA, _tool

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
    _mcp(repl, "")  # type: ignore[arg-type]
    line = next(line for line in out.getvalue().splitlines() if "mcp__srv__search" in line)
    shown = line.split("UNKNOWN", 1)[1].strip()
    assert shown.endswith("…"), shown
    kept = shown.removesuffix("…").rstrip()
    assert LONG.startswith(kept) and LONG[len(kept)] == " ", shown  # whole words only
