"""End to end in a real pty: keys in, screen out, files on disk (docs/SPEC.md §5, §9)."""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pyte
import pytest

from saikish.ui.prompt import READY_MARK

pytestmark = pytest.mark.slow  # each test starts saikish in a real pseudo-terminal

PROMPT = "›"
# A deadline for one thing to appear on the screen, generous for a loaded 2-core machine:
# every wait below returns as soon as its event happens, so only a failure waits it out.
PATIENCE = 120.0
RIGHT, LEFT, ESC = "\x1b[C", "\x1b[D", "\x1b"


class Shell:
    """saikish running in a pty, with everything it printed kept for assertions."""

    def __init__(self, script: str, tmp: Path, *args: str, env: dict[str, str] | None = None,
                 model: str | None = None, size: tuple[int, int] = (120, 40)):
        (tmp / "s.yml").write_text(script, encoding="utf-8")
        self.log = io.StringIO()
        columns, rows = size
        self.terminal = pyte.Screen(columns, rows)
        self.stream = pyte.Stream(self.terminal)
        self.fed = 0
        # pexpect never answers the cursor-position request a real terminal would.
        # PYTHONFAULTHANDLER: a saikish that never ends shows where it hangs (`ended`).
        environment = {**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1",
                       "PYTHONFAULTHANDLER": "1", **(env or {})}
        environment.pop("NO_COLOR", None)
        # These tests are about the box: with the sandbox off, `touch a` is asked as it was
        # before the contained tier (docs/SPEC.md §4.1); tests/sandbox/test_containment*.py
        # cover it.
        if "--sandbox" not in args:
            args = (*args, "--sandbox", "off")
        self.child = pexpect.spawn(sys.executable, ["-m", "saikish", "-m",
                                                    model or f"script:{tmp / 's.yml'}", *args],
                                   env=environment, encoding="utf-8", timeout=PATIENCE,
                                   dimensions=(rows, columns))
        self.child.logfile_read = self.log
        self.expect(PROMPT)

    def expect(self, pattern: str) -> None:
        self.child.expect_exact(pattern)

    def ended(self) -> None:
        """Wait until saikish has ended; one that hangs is aborted and fails the test with
        the stack of each of its threads (printed by the fault handler)."""
        if self.child.expect([pexpect.EOF, pexpect.TIMEOUT]) == 1:
            self.child.kill(signal.SIGABRT)
            self.child.expect(pexpect.EOF)
            pytest.fail("saikish never ended; where it was:\n" + self.log.getvalue()[-6000:])
        self.child.close()

    def say(self, text: str) -> None:
        """Type a message at the REPL prompt and send it."""
        self.child.send(text + "\r")

    def box(self) -> None:
        """Wait until a whole approval box is drawn."""
        self.expect(READY_MARK)

    def press(self, keys: str) -> None:
        self.child.send(keys)

    def screen(self) -> list[str]:
        """The terminal's rows as a person sees them now (a VT100 emulator fed the output)."""
        text = self.log.getvalue()
        self.stream.feed(text[self.fed:])
        self.fed = len(text)
        return [line.rstrip() for line in self.terminal.display]

    def on_screen(self, text: str, seconds: float = PATIENCE) -> None:
        """Wait until `text` is on the screen (redraws send only what changed)."""
        deadline = time.monotonic() + seconds
        while text not in "\n".join(self.screen()):
            assert time.monotonic() < deadline, f"{text!r} never on screen:\n" + \
                "\n".join(self.screen())
            with contextlib.suppress(pexpect.TIMEOUT):
                self.child.expect(r"[\s\S]+", timeout=0.2)

    def resize(self, columns: int, rows: int) -> None:
        self.screen()
        self.terminal.resize(rows, columns)
        self.child.setwinsize(rows, columns)

    def quit(self, at_prompt: bool = False) -> int:
        """Ctrl-D at the prompt (waiting for it first unless it is already there)."""
        if not at_prompt:
            self.expect(PROMPT)
        self.child.sendcontrol("d")
        self.child.expect(pexpect.EOF)
        self.child.close()
        return int(self.child.exitstatus)


