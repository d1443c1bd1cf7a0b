"""The sandbox (docs/SPEC.md §4.9) on real bubblewrap: what runs inside cannot write outside the
workspace or reach the network; what the person approved in the box runs as approved.

Every test that needs bwrap skips with the reason when bwrap cannot run here.
"""

from __future__ import annotations

import http.server
import io
import os
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from rich.console import Console

from saikish.config.layers import Config
from saikish.rules import parse_rule
from saikish.runtime.executor import ApprovalRequest, Executor
from saikish.runtime.session import Session
from saikish.tools import RunContext, builtin_tools
from saikish.tools.sandbox.launcher import (
    OUTSIDE_ARGUMENT,
    SandboxMode,
    SandboxSetup,
    offer_outside,
    start_sandbox,
)
from saikish.types import Decision, Mode, Source, ToolCall
from saikish.ui.preview import approval_panel
from tests.support.harness import Run, write_script

Answer = Callable[[ApprovalRequest], Decision]
YES: Answer = lambda request: Decision.approve(Source.USER)  # noqa: E731


def sandbox_or_skip(workspace: Path, mode: SandboxMode = SandboxMode.WORKSPACE_WRITE
                    ) -> SandboxSetup:
    """A working sandbox for `workspace`, or skip saying why there is none."""
    setup = start_sandbox(SandboxMode.AUTO, str(workspace))
    if setup.sandbox is None:
        pytest.skip(f"the sandbox cannot run here: {setup.problem}")
    return start_sandbox(mode, str(workspace))


@pytest.fixture
def outside() -> Iterator[Path]:
    """A directory outside the workspace and outside /tmp (the sandbox has its own /tmp)."""
    parent = "/var/tmp" if os.access("/var/tmp", os.W_OK) else str(Path.home())
    path = Path(tempfile.mkdtemp(prefix="saikish-test-", dir=parent))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@dataclass
class Approver:
    """Answers each request with the next scripted answer and keeps the requests."""

    answers: list[Answer] = field(default_factory=list)
    requests: list[ApprovalRequest] = field(default_factory=list)

    def ask(self, request: ApprovalRequest) -> Decision:
        self.requests.append(request)
        if not self.answers:
            pytest.fail(f"asked unexpectedly: {request.assessment.reason}")
        return self.answers.pop(0)(request)


def executor(ws: Path, setup: SandboxSetup, allow: tuple[str, ...] = (),
             answers: tuple[Answer, ...] = (), context: RunContext | None = None,
             mode: Mode = Mode.EVENT_BASED) -> tuple[Executor, Approver]:
    config = Config(allow=tuple(parse_rule(text, "test") for text in allow))
    session = Session(config, str(ws), mode, sandbox=setup)
    session.attach_checkpoints()  # as the CLI does: what can write runs contained with undo
    tools = builtin_tools()
    tools["bash"] = offer_outside(tools["bash"])
    approver = Approver(list(answers))
    return Executor(session, tools, approver, run_context=context or RunContext(str(ws))), \
        approver


def bash(command: str, **extra: object) -> ToolCall:
    return ToolCall("c1", "bash", {"command": command, **extra})


def run_one(ex: Executor, call: ToolCall) -> tuple[Decision, str]:
    outcome = ex.run_batch([call])
    return outcome.records[0].decision, outcome.results[0].content


