"""The approval prompt and preview (docs/SPEC.md §5), through prompt_toolkit's pipe input."""

from __future__ import annotations

import io
import re
import stat
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from saikish.config.layers import Config
from saikish.engine.policy import decide
from saikish.inert import inert
from saikish.runtime.approval import Withdrawal
from saikish.runtime.executor import ApprovalRequest
from saikish.runtime.session import Session
from saikish.tools import builtin_tools
from saikish.types import Decision, Outcome, Scope, Source, ToolCall, ToolResult
from saikish.ui.approver import TerminalApprover
from saikish.ui.box import FittedBox
from saikish.ui.preview import approval_panel, approval_parts
from saikish.ui.prompt import Choice, Drawn, Frame, PromptOptions, ask_choice
from saikish.ui.record import DecisionRecord
from saikish.ui.render import ConsoleReporter
from tests.support.rules import texts

RIGHT, LEFT, DOWN, UP, ESC, CTRL_C = "\x1b[C", "\x1b[D", "\x1b[B", "\x1b[A", "\x1b", "\x03"


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp, create_app_session(input=inp, output=DummyOutput()):
        yield inp


def choose(pipe: PipeInput, keys: str, offer_always: bool = True,
           timeout_s: float | None = 30) -> Choice:
    pipe.send_text(keys)
    return ask_choice(lambda frame: Drawn("box"),
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
    ("1", Choice.YES),
    ("2", Choice.ALWAYS_SESSION),
    ("3", Choice.ALWAYS_REMEMBER),
    ("4", Choice.EDIT),
    ("5", Choice.NO),
    ("6", Choice.STOP),
    ("\x1b[6~\x1b[5~" + "y", Choice.YES),  # PgDn, PgUp scroll; they choose nothing
    ("7" + "9" + "0" + "n", Choice.NO),  # numbers past the choices do nothing
])
def test_keys_pick_choices(pipe: PipeInput, keys: str, expected: Choice) -> None:
    assert choose(pipe, keys) is expected


@pytest.mark.parametrize(("keys", "expected"), [
    (RIGHT + "\r", Choice.EDIT),
    ("a" + "s" + "y", Choice.YES),  # always is not offered: a and s do nothing
    ("2", Choice.EDIT),  # the shown choices are numbered in order
    ("4", Choice.STOP),
    ("5" + "y", Choice.YES),
])
def test_without_always(pipe: PipeInput, keys: str, expected: Choice) -> None:
    assert choose(pipe, keys, offer_always=False) is expected


def test_timeout_rejects(pipe: PipeInput) -> None:
    assert choose(pipe, "", timeout_s=0.3) is Choice.TIMEOUT


def test_countdown_is_redrawn_as_it_runs(pipe: PipeInput) -> None:
    now = [0.0]
    seen: list[str | None] = []

    def clock() -> float:
        now[0] += 0.25
        return now[0]

    def render(frame: Frame) -> Drawn:
        seen.append(frame.countdown)
        return Drawn(str(frame.countdown))

    choice = ask_choice(render, PromptOptions(timeout_s=3, clock=clock, input=pipe,
                                              output=DummyOutput()))
    assert choice is Choice.TIMEOUT
    counts = [int(s.removeprefix("auto-deny in ").rstrip("s")) for s in seen if s]
    assert counts[0] >= 2 and counts == sorted(counts, reverse=True) and len(set(counts)) >= 2


def test_scrolling_pauses_the_countdown(pipe: PipeInput) -> None:
    now = [0.0]
    seen: list[str | None] = []

    def render(frame: Frame) -> Drawn:
        now[0] += 1.0  # each frame, a second passes
        seen.append(frame.countdown)
        if frame.countdown == "countdown paused" and seen.count(frame.countdown) == 3:
            pipe.send_text("y")  # answer only after the clock has run past the deadline
        return Drawn("box", scroll=frame.scroll, max_scroll=10, page=5)

    pipe.send_text("\x1b[6~")  # PgDn
    choice = ask_choice(render, PromptOptions(timeout_s=2, clock=lambda: now[0], input=pipe,
                                              output=DummyOutput()))
    assert choice is Choice.YES
    assert seen[0] is not None and seen[0].startswith("auto-deny in ")
    assert now[0] > 2 and seen[-1] == "countdown paused"


# -- the preview ----------------------------------------------------------------

