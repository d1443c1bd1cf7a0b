"""The terminal Approver: the preview and the prompt -> a Decision (docs/SPEC.md §5).

Cancel never approves (docs/SPEC.md §4.8): Ctrl-C or Esc in any step after the box
(the rule line, the feedback line, an inline edit) and an editor that fails
or changes nothing all lead back to the box, where the person answers again.

When other front ends are asked too (docs/SPEC.md §7.5), an answer from one of
them withdraws the question: whatever step is up closes, and a line says why.
"""

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
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.output import Output
from rich.console import Console
from rich.text import Text

from saikish.inert import inert
from saikish.rules import Rule
from saikish.runtime.approval import ApprovalRequest, Withdrawal
from saikish.types import Decision, Scope, Source, ToolCall
from saikish.ui.box import FittedBox
from saikish.ui.preview import approval_panel, approval_parts
from saikish.ui.prompt import (
    Choice,
    PromptOptions,
    Withdrawn,
    ask_choice,
    closed_on_withdrawal,
    to_ansi,
)
from saikish.view import Command

# Which argument Edit opens, per tool; other tools edit their arguments as JSON.


class Cancelled(Exception):
    """The person backed out of a step after the box: show the box again."""


@dataclass
class TerminalApprover:
    """Asks the person in the terminal; leaves a record of each answer in the scrollback."""

    console: Console
    timeout_s: float | None = 30.0
    input: Input | None = None
    output: Output | None = None
    clock: Callable[[], float] | None = None
    environ: dict[str, str] = field(default_factory=lambda: dict(os.environ))
    # The question being asked may be answered elsewhere: its sub-steps close too.
    _withdrawal: Withdrawal | None = field(default=None, init=False, repr=False)

    def ask(self, request: ApprovalRequest) -> Decision:
        """Show the box until the person decides, the countdown runs out, or another
        front end answers (then the decision returned is a stop nobody uses: the
        answer that withdrew the question is the one that counts)."""
        try:
            return self._ask(request)
        except Withdrawn:
            withdrawal = request.withdrawal
            reason = withdrawal.reason if withdrawal and withdrawal.reason else "answered elsewhere"
            self.console.print(Text(inert(reason), style="dim"))
            return Decision.reject_hard(Source.USER, reason)  # fails closed if ever used

    def _ask(self, request: ApprovalRequest) -> Decision:
        box = FittedBox(approval_parts(request))
        options = self._options(request)
        self._withdrawal = request.withdrawal
        while True:
            choice = ask_choice(box.draw, options)
            if choice is Choice.WITHDRAWN:
                raise Withdrawn()
            try:
                decision = self._decide(choice, request)
            except Cancelled as why:
                self.console.print(Text(f"{why} · back to the box", style="dim"))
                continue
            if request.withdrawal is not None and request.withdrawal.withdrawn:
                raise Withdrawn()  # answered elsewhere while $EDITOR was open
            # The transcript (ui/render.ConsoleReporter) prints the one record of it.
            return decision

    def _options(self, request: ApprovalRequest) -> PromptOptions:
        options = PromptOptions(offer_always=bool(request.assessment.proposed_rules),
                                timeout_s=self.timeout_s or None, input=self.input,
                                output=self.output, pager=lambda width: self._page(request, width),
                                withdrawal=request.withdrawal)
        if self.clock is not None:
            options.clock = self.clock
        return options

    def _page(self, request: ApprovalRequest, width: int) -> None:
        """The whole preview in $PAGER (less -R by default); printed when there is none."""
        text = to_ansi(approval_panel(request, None), width) + "\n"
        pager = self.environ.get("PAGER") or "less -R"
        env = {**self.environ, "LESS": self.environ.get("LESS", "-R")}
        try:
            subprocess.run(shlex.split(pager), input=text, text=True, env=env, check=False)
        except OSError:
            self.console.file.write(text)

    def _decide(self, choice: Choice, request: ApprovalRequest) -> Decision:
        call = request.call
        if choice is Choice.YES:
            return Decision.approve(Source.USER)
        if choice in (Choice.ALWAYS_SESSION, Choice.ALWAYS_REMEMBER):
            remember = choice is Choice.ALWAYS_REMEMBER
            scope = [Scope.PROJECT]  # Ctrl-G on the rule line: every project (§4.5)
            rules = self._edit_rules(request.assessment.proposed_rules,
                                     scope if remember else None)
            if not rules:
                return Decision.approve(Source.USER)
            return Decision.always(rules, persist=remember, scope=scope[0])
        if choice is Choice.EDIT:
            edited = self.edit_call(call, request)
            if edited == call:
                raise Cancelled("nothing was changed")
            return Decision.edit(edited)
        if choice is Choice.NO:
            feedback = self._line("Tell the model why (optional, Enter to send, Esc to go back): ")
            return Decision.reject_soft(Source.USER, feedback.strip() or None)
        if choice is Choice.TIMEOUT:
            return Decision.reject_hard(
                Source.TIMEOUT, f"no answer within {self.timeout_s:g}s: batch stopped")
        return Decision.reject_hard(Source.USER, "stopped by the person")

    def _edit_rules(self, proposed: tuple[Rule, ...],
                    scope: list[Scope] | None = None) -> tuple[Rule, ...]:
        """Let the person change each proposed rule before it is kept (empty drops it).

        With `scope` (Always (remember)), Ctrl-G switches where the rules are saved:
        this project (the default) or every project.
        """
        from saikish.errors import RuleError
        from saikish.rules import parse_rule

        out = []
        for rule in proposed:
            while True:
                text = self._line("Rule (edit, Enter to accept, Esc to go back): ",
                                  default=rule.text, scope=scope).strip()
                if not text:
                    break
                if text == rule.text:  # accepted as proposed: the rule itself
                    out.append(rule)
                    break
                try:
                    out.append(parse_rule(text, "your rule"))
                    break
                except RuleError as exc:
                    self.console.print(Text(inert(str(exc)), style="red"))
        return tuple(out)

    def edit_call(self, call: ToolCall, request: ApprovalRequest) -> ToolCall:
        """The call with the person's edit, via $VISUAL/$EDITOR or an inline editor: the
        argument the tool names as editable, else the arguments as JSON.

        Raises Cancelled when the edit was abandoned; the unchanged call when nothing changed.
        """
        key = request.tool.editable_argument if request.tool is not None else None
        if key is not None and isinstance(call.arguments.get(key), str):
            original = str(call.arguments[key])
            command = isinstance(request.view, Command)  # a command line: no final newline
            suffix = Path(str(call.arguments.get("path", ""))).suffix or (
                ".sh" if command else ".txt")
            text = self._edit_text(original, suffix)
            if text == original:
                return call
            return call.with_arguments({**call.arguments,
                                        key: text.rstrip("\n") if command else text})
        original = json.dumps(call.wire_arguments, indent=2, ensure_ascii=False)
        text = self._edit_text(original, ".json")
        try:
            arguments: Any = json.loads(text)
        except json.JSONDecodeError as exc:
            raise Cancelled(f"not valid JSON ({exc}); edit discarded") from None
        if not isinstance(arguments, dict):
            raise Cancelled("the arguments must be a JSON object; edit discarded")
        return call.with_arguments(arguments)

    def _edit_text(self, text: str, suffix: str) -> str:
        editor = self.environ.get("VISUAL") or self.environ.get("EDITOR")
        if not editor:
            return self._line("Edit (Alt-Enter or Esc Enter to accept, Esc to go back):\n",
                              default=text, multiline=True)
        with tempfile.NamedTemporaryFile("w", suffix=suffix, delete=False,
                                         encoding="utf-8") as handle:
            handle.write(text)
        try:
            try:
                completed = subprocess.run([*shlex.split(editor), handle.name], check=False)
            except OSError as exc:
                raise Cancelled(f"cannot start {editor}: {exc.strerror or exc}") from None
            if completed.returncode != 0:
                raise Cancelled(f"{editor} exited with {completed.returncode}; edit discarded")
            return Path(handle.name).read_text(encoding="utf-8")
        finally:
            Path(handle.name).unlink(missing_ok=True)

    def _line(self, message: str, default: str = "", multiline: bool = False,
              scope: list[Scope] | None = None) -> str:
        """One answer typed by the person; Ctrl-C, Esc or Ctrl-D raise Cancelled."""
        keys = _cancel_keys(multiline)
        toolbar = None
        if scope is not None:
            @keys.add("c-g")
            def _switch(event: KeyPressEvent) -> None:
                scope[0] = Scope.GLOBAL if scope[0] is Scope.PROJECT else Scope.PROJECT

            def toolbar() -> str:
                where = "this project" if scope[0] is Scope.PROJECT else "every project"
                return f"saves for {where} · Ctrl-G switches (relative paths stay in the project)"
        session: PromptSession[str] = PromptSession(input=self.input, output=self.output,
                                                    key_bindings=keys,
                                                    bottom_toolbar=toolbar)
        app = session.app
        try:
            with closed_on_withdrawal(app, self._withdrawal,
                                      lambda: app.exit(exception=Withdrawn())) as watch:
                return session.prompt(message, default=default, multiline=multiline,
                                      pre_run=watch)
        except (EOFError, KeyboardInterrupt):
            raise Cancelled("cancelled") from None


def _cancel_keys(multiline: bool) -> KeyBindings:
    """Esc backs out; in a multi-line edit it waits a moment, as Esc Enter accepts there."""
    kb = KeyBindings()

    @kb.add("escape", eager=not multiline)
    def _cancel(event: KeyPressEvent) -> None:
        event.app.exit(exception=KeyboardInterrupt())

    return kb
