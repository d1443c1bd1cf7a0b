"""The sandbox's setup (docs/SPEC.md §4.9): agent.yml, --sandbox, the probe, the banner, and the
macOS profile (which these tests only read: they run on Linux)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

import pexpect
import pytest

from saikish.config.layers import Config, load_config
from saikish.errors import ConfigError
from saikish.tools.sandbox.fixes import USERNS
from saikish.tools.sandbox.launcher import (
    BWRAP_MISSING,
    MODES,
    SandboxError,
    SandboxMode,
    SandboxSetup,
    start_sandbox,
)
from saikish.tools.sandbox.seatbelt import Seatbelt, seatbelt_argv
from tests.sandbox.test_sandbox import fake_bwrap, sandbox_or_skip
from tests.support.harness import Run, write_script


def test_agent_yml_sandbox_key_is_validated(tmp_path: Path) -> None:
    path = tmp_path / "agent.yml"
    path.write_text("sandbox: read-only\n", encoding="utf-8")
    assert SandboxMode(load_config(path).sandbox) is SandboxMode.READ_ONLY
    assert SandboxMode(Config().sandbox) is SandboxMode.AUTO
    path.write_text("llm: {}\nsandbox: strict\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert f"{path}:2" in message and "sandbox" in message and "strict" in message
    assert "auto, workspace-write, read-only, off" in message


def test_the_cli_offers_the_same_modes_as_agent_yml() -> None:
    from saikish.cli.main import SANDBOX_MODES

    assert SANDBOX_MODES == MODES


def test_an_explicit_mode_that_cannot_start_is_exit_2(cli: Callable[..., Run], ws: Path,
                                                      tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    model = write_script(ws.parent / "s.yml", "- text: hi\n")
    run = cli("-p", "hi", "-m", model, "--sandbox", "workspace-write")
    assert run.code == 2 and run.out == ""
    assert run.err == ("saikish: sandbox workspace-write cannot start: bwrap not found; "
                       "install it: apt install bubblewrap (or run with --sandbox off)\n")
    (ws / "agent.yml").write_text("sandbox: read-only\n")
    assert cli("-p", "hi", "-m", model).code == 2
    run = cli("-p", "hi", "-m", model, "--sandbox", "auto")
    assert run.code == 0 and run.out == "hi\n", "auto falls back, and says so only in the REPL"


def test_a_launcher_that_fails_the_probe_is_named_in_the_error(
        cli: Callable[..., Run], ws: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    fake = fake_bwrap(tmp_path / "bin",
                      "echo 'bwrap: No permissions to create new namespace' >&2; exit 1")
    monkeypatch.setenv("PATH", str(fake.parent))
    model = write_script(ws.parent / "s.yml", "- text: hi\n")
    run = cli("-p", "hi", "-m", model, "--sandbox", "read-only")
    assert run.code == 2
    assert "cannot start: bwrap: No permissions to create new namespace" in run.err
    assert f"(fix: {USERNS})" in run.err, "the error says how to fix it"
    setup = start_sandbox(SandboxMode.AUTO, str(ws))
    assert setup.problem == "bwrap: No permissions to create new namespace"
    assert setup.summary() == ("sandbox: off (bwrap: No permissions to create new namespace; "
                               f"fix: {USERNS})")
    assert "unprivileged_userns_clone=1" in USERNS and "--security-opt" in USERNS


def test_a_launcher_that_contains_nothing_fails_the_probe(
        ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Runs the command as is: `true` would succeed, but nothing would be contained.
    fake = fake_bwrap(tmp_path / "bin", 'while [ "$1" != "--" ]; do shift; done; shift; '
                                         'exec "$@"')
    monkeypatch.setenv("PATH", f"{fake.parent}:{os.environ['PATH']}")
    with pytest.raises(SandboxError) as caught:
        start_sandbox(SandboxMode.WORKSPACE_WRITE, str(ws))
    assert f"{fake} ran the probe without new namespaces" in str(caught.value)


def test_a_bwrap_inside_the_workspace_is_not_trusted(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    planted = fake_bwrap(ws / "bin", 'exec /usr/bin/env true')
    monkeypatch.setenv("PATH", f"{planted.parent}:{os.environ['PATH']}")
    setup = start_sandbox(SandboxMode.AUTO, str(ws))
    assert setup.sandbox is None
    assert setup.problem == f"the bwrap found on $PATH is inside the workspace: {planted}"


def test_banner_lines() -> None:
    assert SandboxSetup().banner() == ("sandbox: off", "dim")
    text, style = SandboxSetup(SandboxMode.AUTO, None, BWRAP_MISSING).banner()
    assert text == "sandbox: off (bwrap not found; install it: apt install bubblewrap)"
    assert style == "yellow"


def _repl_banner(tmp_path: Path, env_path: str, *args: str) -> str:
    script = tmp_path / "s.yml"
    script.write_text("- text: hi\n")
    env = {**os.environ, "TERM": "xterm", "PROMPT_TOOLKIT_NO_CPR": "1", "PATH": env_path}
    child = pexpect.spawn(sys.executable, ["-m", "saikish", "-m", f"script:{script}", *args],
                          env=env, encoding="utf-8", timeout=120, dimensions=(40, 160))
    try:
        child.expect_exact("/help for commands")
        banner = str(child.before)
        child.expect_exact("›")
        child.sendcontrol("d")
        child.expect(pexpect.EOF)
        return banner
    finally:
        child.close(force=True)


def test_the_repl_banner_names_the_sandbox(ws: Path, tmp_path: Path) -> None:
    banner = _repl_banner(tmp_path, str(tmp_path / "empty"))
    assert "sandbox: off (bwrap not found; install it: apt install bubblewrap)" in banner
    sandbox_or_skip(ws)
    banner = _repl_banner(tmp_path, os.environ["PATH"], "--sandbox", "read-only")
    assert "sandbox: read-only (bubblewrap)" in banner


def test_the_macos_profile_gets_paths_as_parameters_and_allows_no_network() -> None:
    belt = Seatbelt(writable=("/h/w", "/t"), protected=("/h/w/.git", "/h/w/agent.yml"),
                    home="/h", workspace="/h/w", toolchains=("/h/.cargo",),
                    secrets=("/h/.ssh",))
    argv = seatbelt_argv("/usr/bin/sandbox-exec", belt, {"PATH": "/usr/bin", "TMPDIR": "/t"},
                         ["bash", "-c", "true"])
    profile = argv[2]
    assert argv[:2] == ["/usr/bin/sandbox-exec", "-p"] and "(deny default)" in profile
    assert "network" not in profile.replace("; No network-*", "")
    assert argv[3:9] == ["-DHOME=/h", "-DWORKSPACE=/h/w", "-DWRITABLE_0=/h/w", "-DWRITABLE_1=/t",
                         "-DPROTECTED_0=/h/w/.git", "-DPROTECTED_1=/h/w/agent.yml"]
    assert "/h" not in profile, "paths are parameters, never spliced into the text"
    # Writes: the writable roots minus every protected path, existing or not.
    assert '(require-not (subpath (param "PROTECTED_1")))' in profile
    # Reads: the home is denied, toolchains and the workspace allowed again, secrets last.
    lines = profile.splitlines()
    order = [lines.index(line) for line in (
        '(deny file-read* (subpath (param "HOME")))',
        '(allow file-read* (subpath (param "TOOLCHAIN_0")) (subpath (param "WORKSPACE")) '
        '(subpath (param "WRITABLE_0")) (subpath (param "WRITABLE_1")))',
        '(deny file-read* file-write* (subpath (param "SECRET_0")))')]
    assert order == sorted(order) and order[-1] == len(lines) - 1, "the last rule wins in SBPL"
    # The environment is cleared, then given only what the allowlist passed.
    assert argv[-7:] == ["/usr/bin/env", "-i", "PATH=/usr/bin", "TMPDIR=/t", "bash", "-c", "true"]
