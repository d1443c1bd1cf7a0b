"""The event stream (saikish/events.py): a subscriber's failure never ends the work.

Before, an `edit_file` call without `new_string` made the transcript's decision record
raise while it drew the diff, the error reached the executor through publish(), and
`-p` ended with exit 1 and the calls after it unanswered.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from saikish.acp.server import file_diff
from saikish.config.layers import Config
from saikish.engine.policy import decide
from saikish.events import CallProposed, Event, EventBus, Notice, Recorder, TextDelta
from saikish.runtime.approval import ApprovalRequest
from saikish.runtime.session import Session
from saikish.tools import builtin_tools
from saikish.types import ToolCall
from saikish.ui.preview import approval_panel
from tests.support.harness import Run, write_script

TOOLS = builtin_tools()

CLI = Callable[..., Run]


def broken(event: Event) -> None:
    raise KeyError("new_string")


def test_a_failing_subscriber_is_skipped_and_the_others_still_hear_everything() -> None:
    bus, before, after = EventBus(), Recorder(), Recorder()
    for subscriber in (before, broken, after):
        bus.subscribe(subscriber)
    bus.publish(TextDelta("one"))
    bus.publish(TextDelta("two"))  # fails again: reported once only
    notices = [e for e in after.events if isinstance(e, Notice)]
    assert [e for e in after.events if isinstance(e, TextDelta)] == [TextDelta("one"),
                                                                       TextDelta("two")]
    assert [n.text for n in notices] == [
        "broken failed on a text_delta event and skipped it (KeyError: 'new_string'); "
        "the work goes on"]
    assert before.events == after.events


def test_an_interrupt_still_reaches_the_publisher() -> None:
    def interrupted(event: Event) -> None:
        raise KeyboardInterrupt

    bus = EventBus()
    bus.subscribe(interrupted)
    try:
        bus.publish(TextDelta("x"))
    except KeyboardInterrupt:
        return
    raise AssertionError("Ctrl-C must not be swallowed by the event stream")


EDIT_WITHOUT_NEW_STRING = """\
- tool_calls:
    - {name: edit_file, arguments: {path: notes.txt, old_string: hello}}
    - {name: read_file, arguments: {path: notes.txt}}
- text: done
"""


def test_an_invalid_edit_becomes_an_error_result_and_the_run_goes_on(
        cli: CLI, ws: Path, tmp_path: Path) -> None:
    (ws / "notes.txt").write_text("hello\n")
    model = write_script(tmp_path / "s.yml", EDIT_WITHOUT_NEW_STRING)
    run = cli("-p", "go", "-m", model, "--auto-deny", "--output-format", "json")
    assert run.code == 0, run.err
    data = json.loads(run.out)
    first, second = data["calls"]
    assert (data["exit_reason"], data["result"]) == ("finished", "done")
    assert (first["decision"], first["feedback"]) == ("invalid",
                                                      "missing required argument 'new_string'")
    assert second["decision"] == "approved"
    assert "edit_file notes.txt · missing required argument 'new_string'" in run.err
    assert (ws / "notes.txt").read_text() == "hello\n"


def draw(call: ToolCall, ws: Path) -> str:
    tools = builtin_tools()
    session = Session(Config(), str(ws))
    request = ApprovalRequest(call, decide(call, session.context(tools)), 0, (call,), str(ws),
                              tool=tools.get(call.name))
    buffer = io.StringIO()
    Console(file=buffer, width=100, color_system=None).print(approval_panel(request, 27))
    return buffer.getvalue()


def test_a_nul_in_a_path_is_drawn_and_diffed_without_raising(ws: Path) -> None:
    call = ToolCall("1", "write_file", {"path": "a\x00b", "content": "x\n"})
    assert "a\\x00b" in draw(call, ws)
    diff = file_diff(TOOLS[call.name].show(call, str(ws)))
    assert diff is not None and diff["oldText"] is None


def test_a_lone_surrogate_in_a_path_is_drawn_and_diffed_without_raising(ws: Path) -> None:
    call = ToolCall("1", "edit_file", {"path": "a\udc80b", "old_string": "a",
                                       "new_string": "b"})
    assert "the edit does not apply to the current file" in draw(call, ws)
    assert file_diff(TOOLS[call.name].show(call, str(ws))) is None


def test_a_proposed_call_with_missing_arguments_is_drawn(ws: Path) -> None:
    (ws / "notes.txt").write_text("hello\n")
    call = ToolCall("1", "edit_file", {"path": "notes.txt", "old_string": "hello"})
    assert "the edit does not apply to the current file" in draw(call, ws)
    bus = EventBus()
    bus.subscribe(Recorder())
    bus.publish(CallProposed(call, 0, 1))