def fake_bwrap(directory: Path, body: str) -> Path:
    """An executable `bwrap` shell script in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    fake = directory / "bwrap"
    fake.write_text(f"#!/bin/sh\n{body}\n")
    fake.chmod(0o755)
    return fake



# --- writes -----------------------------------------------------------------------

def test_a_write_outside_fails_inside_and_runs_when_approved_in_the_box(
        ws: Path, outside: Path) -> None:
    setup = sandbox_or_skip(ws)
    target = outside / "f"
    # The engine itself asks about `touch OUTSIDE`; a project script it cannot read into is
    # what a rule lets through, and the sandbox has to contain.
    (ws / "w.py").write_text(f"open({str(target)!r}, 'w').close()\n", encoding="utf-8")
    ex, approver = executor(ws, setup, allow=("Bash(python3 w.py)",), answers=(YES,))
    decision, text = run_one(ex, bash("python3 w.py"))
    assert decision.source is Source.RULE and not target.exists()
    assert "Read-only file system" in text
    assert "may have failed because it can write only in the workspace" in text
    assert f'"{OUTSIDE_ARGUMENT}": true' in text
    # The model asks for it to run outside: that goes through the box, whatever the rules say.
    decision, text = run_one(ex, bash("python3 w.py", **{OUTSIDE_ARGUMENT: True}))
    request = approver.requests[0]
    assert request.outside_sandbox and "asks to run this outside the sandbox" in \
        request.assessment.reason
    assert decision.source is Source.USER and target.exists() and "[exit code 0]" in text


def test_a_call_the_person_approves_runs_outside_and_the_box_says_so(
        ws: Path, outside: Path) -> None:
    setup = sandbox_or_skip(ws)
    ex, approver = executor(ws, setup, answers=(YES,))
    decision, text = run_one(ex, bash(f"echo hi > {outside / 'g'}"))
    assert approver.requests[0].outside_sandbox
    assert (outside / "g").read_text() == "hi\n" and "sandbox" not in text
    console = Console(file=io.StringIO(), width=100)
    console.print(approval_panel(approver.requests[0], None))
    assert "runs outside the sandbox" in console.file.getvalue()  # type: ignore[attr-defined]


def test_the_workspace_and_a_private_tmp_are_writable_the_host_tmp_is_not(
        ws: Path, isolated_dirs: Path) -> None:
    setup = sandbox_or_skip(ws)
    ex, _ = executor(ws, setup, mode=Mode.AUTO_APPROVE)
    host_tmp_file = isolated_dirs / "leak"  # under the host's /tmp, beside the workspace
    _, text = run_one(ex, bash(f"sh -c 'echo a > in_ws; echo b > $TMPDIR/t; cat /tmp/t; "
                               f"echo c > {host_tmp_file}; echo $TMPDIR'"))
    assert (ws / "in_ws").read_text() == "a\n" and "b\n/tmp\n[exit code 0]" in text
    assert not host_tmp_file.exists(), "the sandbox wrote to the host's /tmp"


def test_git_metadata_is_read_only_inside(ws: Path) -> None:
    (ws / ".git" / "hooks").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    (ws / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    setup = sandbox_or_skip(ws)
    ex, _ = executor(ws, setup, mode=Mode.AUTO_APPROVE)
    # Code the engine cannot read (a script held in a variable) runs contained: the
    # sandbox, not the analysis, must stop its writes.
    _, text = run_one(ex, bash("s='echo x > .git/hooks/pre-commit; echo y >> .git/config; "
                               "echo z > .git/HEAD'; sh -c \"$s\""))
    assert not (ws / ".git" / "hooks" / "pre-commit").exists()
    assert (ws / ".git" / "config").read_text() == "[core]\n"
    assert (ws / ".git" / "HEAD").read_text() == "ref: refs/heads/main\n", \
        "all of .git is read-only: refs and objects are git's too"
    assert text.count("Read-only file system") == 3
    assert "because git metadata (.git and its hooks), agent.yml and .saikish/ are " \
           "read-only in it" in text


def test_read_only_mode_writes_nowhere_but_its_private_tmp(ws: Path) -> None:
    setup = sandbox_or_skip(ws, SandboxMode.READ_ONLY)
    ex, _ = executor(ws, setup, mode=Mode.AUTO_APPROVE)
    _, text = run_one(ex, bash("sh -c 'echo t > /tmp/t && cat /tmp/t; echo w > in_ws'"))
    assert "t\n" in text and not (ws / "in_ws").exists()
    assert "Read-only file system" in text and "read-only sandbox" in text
    assert "it can write only in its private temp dir" in text


def test_no_new_privileges_no_capabilities_and_dev_and_proc_are_there(ws: Path) -> None:
    setup = sandbox_or_skip(ws)
    ex, _ = executor(ws, setup, mode=Mode.AUTO_APPROVE)
    _, text = run_one(ex, bash("grep -E '^(NoNewPrivs|CapEff):' /proc/self/status "
                               "/dev/null"))
    assert "NoNewPrivs:\t1" in text and "CapEff:\t0000000000000000" in text


def test_only_allowed_variables_reach_the_sandbox(
        ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    setup = sandbox_or_skip(ws)
    for name, value in (("OPENAI_API_KEY", "sk-secret"), ("GH_TOKEN", "gh-secret"),
                        ("PGPASSWORD", "pg-secret"), ("SAIKISH_VISIBLE", "secret-too"),
                        ("DATABASE_URL", "postgres://u:db-secret@h/d"),
                        ("SSH_AUTH_SOCK", "/tmp/secret-agent.sock"), ("LC_TIME", "C"),
                        ("CI", "llm-key-value")):  # CI passes by name, but holds our key
        monkeypatch.setenv(name, value)
    context = RunContext(str(ws), secrets=("llm-key-value",))
    ex, _ = executor(ws, setup, mode=Mode.AUTO_APPROVE, context=context)
    _, text = run_one(ex, bash("env"))
    assert "secret" not in text, "no credential by any name: only allowed names pass"
    assert "llm-key-value" not in text, "an allowed name holding saikish's key is dropped"
    assert "LC_TIME=C" in text and f"HOME={os.path.realpath(Path.home())}" in text
    assert "TMPDIR=/tmp" in text and "PATH=" in text


def test_the_hosts_sockets_in_run_are_hidden(ws: Path) -> None:
    setup = sandbox_or_skip(ws)
    if not any(Path("/run").iterdir()):
        pytest.skip("/run is empty on this host: nothing to hide")
    ex, _ = executor(ws, setup, mode=Mode.AUTO_APPROVE)
    _, text = run_one(ex, bash("ls -A /run /var/run"))
    assert text.split() == ["/run:", "/var/run:", "[exit", "code", "0]"]


def test_auto_budget_calls_run_inside_but_cannot_lift_the_sandbox(
        ws: Path, outside: Path) -> None:
    setup = sandbox_or_skip(ws)
    ex, approver = executor(ws, setup, answers=(YES,))
    ex.session.auto_budget = 2
    decision, text = run_one(ex, bash(f"touch {outside / 'b'}"))
    assert decision.source is Source.AUTO_BUDGET and "Read-only file system" in text
    decision, _ = run_one(ex, bash(f"touch {outside / 'b'}", **{OUTSIDE_ARGUMENT: True}))
    assert decision.source is Source.USER and len(approver.requests) == 1
    assert ex.session.auto_budget == 1 and (outside / "b").exists()


@pytest.mark.parametrize("mode", [Mode.AUTO_APPROVE, Mode.AUTO_DENY])
def test_auto_modes_never_run_a_call_outside_the_sandbox(ws: Path, mode: Mode) -> None:
    setup = sandbox_or_skip(ws)
    ex, approver = executor(ws, setup, allow=("Bash(touch *)",), mode=mode)
    decision, text = run_one(ex, bash("touch x", **{OUTSIDE_ARGUMENT: True}))
    assert decision.source is Source.MODE and not approver.requests and not (ws / "x").exists()
    assert text.startswith("Not run: this run allows no such calls (the model asks to run "
                           f"this outside the sandbox, and --{mode.value} asks nobody)")


# --- network ----------------------------------------------------------------------

@pytest.fixture
def loopback_server() -> Iterator[str]:
    """A real HTTP server on the host's 127.0.0.1; yields its URL."""

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_the_network_is_unreachable_inside_and_reachable_when_approved(
        ws: Path, loopback_server: str) -> None:
    setup = sandbox_or_skip(ws)
    # The system's python3, not this venv's: a venv under /tmp is hidden by the sandbox's
    # private /tmp (CI may clone there).
    python = shutil.which("python3", path="/usr/local/bin:/usr/bin:/bin") or "python3"
    (ws / "fetch.py").write_text("import urllib.request\n"
                                 f"print(urllib.request.urlopen('{loopback_server}').status)\n")
    fetch = f"{python} fetch.py"
    ex, _ = executor(ws, setup, allow=(f"Bash({python} *)",), answers=(YES,))
    decision, text = run_one(ex, bash(fetch))
    assert decision.source is Source.RULE and "Connection refused" in text
    assert "it has no network" in text
    decision, text = run_one(ex, bash(fetch, **{OUTSIDE_ARGUMENT: True}))
    assert decision.source is Source.USER and "200" in text


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_to_a_loopback_server_fails_inside(ws: Path, loopback_server: str) -> None:
    setup = sandbox_or_skip(ws)
    ex, _ = executor(ws, setup, allow=("Bash(curl *)",))
    _, text = run_one(ex, bash(f"curl -sS -m 5 {loopback_server}"))
    assert "Couldn't connect to server" in text or "Connection refused" in text
    assert "it has no network" in text