def render(call: ToolCall, workspace: Path, batch: tuple[ToolCall, ...] = (),
           left: int | None = 27, width: int = 100) -> str:
    session = Session(Config(), str(workspace))
    assessment = decide(call, session.context(builtin_tools()))
    tools = builtin_tools()
    batch = batch or (call,)
    request = ApprovalRequest(call, assessment, 0, batch, str(workspace),
                              tool=tools.get(call.name),
                              batch_tools=tuple(tools.get(c.name) for c in batch))
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
        approval_panel(ApprovalRequest(call, assessment, 0, (call,), str(ws),
                                       tool=builtin_tools().get(call.name)), None))
    assert '"pattern": "TODO"' in buffer.getvalue()


def test_the_rest_of_the_batch_is_named(ws: Path) -> None:
    calls = (ToolCall("1", "bash", {"command": "touch a"}),
             ToolCall("2", "bash", {"command": "npm test"}),
             ToolCall("3", "write_file", {"path": "x.txt", "content": ""}))
    text = render(calls[0], ws, batch=calls)
    assert "call 1 of 3 · next: bash: npm test, write_file: x.txt" in text


def test_the_pager_view_holds_every_line(ws: Path) -> None:
    content = "".join(f"line {n}\n" for n in range(200))
    text = render(ToolCall("1", "write_file", {"path": "big.txt", "content": content}), ws)
    assert "line 0" in text and "line 199" in text and "+200 −0" in text


# -- the box at every terminal size -------------------------------------------------

TALL = "".join(f"line {n} of the tall file\n" for n in range(150))
CHAIN = " && ".join(f"touch f{n}" for n in range(30))
LONG = "echo " + " ".join(f"word{n}" for n in range(400)) + " > out.txt"
CALLS = {
    "tall write": ToolCall("1", "write_file", {"path": "tall.txt", "content": TALL}),
    "long chain": ToolCall("1", "bash", {"command": CHAIN}),
    "long command": ToolCall("1", "bash", {"command": LONG}),
}
SIZES = [(60, 24), (80, 24), (120, 40)]


def draw(call: ToolCall, ws: Path, width: int, height: int, scroll: int = 0) -> list[str]:
    session = Session(Config(), str(ws))
    request = ApprovalRequest(call, decide(call, session.context(builtin_tools())), 0, (call,),
                              str(ws), tool=builtin_tools().get(call.name))
    drawn = FittedBox(approval_parts(request)).draw(Frame(width, height, scroll,
                                                          "auto-deny in 9s"))
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None).print(drawn.renderable)
    return buffer.getvalue().rstrip("\n").split("\n")


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("case", list(CALLS))
def test_the_box_fits_the_terminal_and_keeps_its_reasons(ws: Path, case: str,
                                                         size: tuple[int, int]) -> None:
    width, height = size
    lines = draw(CALLS[case], ws, width, height - 4)  # the choices and help go below
    text = "\n".join(lines)
    assert len(lines) <= height - 4 and all(len(line) <= width for line in lines)
    assert "· WRITE" in lines[0]  # the header
    assert "why:" in text and "always would allow:" in text
    assert "auto-deny in 9s" in lines[-1]
    # Never hidden: the end of what will run is on screen, or the box says there is more.
    end = {"tall write": "line 149 of", "long chain": "touch f29", "long command": "word399"}
    assert end[case] in text or re.search(r"lines 1–\d+ of \d+ · PgUp PgDn", text)


def test_the_risk_lines_stay_when_there_is_room(ws: Path) -> None:
    text = "\n".join(draw(CALLS["long command"], ws, 60, 20))
    assert re.search(r"WRITE\s+> out.txt\s+needs approval", text)
    assert re.search(r"READ-ONLY\s+echo word0", text)


def test_a_chain_too_long_for_its_risk_lines_counts_them(ws: Path) -> None:
    text = "\n".join(draw(CALLS["long chain"], ws, 60, 20))
    assert "30 parts: 30 need approval (WRITE), 0 permitted" in text


def test_the_body_scrolls_to_its_end_and_no_further(ws: Path) -> None:
    lines = draw(CALLS["tall write"], ws, 80, 20, scroll=10**6)
    text = "\n".join(lines)
    assert "line 149 of the tall file" in text and "line 0 of" not in text
    assert re.search(r"lines \d+–151 of 151", text)