@pytest.fixture
def shell(tmp_path: Path) -> Iterator[list[Shell]]:
    shells: list[Shell] = []
    yield shells
    for each in shells:
        each.child.close(force=True)


def start(shells: list[Shell], script: str, tmp: Path, *args: str,
          env: dict[str, str] | None = None, size: tuple[int, int] = (120, 40)) -> Shell:
    created = Shell(script, tmp, *args, env=env, size=size)
    shells.append(created)
    return created


def batch(*commands: str) -> str:
    calls = "".join(f"    - {{name: bash, arguments: {{command: '{c}'}}}}\n" for c in commands)
    return f"- text: On it.\n  tool_calls:\n{calls}- text: Second turn here.\n"


def test_arrow_and_enter_approves(shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, batch("touch a"), tmp_path)
    s.say("go")
    s.box()
    s.press(RIGHT + LEFT + "\r")
    s.expect("Second turn here.")
    assert (ws / "a").exists()
    assert s.quit() == 0


def test_no_with_feedback_skips_one_call_and_the_batch_goes_on(
        shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, batch("touch a", "touch b"), tmp_path)
    s.say("go")
    s.box()
    s.press("n")
    s.expect("Tell the model why")
    s.press("wrong file\r")
    s.box()
    s.press("y")
    s.expect("Second turn here.")
    assert not (ws / "a").exists() and (ws / "b").exists()
    assert s.quit() == 0


def test_escape_stops_the_batch_and_the_loop(shell: list[Shell], ws: Path,
                                             tmp_path: Path) -> None:
    s = start(shell, batch("touch a", "touch b"), tmp_path)
    s.say("go")
    s.box()
    s.press(ESC)
    s.expect("stopped")
    s.expect(PROMPT)
    assert "Second turn here." not in s.log.getvalue()
    s.say("carry on")
    s.expect("Second turn here.")
    assert not (ws / "a").exists() and not (ws / "b").exists()
    assert s.quit() == 0


def test_the_countdown_runs_out(shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, batch("touch a"), tmp_path, "--timeout", "2")
    s.say("go")
    s.expect("auto-deny in 2s")  # later frames redraw only the digit that changed
    s.box()
    s.expect("timed out")
    s.expect(PROMPT)
    assert not (ws / "a").exists()
    assert "Second turn here." not in s.log.getvalue()
    assert s.quit(at_prompt=True) == 0
    audit = (ws.parent / "state" / "audit.jsonl").read_text()
    assert '"decision": "rejected_hard", "tier": "asked", "edited": false, ' \
           '"source": "timeout"' in audit


def test_always_remember_covers_the_next_call_without_asking(
        shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, batch("touch a", "touch b"), tmp_path)
    s.say("go")
    s.box()
    s.press("a")
    s.expect("Rule (edit, Enter to accept")
    s.press("\r")
    s.expect("Second turn here.")
    assert (ws / "a").exists() and (ws / "b").exists()
    assert s.log.getvalue().count(READY_MARK) == 1
    allowlist = (ws.parent / "config" / "allowlist.yaml").read_text()
    assert "- Bash(touch *)" in allowlist
    assert s.quit() == 0