# --- killing ----------------------------------------------------------------------

def _running(token: str) -> list[int]:
    """Host pids whose command line contains `token`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if token.encode() in cmdline and state != "Z":
            found.append(int(entry.name))
    return found


def _gone(token: str) -> bool:
    deadline = time.monotonic() + 60
    while _running(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    return not _running(token)


@pytest.fixture
def token() -> Iterator[str]:
    """A unique sleep length to find the test's processes by; stragglers are killed after."""
    value = f"86{os.getpid() % 1000:03d}.{time.monotonic_ns() % 1000:03d}"
    yield value
    for pid in _running(value):
        os.kill(pid, signal.SIGKILL)


def _detached_sleepers(token: str, marker: Path) -> str:
    """A command that leaves a background child and a setsid child, then waits forever."""
    return (f"sleep {token}1 & setsid sleep {token}2 & touch {marker}; sleep {token}3")


def test_timeout_kills_everything_inside_the_sandbox(ws: Path, token: str) -> None:
    setup = sandbox_or_skip(ws)
    ex, _ = executor(ws, setup, mode=Mode.AUTO_APPROVE,
                     context=RunContext(str(ws), bash_timeout=1))
    _, text = run_one(ex, bash(_detached_sleepers(token, ws / "started")))
    assert "killed after the timeout of 1s" in text and (ws / "started").exists()
    assert _gone(token), f"left running: {_running(token)}"


