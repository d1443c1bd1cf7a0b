"""Slash commands for daily use (docs/SPEC.md §9, §10): /init, /resume, /compact, /cost,
/transcript, and /clear starting a new session."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.panel import Panel
from rich.text import Text

from saikish.cost import dollars
from saikish.inert import inert
from saikish.ui.render import usage_line

if TYPE_CHECKING:
    from saikish.sessions.catalog import SessionInfo
    from saikish.ui.shellstate import ShellState


def clear(repl: ShellState, arg: str) -> None:
    """/clear: forget the conversation; a new session file is started."""
    repl.agent.clear()
    log = repl.agent.conversation.log
    repl.say("conversation cleared" + (f"; new session {log.id}" if log is not None else ""))


def compact(repl: ShellState, arg: str) -> None:
    """/compact [focus]: older turns into a summary now, leaning on `focus`."""
    repl.say("compacting the older turns…")
    try:
        done = repl.agent.compact(arg)
    except KeyboardInterrupt:
        repl.say("cancelled: nothing was compacted", "yellow")
        return
    if done is None:
        repl.say("nothing to compact yet: the conversation has no older turns")


def cost(repl: ShellState, arg: str) -> None:
    """/cost: tokens and dollars of this session, and how full the window is."""
    meter = repl.agent.meter
    calls = [s for s in meter.calls if s.usage.any]
    repl.say(f"this session: {len(calls)} model call{'s' if len(calls) != 1 else ''} · "
             + usage_line(meter.usage) + f" · {dollars(meter.cost)}", "")
    for model in meter.unpriced:
        repl.say(f"no price is known for {model}: llm.prices in agent.yml can set one")
    keeper = repl.agent.calls.keeper
    share = repl.agent.context_share()
    if keeper is not None and share is not None:
        window = keeper.window
        repl.say(f"context: {share:.0%} of {window.tokens:,} tokens ({window.source}); "
                 f"older turns are compacted at {window.limit / window.tokens:.0%}")


def transcript(repl: ShellState, arg: str) -> None:
    """/transcript: the whole conversation, calls and decisions included, in a pager."""
    from saikish.sessions.replay import read_records
    from saikish.ui.transcript import transcript as lines

    log = repl.agent.conversation.log
    if log is None or not log.exists:
        repl.say("nothing to show yet: the conversation is empty")
        return
    with repl.console.pager(styles=True):
        for line in lines(read_records(log.path)):
            repl.console.print(line, soft_wrap=True)


def resume(repl: ShellState, arg: str) -> None:
    """/resume [ID]: go on with another stored session of this workspace."""
    from prompt_toolkit import prompt

    from saikish.runtime.resume import resume as resume_session
    from saikish.runtime.resume import resumed_line, session_folder
    from saikish.sessions.catalog import find_session, list_sessions
    from saikish.ui.sessions import pick_session

    workspace = repl.session.workspace
    current = repl.agent.conversation.log
    chosen: SessionInfo | None
    if arg:
        chosen = find_session(session_folder(), arg, workspace)
    else:
        others = [i for i in list_sessions(session_folder(), workspace)
                  if current is None or i.id != current.id]
        chosen = pick_session(others, repl.console, prompt)
    if chosen is None:
        return
    if current is not None and chosen.id == current.id:
        repl.say(f"session {chosen.id} is the one going on")
        return
    replayed = resume_session(repl.agent, chosen)
    repl.say(resumed_line(chosen, replayed), "cyan")


def init(repl: ShellState, arg: str) -> None:
    """/init: show a starter AGENTS.md, and write it when the person says yes."""
    from pathlib import Path

    from prompt_toolkit import prompt

    from saikish.context.starter import starter_agents_md
    from saikish.store.atomic import atomic_write

    target = Path(repl.session.workspace) / "AGENTS.md"
    if target.exists() or target.is_symlink():
        repl.say("AGENTS.md exists already in this workspace: edit it (it is read at start "
                 "and after /init)")
        return
    text = starter_agents_md(Path(repl.session.workspace))
    repl.console.print(Panel(Text(inert(text)), title=f"new file {target}", expand=False))
    try:
        answer = prompt("write AGENTS.md? [y/N] ")
    except (KeyboardInterrupt, EOFError):
        answer = ""
    if answer.strip().lower() not in ("y", "yes"):
        repl.say("nothing written")
        return
    atomic_write(target, text)
    repl.agent.read_instructions()
    repl.say("AGENTS.md written; the model reads it from the next message on")
