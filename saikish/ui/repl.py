"""The REPL (docs/SPEC.md §9): prompt, history, slash commands, streamed answers."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import Completer, Completion, WordCompleter
from prompt_toolkit.document import Document
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from rich.console import Console
from rich.text import Text

from saikish import __version__
from saikish.errors import UsageError
from saikish.inert import inert
from saikish.store import paths
from saikish.types import ExitReason
from saikish.ui.commands import COMMANDS, EXIT, run_command
from saikish.ui.history import SafeHistory
from saikish.ui.render import MarkdownStream, error_line, usage_line
from saikish.ui.terminal import echo_off

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from prompt_toolkit.completion import CompleteEvent

    from saikish.cli.compose import Streams
    from saikish.config.layers import Config
    from saikish.models import ModelSpec
    from saikish.remote.channel import RemoteChannel
    from saikish.runtime.session import Session
    from saikish.sessions.catalog import SessionInfo

PROMPT = "› "
SDK_MODULES = {"openai": "openai", "ollama": "openai", "anthropic": "anthropic"}


class Repl:
    """One interactive session: reads messages, runs the agent, shows the answers."""

    def __init__(self, config: Config, spec: ModelSpec, session: Session, io: Streams,
                 timeout_s: float | None, remote: str | None = None,
                 resumed: SessionInfo | None = None, store: bool = True) -> None:
        from saikish.cli.compose import build_agent
        from saikish.runtime.resume import resumed_line, start

        self.config, self.spec, self.session, self.io = config, spec, session, io
        self.console = Console(file=io.stdout, highlight=False)
        self.timeout_s = timeout_s
        self.agent = build_agent(config, spec, session, io, timeout_s, console=self.console)
        self.remote_at = remote  # --remote's address, started once the banner is out
        self.remote: RemoteChannel | None = None
        self.opening: list[str] = []  # said under the banner
        replayed = start(self.agent, resumed) if store else None
        if resumed is not None and replayed is not None:
            from saikish.ui.sessions import last_exchange

            self.opening += [resumed_line(resumed, replayed),
                             *last_exchange(replayed.messages)]

    def run(self) -> int:
        """Read and answer messages until /exit or Ctrl-D."""
        try:
            return self._run()
        finally:
            self.stop_remote()

    def start_remote(self, where: str) -> None:
        """Serve approvals on a web page too (docs/SPEC.md §7.5); the link goes to stderr."""
        from saikish.cli.compose import start_remote

        self.remote = start_remote(self.agent, where, self.timeout_s, self.io)

    def stop_remote(self, reason: str = "the session ended") -> None:
        """Close the approval server, if one runs."""
        if self.remote is not None:
            self.remote.close(reason)
            self.remote = None

    def _run(self) -> int:
        _warm_sdk(self.spec.provider)  # import the SDK while the person types
        prompt = self._prompt_session()
        self._banner()
        if self.remote_at is not None:
            self.start_remote(self.remote_at)
        self.agent.start()  # SessionStart hooks run as the session starts (§7.2)
        while True:
            for notice in self.agent.registry.notices():  # e.g. an MCP server that failed
                self.say(inert(notice), "yellow")  # a server's stderr is in it: made visible
            try:
                line = prompt.prompt(PROMPT, pre_run=self._start_servers_once())
            except KeyboardInterrupt:
                continue  # Ctrl-C clears the line
            except EOFError:
                return 0
            self._history_warning(prompt)
            text = line.strip()
            if not text:
                continue
            if text.startswith("/"):
                if run_command(self, text) == EXIT:
                    return 0
                continue
            self.send(text)

    def _start_servers_once(self) -> Callable[[], None] | None:
        """MCP servers start once the first prompt is drawn, never before (§7.1)."""
        mcp = self.session.mcp
        if mcp is None or mcp.started:
            return None
        # pre_run runs before the first draw; call_soon runs once the prompt is drawn.
        def soon() -> None:
            asyncio.get_running_loop().call_soon(mcp.start)

        return soon

    def send(self, text: str) -> None:
        """Run one message through the agent, streaming the answer."""
        stream = MarkdownStream(self.console)
        try:
            with echo_off(self.io.stdin):  # typed keys wait for the next prompt, unechoed
                result = self.agent.send(text, stream, on_turn_end=stream.close)
        except KeyboardInterrupt:
            stream.close()
            self.say("cancelled", "yellow")
            return
        stream.close()
        if result.exit_reason is ExitReason.ERROR:
            error_line(self.console, result.message)
        elif result.message:
            self.say(result.message, "yellow")
        if result.exit_reason is ExitReason.STOPPED:
            self.say("stopped: tell saikish how to go on", "yellow")
        if result.usage.any:
            self.say(usage_line(result.usage, result.cost, self.agent.meter.cost,
                                self.agent.context_share()))
        log = self.agent.conversation.log
        if log is not None and log.failed and log.failed not in self.session.told:
            self.session.told.add(log.failed)
            self.say(log.failed, "yellow")

    def switch_model(self, text: str) -> None:
        """Use another model from now on (the conversation is kept)."""
        from saikish.models import load_model, parse_spec
        from saikish.models.demo import is_scratch

        spec = parse_spec(text, self.config)
        if spec.provider == "demo" and not is_scratch(Path(self.session.workspace)):
            # Its script writes notes.md and deletes src/: only ever in its own directory.
            raise UsageError("the demo works in a scratch directory of its own, never in "
                             "this project: quit and run saikish -m demo")
        self.agent.model = load_model(spec, self.config)  # its context window is found anew
        self.spec = spec

    def say(self, text: str, style: str = "dim") -> None:
        """One line of our own."""
        self.console.print(Text(text, style=style))

    def _banner(self) -> None:
        self.console.print(Text.assemble(
            ("saikish ", "bold"), (f"{__version__} · {self.spec} · ", "dim"),
            (f"{self.session.autonomy.value}, {self.session.mode.value}", "dim")))
        self.say(*self.session.sandbox.banner())
        if self.session.checkpoints_problem:
            self.say(f"no undo: {self.session.checkpoints_problem}", "yellow")
        files = self.agent.instructions.files
        if files:
            self.say("instructions: " + ", ".join(inert(str(f.path)) for f in files))
        for note in (*self.agent.instructions.notes(), *self.opening):
            self.say(inert(note), "yellow" if note not in self.opening else "cyan")
        if self.spec.provider == "demo":
            self.say(f"demo workspace: {self.session.workspace} (removed on exit). "
                     f"Type anything, e.g. 'show me around', and press Enter.", "cyan")
        for error in self.session.allowlist_errors():
            error_line(self.console, f"{error} (using the rules that could be read; "
                                     f"'always' choices stay in this session until it is fixed)")
        from saikish.config.rule_hints import unknown_tool_warnings

        rules = self.session.rules()
        for warning in unknown_tool_warnings(rules.allow + rules.deny,
                                             [tool.name for tool in self.agent.tools]):
            self.say(f"warning: {warning}", "yellow")
        self.say("/help for commands · Ctrl-D to exit")

    def _history_warning(self, prompt: PromptSession[str]) -> None:
        warning = prompt.history.take_warning() if isinstance(prompt.history, SafeHistory) \
            else None
        if warning:
            self.say(f"saikish: {warning}", "yellow")

    def _prompt_session(self) -> PromptSession[str]:
        history_file = paths.state_dir() / "history"
        with contextlib.suppress(OSError):  # SafeHistory says why, once
            history_file.parent.mkdir(parents=True, exist_ok=True)
        return PromptSession(history=SafeHistory(history_file), multiline=True,
                             key_bindings=_keys(), completer=SlashCompleter(),
                             complete_while_typing=True)


def _keys() -> KeyBindings:
    """Enter sends; Alt-Enter (Esc Enter) inserts a newline."""
    kb = KeyBindings()

    @kb.add("enter")
    def _send(event: KeyPressEvent) -> None:
        event.current_buffer.validate_and_handle()

    @kb.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    return kb


class SlashCompleter(Completer):
    """Completes slash commands at the start of the line."""

    def __init__(self) -> None:
        self.words = WordCompleter([f"/{name}" for name in COMMANDS], sentence=True)

    def get_completions(self, document: Document,
                        complete_event: CompleteEvent) -> Iterable[Completion]:
        """Slash commands, only while the first word is being typed."""
        if document.text.startswith("/") and " " not in document.text:
            yield from self.words.get_completions(document, complete_event)


def _warm_sdk(provider: str) -> None:
    module = SDK_MODULES.get(provider)
    if module is None:
        return

    def load() -> None:
        with contextlib.suppress(ImportError):
            __import__(module)

    threading.Thread(target=load, daemon=True, name="sdk-import").start()
