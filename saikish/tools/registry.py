"""The tools a session offers, fixed and late (docs/SPEC.md §7.1, §7.3).

Built-in and function tools are known at start; an MCP server's tools arrive
when the server has listed them, on another thread. The registry is a
read-only Mapping over both: the executor looks calls up in it and the agent
sends its current tools with every model call, so a server's tools join the
next model call once listed. A late tool never replaces a fixed one.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol

from saikish.tools.base import Tool

MAX_TOOLS = 128


class ToolSource(Protocol):
    """Tools that come and go (an MCP host), and what it has to tell the person."""

    @property
    def started(self) -> bool:
        """True once start() ran."""

    def start(self) -> None:
        """Begin offering tools (idempotent; returns at once, tools may come later)."""

    def wait_ready(self, timeout: float | None = None) -> None:
        """Block until the tools that are coming have come (or failed), within `timeout`."""

    def tools(self) -> Mapping[str, Tool]:
        """The tools it offers now, by wire name (safe to call from any thread)."""

    def notices(self) -> list[str]:
        """One-line remarks gathered since last asked ("mcp server 'x' failed: why")."""

    def await_tool(self, name: str) -> None:
        """Wait (within its start-up limit) for what may still offer `name`: a server that
        is starting; at once when nothing that is starting could offer it."""

    def unfinished(self) -> list[str]:
        """One line for each provider still starting (its tools were never offered)."""


class ToolRegistry(Mapping[str, Tool]):
    """Fixed tools, then each source's current tools, MAX_TOOLS in all.

    Past MAX_TOOLS a request is refused by the providers (OpenAI documents 128), and
    every tool is resent with every model call: the late tools past it are left out, and
    the person is told once which.
    """

    def __init__(self, fixed: Sequence[Tool] | Mapping[str, Tool],
                 sources: Sequence[ToolSource] = ()) -> None:
        self.fixed = dict(fixed) if isinstance(fixed, Mapping) else {t.name: t for t in fixed}
        self.sources = list(sources)
        self._lock = threading.Lock()
        self._left_out: tuple[str, ...] = ()  # as last told
        self._pending: list[str] = []

    def add_source(self, source: ToolSource) -> None:
        """Offer `source`'s tools from now on."""
        self.sources.append(source)

    def current(self) -> dict[str, Tool]:
        """Every tool offered now, fixed ones first, at most MAX_TOOLS."""
        out = dict(self.fixed)
        left_out: list[str] = []
        for source in self.sources:
            for name, tool in source.tools().items():
                if name in out:
                    continue
                if len(out) >= MAX_TOOLS:
                    left_out.append(name)
                else:
                    out[name] = tool
        self._tell(tuple(left_out))
        return out

    def _tell(self, left_out: tuple[str, ...]) -> None:
        """A notice when the tools left out changed (once per change, not per call)."""
        with self._lock:
            if left_out == self._left_out:
                return
            self._left_out = left_out
            if left_out:
                shown = ", ".join(left_out[:10]) + (f" and {len(left_out) - 10} more"
                                                    if len(left_out) > 10 else "")
                self._pending.append(
                    f"{len(left_out)} MCP tools are not offered to the model: at most "
                    f"{MAX_TOOLS} tools go with a request. Left out: {shown}. Choose with "
                    f"includeTools / excludeTools in agent.yml")

    def start(self, wait: bool = False) -> None:
        """Start every source that has not started yet; with `wait`, until its tools are in.

        Without `wait` the first model call does not wait for them: their tools join the
        next model call once listed (§7.1), and a call of one waits for its server.
        """
        for source in self.sources:
            if not source.started:
                source.start()
                if wait:
                    source.wait_ready()

    def notices(self) -> list[str]:
        """What the sources (and the cap) have to say since last asked, in source order."""
        lines = [line for source in self.sources for line in source.notices()]
        with self._lock:
            lines += self._pending
            self._pending = []
        return lines

    def unfinished(self) -> list[str]:
        """What is still starting, one line each (said when a headless run ends)."""
        return [line for source in self.sources for line in source.unfinished()]

    def __getitem__(self, name: str) -> Tool:
        tool = self.fixed.get(name) or self.current().get(name)
        if tool is not None:
            return tool
        # A call of a tool whose server is still starting (a resumed conversation, a script)
        # waits for that server rather than failing as unknown.
        for source in self.sources:
            source.await_tool(name)
        return self.current()[name]  # a tool left out by the cap is not known to the model

    def __iter__(self) -> Iterator[str]:
        return iter(self.current())

    def __len__(self) -> int:
        return len(self.current())
