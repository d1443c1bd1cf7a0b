"""/hooks and --no-hooks in the REPL, in a real pty (docs/SPEC.md §7.2, §9)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ui.test_pty import PROMPT, Shell, batch, shell, start

__all__ = ["shell"]  # the fixture

pytestmark = pytest.mark.slow

CONFIG = """\
hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - {type: command, command: ./check-call.sh, timeout: 10}
  Stop:
    - hooks: [{type: command, command: echo stop}]
"""


def test_slash_hooks_lists_each_hook_and_its_file(shell: list[Shell], tmp_path: Path) -> None:
    config = tmp_path / "hooks.yml"
    config.write_text(CONFIG)
    s = start(shell, "- text: hi\n", tmp_path, "-c", str(config))
    s.say("/hooks")
    s.expect("echo stop")
    s.expect(PROMPT)
    screen = "\n".join(s.screen())
    assert "PreToolUse" in screen and "Bash" in screen and "10s" in screen
    joined = "".join(line.strip() for line in s.screen())
    assert f"{config}:5" in joined and f"{config}:7" in joined and "./check-call.sh" in screen
    assert s.quit(at_prompt=True) == 0


def test_no_hooks_says_so_in_slash_hooks(shell: list[Shell], tmp_path: Path) -> None:
    config = tmp_path / "hooks.yml"
    config.write_text(CONFIG)
    s = start(shell, "- text: hi\n", tmp_path, "-c", str(config), "--no-hooks")
    s.say("/hooks")
    s.expect("configured do not run")
    s.expect(PROMPT)
    assert "hooks are off (--no-hooks): 2 configured do not run" in "\n".join(s.screen())
    assert s.quit(at_prompt=True) == 0


def test_a_hooks_ask_shows_the_box_for_what_autonomy_allows(shell: list[Shell], ws: Path,
                                                            tmp_path: Path) -> None:
    config = tmp_path / "hooks.yml"
    config.write_text("hooks:\n  PreToolUse:\n    - matcher: Bash\n      hooks:\n        - "
                      "{type: command, command: \"echo '{\\\"hookSpecificOutput\\\": "
                      "{\\\"permissionDecision\\\": \\\"ask\\\", \\\"permissionDecisionReason"
                      "\\\": \\\"the team reviews every call\\\"}}'\"}\n")
    s = start(shell, batch("ls > /dev/null; echo listed"), tmp_path, "-c", str(config),
              "--autonomy", "full-auto")
    s.say("go")
    s.box()
    s.on_screen("the team reviews every call")
    s.press("y")
    s.expect("Second turn here.")
    assert s.quit() == 0
