"""The sandbox for calls no person looked at: bubblewrap on Linux, sandbox-exec on macOS.

docs/SPEC.md §4.9. A `Sandbox` runs a command inside (`spawn`, through the session's
runner, or `wrap`, the argv of a sandbox for one command); `start_sandbox` probes once
per session (a real trivial run) and either returns a working sandbox, says why there is
none (`auto`), or raises (an explicitly requested mode that cannot start is never dropped
silently). What is inside is the business of saikish.tools.sandbox.launcher.
"""

from __future__ import annotations

import enum
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from saikish.errors import SaikishError
from saikish.tools.base import Tool
from saikish.tools.sandbox.environment import sandbox_environment
from saikish.tools.sandbox.fixes import fix_for
from saikish.tools.sandbox.inside import NAMESPACES
from saikish.tools.sandbox.jobs import HostJob, Job, LaunchError
from saikish.tools.sandbox.layout import HOME_TOOLCHAINS, SECRET_STORES
from saikish.tools.sandbox.protected import protected_paths
from saikish.tools.sandbox.reaper import MARKER_VARIABLE
from saikish.tools.sandbox.runner import RunnerBusy, RunnerError, Uncontained, contained
from saikish.tools.sandbox.seatbelt import Seatbelt, seatbelt_argv
from saikish.tools.sandbox.state import Place, SandboxState
from saikish.tools.sandbox.walls import View, explain
from saikish.types import Decision, Source, ToolCall

BWRAP_MISSING = "bwrap not found; install it: apt install bubblewrap"
# Only these tools start processes; the file tools are bounded by the policy (§4.8).
SANDBOXED_TOOLS = frozenset({"bash"})
OUTSIDE_ARGUMENT = "outside_sandbox"
PROBE_TIMEOUT_S = 10.0


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
    """A sandbox that works here: runs a command inside, in the workspace."""

    mode: SandboxMode  # WORKSPACE_WRITE or READ_ONLY
    workspace: str
    launcher: str  # the bwrap or sandbox-exec executable
    temp_dir: str  # the session's private temp dir, seen as /tmp and $TMPDIR inside
    macos: bool = False
    # Keeps the private temp dir alive for the session; removed when the session ends.
    owner: tempfile.TemporaryDirectory[str] | None = field(default=None, compare=False,
                                                           repr=False)
    # The session's mounts, stand-ins and runner (saikish.tools.sandbox.state).
    state: SandboxState = field(default_factory=SandboxState, compare=False, repr=False)
    # False: a sandbox of its own for every call (no runner), as the benchmark compares.
    persistent: bool = True

    @property
    def place(self) -> Place:
        """Where it runs: the workspace, whether it is writable, the private /tmp."""
        return Place(self.workspace, self.mode is SandboxMode.WORKSPACE_WRITE, self.temp_dir)

    def spawn(self, argv: Sequence[str], env: Mapping[str, str], marker: str) -> Job:
        """Start `argv` inside with the allowed part of `env` (from which saikish's keys
        are gone already); raises LaunchError when the sandbox itself failed, OSError or
        ValueError when the command cannot start."""
        inside = sandbox_environment(env, home(), "/tmp" if not self.macos else self.temp_dir)
        if self.persistent and not self.macos:
            job = self._through_runner(argv, inside)
            if job is not None:
                return job
        outer = {**env, MARKER_VARIABLE: marker}  # the reaper finds the launcher by it
        proc = subprocess.Popen(
            self.wrap(argv, {**inside, MARKER_VARIABLE: marker}), cwd=self.workspace,
            env=outer, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, start_new_session=True)
        return HostJob(proc, marker)

    def _through_runner(self, argv: Sequence[str], env: Mapping[str, str]) -> Job | None:
        """The call started in the session's runner; None when it needs a sandbox of its
        own (the runner is busy with another call, or cannot start here)."""
        for _ in range(2):  # a runner found dead on sending is started again, once
            try:
                runner = self.state.runner(self.launcher, self.place)
            except Uncontained as exc:  # fail closed: the executor probes and asks
                raise LaunchError(f"{os.path.basename(self.launcher)}: {exc}") from None
            if runner is None:
                return None
            try:
                return runner.start(argv, env, self.workspace)
            except RunnerBusy:
                return None
            except RunnerError:
                continue
        return None

    def wrap(self, argv: Sequence[str], env: Mapping[str, str] | None = None) -> list[str]:
        """The argv of a sandbox of its own that runs `argv` inside, in the workspace, with
        `env` (default: the allowed part of saikish's own environment)."""
        if env is None:
            env = sandbox_environment(os.environ, home(),
                                      "/tmp" if not self.macos else self.temp_dir)
        if self.macos:
            return seatbelt_argv(self.launcher, self.seatbelt(), env, argv)
        settings = [part for name, value in env.items() for part in ("--setenv", name, value)]
        return [*self.state.prefix(self.launcher, self.place), *settings, "--", *argv]

    def seatbelt(self) -> Seatbelt:
        """What the macOS profile needs: where it may write and read."""
        home_dir = home()
        return Seatbelt(writable=self.writable(), protected=self.protected(),
                        home=home_dir, workspace=self.workspace,
                        toolchains=tuple(os.path.join(home_dir, p) for p, _ in HOME_TOOLCHAINS),
                        secrets=tuple(os.path.join(home_dir, p) for p in SECRET_STORES))

    def writable(self) -> tuple[str, ...]:
        """The host paths a command inside may write to."""
        if self.mode is SandboxMode.READ_ONLY:
            return (self.temp_dir,)
        return (self.workspace, self.temp_dir)

    def protected(self) -> tuple[str, ...]:
        """Paths in the workspace that stay read-only inside, existing or not (see
        saikish.tools.sandbox.protected): what would run code outside later, or change
        saikish's own rules."""
        return protected_paths(self.workspace)

    def explain_failure(self, output: str) -> str | None:
        """One line for the model naming the wall a failed command seems to have hit
        (git metadata, a write outside, a hidden home path, the network), or None."""
        mounts = () if self.macos else self.state.mounts(self.place)
        # A new name in a directory whose names are fixed is refused for the same reason.
        fixed = tuple(f"{directory}/" for directory in self.state.frozen)
        view = View(self.workspace, self.mode is SandboxMode.WORKSPACE_WRITE,
                    (*self.protected(), *fixed), home(), mounts, self.macos)
        return explain(output, view, self.mode.value, OUTSIDE_ARGUMENT)

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

    def close(self) -> None:
        """End the runner and everything in it; remove the stand-ins. Safe to call twice."""
        self.state.close()


