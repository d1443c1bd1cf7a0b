"""The sandbox for calls no person looked at: bubblewrap on Linux, sandbox-exec on macOS.

docs/SPEC.md §4.9. A `Sandbox` turns the argv of a command into the argv that
runs it inside; `start_sandbox` probes once per session (a real trivial run)
and either returns a working sandbox, says why there is none (`auto`), or
raises (an explicitly requested mode that cannot start is never dropped
silently).
"""

from __future__ import annotations

import enum
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from saikish.errors import SaikishError
from saikish.tools.base import Tool
from saikish.tools.seatbelt import seatbelt_argv
from saikish.types import Decision, Source, ToolCall

BWRAP_MISSING = "bwrap not found; install it: apt install bubblewrap"
# Only these tools start processes; the file tools are bounded by the policy (§4.8).
SANDBOXED_TOOLS = frozenset({"bash"})
OUTSIDE_ARGUMENT = "outside_sandbox"
PROBE_TIMEOUT_S = 10.0
NAMESPACES = ("/proc/self/ns/net", "/proc/self/ns/mnt")
# Codex's default exclusions: nothing inside needs credentials (it has no network), and
# what reads them there could leave them in the workspace for a run outside.
SECRET_NAME_PARTS = ("KEY", "SECRET", "TOKEN")


# What a command prints when the sandbox stopped it, and what the model is told then.
# EBUSY: a rename over .git/config or agent.yml, which are bound read-only.
_WRITE_ERRORS: tuple[str, ...] = ("Read-only file system", "EROFS", "Device or resource busy")
_BLOCKED: tuple[tuple[tuple[str, ...], str], ...] = (
    (_WRITE_ERRORS, "it can write only in the workspace (not .git/hooks, .git/config or "
                    "agent.yml) and in its private temp dir"),
    (("Network is unreachable", "ENETUNREACH", "Could not resolve host",
      "Temporary failure in name resolution", "Name or service not known",
      "getaddrinfo", "EAI_AGAIN", "Connection refused", "Couldn't connect to server"),
     "it has no network (loopback only, and nothing of the host listens there)"),
)


class SandboxMode(enum.Enum):
    """agent.yml's `sandbox` / `--sandbox`."""

    AUTO = "auto"
    WORKSPACE_WRITE = "workspace-write"
    READ_ONLY = "read-only"
    OFF = "off"


MODES = tuple(mode.value for mode in SandboxMode)


class SandboxError(SaikishError):
    """An explicitly requested sandbox that cannot start (exit code 2)."""