def test_a_small_call_is_drawn_whole(ws: Path) -> None:
    text = "\n".join(draw(ToolCall("1", "bash", {"command": "touch a"}), ws, 60, 20))
    assert "PgUp" not in text and "touch a" in text and "why:" in text


def test_padding_cannot_push_a_command_out_of_sight(ws: Path) -> None:
    call = ToolCall("1", "bash", {"command": "echo hi" + " " * 300 + "; rm -rf ~/x"})
    text = "\n".join(draw(call, ws, 60, 20))
    assert "echo hi⟨300 blanks⟩; rm -rf ~/x" in text


def test_model_text_is_made_inert(ws: Path) -> None:
    evil = "echo \x1b[2J\x1b]0;pwned\x07 \u202eexe.txt"
    buffer = io.StringIO()
    session = Session(Config(), str(ws))
    call = ToolCall("1", "bash", {"command": evil + " > out"})
    assessment = decide(call, session.context(builtin_tools()))
    Console(file=buffer, width=100, force_terminal=True).print(
        approval_panel(ApprovalRequest(call, assessment, 0, (call,), str(ws),
                                       tool=builtin_tools().get(call.name)), 5))
    out = buffer.getvalue()
    assert "\x1b[2J" not in out and "\x1b]0;" not in out and "\u202e" not in out
    assert "\\x1b[2J" in out and "\\u202e" in out


def test_inert_keeps_newlines_and_tabs() -> None:
    assert inert("a\tb\nc\x07\x9b") == "a\tb\nc\\x07\\x9b"


# -- the approver: what each answer becomes ---------------------------------------

def request_for(command: str, ws: Path) -> ApprovalRequest:
    call = ToolCall("c1", "bash", {"command": command})
    assessment = decide(call, Session(Config(), str(ws)).context(builtin_tools()))
    return ApprovalRequest(call, assessment, 0, (call,), str(ws),
                           tool=builtin_tools().get(call.name))


def approver(pipe: PipeInput, **kwargs: Any) -> TerminalApprover:
    console = Console(file=io.StringIO(), width=100)
    return TerminalApprover(console, input=pipe, output=DummyOutput(), **kwargs)


def test_no_asks_for_feedback_and_rejects_soft(pipe: PipeInput, ws: Path) -> None:
    pipe.send_text("ntoo risky\r")
    decision = approver(pipe).ask(request_for("npm install x", ws))
    assert (decision.outcome, decision.source, decision.feedback) == (
        Outcome.REJECTED_SOFT, Source.USER, "too risky")


def test_always_offers_the_rule_for_editing(pipe: PipeInput, ws: Path) -> None:
    pipe.send_text("a\r")
    decision = approver(pipe).ask(request_for("npm install x", ws))
    assert decision.approved and texts(decision.remember) == ("Bash(npm install *)",)
    assert decision.persist


def test_always_rule_can_be_changed_before_it_is_saved(pipe: PipeInput, ws: Path) -> None:
    pipe.send_text("s" + "\x7f" * len("npm install *)") + "npm install x)\r")
    decision = approver(pipe).ask(request_for("npm install x", ws))
    assert texts(decision.remember) == ("Bash(npm install x)",) and not decision.persist


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


# -- cancel never approves (docs/SPEC.md §4.8); keys in sub-steps: tests/ui/test_pty.py ---------

def asked(pipe: PipeInput, keys: str, ws: Path, command: str = "npm install x",
          **kwargs: Any) -> tuple[Decision, str]:
    pipe.send_text(keys)
    out = io.StringIO()
    decision = TerminalApprover(Console(file=out, width=100), input=pipe, output=DummyOutput(),
                                **kwargs).ask(request_for(command, ws))
    return decision, out.getvalue()


def test_an_editor_that_fails_or_changes_nothing_returns_to_the_box(
        pipe: PipeInput, ws: Path, tmp_path: Path) -> None:
    for name, body in (("fails", "exit 3"), ("keeps", "true")):
        editor = tmp_path / f"{name}.sh"
        editor.write_text(f"#!/bin/sh\n{body}\n")
        editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
        decision, out = asked(pipe, "e", ws, environ={"EDITOR": str(editor)}, timeout_s=0.5)
        assert decision.outcome is Outcome.REJECTED_HARD and decision.edited_call is None, name
        assert ("exited with 3" if name == "fails" else "nothing was changed") in out, name