def home() -> str:
    """The person's home, as a real path: a fresh, private directory inside."""
    return os.path.realpath(os.path.expanduser("~"))


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
        """One line for the banner and /config: the reason and, when known, the fix."""
        if self.sandbox is None and self.requested is SandboxMode.OFF:
            return "sandbox: off"
        fix = fix_for(self.problem) if self.problem else None
        why = f"{self.problem}; fix: {fix}" if fix else self.problem
        if self.sandbox is None:
            return f"sandbox: off ({why})"
        tool = "sandbox-exec" if self.sandbox.macos else "bubblewrap"
        if self.problem:
            return f"sandbox: {self.sandbox.mode.value} ({tool}) failed: {why}"
        writes = "no writes" if self.sandbox.mode is SandboxMode.READ_ONLY else \
            "writes only in the workspace"
        return (f"sandbox: {self.sandbox.mode.value} ({tool}) · calls run unasked: "
                f"no network, {writes}, the home and secrets hidden")

    def banner(self) -> tuple[str, str]:
        """The banner line and its style: a warning when auto found no sandbox."""
        warn = self.requested is not SandboxMode.OFF and self.effective is SandboxMode.OFF
        return self.summary(), "yellow" if warn else "dim"

    def failed(self, problem: str) -> SandboxSetup:
        """This setup after the sandbox stopped working mid-session."""
        return replace(self, problem=problem)

    def close(self) -> None:
        """End what the sandbox started for the session."""
        if self.sandbox is not None:
            self.sandbox.close()


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
    if sandbox is not None:
        sandbox.close()
    if mode is SandboxMode.AUTO:
        return SandboxSetup(mode, None, problem)
    fix = fix_for(problem)
    raise SandboxError(f"sandbox {mode.value} cannot start: {problem}"
                       + (f" (fix: {fix})" if fix else "") + " (or run with --sandbox off)")


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
    # One directory for the session: its /tmp, its home, the files generated for it (a
    # session killed outright leaves one directory behind, not three).
    session = tempfile.TemporaryDirectory(prefix="saikish-sandbox-")
    root = os.path.realpath(session.name)
    os.mkdir(os.path.join(root, "tmp"), 0o700)
    return Sandbox(resolved, workspace, launcher, os.path.join(root, "tmp"), macos,
                   owner=session, state=SandboxState(root)), None


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
    if not sandbox.macos and not contained(done.stdout.decode("utf-8", "replace").split()):
        return f"{sandbox.launcher} ran the probe without new namespaces"
    return None


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
                        "because of the sandbox (it says which wall it hit: a write outside "
                        "the workspace or into git metadata, the network, a hidden home "
                        "path); the user is asked to approve it."),
    }
    return replace(tool, schema={**tool.schema, "properties": properties})
