"""What a slash command may use of the running REPL (docs/SPEC.md §9), as a Protocol: the
commands (ui/commands.py, ui/daily.py) are written against it, and ui/repl.py's `Repl`
provides it, so neither side imports the other's module."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from rich.console import Console

    from saikish.models import ModelSpec
    from saikish.remote.channel import RemoteChannel
    from saikish.runtime.agent import Agent
    from saikish.runtime.session import Session


class ShellState(Protocol):
    """The REPL as its slash commands see it."""

    agent: Agent
    session: Session
    console: Console
    spec: ModelSpec
    remote: RemoteChannel | None

    def say(self, text: str, style: str = "dim") -> None:
        """One line of saikish's own."""

    def switch_model(self, text: str) -> None:
        """Use another model from now on."""

    def start_remote(self, where: str) -> None:
        """Serve approvals on a web page too."""

    def stop_remote(self, reason: str = "the session ended") -> None:
        """Close the approval server, if one runs."""
