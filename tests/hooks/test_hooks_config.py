"""agent.yml's `hooks:` (docs/SPEC.md §7.2): Claude Code's shape, errors with file and line."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from saikish.config.layers import load_config, merge, read_layer
from saikish.errors import ConfigError
from saikish.hooks.config import HookSpec
from tests.support.harness import Run

GOOD = """\
hooks:
  PreToolUse:
    - matcher: "Bash|write_file"
      hooks:
        - {type: command, command: ./check.sh, timeout: 10}
        - type: command
          command: echo second
  Stop:
    - hooks: [{type: command, command: ./stop.sh}]
"""


def test_claude_code_shape_is_read_with_origins(tmp_path: Path) -> None:
    path = tmp_path / "agent.yml"
    path.write_text(GOOD)
    specs = load_config(path).hooks.specs
    assert specs == (
        HookSpec("PreToolUse", "Bash|write_file", "./check.sh", 10.0, f"{path}:5"),
        HookSpec("PreToolUse", "Bash|write_file", "echo second", 60.0, f"{path}:7"),
        HookSpec("Stop", "", "./stop.sh", 60.0, f"{path}:9"),
    )
    assert specs[0].matches("Bash", "bash") and not specs[0].matches("Read", "read_file")
    assert specs[2].matches("anything")


def test_layers_append_hooks(tmp_path: Path) -> None:
    one, two = tmp_path / "one.yml", tmp_path / "two.yml"
    one.write_text(GOOD)
    two.write_text("hooks: {Notification: [{hooks: [{type: command, command: ding}]}]}\n")
    config = merge((read_layer(one, "user"), read_layer(two, "explicit")))
    assert [s.command for s in config.hooks.specs] == [
        "./check.sh", "echo second", "./stop.sh", "ding"]


@pytest.mark.parametrize(("text", "where", "problem"), [
    ("hooks:\n  Stop:\n    - matcher: x\n", ":3: hooks.Stop.hooks", "missing"),
    ("hooks:\n  Stop: {a: 1}\n", ":2: hooks.Stop", "must be a list"),
    ("hooks:\n  PreToolUse:\n    - matcher: '(Bash'\n      hooks: []\n",
     ":3: hooks.PreToolUse.matcher", "not a valid regex"),
    ("hooks:\n  Stop:\n    - hooks:\n        - {type: command}\n",
     ":4: hooks.Stop.hooks.command", "non-empty string"),
    ("hooks:\n  Stop:\n    - hooks:\n        - {type: command, command: x, timeout: 0}\n",
     ":4: hooks.Stop.hooks.timeout", "number of seconds > 0"),
    ("hooks: [1]\n", ":1: hooks", "must be a mapping"),
    ("hooks:\n  pretooluse: []\n", ":2: hooks.pretooluse", "did you mean PreToolUse?"),
    ("hooks:\n  Stop:\n    - hooks:\n        - {type: command, command: x, once: 'yes'}\n",
     ":4: hooks.Stop.hooks.once", "must be true or false"),
    ("hooks:\n  Stop:\n    - hooks:\n        - {type: command, command: x, statusMessage: 3}\n",
     ":4: hooks.Stop.hooks.statusMessage", "must be a string"),
    ("hooks:\n  Stop:\n    - hooks:\n        - {type: [command], command: x}\n",
     ":4: hooks.Stop.hooks.type", "must be a string"),
])
def test_bad_hooks_name_file_line_and_key(tmp_path: Path, text: str, where: str,
                                          problem: str) -> None:
    path = tmp_path / "agent.yml"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert f"{path}{where}: " in str(caught.value)
    assert problem in str(caught.value)


def test_cli_reports_a_bad_hook_in_one_line(cli: Callable[..., Run], tmp_path: Path) -> None:
    path = tmp_path / "bad.yml"
    path.write_text("hooks:\n  Stop:\n    - hooks:\n        - {type: command, command: x, "
                    "timeout: soon}\n")
    run = cli("-c", str(path), "-m", "demo", "-p", "hi")
    assert run.code == 2
    assert run.err.strip().splitlines() == [
        f"saikish: {path}:4: hooks.Stop.hooks.timeout: must be a number of seconds > 0, "
        "not 'soon'"]
