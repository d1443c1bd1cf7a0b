"""The terminal Approver: the preview and the prompt -> a Decision (SPEC 5)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prompt_toolkit import PromptSession
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from rich.console import Console
from rich.markup import escape

from saikish.approval import ApprovalRequest
from saikish.types import Decision, Source, ToolCall
from saikish.ui.inert import inert
from saikish.ui.preview import approval_panel
from saikish.ui.prompt import Choice, PromptOptions, ask_choice

# Which argument Edit opens, per tool; other tools edit their arguments as JSON.
EDITED_ARGUMENT = {"bash": "command", "write_file": "content", "edit_file": "new_string"}


@dataclass
class TerminalApprover:
    """Asks the person in the terminal; prints a one-line summary of each answer."""

    console: Console
    timeout_s: float | None = 30.0
    input: Input | None = None
    output: Output | None = None
    clock: Callable[[], float] | None = None
    environ: dict[str, str] = field(default_factory=lambda: dict(os.environ))

    def ask(self, request: ApprovalRequest) -> Decision:
        """Show the box until the person decides or the countdown runs out."""
        choice = ask_choice(
            lambda width, left: approval_panel(request, left),
            self._options(offer_always=bool(request.assessment.proposed_rules)))
        # The transcript (ui/render.ConsoleReporter) prints the one line for this answer.
        return self._decide(choice, request)

    def _options(self, offer_always: bool) -> PromptOptions:
        options = PromptOptions(offer_always=offer_always, timeout_s=self.timeout_s or None,
                                input=self.input, output=self.output)
        if self.clock is not None:
            options.clock = self.clock
        return options

    def _decide(self, choice: Choice, request: ApprovalRequest) -> Decision:
        call = request.call
        if choice is Choice.YES:
            return Decision.approve(Source.USER)
        if choice in (Choice.ALWAYS_SESSION, Choice.ALWAYS_REMEMBER):
            rules = self._edit_rules(request.assessment.proposed_rules)
            if not rules:
                return Decision.approve(Source.USER)
            return Decision.always(rules, persist=choice is Choice.ALWAYS_REMEMBER)
        if choice is Choice.EDIT:
            edited = self.edit_call(call)
            return Decision.edit(edited) if edited != call else self.ask(request)
        if choice is Choice.NO:
            feedback = self._line("Tell the model why (optional, Enter to skip): ")
            return Decision.reject_soft(Source.USER, feedback.strip() or None)
        if choice is Choice.TIMEOUT:
            return Decision.reject_hard(
                Source.TIMEOUT, f"no answer within {self.timeout_s:g}s: batch stopped")
        return Decision.reject_hard(Source.USER, "stopped by the person")

    def _edit_rules(self, proposed: tuple[str, ...]) -> tuple[str, ...]:
        """Let the person change each proposed rule before it is saved (empty drops it)."""
        from saikish.errors import RuleError
        from saikish.rules import parse_rule

        out = []
        for rule in proposed:
            while True:
                text = self._line("Rule (edit, Enter to accept): ", default=rule).strip()
                if not text:
                    break
                try:
                    out.append(parse_rule(text, "your rule").text)
                    break
                except RuleError as exc:
                    self.console.print(f"[red]{escape(inert(str(exc)))}[/red]")
        return tuple(out)

    def edit_call(self, call: ToolCall) -> ToolCall:
        """The call with the person's edit, via $VISUAL/$EDITOR or an inline editor."""
        key = EDITED_ARGUMENT.get(call.name)
        if key is not None and isinstance(call.arguments.get(key), str):
            original = str(call.arguments[key])
            suffix = Path(str(call.arguments.get("path", ""))).suffix or (
                ".sh" if call.name == "bash" else ".txt")
            text = self._edit_text(original, suffix)
            return call.with_arguments({**call.arguments, key: text.rstrip("\n")
                                        if call.name == "bash" else text})
        original = json.dumps(call.wire_arguments, indent=2, ensure_ascii=False)
        text = self._edit_text(original, ".json")
        try:
            arguments: Any = json.loads(text)
        except json.JSONDecodeError as exc:
            self.console.print(f"[red]not valid JSON ({escape(str(exc))}); edit discarded[/red]")
            return call
        return call.with_arguments(arguments) if isinstance(arguments, dict) else call

    def _edit_text(self, text: str, suffix: str) -> str:
        editor = self.environ.get("VISUAL") or self.environ.get("EDITOR")
        if not editor:
            return self._line("Edit (Esc Enter to accept): ", default=text, multiline=True)
        with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False,
                                         encoding="utf-8") as handle:
            handle.write(text)
        try:
            completed = subprocess.run([*shlex.split(editor), handle.name], check=False)
            if completed.returncode != 0:
                self.console.print(f"[red]{escape(editor)} exited with {completed.returncode}; "
                                   f"edit discarded[/red]")
                return text
            return Path(handle.name).read_text(encoding="utf-8")
        finally:
            Path(handle.name).unlink(missing_ok=True)

    def _line(self, message: str, default: str = "", multiline: bool = False) -> str:
        session: PromptSession[str] = PromptSession(input=self.input, output=self.output)
        try:
            return session.prompt(message, default=default, multiline=multiline)
        except (EOFError, KeyboardInterrupt):
            return ""
