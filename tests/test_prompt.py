"""The approval prompt and preview (SPEC 5), through prompt_toolkit's pipe input."""

from __future__ import annotations

import io
import re
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from saikish.config import Config
from saikish.executor import ApprovalRequest
from saikish.policy import decide
from saikish.session import Session
from saikish.tools import builtin_tools
from saikish.types import Outcome, Source, ToolCall
from saikish.ui.approver import TerminalApprover
from saikish.ui.inert import inert
from saikish.ui.preview import approval_panel
from saikish.ui.prompt import Choice, PromptOptions, ask_choice

RIGHT, LEFT, DOWN, UP, ESC, CTRL_C = "\x1b[C", "\x1b[D", "\x1b[B", "\x1b[A", "\x1b", "\x03"


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        yield inp


def choose(pipe: PipeInput, keys: str, offer_always: bool = True,
           timeout_s: float | None = 30) -> Choice:
    pipe.send_text(keys)
    return ask_choice(lambda width, left: "box",
                      PromptOptions(offer_always=offer_always, timeout_s=timeout_s,
                                    input=pipe, output=DummyOutput()))


@pytest.mark.parametrize(("keys", "expected"), [
    ("y", Choice.YES),
    ("\r", Choice.YES),
    (RIGHT + "\r", Choice.ALWAYS_SESSION),
    (DOWN + "\r", Choice.ALWAYS_SESSION),
    (RIGHT + RIGHT + "\r", Choice.ALWAYS_REMEMBER),
    (RIGHT * 3 + "\r", Choice.EDIT),
    (RIGHT * 4 + "\r", Choice.NO),
    (RIGHT * 5 + "\r", Choice.STOP),
    (LEFT + "\r", Choice.STOP),
    (RIGHT + LEFT + "\r", Choice.YES),
    (UP + "\r", Choice.STOP),
    ("s", Choice.ALWAYS_SESSION),
    ("a", Choice.ALWAYS_REMEMBER),
    ("e", Choice.EDIT),
    ("n", Choice.NO),
    (ESC, Choice.STOP),
    (CTRL_C, Choice.STOP),
    ("xqz" + "y", Choice.YES),  # other keys do nothing
    ("\t\r", Choice.ALWAYS_SESSION),
])
def test_keys_pick_choices(pipe: PipeInput, keys: str, expected: Choice) -> None:
    assert choose(pipe, keys) is expected


@pytest.mark.parametrize(("keys", "expected"), [
    (RIGHT + "\r", Choice.EDIT),
    ("a" + "s" + "y", Choice.YES),  # always is not offered: a and s do nothing
])
def test_without_always(pipe: PipeInput, keys: str, expected: Choice) -> None:
    assert choose(pipe, keys, offer_always=False) is expected


def test_timeout_rejects(pipe: PipeInput) -> None:
    assert choose(pipe, "", timeout_s=0.3) is Choice.TIMEOUT


def test_countdown_is_redrawn_as_it_runs(pipe: PipeInput) -> None:
    now = [0.0]
    seen: list[int | None] = []

    def clock() -> float:
        now[0] += 0.25
        return now[0]

    def render(width: int, left: int | None) -> str:
        seen.append(left)
        return f"auto-deny in {left}s"

    choice = ask_choice(render, PromptOptions(timeout_s=3, clock=clock, input=pipe,
                                              output=DummyOutput()))
    assert choice is Choice.TIMEOUT
    counts = [s for s in seen if s is not None]
    assert counts[0] >= 2 and counts == sorted(counts, reverse=True) and len(set(counts)) >= 2


# -- the preview ----------------------------------------------------------------

def render(call: ToolCall, workspace: Path, batch: tuple[ToolCall, ...] = (),
           left: int | None = 27, width: int = 100) -> str:
    session = Session(Config(), str(workspace))
    assessment = decide(call, session.context(builtin_tools()))
    request = ApprovalRequest(call, assessment, 0, batch or (call,), str(workspace))
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None).print(approval_panel(request, left))
    return buffer.getvalue()


def test_bash_preview_shows_each_command_and_why(ws: Path) -> None:
    call = ToolCall("1", "bash", {"command": "git status && npm install left-pad > log.txt"})
    text = render(call, ws)
    assert "bash · NETWORK" in text
    assert "git status && npm install left-pad > log.txt" in text
    assert re.search(r"READ-ONLY\s+git status\s+✓ autonomy", text)
    assert re.search(r"NETWORK\s+npm install left-pad\s+needs approval", text)
    assert re.search(r"WRITE\s+> log.txt\s+needs approval", text)
    assert "Bash(npm install *)" in text and "auto-deny in 27s" in text


def test_write_preview_shows_a_diff_against_the_current_file(ws: Path) -> None:
    (ws / "notes.md").write_text("one\ntwo\n")
    text = render(ToolCall("1", "write_file", {"path": "notes.md", "content": "one\n2\n"}), ws)
    assert "overwrite notes.md" in text
    assert "-two" in text and "+2" in text and "--- a/notes.md" in text


def test_write_preview_of_a_new_file_shows_the_content(ws: Path) -> None:
    text = render(ToolCall("1", "write_file", {"path": "new.py", "content": "x = 1\n"}), ws)
    assert "new file new.py" in text and "x = 1" in text