@dataclass(frozen=True)
class Sandbox:
    """A sandbox that works here: wraps a command's argv so that it runs inside."""

    mode: SandboxMode  # WORKSPACE_WRITE or READ_ONLY
    workspace: str
    launcher: str  # the bwrap or sandbox-exec executable
    temp_dir: str  # the session's private temp dir, seen as /tmp and $TMPDIR inside
    macos: bool = False
    # Keeps the private temp dir alive for the session; removed when the session ends.
    owner: tempfile.TemporaryDirectory[str] | None = field(default=None, compare=False,
                                                           repr=False)

    def wrap(self, argv: Sequence[str]) -> list[str]:
        """The argv that runs `argv` inside this sandbox, in the workspace."""
        if self.macos:
            return seatbelt_argv(self.launcher, self.writable(), self.protected(),
                                 self.temp_dir, secret_names(), argv)
        unset = [part for name in secret_names() for part in ("--unsetenv", name)]
        return [self.launcher, *self._bwrap_options(), *unset, "--", *argv]

    def writable(self) -> tuple[str, ...]:
        """The host paths a command inside may write to."""
        if self.mode is SandboxMode.READ_ONLY:
            return (self.temp_dir,)
        return (self.workspace, self.temp_dir)

    def protected(self) -> tuple[str, ...]:
        """Paths inside the workspace that stay read-only: what would run code outside later.

        A hook or a `core.fsmonitor` in .git/config runs the next time the person
        uses git, and a project agent.yml could loosen saikish's own rules. Codex
        keeps all of .git read-only by default; keeping only the parts that run
        code (as its allow_limited_git_writes does) lets `git commit` work inside.
        """
        candidates = (os.path.join(self.workspace, name)
                      for name in (".git/hooks", ".git/config", "agent.yml"))
        # The real path: a symlinked hooks dir that points into the workspace is protected too.
        return tuple(os.path.realpath(path) for path in candidates if os.path.exists(path))

    def _bwrap_options(self) -> list[str]:
        workspace_bind = "--bind" if self.mode is SandboxMode.WORKSPACE_WRITE else "--ro-bind"
        options = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        # /run holds the sockets of dbus, docker and systemd: each can run things outside.
        for runtime in ("/run", "/var/run"):
            if os.path.isdir(runtime) and not os.path.islink(runtime):
                options += ["--tmpfs", runtime]
        # The workspace after /tmp, so that a workspace under /tmp is seen inside.
        options += ["--bind", self.temp_dir, "/tmp",
                    workspace_bind, self.workspace, self.workspace]
        for path in self.protected():
            options += ["--ro-bind", path, path]
        return [
            *options, "--chdir", self.workspace, "--setenv", "TMPDIR", "/tmp",
            # Loopback only; a PID namespace so that killing bwrap kills everything inside.
            "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session",
            # bwrap keeps every capability when started by root; no_new_privs it always sets.
            "--cap-drop", "ALL",
        ]

    def explain_failure(self, output: str) -> str | None:
        """One line for the model when a command seems to have failed because of this
        sandbox (a write outside, the network), or None."""
        for needles, what in _BLOCKED:
            writes = needles is _WRITE_ERRORS
            if self.macos and writes:
                needles = (*needles, "Operation not permitted")  # Seatbelt denies with EPERM
            if any(needle in output for needle in needles):
                if self.mode is SandboxMode.READ_ONLY and writes:
                    what = "it can write only in its private temp dir"
                return (f"[This ran in the {self.mode.value} sandbox and may have failed "
                        f"because {what}. If it must, call it again with "
                        f"\"{OUTSIDE_ARGUMENT}\": true and say why; the person will be asked "
                        f"to approve it.]")
        return None

    def ready(self) -> str | None:
        """Why the sandbox cannot run now (its launcher went away), or None."""
        if os.access(self.launcher, os.X_OK):
            return None
        return f"{self.launcher} is gone"

    def start_failure(self, output: str) -> str | None:
        """Why the sandbox failed to start a command whose output is `output`, or None.

        A command can print anything, so text that looks like the launcher's own
        error only leads to a fresh probe; only a failing probe counts.
        """
        name = os.path.basename(self.launcher)
        if not output.startswith(f"{name}: "):
            return None
        return probe(self)


@dataclass(frozen=True)
class SandboxSetup:
    """The session's sandbox: the mode asked for, the sandbox in use, or why there is none."""

    requested: SandboxMode = SandboxMode.OFF
    sandbox: Sandbox | None = None
    problem: str | None = None

    @property
    def effective(self) -> SandboxMode:
        """The mode calls run under now (OFF when there is no working sandbox)."""
        return self.sandbox.mode if self.sandbox and not self.problem else SandboxMode.OFF

    @property
    def configured(self) -> bool:
        """True when calls nobody approved are meant to run inside a sandbox."""
        return self.sandbox is not None

    def summary(self) -> str:
        """One line for the banner and /config."""
        if self.sandbox is None and self.requested is SandboxMode.OFF:
            return "sandbox: off"
        if self.sandbox is None:
            return f"sandbox: off ({self.problem})"
        tool = "sandbox-exec" if self.sandbox.macos else "bubblewrap"
        if self.problem:
            return f"sandbox: {self.sandbox.mode.value} ({tool}) failed: {self.problem}"
        writes = "no writes" if self.sandbox.mode is SandboxMode.READ_ONLY else \
            "writes only in the workspace"
        return (f"sandbox: {self.sandbox.mode.value} ({tool}) · calls run unasked: "
                f"no network, {writes}")

    def banner(self) -> tuple[str, str]:
        """The banner line and its style: a warning when auto found no sandbox."""
        warn = self.requested is not SandboxMode.OFF and self.effective is SandboxMode.OFF
        return self.summary(), "yellow" if warn else "dim"

    def failed(self, problem: str) -> SandboxSetup:
        """This setup after the sandbox stopped working mid-session."""
        return replace(self, problem=problem)


