"""The sandbox's walls on real bubblewrap (docs/SPEC.md §4.9): what the red team reached from
inside (the home's secrets, a sibling project, sockets, .git renamed or created, agent.yml)
is out of reach, each attack fails for the reason asserted, and the host tree is unchanged.

The fake home lies under /var/tmp, not /tmp: the sandbox's private /tmp would hide a home
under /tmp anyway, and prove nothing about the home itself.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from saikish.tools import RunContext, builtin_tools
from saikish.tools.sandbox.launcher import SandboxMode, SandboxSetup, start_sandbox
from saikish.tools.sandbox.state import runner_python

BASH = builtin_tools()["bash"]
HIDDEN = "the home (but for toolchain directories) and secret stores such as ~/.ssh are hidden"
GIT_WALL = "git metadata (.git and its hooks), agent.yml and .saikish/ are read-only in it"
SECRETS = {".ssh/id_rsa": "ssh-secret", ".aws/credentials": "aws-secret",
           ".kube/config": "kube-secret", ".docker/config.json": "docker-secret",
           "other-project/notes.txt": "sibling-secret", ".cargo/credentials.toml": "cargo-secret"}


@dataclass
class Box:
    """A workspace's sandbox for one test; `run` is a bash call inside it."""

    ws: Path
    setup: SandboxSetup

    def run(self, command: str, **context: object) -> tuple[str, str]:
        """(the call's output, the wall note the model gets: "" when none)."""
        assert self.setup.sandbox is not None
        ctx = RunContext(str(self.ws), sandbox=self.setup.sandbox, **context)  # type: ignore[arg-type]
        output = BASH.run({"command": command}, ctx)
        note = self.setup.sandbox.explain_failure(output.text) if output.is_error else None
        return output.text, note or ""


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home outside /tmp holding fake secrets, a sibling project and a toolchain."""
    root = Path(tempfile.mkdtemp(prefix="saikish-home-", dir="/var/tmp"))
    path = root / "home"
    for name, text in SECRETS.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    tool = path / ".cargo" / "bin" / "hello"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\necho hello from cargo\n")
    tool.chmod(0o755)
    (path / ".gitconfig").write_text(
        "[user]\n\tname = Test Person\n\temail = t@example.com\n"
        "[url \"https://tok-secret@github.com/\"]\n\tinsteadOf = https://github.com/\n")
    monkeypatch.setenv("HOME", str(path))
    yield path
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def open_box(ws: Path) -> Iterator[Callable[..., Box]]:
    """Starts the sandbox when the test has set the workspace up; closes it after."""
    opened: list[SandboxSetup] = []

    def start(workspace: Path = ws) -> Box:
        if start_sandbox(SandboxMode.AUTO, str(workspace)).sandbox is None:
            pytest.skip("bubblewrap cannot run here")
        opened.append(start_sandbox(SandboxMode.WORKSPACE_WRITE, str(workspace)))
        return Box(workspace, opened[-1])

    yield start
    for setup in opened:
        setup.close()


def tree(root: Path) -> dict[str, str]:
    """Every path below `root` with what it is: a file's content, a link's target, "dir"."""
    found = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        found[key] = (f"-> {os.readlink(path)}" if path.is_symlink() else
                      "dir" if path.is_dir() else path.read_bytes().decode("latin-1"))
    return found


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


# --- the home and the host's secrets -------------------------------------------------

@pytest.mark.parametrize("name", sorted(SECRETS))
def test_a_secret_of_the_home_cannot_be_read(home: Path, open_box: Callable[..., Box],
                                             name: str) -> None:
    box = open_box()
    text, note = box.run(f"cat ~/{name}")
    assert (home / name).read_text() == SECRETS[name], "it is there on the host"
    assert SECRETS[name] not in text
    if name.startswith(".cargo/"):  # inside a toolchain directory: covered, read as empty
        assert text == "[exit code 0]"
    else:
        assert "No such file or directory" in text and f"cannot see ~/{name}: {HIDDEN}" in note


def test_the_toolchains_of_the_home_are_there_read_only(home: Path,
                                                        open_box: Callable[..., Box]) -> None:
    text, _ = open_box().run("~/.cargo/bin/hello; ls -A ~; touch ~/.cargo/new")
    assert text.startswith("hello from cargo\n"), "~/.cargo/bin runs"
    assert "\n.cargo\n.gitconfig\n" in text, "a fresh home: only toolchains and git's config"
    assert "Read-only file system" in text and not (home / ".cargo" / "new").exists()


def test_the_home_inside_is_fresh_and_private(home: Path, open_box: Callable[..., Box]) -> None:
    text, _ = open_box().run("echo note > ~/new && cat ~/new")
    assert text == "note\n[exit code 0]" and not (home / "new").exists()


def test_a_workspace_in_the_home_is_seen_and_its_siblings_are_not(
        home: Path, open_box: Callable[..., Box]) -> None:
    project = home / "project"
    project.mkdir()
    (project / "mine.txt").write_text("mine")
    text, note = open_box(project).run("cat mine.txt && echo more >> mine.txt; "
                                       "cat ~/other-project/notes.txt")
    assert text.startswith("mine") and (project / "mine.txt").read_text() == "minemore\n"
    assert "sibling-secret" not in text and "cannot see ~/other-project/notes.txt" in note


def test_a_workspace_that_is_the_home_still_hides_its_secret_stores(
        home: Path, open_box: Callable[..., Box]) -> None:
    text, _ = open_box(home).run("cat other-project/notes.txt; ls -A .ssh .aws; "
                                 "touch .ssh/planted")
    assert text.startswith("sibling-secret"), "the workspace itself is seen"
    assert "ssh-secret" not in text and "aws-secret" not in text
    assert "Read-only file system" in text and not (home / ".ssh" / "planted").exists()


def test_system_secrets_and_other_homes_are_hidden(home: Path, open_box: Callable[..., Box],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    config = home.parent / "saikish-config"
    config.mkdir()
    (config / "allowlist.yaml").write_text("allow-secret")
    monkeypatch.setenv("SAIKISH_CONFIG_DIR", str(config))
    if os.access("/etc/shadow", os.R_OK):
        assert Path("/etc/shadow").stat().st_size > 0, "what the sandbox hides is real"
    box = open_box()
    assert box.run("wc -c < /etc/shadow")[0] == "0\n[exit code 0]", "read as empty"
    assert box.run("ls -A /home")[0] == "[exit code 0]", "other homes: an empty directory"
    assert box.run(f"ls -A {config}")[0] == "[exit code 0]", "saikish's config dir: empty"
    # Of /root, only the interpreter the runner runs on may be seen (when it lives there).
    seen = box.run("find /root -mindepth 1 -maxdepth 4")[0].splitlines()[:-1]
    python_dirs = runner_python()[1]
    for path in seen:
        assert any(d.startswith(path + "/") or path.startswith(d) for d in python_dirs), path
    assert (config / "allowlist.yaml").read_text() == "allow-secret"


# --- sockets ------------------------------------------------------------------------

CONNECT = ("python3 -c 'import socket,sys\nfor p in sys.argv[1:]:\n c=socket.socket(socket."
           "AF_UNIX)\n try: c.connect(p.replace(\"@\", \"\\0\")); print(p, \"connected\")\n"
           " except OSError as e: print(p, e.strerror)' ")


def test_the_hosts_unix_sockets_cannot_be_reached(home: Path, open_box: Callable[..., Box],
                                                   tmp_path: Path) -> None:
    visible = home.parent / "visible"
    visible.mkdir()
    paths = [str(home / "agent.sock"), str(tmp_path / "host-tmp.sock"),
             str(visible / "early.sock"), f"@saikish-test-{os.getpid()}"]
    listeners = []
    for path in paths:
        listener = socket.socket(socket.AF_UNIX)
        listener.bind(path.replace("@", "\0"))
        listener.listen()
        listener.setblocking(False)
        listeners.append(listener)
    box = open_box()
    box.run("true")  # the sandbox is up; a socket made now must not be reachable either
    late = socket.socket(socket.AF_UNIX)
    late.bind(str(visible / "late.sock"))
    late.listen()
    late.setblocking(False)
    text, _ = box.run(CONNECT + " ".join([*paths, str(visible / "late.sock")]))
    assert "connected" not in text
    # In the home and /tmp they are not there at all; in a visible directory each is
    # covered by an empty file (the runner started again to cover the late one); an
    # abstract socket lives in the network namespace, which is the sandbox's own.
    assert f"{paths[0]} No such file or directory" in text
    assert f"{paths[1]} No such file or directory" in text
    assert f"{paths[2]} Permission denied" in text and "late.sock Permission denied" in text
    assert f"{paths[3]} Connection refused" in text
    for listener in [*listeners, late]:
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody ever connected


def test_a_loopback_listener_of_the_host_cannot_be_reached(open_box: Callable[..., Box]) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.setblocking(False)
    port = listener.getsockname()[1]
    text, note = open_box().run(f"python3 -c 'import socket; socket.create_connection("
                                f"(\"127.0.0.1\", {port}), timeout=5)'")
    assert "ConnectionRefusedError" in text and "it has no network" in note
    with pytest.raises(BlockingIOError):
        listener.accept()
