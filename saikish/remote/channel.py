"""Start and stop the remote approval channel of an Agent (docs/SPEC.md §7.5).

Starting puts a RemoteApprover where the agent's approver was (behind the
confirmation hooks, so they still answer first) and subscribes the hub to the
event stream; stopping puts everything back.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from saikish.remote.address import Address
from saikish.remote.approver import RemoteApprover
from saikish.remote.hub import Hub
from saikish.remote.server import ApprovalServer
from saikish.runtime.agent import Agent
from saikish.runtime.approval import Approver, HookedApprover
from saikish.runtime.session import Session
from saikish.store.audit import BACKUPS, AuditError, read_tail

PREFIX = "remote approval"


@dataclass
class RemoteChannel:
    """A running approval server and how to take it away again."""

    address: Address
    url: str
    hub: Hub
    server: ApprovalServer
    restore: Callable[[], None]

    def banner(self) -> list[str]:
        """The line with the link, and a warning when other machines can reach it."""
        return banner_lines(self.address, self.url)

    def close(self, reason: str = "the session ended") -> None:
        """Tell the clients, put the old approver back, close the port."""
        self.hub.end(reason)
        self.restore()
        self.server.close()


def banner_lines(address: Address, url: str) -> list[str]:
    """`remote approval: URL`, and a warning unless only this machine can connect."""
    lines = [f"{PREFIX}: {url}"]
    if not address.loopback:
        lines.append(f"{PREFIX}: warning: {address.host} is reachable from other machines: "
                     f"whoever has this link can approve calls, and plain http is not "
                     f"encrypted")
    return lines


def start(agent: Agent, address: Address, timeout_s: float | None, *, terminal: bool,
          clock: Callable[[], float] = time.time) -> RemoteChannel:
    """Serve `agent`'s approvals at `address`; the terminal keeps asking when `terminal`."""
    session = agent.executor.session
    token = secrets.token_urlsafe(24)
    hub = Hub(session, clock=clock, audit=session_entries(session))
    server = ApprovalServer(hub, address, token)
    bound = server.start()
    previous = agent.executor.approver
    inner: Approver = previous.inner if isinstance(previous, HookedApprover) else previous
    remote = RemoteApprover(hub, inner if terminal else None, timeout_s, clock)
    agent.executor.approver = HookedApprover(previous.hooks, remote) \
        if isinstance(previous, HookedApprover) else remote
    unsubscribe = agent.subscribe(hub.publish)

    def restore() -> None:
        agent.executor.approver = previous
        unsubscribe()

    return RemoteChannel(bound, f"http://{bound.netloc}/?token={token}", hub, server, restore)


def session_entries(session: Session) -> list[dict[str, Any]]:
    """The session's decisions already in the audit log (a channel started mid-session)."""
    audit = session.audit
    if audit is None:
        return []
    paths = [audit.path.with_name(f"{audit.path.name}.{n}") for n in range(BACKUPS, 0, -1)]
    entries: list[dict[str, Any]] = []
    for path in [*paths, audit.path]:
        try:
            entries += [e for e in read_tail(path, 0) if e.get("session") == session.id]
        except AuditError:
            continue  # an unreadable ledger: the page shows what happens from now on
    return entries
