"""The smaller faults of the probe (saikish issue 26, Reliability 7), each on a real run.

Before: JSON nested past Python's recursion limit from a hook, an LLM server or a state
file raised RecursionError; a kill -9 mid-write left its temp file for ever;
SAIKISH_MCP_STARTUP_TIMEOUT=inf, a read-only state dir and a SIGTERM while prompt_toolkit
was being imported ended in tracebacks; the documented `sandbox: off` was read by YAML
as false and refused; one bad tool definition failed its whole MCP server; and `-p`
printed escape sequences from a hostile file raw.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pexpect
import pytest

from saikish.config.layers import load_config
from saikish.errors import ModelError
from saikish.mcp.pins import Pins
from saikish.store.atomic import STALE_S, atomic_write
from tests.models.test_providers import complete, openai_model
from tests.support.harness import ROOT, Run, write_script
from tests.support.wire_server import Reply, serve

CLI = Callable[..., Run]
DEEP = "{\"a\":" * 100_000 + "1" + "}" * 100_000
RAW_SERVER = ROOT / "tests" / "fixtures" / "raw_mcp_server.py"
ESC = "\x1b]0;PWNED\x07\x1b[2J"


# -- JSON nested past the recursion limit -------------------------------------------------

def test_a_hook_printing_deeply_nested_json_is_a_broken_hook(cli: CLI, tmp_path: Path) -> None:
    (tmp_path / "deep.json").write_text(DEEP)
    config = tmp_path / "agent.yml"
    config.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "", "hooks": [
        {"type": "command", "command": f"cat {tmp_path / 'deep.json'}"}]}]}}))
    model = write_script(tmp_path / "s.yml", "- tool_calls:\n    - {name: bash, arguments: "
                                             "{command: ls}}\n- text: done\n")
    run = cli("-p", "go", "-m", model, "-c", str(config), "--output-format", "json")
    (call,) = json.loads(run.out)["calls"]
    assert (run.code, call["decision"], call["source"]) == (3, "rejected_hard", "no_tty")
    assert "printed output that is not valid JSON (maximum recursion depth" in call["reason"]


def test_a_deeply_nested_error_body_from_the_llm_server_is_reported(ws: Path) -> None:
    deep = Reply(DEEP.encode(), status=400, headers={"content-type": "application/json"})
    with serve(deep) as s, pytest.raises(ModelError, match="openai: request failed: "):
        complete(openai_model(s.url))


def test_deeply_nested_state_files_are_read_as_broken(cli: CLI, ws: Path) -> None:
    state = Path(os.environ["SAIKISH_STATE_DIR"])
    state.mkdir(parents=True, exist_ok=True)
    (state / "trusted.json").write_text(DEEP)
    (ws / "agent.yml").write_text("permissions:\n  allow: [Bash(make *)]\n")
    run = cli("trust", "--show")
    assert run.code == 0 and "not trusted (never answered, or changed since)" in run.out
    (state / "mcp-pins.json").write_text(DEEP)
    pins = Pins(state / "mcp-pins.json")
    changed = pins.change("server", "tool", {"name": "tool"})
    assert changed is not None and "cannot be read: maximum recursion depth" in changed


# -- temp files a killed write left --------------------------------------------------------

def test_old_temp_files_of_a_killed_write_are_swept(cli: CLI, ws: Path) -> None:
    state = Path(os.environ["SAIKISH_STATE_DIR"])
    state.mkdir(parents=True, exist_ok=True)
    old, fresh = state / ".trusted.json.k7f2a9xq.tmp", state / ".trusted.json.m3b8c1zz.tmp"
    for left in (old, fresh):
        left.write_text("{half a write")
    hour_ago = time.time() - STALE_S - 60
    os.utime(old, (hour_ago, hour_ago))
    other = state / "notes.tmp"  # not a name atomic_write makes
    other.write_text("mine")
    os.utime(other, (hour_ago, hour_ago))
    assert cli("check", "--", "ls").code == 0  # any start
    assert (old.exists(), fresh.exists(), other.exists()) == (False, True, True)


def test_a_write_sweeps_its_own_files_old_temps_in_the_workspace(ws: Path) -> None:
    left = ws / ".notes.md.q1w2e3r4.tmp"
    left.write_text("half")
    hour_ago = time.time() - STALE_S - 60
    os.utime(left, (hour_ago, hour_ago))
    atomic_write(ws / "notes.md", "whole\n")
    assert not left.exists() and (ws / "notes.md").read_text() == "whole\n"


# -- start-up faults -------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["inf", "1e400", "-1", "soon"])
def test_an_unusable_mcp_startup_timeout_is_said_and_the_default_used(
        ws: Path, tmp_path: Path, value: str) -> None:
    model = write_script(tmp_path / "s.yml", "- tool_calls:\n    - {name: mcp__raw__t0, "
                                             "arguments: {}}\n- text: done\n")
    config = tmp_path / "cfg.yml"
    config.write_text(json.dumps({"mcpServers": {"raw": {
        "command": sys.executable, "args": [str(RAW_SERVER)]}},
        "permissions": {"allow": ["mcp__raw"]}}))
    run = subprocess.run([sys.executable, "-m", "saikish", "-p", "go", "-m", model, "-c",
                          str(config)], cwd=ws, capture_output=True, text=True, timeout=120,
                         env={**os.environ, "SAIKISH_MCP_STARTUP_TIMEOUT": value})
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    assert f"SAIKISH_MCP_STARTUP_TIMEOUT='{value}' is not a number of seconds from 0 to " \
           f"86400; using 30" in run.stderr
    assert "│ ok" in run.stderr  # the server started all the same


AS_NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temp dir the user nobody can reach (pytest's own is private to root)."""
    with tempfile.TemporaryDirectory(prefix="saikish-nobody-") as made:
        os.chmod(made, 0o755)
        yield Path(made)