def test_cancel_kills_everything_inside_the_sandbox(ws: Path, token: str) -> None:
    setup = sandbox_or_skip(ws)
    context = RunContext(str(ws))
    marker = ws / "started"

    def cancel_once_started() -> None:
        while not marker.exists():
            time.sleep(0.02)
        context.cancel.set()

    threading.Thread(target=cancel_once_started, daemon=True).start()
    ex, _ = executor(ws, setup, mode=Mode.AUTO_APPROVE, context=context)
    _, text = run_one(ex, bash(_detached_sleepers(token, marker)))
    assert "cancelled by the person" in text
    assert _gone(token), f"left running: {_running(token)}"


# --- what the engine wrongly allows is contained ---------------------------------------

def test_a_payload_a_broad_rule_allows_is_contained(cli: Callable[..., Run], ws: Path,
                                                    outside: Path) -> None:
    sandbox_or_skip(ws)
    (ws / "build.py").write_text(
        f"import pathlib\n"
        f"pathlib.Path({str(outside / 'pwned')!r}).write_text('x')\n", encoding="utf-8")
    (ws / "agent.yml").write_text('permissions:\n  allow: ["Bash(python3 *)"]\n')
    model = write_script(ws.parent / "s.yml", (
        "- tool_calls: [{name: bash, arguments: {command: python3 build.py}}]\n"
        "- text: done\n"))
    # Named with --config, the file is the person's own (a project's would need trust).
    run = cli("-p", "build it", "-m", model, "-c", "agent.yml", "--output-format", "json")
    assert run.code == 0 and '"source": "rule"' in run.out and '"decision": "approved"' in run.out
    assert not (outside / "pwned").exists()
    run = cli("-p", "build it", "-m", model, "-c", "agent.yml", "--sandbox", "off")
    assert run.code == 0 and (outside / "pwned").exists(), "the payload works without a sandbox"


def test_auto_approve_runs_inside_the_sandbox(cli: Callable[..., Run], ws: Path,
                                              outside: Path) -> None:
    sandbox_or_skip(ws)
    model = write_script(ws.parent / "s.yml", (
        f"- tool_calls: [{{name: bash, arguments: {{command: 'touch {outside / 'x'}'}}}}]\n"
        f"- text: done\n"))
    run = cli("-p", "go", "-m", model, "--auto-approve")
    assert run.code == 0 and not (outside / "x").exists()


# --- failing closed ---------------------------------------------------------------

def test_a_launcher_gone_mid_session_makes_the_call_asked(ws: Path, tmp_path: Path) -> None:
    setup = sandbox_or_skip(ws)
    assert setup.sandbox is not None
    gone = replace(setup, sandbox=replace(setup.sandbox, launcher=str(tmp_path / "no" / "bwrap")))
    ex, approver = executor(ws, gone, allow=("Bash(touch *)",), answers=(YES,))
    decision, _ = run_one(ex, bash("touch here"))
    reason = approver.requests[0].assessment.reason
    assert reason == f"the sandbox cannot start ({tmp_path / 'no' / 'bwrap'} is gone)"
    assert decision.source is Source.USER and (ws / "here").exists()


def test_a_sandbox_that_fails_to_start_asks_and_the_command_runs_once(
        ws: Path, tmp_path: Path) -> None:
    setup = sandbox_or_skip(ws)
    assert setup.sandbox is not None
    broken = fake_bwrap(tmp_path / "bin",
                        "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1")
    failing = replace(setup, sandbox=replace(setup.sandbox, launcher=str(broken)))
    ex, approver = executor(ws, failing, allow=("Bash(mkdir *)",), answers=(YES, YES))
    decision, text = run_one(ex, bash("mkdir once"))
    assert approver.requests[0].assessment.reason == \
        "the sandbox cannot start (bwrap: setting up uid map: Permission denied)"
    assert decision.source is Source.USER and (ws / "once").is_dir() and text == "[exit code 0]"
    assert ex.session.sandbox.effective is SandboxMode.OFF
    assert "failed: bwrap: setting up uid map" in ex.session.sandbox.summary()
    # From now on every call that would run inside is asked.
    run_one(ex, bash("mkdir twice"))
    assert len(approver.requests) == 2


def test_a_command_printing_a_fake_launcher_error_is_not_a_sandbox_failure(ws: Path) -> None:
    setup = sandbox_or_skip(ws)
    ex, approver = executor(ws, setup, allow=("Bash(echo *)",))
    decision, text = run_one(ex, bash("echo 'bwrap: pretend'"))
    assert decision.source is Source.RULE and not approver.requests
    assert ex.session.sandbox.effective is SandboxMode.WORKSPACE_WRITE