@pytest.mark.parametrize(("keys", "scope", "why"), [
    ("a\r", Scope.PROJECT, "Always (remember) saves to this project by default"),
    ("a\x07\r", Scope.GLOBAL, "Ctrl-G on the rule line saves for every project"),
    ("a\x07\x07\r", Scope.PROJECT, "Ctrl-G again switches back"),
])
def test_always_remember_saves_to_the_project_unless_the_person_says_every_project(
        pipe: PipeInput, ws: Path, keys: str, scope: Scope, why: str) -> None:
    decision, _ = asked(pipe, keys, ws)
    assert decision.persist and texts(decision.remember) == ("Bash(npm install *)",), why
    assert decision.scope is scope, why


def test_always_this_session_has_no_scope_to_choose(pipe: PipeInput, ws: Path) -> None:
    decision, _ = asked(pipe, "s\x07\r", ws)  # Ctrl-G does nothing on a session rule
    assert not decision.persist and decision.scope is Scope.PROJECT


def test_the_record_never_claims_a_rule_was_saved(pipe: PipeInput, ws: Path) -> None:
    decision, out = asked(pipe, "a\r", ws)
    assert texts(decision.remember) == ("Bash(npm install *)",) and decision.persist
    buffer = io.StringIO()  # the transcript prints the record (the one printer of them)
    ConsoleReporter(Console(file=buffer, width=100), workspace=str(ws)).decided(
        ToolCall("1", "bash", {"command": "npm install left-pad"}), decision, None)
    shown = out + buffer.getvalue()
    assert "saved" not in shown  # only the session, after writing the file, says where
    assert "approved by you · always: Bash(npm install *)" in shown


# -- the record left in the scrollback ---------------------------------------------

def record(call: ToolCall, ws: Path, width: int = 60, max_lines: int = 6) -> list[str]:
    buffer = io.StringIO()
    Console(file=buffer, width=width, color_system=None).print(
        DecisionRecord(call, "approved by you, once", "green",
                       builtin_tools()[call.name].show(call, str(ws)), max_lines))
    return buffer.getvalue().rstrip("\n").split("\n")


def test_a_short_call_is_one_line(ws: Path) -> None:
    assert record(ToolCall("1", "bash", {"command": "touch a"}), ws) == [
        "● bash touch a · approved by you, once"]


def test_a_long_command_wraps_at_spaces_and_ends_with_its_length(ws: Path) -> None:
    words = [f"word{n}" for n in range(400)]
    command = "echo " + " ".join(words)
    lines = record(ToolCall("1", "bash", {"command": command}), ws)
    assert lines[0] == "● bash · approved by you, once" and len(lines) == 7
    assert all(len(line) <= 60 for line in lines)
    assert lines[-1].endswith(f" … ({len(command):,} characters)")
    shown = " ".join(line.strip() for line in lines[1:]).split(" … ")[0].split()
    assert shown == ["echo", *words[:len(shown) - 1]], "every word shown whole, in order"


def test_a_command_that_fits_is_shown_whole(ws: Path) -> None:
    command = "git status && " + " && ".join(f"touch file{n}" for n in range(8))
    lines = record(ToolCall("1", "bash", {"command": command}), ws)
    assert " ".join(line.strip() for line in lines[1:]) == command and "…" not in lines[-1]


def test_a_write_record_has_its_diff_stat(ws: Path) -> None:
    (ws / "notes.md").write_text("one\ntwo\nthree\n")
    call = ToolCall("1", "write_file", {"path": "notes.md", "content": "one\n2\nthree\nfour\n"})
    assert record(call, ws, width=100) == [
        "● write_file notes.md  +2 −1 · approved by you, once"]
    new = ToolCall("1", "write_file", {"path": "new.md", "content": "a\nb\n"})
    assert "new.md  +2 −0  (new file)" in record(new, ws, width=100)[0]
    # Lines that start with -- or ++ are lines like any other, not a diff's headers.
    (ws / "rules.md").write_text("one\n--x\n")
    dashes = ToolCall("1", "write_file", {"path": "rules.md", "content": "one\n++y\n"})
    assert "rules.md  +1 −1" in record(dashes, ws, width=100)[0]


def test_a_record_is_inert(ws: Path) -> None:
    lines = record(ToolCall("1", "bash", {"command": "echo \x1b[2J hi"}), ws)
    assert "\x1b" not in "".join(lines) and "\\x1b[2J" in lines[0]


