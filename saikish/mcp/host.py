"""One session's MCP servers (docs/SPEC.md §7.1): started late, offered once listed, closed.

The host turns the configured servers into the client's specs (variables
expanded, a minimal environment without saikish's own keys, cwd in the
workspace), starts them in the background, and offers their tools to the
session's tool registry as they are listed. What goes wrong is one line
naming the server and the reason, handed out through `notices()` so the
main thread says it; nothing here prints.
"""

from __future__ import annotations

import math
import os
import shutil
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from saikish.mcp.config import McpServer, ServerTable
from saikish.mcp.expansion import UnsetVariable, expand
from saikish.mcp.pins import Pins
from saikish.mcp.tools import server_tool
from saikish.tools.base import RunContext, Tool
from saikish.tools.sandbox.childenv import OWN_KEYS

if TYPE_CHECKING:
    from saikish.mcp.client import CallResult, ListedTool, Servers, ServerSpec, ServerStatus

# What a stdio server inherits from saikish's environment; the rest comes from its `env`.
PASSED = ("HOME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "TMPDIR")
STARTUP_TIMEOUT = 30.0  # seconds; SAIKISH_MCP_STARTUP_TIMEOUT overrides
RESTARTS = 5  # a server that was ready and went away is started again this often
MAX_STARTUP_TIMEOUT = 86_400.0


class SpecError(Exception):
    """A server cannot be started as configured (an unset variable, a missing cwd)."""


class OwnKeyError(SpecError):
    """A value would hand saikish's own API key to a server (docs/SPEC.md §4.8)."""


@dataclass(frozen=True)
class ServerLine:
    """One server as `/mcp` shows it: its state in words, and its tools."""

    name: str
    state: str  # "starting", "ready", "failed", "stopped"
    detail: str  # "12 tools (0.4 s)", the failure's reason
    origin: str
    tools: tuple[Tool, ...] = ()


class McpHost:
    """The configured servers of one session, as a source of tools for the registry."""

    def __init__(self, table: ServerTable, workspace: str, state_dir: Path,
                 secrets: tuple[str, ...] = (),
                 environ: Mapping[str, str] | None = None) -> None:
        self.table, self.workspace, self.state_dir = table, workspace, state_dir
        self.secrets = tuple(s for s in secrets if s)
        self.environ = dict(os.environ if environ is None else environ)
        self.pins = Pins(state_dir / "mcp-pins.json")
        self._lock = threading.Lock()
        # server -> (the listing the tools were built from, wire name -> Tool)
        self._tools: dict[str, tuple[tuple[ListedTool, ...], dict[str, Tool]]] = {}
        self._notices: list[str] = []
        self._refused: dict[str, str] = {}  # server -> why it was never started
        self._servers: Servers | None = None
        self._closed = False
        self.startup_timeout, problem = _startup_timeout(self.environ)
        if problem:
            self._notices.append(problem)

    # -- ToolSource --------------------------------------------------------------------

    def tools(self) -> dict[str, Tool]:
        """Every listed tool of every ready server, by wire name (read from the client's
        status each time, so no listing is missed between its news and our look)."""
        from saikish.mcp.client import State

        out: dict[str, Tool] = {}
        for status in self._servers.status() if self._servers else ():
            # A server starting again after it went away keeps its tools on offer.
            if status.state is State.READY or (status.state is State.STARTING and status.tools):
                out.update(self._built(status))
        return out

    def _built(self, status: ServerStatus) -> dict[str, Tool]:
        """The Tools of one listing, built once per listing."""
        with self._lock:
            listing, tools = self._tools.get(status.name, ((), {}))
            if listing is status.tools or listing == status.tools:
                return tools
        server = next(s for s in self.table if s.name == status.name)
        tools = {}
        for listed in status.tools:
            if server.offers(listed.name):
                tool = server_tool(server, listed.name, listed.description, listed.input_schema,
                                   listed.annotations, self.pins, self._call)
                tools[tool.name] = tool
        with self._lock:
            self._tools[status.name] = (status.tools, tools)
        return tools

    def await_tool(self, name: str) -> None:
        """Wait for the server `name` (mcp__SERVER__TOOL) names, if it is still starting."""
        parts = name.split("__")
        if self._servers is None or len(parts) < 3 or parts[0] != "mcp":
            return
        server = next((s for s in self.table if s.name == parts[1]), None)
        if server is not None:
            self._servers.wait_server(server.name, (server.startup_timeout or
                                                    self.startup_timeout) + 5)

    def unfinished(self) -> list[str]:
        """'mcp server 'x' was still starting: its tools were not offered' for each."""
        return [f"mcp server '{line.name}' was still starting: its tools were not offered"
                for line in self.lines() if line.state == "starting"]

    def notices(self) -> list[str]:
        """The lines gathered since last asked (failures, notes on dropped variables)."""
        with self._lock:
            lines, self._notices = self._notices, []
        return lines

    # -- lifecycle ---------------------------------------------------------------------

    @property
    def started(self) -> bool:
        """True once start() ran."""
        return self._servers is not None or self._closed

    def start(self) -> None:
        """Start every server in the background (idempotent); returns at once."""
        with self._lock:
            if self._servers is not None or self._closed:
                return
            specs = []
            for server in self.table:
                try:
                    spec = self.spec(server)
                    if spec.command and not _findable(spec.command, spec.env.get("PATH")):
                        raise SpecError(f"command {spec.command!r} not found")  # said now
                    specs.append(spec)
                except SpecError as exc:
                    self._refused[server.name] = str(exc)
                    self._notices.append(f"mcp server '{server.name}' failed: {exc}")
            from saikish.mcp.client import Servers

            self._servers = Servers(specs, log_dir=self.state_dir / "mcp-logs",
                                    startup_timeout=self.startup_timeout,
                                    on_change=self._changed)
        self._servers.start()

    def wait_ready(self, timeout: float | None = None) -> None:
        """Block until no server is still starting (for -p, check and editors)."""
        self.start()
        if self._servers is not None:
            self._servers.wait_ready(timeout if timeout is not None
                                     else self.startup_timeout + 5)

    def close(self) -> None:
        """Shut every server down (idempotent); no child process is left behind."""
        with self._lock:
            servers, self._closed = self._servers, True
        if servers is not None:
            servers.close()

    # -- what /mcp shows -----------------------------------------------------------------

    def lines(self) -> list[ServerLine]:
        """Each configured server with its state and tools, in config order."""
        from saikish.mcp.client import State

        status = {s.name: s for s in self._servers.status()} if self._servers else {}
        out = []
        for server in self.table:
            now = status.get(server.name)
            mine = tuple(t for _, t in sorted(self._built(now).items())) \
                if now is not None and now.state is State.READY else ()
            out.append(_line(server, now, self._refused.get(server.name), mine, self.started))
        return out

    # -- the client's side ---------------------------------------------------------------

    def spec(self, server: McpServer) -> ServerSpec:
        """The client's spec for `server`: variables expanded, environment made minimal."""
        from saikish.mcp.client import ServerSpec

        expand = _Expander(self.environ, server, self.secrets)
        limit, setting = server.startup_timeout, _startup_setting(server)
        if server.url is not None:
            return ServerSpec(server.name, url=expand(server.url), timeout=server.timeout,
                              headers={k: expand(v) for k, v in server.headers.items()},
                              startup_timeout=limit, startup_setting=setting,
                              restarts=RESTARTS)
        env = {k: self.environ[k] for k in PASSED if k in self.environ}
        for key, value in server.env.items():
            try:
                passed: str | None = expand(value)
            except OwnKeyError:
                passed = None
            if passed is None or key in OWN_KEYS:
                self._notices.append(f"mcp server '{server.name}': env {key} not passed: it "
                                     f"holds saikish's own API key")
                continue
            env[key] = passed
        return ServerSpec(server.name, command=expand(server.command or ""),
                          args=tuple(expand(a) for a in server.args), env=env,
                          cwd=self._cwd(server, expand), timeout=server.timeout,
                          startup_timeout=limit, startup_setting=setting,
                          restarts=RESTARTS)

    def _cwd(self, server: McpServer, expand: _Expander) -> str:
        folder = Path(self.workspace, os.path.expanduser(expand(server.cwd or ".")))
        if not folder.is_dir():
            raise SpecError(f"cwd {folder} is not a directory ({server.origin})")
        return str(folder)

    def _changed(self, status: ServerStatus) -> None:
        """The client's news (on its thread): a failure is said once, on the main thread."""
        from saikish.mcp.client import State

        with self._lock:
            if status.state is State.FAILED and not self._closed:
                self._notices.append(f"mcp server '{status.name}' failed: {status.reason}")
            elif status.state is State.READY and status.reason:  # tools it had to skip
                self._notices.append(f"mcp server '{status.name}': {status.reason}")
            elif status.state is State.STARTING and status.reason:  # lost, starting again
                self._notices.append(f"mcp server '{status.name}' stopped; {status.reason}")

    def _call(self, server: str, tool: str, arguments: Mapping[str, Any],
              context: RunContext) -> CallResult:
        from saikish.mcp.client import CallResult

        if self._servers is None:
            return CallResult(f"mcp server '{server}' is not running", True)
        return self._servers.call(server, tool, arguments, cancel=context.cancel,
                                  progress=context.progress)


class _Expander:
    """${VAR}, ${VAR:-default}, $VAR and $$ (mcp/expansion.py); an unset variable fails
    this server only, and so does one holding saikish's own API key, or a value that holds
    one as written."""

    def __init__(self, environ: Mapping[str, str], server: McpServer,
                 secrets: tuple[str, ...]) -> None:
        self.environ, self.server, self.secrets = environ, server, secrets

    def __call__(self, value: str) -> str:
        def used(name: str) -> None:
            if name in OWN_KEYS or self.environ[name] in self.secrets:
                raise OwnKeyError(f"${name} holds saikish's own API key; it is never passed "
                                  f"to a server ({self.server.origin})")

        try:
            expanded = expand(value, self.environ, used)
        except UnsetVariable as exc:
            raise SpecError(f"{exc} ({self.server.origin})") from None
        if any(secret in expanded for secret in self.secrets):
            raise OwnKeyError(f"a value holds saikish's own API key; it is never passed to a "
                              f"server ({self.server.origin})")
        return expanded


def _findable(command: str, path: str | None) -> bool:
    """False when `command` surely cannot be run: not on PATH, or an absolute path to
    nothing executable. A relative path is left to the start (its cwd is the server's)."""
    if os.path.isabs(command):
        return os.access(command, os.X_OK)
    if "/" in command:
        return True
    return shutil.which(command, path=path) is not None


def _startup_setting(server: McpServer) -> str:
    """Where this server's start-up limit is set, for the message when it runs out."""
    if server.origin.startswith("the editor"):  # ACP's entries have no such key
        return "SAIKISH_MCP_STARTUP_TIMEOUT"
    if server.startup_timeout is not None:
        return f"startupTimeout in its entry ({server.origin})"
    return (f"startupTimeout in its entry ({server.origin}), or SAIKISH_MCP_STARTUP_TIMEOUT "
            f"for every server")


def _startup_timeout(environ: Mapping[str, str]) -> tuple[float, str | None]:
    """SAIKISH_MCP_STARTUP_TIMEOUT in seconds, and what was wrong with it (then the default)."""
    written = environ.get("SAIKISH_MCP_STARTUP_TIMEOUT")
    if written is None:
        return STARTUP_TIMEOUT, None
    try:
        seconds = float(written)
    except ValueError:
        seconds = math.nan
    # inf (or 1e400) would overflow the waits that use it: a traceback, not a long wait.
    if not 0 < seconds <= MAX_STARTUP_TIMEOUT:
        return STARTUP_TIMEOUT, (f"SAIKISH_MCP_STARTUP_TIMEOUT={written[:40]!r} is not a number "
                                 f"of seconds from 0 to {MAX_STARTUP_TIMEOUT:g}; using "
                                 f"{STARTUP_TIMEOUT:g}")
    return seconds, None


def _line(server: McpServer, status: ServerStatus | None, refused: str | None,
          tools: tuple[Tool, ...], started: bool) -> ServerLine:
    if refused is not None:
        return ServerLine(server.name, "failed", refused, server.origin)
    if status is None:
        return ServerLine(server.name, "starting" if started else "not started", "",
                          server.origin)
    state = status.state.name.lower()
    if state == "ready":
        after = f" ({status.ready_after_s:.1f} s)" if status.ready_after_s is not None else ""
        return ServerLine(server.name, state, f"{len(tools)} tools{after}", server.origin,
                          tools)
    return ServerLine(server.name, state, status.reason, server.origin)