def start_sandbox(mode: SandboxMode, workspace: str, *,
                  platform: str = sys.platform) -> SandboxSetup:
    """Resolve `mode` for this machine, probing once; raises SandboxError when an
    explicitly requested mode cannot start."""
    if mode is SandboxMode.OFF:
        return SandboxSetup(mode)
    sandbox, problem = _build(mode, os.path.realpath(workspace), platform)
    if sandbox is not None:
        problem = probe(sandbox)
    if problem is None:
        return SandboxSetup(mode, sandbox)
    if mode is SandboxMode.AUTO:
        return SandboxSetup(mode, None, problem)
    raise SandboxError(f"sandbox {mode.value} cannot start: {problem} "
                       f"(or run with --sandbox off)")


def _build(mode: SandboxMode, workspace: str,
           platform: str) -> tuple[Sandbox | None, str | None]:
    macos = platform == "darwin"
    if macos:
        launcher = shutil.which("sandbox-exec") or "/usr/bin/sandbox-exec"
    elif platform.startswith("linux"):
        found = shutil.which("bwrap")
        if not found:
            return None, BWRAP_MISSING
        launcher = os.path.realpath(found)
        if launcher.startswith(workspace + os.sep):
            # What ran in an earlier session's sandbox may have put it there ($PATH with ".").
            return None, f"the bwrap found on $PATH is inside the workspace: {launcher}"
    else:
        return None, f"no sandbox on {platform}"
    resolved = SandboxMode.WORKSPACE_WRITE if mode is SandboxMode.AUTO else mode
    temp = tempfile.TemporaryDirectory(prefix="saikish-sandbox-")
    return Sandbox(resolved, workspace, launcher, os.path.realpath(temp.name), macos,
                   owner=temp), None


def probe(sandbox: Sandbox) -> str | None:
    """Run a trivial command inside `sandbox`: None when it works and is contained, else
    why not (the launcher's first error line)."""
    # On Linux the command reports its namespaces: a launcher that ran it in ours
    # (a broken or fake bwrap) would pass a bare `true` but contain nothing.
    argv = ["true"] if sandbox.macos else ["readlink", *NAMESPACES]
    try:
        done = subprocess.run(sandbox.wrap(argv), cwd=sandbox.workspace,
                              stdin=subprocess.DEVNULL, capture_output=True,
                              timeout=PROBE_TIMEOUT_S, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{os.path.basename(sandbox.launcher)} cannot run: {exc}"
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[0] if lines else f"{sandbox.launcher} exited with {done.returncode}"
    if not sandbox.macos and _shares_namespaces(done.stdout.decode("utf-8", "replace")):
        return f"{sandbox.launcher} ran the probe without new namespaces"
    return None


def _shares_namespaces(reported: str) -> bool:
    """True when the probe's network or mount namespace is ours."""
    ours = []
    for path in NAMESPACES:
        try:
            ours.append(os.readlink(path))
        except OSError:
            return True  # cannot compare: fail closed
    inside = reported.split()
    return len(inside) != len(ours) or any(a == b for a, b in zip(inside, ours, strict=True))


def secret_names() -> list[str]:
    """The environment variables a sandboxed command does not get: credentials."""
    return sorted(name for name in os.environ
                  if any(part in name.upper() for part in SECRET_NAME_PARTS))


def runs_inside(call: ToolCall, decision: Decision) -> bool:
    """True when `call` must run in the sandbox: no person approved it (§4.9).

    Only an approval in the box (source `user`) lets a call run as approved;
    rules, autonomy, /auto, --auto-approve and anything added later run inside.
    """
    return call.name in SANDBOXED_TOOLS and decision.source is not Source.USER


def wants_outside(call: ToolCall) -> bool:
    """True when the model asks for this call to run outside the sandbox."""
    return call.name in SANDBOXED_TOOLS and call.arguments.get(OUTSIDE_ARGUMENT) is True


def offer_outside(tool: Tool) -> Tool:
    """`tool` with the argument the model sets to ask for a run outside the sandbox.

    Like Codex's escalation flag and Claude Code's dangerouslyDisableSandbox:
    setting it never skips the box, it sends the call there.
    """
    properties = dict(tool.schema.get("properties", {}))
    properties[OUTSIDE_ARGUMENT] = {
        "type": "boolean",
        "description": ("Run outside the sandbox. Set it only when the command failed "
                        "because of the sandbox and must write outside the workspace or use "
                        "the network; the user is asked to approve it."),
    }
    return replace(tool, schema={**tool.schema, "properties": properties})