def test_results_keep_to_the_gutter_and_hide_the_note_to_the_model(ws: Path) -> None:
    buffer = io.StringIO()
    reporter = ConsoleReporter(Console(file=buffer, width=40, color_system=None,
                                       force_terminal=True))
    note = '\n[The person edited this call before it ran. It ran with arguments {"command": "x"}]'
    reporter.ran(ToolCall("1", "bash", {}), ToolResult("1", "bash", "y" * 100 + note))
    lines = buffer.getvalue().rstrip("\n").split("\n")
    assert lines == ["  │ " + "y" * 35 + "…", "  (ran as you edited it)"]


# -- withdrawn: another front end answered first (docs/SPEC.md §7.5) ----------------------

class CountingWithdrawal(Withdrawal):
    """Tells the test each time a step of the terminal starts watching the withdrawal."""

    def __init__(self) -> None:
        super().__init__()
        self.watching = threading.Semaphore(0)

    def on_withdraw(self, closer: Callable[[], None]) -> Callable[[], None]:
        remove = super().on_withdraw(closer)
        self.watching.release()
        return remove


@dataclass
class Withdrawer:
    """Withdraws from another thread once `steps` prompts have started watching.

    If the prompt does not close by itself (the mechanism is broken), Enter is typed
    after a generous wait, so the test fails on `nudged` instead of hanging.
    """

    pipe: PipeInput
    steps: int
    withdrawal: CountingWithdrawal = field(default_factory=CountingWithdrawal)
    done: threading.Event = field(default_factory=threading.Event)
    nudged: bool = False

    def run(self) -> None:
        for _ in range(self.steps):
            assert self.withdrawal.watching.acquire(timeout=30)
        self.withdrawal.withdraw("answered from the web page")
        while not self.done.wait(30):
            self.nudged = True
            self.pipe.send_text("\r")


def ask_withdrawn(pipe: PipeInput, ws: Path, keys: str, steps: int) -> tuple[Decision, str]:
    withdrawer = Withdrawer(pipe, steps)
    if not steps:  # before the box is drawn
        withdrawer.withdrawal.withdraw("answered from the web page")
    thread = threading.Thread(target=withdrawer.run, daemon=True)
    thread.start()
    pipe.send_text(keys)
    out = io.StringIO()
    request = replace(request_for("npm install x", ws), withdrawal=withdrawer.withdrawal)
    decision = TerminalApprover(Console(file=out, width=100), timeout_s=None, input=pipe,
                                output=DummyOutput()).ask(request)
    withdrawer.done.set()
    thread.join()
    assert not withdrawer.nudged, "the prompt stayed up after the question was withdrawn"
    return decision, out.getvalue()


def test_a_withdrawn_question_closes_the_box_and_says_why(pipe: PipeInput, ws: Path) -> None:
    decision, out = ask_withdrawn(pipe, ws, "", 1)
    assert "answered from the web page" in out
    # Whoever withdrew the question answers it; the terminal's own value fails closed.
    assert (decision.outcome, decision.source) == (Outcome.REJECTED_HARD, Source.USER)


def test_a_question_withdrawn_before_the_box_is_drawn_never_waits(pipe: PipeInput,
                                                                   ws: Path) -> None:
    decision, out = ask_withdrawn(pipe, ws, "", 0)
    assert decision.outcome is Outcome.REJECTED_HARD


def test_a_withdrawal_closes_the_feedback_line_too(pipe: PipeInput, ws: Path) -> None:
    decision, out = ask_withdrawn(pipe, ws, "n", 2)  # the box, then the feedback line
    assert "answered from the web page" in out
    assert decision.outcome is Outcome.REJECTED_HARD  # not the soft "no" being typed


def test_a_withdrawal_registers_each_closer_once_and_runs_late_ones_at_once() -> None:
    withdrawal = Withdrawal()
    ran: list[str] = []
    remove = withdrawal.on_withdraw(lambda: ran.append("early"))
    withdrawal.on_withdraw(lambda: ran.append("removed"))()  # unregistered at once
    withdrawal.withdraw("first")
    withdrawal.withdraw("second")  # only the first reason counts
    withdrawal.on_withdraw(lambda: ran.append("late"))
    remove()
    assert (ran, withdrawal.reason) == (["early", "late"], "first")