def test_a_read_only_state_dir_gives_lines_not_tracebacks(shared_tmp: Path) -> None:
    # As root every directory is writable: then the run is made as the user nobody; any
    # other user is kept out of a mode 555 directory already.
    as_user = AS_NOBODY if os.geteuid() == 0 else []
    tmp_path = shared_tmp
    root = Path(shutil.copytree(ROOT / "tests" / "fixtures", tmp_path / "fx",
                                ignore=shutil.ignore_patterns("corpus", "wire")))
    for folder in ("state", "config", "work"):
        (tmp_path / folder).mkdir(exist_ok=True)
    for path in (tmp_path, root, *root.iterdir(), tmp_path / "config", tmp_path / "work"):
        path.chmod(0o777 if path.is_dir() else 0o644)
    (tmp_path / "state").chmod(0o555)  # read-only for nobody
    model = write_script(tmp_path / "s.yml", "- tool_calls:\n    - {name: mcp__raw__t0, "
                                             "arguments: {}}\n- text: done\n")
    (tmp_path / "s.yml").chmod(0o644)
    config = tmp_path / "cfg.yml"
    config.write_text(json.dumps({"mcpServers": {"raw": {
        "command": sys.executable, "args": [str(root / "raw_mcp_server.py")]}}}))
    config.chmod(0o644)
    env = {**os.environ, "HOME": str(tmp_path / "work"),
           "SAIKISH_STATE_DIR": str(tmp_path / "state"),
           "SAIKISH_CONFIG_DIR": str(tmp_path / "config"),
           "PYTHONPATH": os.pathsep.join([str(ROOT), *os.environ.get("PYTHONPATH", "").split(
               os.pathsep)]).rstrip(os.pathsep)}
    run = subprocess.run([*as_user, sys.executable, "-m", "saikish", "-p", "go", "-m", model,
                          "-c", str(config), "--auto-approve"], cwd=tmp_path / "work", env=env,
                         capture_output=True, text=True, timeout=120)
    assert "Traceback" not in run.stderr and "Logging error" not in run.stderr, run.stderr
    assert run.returncode == 0
    assert "cannot be written (Permission denied): decisions are not being recorded" \
        in run.stderr