def test_edit_with_editor_is_shown_again_and_runs_edited(
        shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text("#!/bin/sh\nsed -i 's/wrong/right/' \"$1\"\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    s = start(shell, batch("touch wrong"), tmp_path, env={"EDITOR": str(editor)})
    s.say("go")
    s.box()
    s.press("e")
    s.expect("touch right")
    s.box()
    s.press("y")
    s.expect("Second turn here.")
    assert (ws / "right").exists() and not (ws / "wrong").exists()
    assert '{"command"' not in s.log.getvalue()  # the note to the model is not echoed
    assert s.quit() == 0


def test_escape_sequences_from_the_model_never_reach_the_terminal(
        shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    script = ('- tool_calls:\n    - {name: bash, arguments: {command: "echo \\e]0;PWNED\\a'
              '\\e[2J > out.txt"}}\n- text: done\n')
    s = start(shell, script, tmp_path)
    s.say("go")
    s.box()
    s.press("y")
    s.expect("done")
    output = s.log.getvalue()
    assert "\x1b]0;PWNED" not in output and "\\x1b]0;PWNED" in output
    assert s.quit() == 0


def test_keys_typed_ahead_never_answer_the_prompt(shell: list[Shell], ws: Path,
                                                 tmp_path: Path) -> None:
    s = start(shell, batch("touch a"), tmp_path)
    s.press("go\ry")
    s.box()
    assert not (ws / "a").exists()
    s.press(ESC)
    s.expect("stopped")
    assert not (ws / "a").exists()
    assert s.quit() == 0


def test_resize_mid_prompt_keeps_it_working(shell: list[Shell], ws: Path,
                                            tmp_path: Path) -> None:
    s = start(shell, batch("touch a"), tmp_path)
    s.say("go")
    s.box()
    s.resize(70, 30)
    s.box()  # redrawn at the new size
    s.press("y")
    s.expect("Second turn here.")
    assert (ws / "a").exists()
    assert s.quit() == 0


def test_slash_commands_and_ctrl_d(shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, "- text: hi\n", tmp_path)
    s.say("/autonomy manual")
    s.expect("autonomy: manual")
    s.say("/allow Bash(npm test *)")
    s.expect("allowed for this session")
    s.say("/allowlist")
    s.expect("Bash(npm test *)")
    s.say("/bogus")
    s.expect("unknown command /bogus")
    assert s.quit() == 0


def test_ctrl_c_kills_a_running_command_and_returns_to_the_prompt(
        shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, batch("touch started; sleep 30; touch late"), tmp_path)
    s.say("/mode auto-approve")
    s.expect("mode: auto-approve")
    s.say("go")
    s.expect("On it.")
    deadline = time.monotonic() + PATIENCE  # the command has started once its file exists
    while not (ws / "started").exists():
        assert time.monotonic() < deadline, "the command never started"
        s.child.expect(pexpect.TIMEOUT, timeout=0.1)
    s.child.sendcontrol("c")
    s.expect("stopped")
    s.expect(PROMPT)
    assert not (ws / "late").exists()
    assert "Second turn here." not in s.log.getvalue()
    assert s.quit(at_prompt=True) == 0


def test_ctrl_c_at_the_prompt_clears_the_line(shell: list[Shell], ws: Path,
                                              tmp_path: Path) -> None:
    s = start(shell, "- text: the answer\n", tmp_path)
    s.press("half a thought")
    s.child.sendcontrol("c")
    s.expect(PROMPT)
    s.say("a real question")
    s.expect("the answer")
    assert s.quit() == 0


def test_ctrl_c_cancels_a_streaming_answer_and_keeps_the_conversation(
        shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    import json

    from tests.support.wire_server import Reply, serve

    def piece(text: str) -> bytes:
        return f'data: {json.dumps({"choices": [{"delta": {"content": text}}]})}\n\n'.encode()

    stalled = Reply(piece("Thinking hard") + piece(" about it"), split=lambda b: [
        b[:len(piece("Thinking hard"))], b[len(piece("Thinking hard")):]], delay=30)
    answer = Reply(piece("Second answer.") + b"data: [DONE]\n\n")
    with serve(stalled, answer) as server:
        env = {"OPENAI_API_KEY": "sk-test", "OPENAI_BASE_URL": f"{server.url}/v1"}
        s = Shell("", tmp_path, env=env, model="openai:test")
        shell.append(s)
        s.say("first question")
        s.expect("Thinking hard")
        s.child.sendcontrol("c")
        s.expect("cancelled")
        s.expect(PROMPT)
        s.say("second question")
        s.expect("Second answer.")
        assert s.quit() == 0
        messages = server.requests[1]["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"].startswith("Thinking hard")
    assert "interrupted" in messages[2]["content"]


# -- the box at every size (issue 14) ---------------------------------------------

def one_call(name: str, arguments: dict[str, str]) -> str:
    import yaml

    return yaml.safe_dump([{"text": "On it.", "tool_calls": [{"name": name,
                                                                "arguments": arguments}]},
                           {"text": "Second turn here."}], width=10**6)


TALL = "".join(f"line {n} of the tall file\n" for n in range(150))
CALLS = {
    "tall write": ("write_file", {"path": "tall.txt", "content": TALL}),
    "long chain": ("bash", {"command": " && ".join(f"touch f{n}" for n in range(30))}),
    "long command": ("bash", {"command": "echo " + " ".join(f"w{n}" for n in range(600))
                              + " > tall.txt"}),
}
SIZES = [(60, 24), (80, 24), (120, 40)]


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("case", list(CALLS))
def test_the_whole_box_and_its_choices_are_on_screen(
        shell: list[Shell], ws: Path, tmp_path: Path, case: str, size: tuple[int, int]) -> None:
    s = start(shell, one_call(*CALLS[case]), tmp_path, size=size)
    s.say("go")
    s.box()
    screen = s.screen()
    text = "\n".join(screen)
    assert any(line.startswith("╭─  ") and "· WRITE" in line for line in screen), text
    assert "why:" in text and "always would allow:" in text, text
    assert re.search(r"auto-deny in \d+s\s+─╯", text), text
    for label in ("1 Yes", "4 Edit", "5 No, tell it why", "6 No, stop (Esc)"):
        assert label in text, (label, text)
    box_end = next(n for n, line in enumerate(screen) if line.startswith("╰"))
    assert "1 Yes" in screen[box_end + 1], "the choices sit right under the box"
    assert "lines 1–" in text and "PgUp PgDn" in text or case == "long command", text
    s.press(ESC)
    s.expect("stopped")
    assert not (ws / "tall.txt").exists() and not (ws / "f0").exists()
    assert s.quit() == 0


def test_page_down_scrolls_and_v_shows_it_all_in_the_pager(
        shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, one_call(*CALLS["tall write"]), tmp_path, env={"PAGER": "cat"},
              size=(80, 24))
    s.say("go")
    s.box()
    s.press("\x1b[6~")  # PgDn
    s.on_screen("countdown paused")
    assert "line 0 of the tall file" not in "\n".join(s.screen())  # scrolled a page
    s.press("v")
    s.expect("line 149 of the tall file")
    s.box()  # back in the box after the pager
    s.press("1")
    s.expect("Second turn here.")
    assert (ws / "tall.txt").read_text() == TALL
    record = s.log.getvalue()
    assert "approved by you, once" in record and "+150 −0" in record
    assert s.quit() == 0


def test_the_record_keeps_a_long_command_whole_or_says_how_long(
        shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, one_call(*CALLS["long command"]), tmp_path, size=(60, 24))
    s.say("go")
    s.box()
    s.press("y")
    s.expect("Second turn here.")
    screen = "\n".join(s.screen())
    assert "approved by you, once" in screen and "echo w0 w1 w2" in screen
    assert re.search(r" w\d+ … \(\d,\d{3} characters\)", screen), screen  # never mid-word
    assert s.quit() == 0


# -- cancel never approves (docs/SPEC.md §4.8, issue 9) --------------------------------------

WRITE = one_call("write_file", {"path": "new.txt", "content": "hello\n"})


def cancel_then_stop(s: Shell, ws: Path, first: str, marker: str, cancel: str) -> str:
    """Open a sub-step, back out of it, see the box again, stop; return everything shown."""
    s.say("go")
    s.box()
    s.press(first)
    s.expect(marker)
    s.press(cancel)
    s.expect("back to the box")
    s.box()
    s.press(ESC)
    s.expect("stopped by you")
    s.expect(PROMPT)
    assert not (ws / "new.txt").exists()
    return s.log.getvalue()


@pytest.mark.parametrize(("first", "marker", "cancel"), [
    ("a", "Rule (edit, Enter to accept", ESC),
    ("a", "Rule (edit, Enter to accept", "\x03"),
    ("s", "Rule (edit, Enter to accept", ESC),
    ("n", "Tell the model why", ESC),
    ("n", "Tell the model why", "\x03"),
    ("e", "Edit (Alt-Enter", "\x03"),
    ("e", "Edit (Alt-Enter", ESC),
], ids=["rule-esc", "rule-ctrl-c", "session-rule-esc", "feedback-esc", "feedback-ctrl-c",
        "inline-edit-ctrl-c", "inline-edit-esc"])
def test_backing_out_of_a_step_never_runs_the_call(
        shell: list[Shell], ws: Path, tmp_path: Path, first: str, marker: str,
        cancel: str) -> None:
    s = start(shell, WRITE, tmp_path)
    shown = cancel_then_stop(s, ws, first, marker, cancel)
    assert "saved to" not in shown and "approved" not in shown
    assert not (ws.parent / "config" / "allowlist.yaml").exists()
    assert "Second turn here." not in shown
    assert s.quit(at_prompt=True) == 0


@pytest.mark.parametrize(("body", "why"), [("exit 1", "exited with 1"),
                                           ("true", "nothing was changed")],
                         ids=["editor-fails", "editor-changes-nothing"])
def test_an_editor_that_fails_or_changes_nothing_never_runs_the_call(
        shell: list[Shell], ws: Path, tmp_path: Path, body: str, why: str) -> None:
    editor = tmp_path / "editor.sh"
    editor.write_text(f"#!/bin/sh\n{body}\n")
    editor.chmod(editor.stat().st_mode | stat.S_IEXEC)
    # The message names the editor's full path: wide enough that "back to the box" stays
    # on one line however long the temporary directory's name grows (pytest-1018/...).
    s = start(shell, WRITE, tmp_path, env={"EDITOR": str(editor)},
              size=(len(str(editor)) + 100, 40))
    s.say("go")
    s.box()
    s.press("e")
    s.expect(why)
    s.expect("back to the box")
    s.box()
    s.press(ESC)
    s.expect("stopped by you")
    s.expect(PROMPT)
    assert not (ws / "new.txt").exists()
    assert s.quit(at_prompt=True) == 0


def test_saved_is_said_only_once_the_file_holds_the_rule(
        shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, WRITE, tmp_path)
    s.say("go")
    s.box()
    s.press("a")
    s.expect("Rule (edit, Enter to accept")
    s.press("\r")
    s.expect("saved to ")
    s.expect("Second turn here.")
    allowlist = (ws.parent / "config" / "allowlist.yaml").read_text()
    assert "{tool: write_file, when: {path: new.txt}}" in allowlist and (ws / "new.txt").exists()
    assert s.quit() == 0


def test_help_is_aligned(shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, "- text: hi\n", tmp_path, size=(80, 40))
    s.say("/help")
    s.expect("Ctrl-D exits")
    from saikish.ui.commands import COMMANDS

    screen = "\n".join(s.screen())
    starts = set()
    for name, command in COMMANDS.items():
        row = next(line for line in screen.splitlines()
                   if line.startswith(f"/{name} ") and line.endswith(command.help))
        starts.add(row.index(command.help))
    assert len(starts) == 1, screen
    assert s.quit() == 0


def test_the_repl_names_a_rule_that_matches_no_tool(shell: list[Shell], ws: Path,
                                                    tmp_path: Path) -> None:
    config = ws.parent / "config"
    config.mkdir()
    (config / "allowlist.yaml").write_text("allow:\n  - Glob\n")
    s = start(shell, "- text: hi\n", tmp_path)
    shown = " ".join(" ".join(s.screen()).split())  # lines wrap at spaces
    assert "allowlist.yaml:2: rule 'Glob' names no saikish tool" in shown
    assert "saikish's read tools are read_file/list_files/grep: use list_files" in shown
    assert s.quit(at_prompt=True) == 0
