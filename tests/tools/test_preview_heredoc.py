"""A here-document written to a file is previewed as a file write, with a diff (SPEC §4.7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from saikish.types import ToolCall
from tests.ui.test_prompt import render


def bash(command: str) -> ToolCall:
    return ToolCall("1", "bash", {"command": command})


def test_overwriting_a_file_shows_the_marker_and_the_diff(ws: Path) -> None:
    (ws / "notes.md").write_text("keep\nold line\n", encoding="utf-8")
    text = render(bash("cat > notes.md <<'EOF'\nkeep\nnew line\nEOF"), ws)
    assert "overwrite notes.md  +1 −1" in text
    assert "-old line" in text and "+new line" in text


def test_a_new_file_shows_its_content(ws: Path) -> None:
    text = render(bash("mkdir -p d && cat > d/new.txt <<EOF\nhello there\nEOF"), ws)
    assert "new file d/new.txt  +1 −0" in text
    assert "hello there" in text


def test_appending_shows_what_is_added(ws: Path) -> None:
    (ws / "log.txt").write_text("first\n", encoding="utf-8")
    text = render(bash("cat >> log.txt <<'EOF'\nsecond\nEOF"), ws)
    assert "append to log.txt  +1 −0" in text
    assert "+second" in text and "-first" not in text


@pytest.mark.parametrize("command", [
    "cat > a.txt <<EOF\n$(date)\nEOF",  # expanded by bash: the content is only known then
    "cat > $F <<'EOF'\nx\nEOF",  # the target is only known at run time
    "tee a.txt <<'EOF'\nx\nEOF",
])
def test_no_diff_is_claimed_where_the_content_or_target_is_not_known(
        ws: Path, command: str) -> None:
    text = render(bash(command), ws)
    assert "overwrite" not in text and "new file" not in text
