"""An input history that cannot be read or written degrades to one warning (issue 15)."""

from __future__ import annotations

import os
from pathlib import Path

from saikish.ui.history import SafeHistory
from tests.ui.test_pty import Shell


def test_an_unusable_history_file_is_one_warning_and_the_repl_goes_on(tmp_path: Path) -> None:
    (Path(os.environ["SAIKISH_STATE_DIR"]) / "history").mkdir(parents=True)  # not a file
    # Wide enough for the warning and its path on one line (xdist's temp paths are longer).
    shell = Shell("- text: first answer\n- text: second answer\n", tmp_path,
                  size=(len(os.environ["SAIKISH_STATE_DIR"]) + 200, 40))
    try:
        shell.say("hello")
        shell.expect("cannot read the input history")
        shell.expect("history is kept for this session only")
        shell.expect("first answer")
        shell.say("again")
        shell.expect("second answer")
        assert shell.quit() == 0
    finally:
        shell.child.close(force=True)
    screen = shell.log.getvalue()
    assert "Unhandled exception" not in screen and "Traceback" not in screen
    assert screen.count("cannot read the input history") == 1


def test_safe_history_keeps_entries_in_memory_when_the_file_fails(tmp_path: Path) -> None:
    history = SafeHistory(tmp_path / "missing-dir" / "history")
    history.append_string("ls")
    history.append_string("pwd")
    assert history.get_strings() == ["ls", "pwd"]
    warning = history.take_warning()
    assert warning is not None and warning.startswith("cannot save the input history ")
    assert history.take_warning() is None
