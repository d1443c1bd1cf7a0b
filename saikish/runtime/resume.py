"""An agent's conversation stored, and resumed (docs/SPEC.md §10.2): the glue between the
agent and its session file, used by the REPL, `-p` and `saikish acp`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from saikish import __version__
from saikish.cost import Meter
from saikish.sessions.catalog import SessionInfo
from saikish.sessions.log import SessionLog, sessions_dir
from saikish.sessions.replay import Replay, read_records, replay
from saikish.store import paths

if TYPE_CHECKING:
    from saikish.runtime.agent import Agent


def session_folder() -> Path:
    """`<state dir>/sessions`."""
    return sessions_dir(paths.state_dir())


def record_new(agent: Agent) -> SessionLog:
    """Store the agent's conversation from now on, as a new session (its file appears with
    the first message)."""
    session = agent.executor.session
    log = SessionLog.new(session_folder(), session.id,
                         {"workspace": session.workspace, "model": agent.model.name,
                          "saikish": __version__})
    agent.record_to(log)
    return log


def resume(agent: Agent, info: SessionInfo) -> Replay:
    """Go on with a stored session: its conversation (made valid for the provider) and its
    costs; new messages are appended to its file."""
    replayed = replay(read_records(info.path))
    log = SessionLog.resume(info.path, replayed.header)  # SessionBusy: held elsewhere
    agent.conversation.load(replayed.messages)
    agent.calls.meter = Meter(list(replayed.spends))
    agent.record_to(log)
    return replayed


def start(agent: Agent, chosen: SessionInfo | None) -> Replay | None:
    """Record the agent's conversation: `chosen` resumed, or a new session."""
    if chosen is None:
        record_new(agent)
        return None
    return resume(agent, chosen)


def resumed_line(info: SessionInfo, replayed: Replay) -> str:
    """What the person is told about a resumed session."""
    count = len(replayed.messages)
    line = f"resumed session {info.id} ({count} message{'s' if count != 1 else ''})"
    if replayed.repaired:
        line += (f"; {replayed.repaired} call{'s' if replayed.repaired != 1 else ''} had no "
                 f"result when it ended and now say{'s' if replayed.repaired == 1 else ''} "
                 f"so to the model")
    return line
