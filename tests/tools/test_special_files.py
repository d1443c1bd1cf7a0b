"""Only regular files are read, and never without a bound (saikish/store/readfile.py).

A cloned repository's `data.bin -> /dev/zero` made the auto-approved grep read gigabytes;
a FIFO hung read_file, grep, the write preview and the decision itself (file_state);
write_file to /dev/zero was read to be drawn even under --auto-deny. Calls that could
hang run in a thread with a deadline, so that before the fix a test fails, not hangs.
"""

from __future__ import annotations

import io
import json
import os
import resource
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from rich.console import Console

from saikish.acp.server import file_diff
from saikish.config.layers import Config
from saikish.engine.policy import decide
from saikish.runtime.approval import ApprovalRequest
from saikish.runtime.session import Session
from saikish.store.readfile import FileTooLarge, read_regular
from saikish.tools import RunContext, builtin_tools
from saikish.tools.files import file_state
from saikish.types import ToolCall
from saikish.ui.preview import approval_panel
from saikish.view import ChangeKind, FileChange
from tests.support.harness import write_script

TOOLS = builtin_tools()
DEADLINE = 120.0
T = TypeVar("T")


def within(function: Callable[[], T]) -> T:
    """function(), failing the test when it has not returned by the deadline."""
    box: list[T] = []
    failed: list[BaseException] = []

    def call() -> None:
        try:
            box.append(function())
        except BaseException as error:  # handed to the test's own thread
            failed.append(error)

    worker = threading.Thread(target=call, daemon=True)
    worker.start()
    worker.join(DEADLINE)
    if failed:
        raise failed[0]
    assert box, f"still running after {DEADLINE:g} s: it hangs or reads without end"
    return box[0]


@pytest.fixture
def hostile(ws: Path) -> Path:
    """A workspace as a cloned repository could leave it: a link to /dev/zero, a FIFO."""
    (ws / "notes.txt").write_text("needle here\n")
    (ws / "data.bin").symlink_to("/dev/zero")
    os.mkfifo(ws / "pipe")
    return ws


def run(name: str, args: dict[str, object], ws: Path) -> tuple[str, bool]:
    output = within(lambda: TOOLS[name].run(args, RunContext(str(ws))))
    return output.text, output.is_error


def test_grep_searches_regular_files_and_names_what_it_left_out(hostile: Path) -> None:
    text, is_error = run("grep", {"pattern": "needle"}, hostile)
    assert not is_error
    assert "notes.txt:1:needle here" in text
    assert "[not searched: data.bin (not a regular file (a device)), " \
           "pipe (not a regular file (a FIFO))]" in text


@pytest.mark.parametrize(("path", "kind"), [("data.bin", "a device"), ("pipe", "a FIFO"),
                                            ("/dev/zero", "a device")])
def test_read_file_refuses_what_is_not_a_regular_file(hostile: Path, path: str,
                                                      kind: str) -> None:
    assert run("read_file", {"path": path}, hostile) == (
        f"cannot read {path}: not a regular file ({kind})", True)


def test_edit_file_refuses_a_fifo(hostile: Path) -> None:
    assert run("edit_file", {"path": "pipe", "old_string": "a", "new_string": "b"},
               hostile) == ("cannot read pipe: not a regular file (a FIFO)", True)


@pytest.mark.parametrize("path", ["pipe", "data.bin"])
def test_write_file_never_replaces_a_fifo_or_a_device_with_a_file(hostile: Path,
                                                                  path: str) -> None:
    before = os.stat(hostile / path).st_mode
    text, is_error = run("write_file", {"path": path, "content": "x"}, hostile)
    assert is_error and "not a regular file" in text
    assert os.stat(hostile / path).st_mode == before
    assert not stat.S_ISREG(before)


@pytest.mark.parametrize("path", ["pipe", "data.bin", "/dev/zero"])
def test_the_state_of_a_write_target_never_reads_a_special_file(hostile: Path,
                                                                path: str) -> None:
    assert within(lambda: file_state({"path": path}, str(hostile))) is None


def test_the_write_preview_says_a_fifo_is_not_a_file(hostile: Path) -> None:
    call = ToolCall("1", "write_file", {"path": "pipe", "content": "new\n"})

    def draw() -> str:
        session = Session(Config(), str(hostile))
        request = ApprovalRequest(call, decide(call, session.context(TOOLS)), 0, (call,),
                                  str(hostile), tool=TOOLS[call.name])
        buffer = io.StringIO()
        Console(file=buffer, width=100, color_system=None).print(approval_panel(request, 27))
        return buffer.getvalue()

    text = within(draw)
    assert "it is a FIFO, not a regular file: the write will fail" in text
    assert "new file" not in text


def test_the_acp_diff_of_a_fifo_is_none_as_the_write_will_fail(hostile: Path) -> None:
    """The tool's own view: a FIFO is not a regular file, so the write fails; an editor is
    shown no diff of a change that will not happen (and nothing reads the FIFO)."""
    call = ToolCall("1", "write_file", {"path": "pipe", "content": "new\n"})
    view = within(lambda: TOOLS[call.name].show(call, str(hostile)))
    assert isinstance(view, FileChange) and view.kind is ChangeKind.SPECIAL
    assert file_diff(view) is None


def test_a_file_past_the_bound_is_cut_or_refused(ws: Path) -> None:
    big = ws / "big.log"
    with big.open("wb") as handle:
        handle.truncate(3000)
    assert len(read_regular(big, 1000, cut=True)) == 1000
    with pytest.raises(FileTooLarge, match="larger than 1,000 bytes"):
        read_regular(big, 1000)


def test_a_one_shot_run_denying_a_write_to_dev_zero_never_reads_it(ws: Path,
                                                                   tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yml", "- tool_calls:\n    - {name: write_file, "
                                             "arguments: {path: /dev/zero, content: x}}\n"
                                             "- text: done\n")

    def bounded_memory() -> None:  # before the fix this run read /dev/zero without end
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    done = subprocess.run([sys.executable, "-m", "saikish", "-p", "go", "-m", model,
                           "--auto-deny", "--output-format", "json"], cwd=ws, text=True,
                          capture_output=True, timeout=DEADLINE, preexec_fn=bounded_memory)
    assert done.returncode == 0, done.stderr
    (call,) = json.loads(done.stdout)["calls"]
    assert (call["decision"], call["source"]) == ("rejected_soft", "mode")
