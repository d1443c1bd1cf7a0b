"""Hand-edited files never end saikish with a traceback (docs/SPEC.md §2, §4.5; issue 15)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from saikish.config.allowlist import Allowlist
from saikish.config.layers import Config
from saikish.rules import parse_rule
from saikish.runtime.session import Session
from tests.support.harness import ROOT, Run, write_script

CLI = Callable[..., Run]

# (file text, the line named, words of the message): the faults a fuzzer found.
BAD_FILES = [
    ("llm:\n  model:\n", 2, "must be a string"),
    ("permissions:\n  allow:\n  -\n", 3, "not NoneType"),
    ("llm: !custom {model: x}\n", 1, "YAML tag '!custom' is not supported"),
    ("llm:\n  model: !!binary aGk=\n", 2, "YAML tag"),
    ("? [a, b]\n: c\n", 1, "a key must be a plain name"),
    ("llm:\n  " + "[" * 200 + "\n", 2, "nested too deeply"),
    ("tools:\n  outputLimit: " + "9" * 400 + "\n", 2, "number too large"),
    ("tools:\n  bashTimeout: .inf\n", 2, "must be a finite number"),
    ("tools:\n  bashTimeout: .nan\n", 2, "must be a finite number"),
    ("llm:\n  model: x\n  model: [\n", 4, "YAML syntax error"),
    ("a: &x [*x]\n", 1, "unknown key"),
    ("llm:\n  model: caf\xe9\n".encode("latin-1").decode("latin-1"), 2, "not valid UTF-8"),
]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if "caf\xe9" in text:
        path.write_bytes(text.encode("latin-1"))  # invalid UTF-8 on purpose
    else:
        path.write_text(text)


@pytest.mark.parametrize(("text", "line", "words"), BAD_FILES)
def test_a_bad_agent_yml_is_one_line_with_file_and_line(cli: CLI, text: str, line: int,
                                                         words: str) -> None:
    user = Path(os.environ["SAIKISH_CONFIG_DIR"]) / "agent.yml"
    _write(user, text)
    run = cli("config")
    assert run.code == 2 and run.out == ""
    [message] = run.err.splitlines()
    assert message.startswith(f"saikish: {user}:{line}") and words in message, message


@pytest.mark.parametrize(("text", "line", "words"), BAD_FILES)
def test_a_bad_allowlist_is_one_line_and_the_session_goes_on(
        cli: CLI, ws: Path, tmp_path: Path, text: str, line: int, words: str) -> None:
    path = Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml"
    _write(path, text.replace("llm", "allow").replace("tools", "deny"))
    session = Session(Config(), str(ws), allowlist=Allowlist(path))
    session.rules()  # what a running REPL does at its next tool call: no exception
    assert session.allowlist_errors()
    run = cli("check", "--json", "--", "ls")
    assert json.loads(run.out)["decision"] == "allow"
    [warning] = run.err.splitlines()  # once, on stderr
    assert warning.startswith(f"saikish: {path}:") and json.loads(run.out)["warnings"]
    added = cli("allowlist", "add", "Bash(ls)")
    assert added.code == 2 and len(added.err.splitlines()) == 1
    assert "not changing the file" in added.err and "Traceback" not in added.err


def test_a_broken_allowlist_is_said_once_in_one_shot_runs(cli: CLI, tmp_path: Path) -> None:
    path = Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml"
    _write(path, "allow:\n  - Bash(\n")
    model = write_script(tmp_path / "s.yml", "- text: fine\n")
    run = cli("-p", "hi", "-m", model, "--output-format", "json")
    assert run.code == 0
    [warning] = run.err.splitlines()
    assert f"{path}:2" in warning
    assert json.loads(run.out)["warnings"] == [warning.removeprefix("saikish: ")]


def test_a_directory_named_agent_yml_or_allowlist(cli: CLI) -> None:
    config_dir = Path(os.environ["SAIKISH_CONFIG_DIR"])
    (config_dir / "agent.yml").mkdir(parents=True)
    run = cli("config")
    assert (run.code, run.err) == (2, f"saikish: {config_dir / 'agent.yml'}: is a directory, "
                                      f"not a file\n")
    (config_dir / "agent.yml").rmdir()
    (config_dir / "allowlist.yaml").mkdir()
    run = cli("allowlist", "add", "Bash(ls)")
    assert run.code == 2 and run.err.count("\n") == 1 and "is a directory" in run.err


def test_an_unreadable_allowlist(cli: CLI) -> None:
    if os.geteuid() != 0:
        path = Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml"
        _write(path, "allow: [grep]\n")
        path.chmod(0)
        run = cli("allowlist", "add", "Bash(ls)")
        assert run.code == 2 and run.err.count("\n") == 1 and "cannot read" in run.err
        return
    # Root reads every file: the run is made as the user nobody, in a directory it reaches.
    with tempfile.TemporaryDirectory(prefix="saikish-nobody-") as made:
        os.chmod(made, 0o755)
        config = Path(made) / "config"
        config.mkdir(mode=0o777)
        config.chmod(0o777)
        _write(config / "allowlist.yaml", "allow: [grep]\n")
        (config / "allowlist.yaml").chmod(0)
        env = {**os.environ, "SAIKISH_CONFIG_DIR": str(config), "HOME": made,
               "SAIKISH_STATE_DIR": str(Path(made) / "state"), "PYTHONPATH": str(ROOT)}
        done = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                               sys.executable, "-m", "saikish", "allowlist", "add", "Bash(ls)"],
                              cwd=made, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "cannot read" in done.stderr


def test_a_symlinked_allowlist_is_edited_through_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "allowlist.yaml"
    _write(real, "# kept in my dotfiles repo\nallow:\n  - grep\n")
    link = tmp_path / "config" / "allowlist.yaml"
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(real)
    assert Allowlist(link).add(parse_rule("read_file"))
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_text() == "# kept in my dotfiles repo\nallow:\n  - grep\n  - read_file\n"


def test_a_full_disk_leaves_the_file_as_it_was(tmp_path: Path) -> None:
    path = Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml"
    before = "allow:\n" + "".join(f"  - Bash(tool{n})\n" for n in range(80))
    _write(path, before)
    # RLIMIT_FSIZE makes every write past 1000 bytes fail with EFBIG, like a full disk.
    code = ("import resource,sys; resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000)); "
            "from saikish.cli.main import main; sys.exit(main(['allowlist', 'add', 'Bash(x *)']))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=os.environ, timeout=60)
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert "cannot write" in run.stderr and "the file is unchanged" in run.stderr
    assert path.read_text() == before
    assert [p.name for p in path.parent.iterdir() if p.name.startswith(".allowlist.")] == []


def test_an_allowlist_broken_mid_session_is_said_once_at_the_next_call(
        cli: CLI, tmp_path: Path) -> None:
    path = Path(os.environ["SAIKISH_CONFIG_DIR"]) / "allowlist.yaml"
    breaks = f"mkdir -p {path.parent} && echo 'allow: [' > {path}"
    model = write_script(tmp_path / "s.yml", json.dumps([
        {"tool_calls": [{"name": "bash", "arguments": {"command": breaks}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]},
        {"tool_calls": [{"name": "bash", "arguments": {"command": "ls"}}]},
        {"text": "done"}]))
    # Outside the sandbox: the command writes the config dir, outside the workspace.
    run = cli("-p", "go", "-m", model, "--auto-approve", "--sandbox", "off",
              "--output-format", "json")
    assert run.code == 0 and path.read_text() == "allow: [\n"
    assert run.err.count("YAML syntax error") == 1, run.err  # said once, at the next call
    assert json.loads(run.out)["warnings"][0].startswith(f"{path}:2: YAML syntax error")


@pytest.mark.parametrize("target", ["/dev/zero", "fifo"])
def test_an_agent_yml_that_is_no_regular_file_is_refused_not_read(cli: CLI, ws: Path,
                                                                  target: str) -> None:
    if target == "fifo":
        os.mkfifo(ws / "fifo")  # reading it would wait forever
        target = str(ws / "fifo")
    (ws / "agent.yml").symlink_to(target)
    run = cli("config")
    assert (run.code, run.err) == (2, f"saikish: {ws / 'agent.yml'}: is not a regular file\n")


def test_a_huge_agent_yml_is_refused(cli: CLI, ws: Path) -> None:
    (ws / "agent.yml").write_text("# padding\n" * 200_000)
    run = cli("config")
    assert (run.code, run.err) == (2, f"saikish: {ws / 'agent.yml'}: is larger than 1 MB\n")