def test_edit_preview_shows_the_diff_of_the_edit(ws: Path) -> None:
    (ws / "a.py").write_text("a = 1\nb = 2\n")
    text = render(ToolCall("1", "edit_file", {"path": "a.py", "old_string": "b = 2",
                                              "new_string": "b = 3"}), ws)
    assert "-b = 2" in text and "+b = 3" in text
    text = render(ToolCall("1", "edit_file", {"path": "a.py", "old_string": "zzz",
                                              "new_string": "y"}), ws)
    assert "does not apply" in text


def test_other_tools_show_their_arguments(ws: Path) -> None:
    tools = builtin_tools()
    call = ToolCall("1", "grep", {"pattern": "TODO"})
    session = Session(Config(), str(ws))
    assessment = decide(call, session.context(tools))
    buffer = io.StringIO()
    Console(file=buffer, width=80, color_system=None).print(
        approval_panel(ApprovalRequest(call, assessment, 0, (call,), str(ws)), None))
    assert '"pattern": "TODO"' in buffer.getvalue()


def test_the_rest_of_the_batch_is_named(ws: Path) -> None:
    calls = (ToolCall("1", "bash", {"command": "touch a"}),
             ToolCall("2", "bash", {"command": "npm test"}),
             ToolCall("3", "write_file", {"path": "x.txt", "content": ""}))
    text = render(calls[0], ws, batch=calls)
    assert "call 1 of 3 · next: bash: npm test, write_file: x.txt" in text


def test_long_content_is_cut_with_a_note(ws: Path) -> None:
    content = "".join(f"line {n}\n" for n in range(200))
    text = render(ToolCall("1", "write_file", {"path": "big.txt", "content": content}), ws)
    assert "line 0" in text and "line 199" not in text
    assert "160 more lines not shown" in text


def test_model_text_is_made_inert(ws: Path) -> None:
    evil = "echo \x1b[2J\x1b]0;pwned\x07 \u202eexe.txt"
    buffer = io.StringIO()
    session = Session(Config(), str(ws))
    call = ToolCall("1", "bash", {"command": evil + " > out"})
    assessment = decide(call, session.context(builtin_tools()))
    Console(file=buffer, width=100, force_terminal=True).print(
        approval_panel(ApprovalRequest(call, assessment, 0, (call,), str(ws)), 5))
    out = buffer.getvalue()
    assert "\x1b[2J" not in out and "\x1b]0;" not in out and "\u202e" not in out
    assert "\\x1b[2J" in out and "\\u202e" in out


def test_inert_keeps_newlines_and_tabs() -> None:
    assert inert("a\tb\nc\x07\x9b") == "a\tb\nc\\x07\\x9b"


# -- the approver: what each answer becomes ---------------------------------------

def request_for(command: str, ws: Path) -> ApprovalRequest:
    call = ToolCall("c1", "bash", {"command": command})
    assessment = decide(call, Session(Config(), str(ws)).context(builtin_tools()))
    return ApprovalRequest(call, assessment, 0, (call,), str(ws))


def approver(pipe: PipeInput, **kwargs: object) -> TerminalApprover:
    console = Console(file=io.StringIO(), width=100)
    return TerminalApprover(console, input=pipe, output=DummyOutput(),  # type: ignore[arg-type]
                            **kwargs)


def test_no_asks_for_feedback_and_rejects_soft(pipe: PipeInput, ws: Path) -> None:
    pipe.send_text("ntoo risky\r")
    decision = approver(pipe).ask(request_for("npm install x", ws))
    assert (decision.outcome, decision.source, decision.feedback) == (
        Outcome.REJECTED_SOFT, Source.USER, "too risky")


def test_always_offers_the_rule_for_editing(pipe: PipeInput, ws: Path) -> None:
    pipe.send_text("a\r")
    decision = approver(pipe).ask(request_for("npm install x", ws))
    assert decision.approved and decision.remember == ("Bash(npm install *)",)
    assert decision.persist


def test_always_rule_can_be_changed_before_it_is_saved(pipe: PipeInput, ws: Path) -> None:
    pipe.send_text("s" + "\x7f" * len("npm install *)") + "npm install x)\r")
    decision = approver(pipe).ask(request_for("npm install x", ws))
    assert decision.remember == ("Bash(npm install x)",) and not decision.persist


def test_escape_stops_the_batch(pipe: PipeInput, ws: Path) -> None:
    pipe.send_text(ESC)
    decision = approver(pipe).ask(request_for("npm install x", ws))
    assert (decision.outcome, decision.source) == (Outcome.REJECTED_HARD, Source.USER)


def test_timeout_stops_the_batch(pipe: PipeInput, ws: Path) -> None:
    decision = approver(pipe, timeout_s=0.3).ask(request_for("npm install x", ws))
    assert (decision.outcome, decision.source) == (Outcome.REJECTED_HARD, Source.TIMEOUT)


def test_edit_with_an_editor(pipe: PipeInput, ws: Path, tmp_path: Path) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/left-pad/right-pad/' \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    pipe.send_text("e")
    decision = approver(pipe, environ={"EDITOR": str(editor)}).ask(
        request_for("npm install left-pad", ws))
    assert decision.edited_call is not None
    assert decision.edited_call.arguments == {"command": "npm install right-pad"}


def test_edit_inline_without_an_editor(pipe: PipeInput, ws: Path) -> None:
    pipe.send_text("e" + "\x7f" * 3 + "yz" + "\x1b\r")
    decision = approver(pipe, environ={}).ask(request_for("npm install abc", ws))
    assert decision.edited_call is not None
    assert decision.edited_call.arguments == {"command": "npm install yz"}
