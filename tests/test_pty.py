"""End to end in a real pseudo-terminal: keys in, screen out, files on disk (SPEC 5, 9)."""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from saikish.ui.prompt import READY_MARK

PROMPT = "›"
RIGHT, LEFT, ESC = "\x1b[C", "\x1b[D", "\x1b"


class Shell:
    """saikish running in a pty, with everything it printed kept for assertions."""

    def __init__(self, script: str, tmp: Path, *args: str, env: dict[str, str] | None = None,
                 model: str | None = None):
        (tmp / "s.yml").write_text(script, encoding="utf-8")
        self.log = io.StringIO()
        # pexpect never answers the cursor-position request a real terminal would.
        environment = {**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1",
                       **(env or {})}
        environment.pop("NO_COLOR", None)
        self.child = pexpect.spawn(sys.executable, ["-m", "saikish", "-m",
                                                    model or f"script:{tmp / 's.yml'}", *args],
                                   env=environment, encoding="utf-8", timeout=20,
                                   dimensions=(40, 120))
        self.child.logfile_read = self.log
        self.expect(PROMPT)

    def expect(self, pattern: str) -> None:
        self.child.expect_exact(pattern)

    def say(self, text: str) -> None:
        """Type a message at the REPL prompt and send it."""
        self.child.send(text + "\r")

    def box(self) -> None:
        """Wait until a whole approval box is drawn."""
        self.expect(READY_MARK)

    def press(self, keys: str) -> None:
        self.child.send(keys)

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
          env: dict[str, str] | None = None) -> Shell:
    created = Shell(script, tmp, *args, env=env)
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
    assert '"decision": "rejected_hard", "edited": false, "source": "timeout"' in audit


def test_always_remember_covers_the_next_call_without_asking(
        shell: list[Shell], ws: Path, tmp_path: Path) -> None:
    s = start(shell, batch("touch a", "touch b"), tmp_path)
    s.say("go")
    s.box()
    s.press("a")
    s.expect("Rule (edit, Enter to accept)")
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
    s.child.setwinsize(30, 70)
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
    for _ in range(100):  # the command has started once its first file exists
        if (ws / "started").exists():
            break
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

    from tests.wire_server import Reply, serve

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