SIGTERM_WHILE_IMPORTING = """
import importlib.abc, os, signal, sys
from saikish.cli.main import main

class SigtermWhilePromptToolkitImports(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == "prompt_toolkit.buffer":  # its package is half imported now
            os.kill(os.getpid(), signal.SIGTERM)
        return None

sys.meta_path.insert(0, SigtermWhilePromptToolkitImports())
sys.exit(main(["-m", "demo"]))
"""


def test_sigterm_while_the_repl_imports_prompt_toolkit_exits_cleanly(tmp_path: Path) -> None:
    script = tmp_path / "start.py"
    script.write_text(SIGTERM_WHILE_IMPORTING)
    child = pexpect.spawn(sys.executable, [str(script)], cwd=str(tmp_path), encoding="utf-8",
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 143, child.before
    assert "saikish: ended by SIGTERM" in child.before and "Traceback" not in child.before


# -- configuration and output ------------------------------------------------------------------

@pytest.mark.parametrize("written", ["off", "Off", "false", "'off'"])
def test_the_documented_sandbox_off_is_read_as_off(tmp_path: Path, written: str) -> None:
    path = tmp_path / "agent.yml"
    path.write_text(f"sandbox: {written}\n")
    assert load_config(path).sandbox == "off"


def test_sandbox_on_is_named_in_the_error(cli: CLI, ws: Path) -> None:
    (ws / "agent.yml").write_text("sandbox: on\n")
    run = cli("-p", "hi", "-m", "demo", "-c", "agent.yml")
    assert run.code == 2
    assert "agent.yml:1: sandbox: 'on' is not one of: auto, workspace-write, read-only, off" \
        in run.err


def test_one_bad_tool_definition_is_skipped_and_the_server_serves(cli: CLI,
                                                                  tmp_path: Path) -> None:
    config = tmp_path / "cfg.yml"
    config.write_text(json.dumps({"mcpServers": {"raw": {
        "command": sys.executable, "args": [str(RAW_SERVER)], "env": {"RAW_BAD": "1"}}},
        "permissions": {"allow": ["mcp__raw"]}}))
    model = write_script(tmp_path / "s.yml", "- tool_calls:\n    - {name: mcp__raw__t0, "
                                             "arguments: {}}\n- text: done\n")
    run = cli("-p", "go", "-m", model, "-c", str(config), "--output-format", "json")
    (call,) = json.loads(run.out)["calls"]
    assert (run.code, call["decision"], call["result"]["excerpt"]) == (0, "approved", "ok")
    assert "mcp server 'raw': skipped 1 tool definition(s) it could not read: broken " \
           "(inputSchema: Input should be a valid dictionary)" in run.err


def test_escape_sequences_in_what_p_says_are_shown_not_sent(cli: CLI, ws: Path) -> None:
    escaped = ESC.replace("\x1b", "\\e").replace("\x07", "\\a")  # YAML's own escapes
    (ws / "agent.yml").write_text(f'mcpServers:\n  "a{escaped}":\n    command: x\n')
    run = cli("-p", "hi", "-m", "demo")
    assert run.code == 2 and "\x1b" not in run.err and "\\x1b]0;PWNED\\x07" in run.err
    with serve(Reply(json.dumps({"error": {"message": f"bad {ESC}"}}).encode(), status=400,
                     headers={"content-type": "application/json"})) as s:
        (ws / "agent.yml").write_text(f"llm:\n  baseURL: {s.url}/v1\n  apiKey: sk-test\n")
        run = cli("-p", "hi", "-m", "openai:m", "-c", "agent.yml")
    assert run.code == 1 and "\x1b" not in run.err
    assert "saikish: openai: request failed: bad \\x1b]0;PWNED\\x07\\x1b[2J" in run.err
