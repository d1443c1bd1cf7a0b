"""The approval prompt (SPEC 5.2): a prompt_toolkit Application around the rich box.

prompt_toolkit owns the screen while the box is up: the rich panel is
rendered to ANSI at the current width on every redraw, so the countdown and
a terminal resize redraw it. Keys typed before the box is drawn are thrown
away, so text typed ahead can never answer it.
"""

from __future__ import annotations

import asyncio
import enum
import io
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import clear_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import Output
from rich.console import Console, RenderableType

READY_MARK = "Enter select"  # the last thing drawn: a complete frame is on screen


class Choice(enum.Enum):
    """What the person chose in the approval prompt."""

    YES = ("Yes", "y")
    ALWAYS_SESSION = ("Always (session)", "s")
    ALWAYS_REMEMBER = ("Always (remember)", "a")
    EDIT = ("Edit", "e")
    NO = ("No, tell it why", "n")
    STOP = ("No, stop", "esc")
    TIMEOUT = ("timed out", "")

    @property
    def label(self) -> str:
        """The button text."""
        return self.value[0]

    @property
    def key(self) -> str:
        """The key that picks it directly."""
        return self.value[1]


@dataclass
class PromptOptions:
    """How one prompt behaves: which choices, how long it waits, where it draws."""

    offer_always: bool = True
    timeout_s: float | None = 30.0
    clock: Callable[[], float] = time.monotonic
    input: Input | None = None
    output: Output | None = None


def ask_choice(render: Callable[[int, int | None], RenderableType],
               options: PromptOptions) -> Choice:
    """Show the box drawn by `render(width, seconds_left)` and return the person's choice."""
    choices: list[Choice] = [c for c in Choice if c is not Choice.TIMEOUT and (
        options.offer_always or c not in (Choice.ALWAYS_SESSION, Choice.ALWAYS_REMEMBER))]
    state = _State(choices, options)
    app: Application[Choice] = Application(
        layout=Layout(HSplit([
            Window(FormattedTextControl(lambda: state.box(app, render)), wrap_lines=False),
            Window(FormattedTextControl(state.buttons), height=1),
            Window(FormattedTextControl(_help), height=1),
        ])),
        key_bindings=_bindings(state),
        erase_when_done=True,
        input=options.input,
        output=options.output,
    )
    app.ttimeoutlen = 0.05  # Esc answers at once instead of waiting for a sequence
    discard_typeahead(app.input)
    return app.run(pre_run=lambda: _start_countdown(app, options, state))


def discard_typeahead(input_obj: Input) -> None:
    """Throw away keys typed before the prompt was drawn (openai/codex#7744)."""
    clear_typeahead(input_obj)
    try:
        fd = input_obj.fileno()
    except (NotImplementedError, OSError, ValueError):
        return
    if os.isatty(fd):
        import termios

        termios.tcflush(fd, termios.TCIFLUSH)


class _State:
    def __init__(self, choices: list[Choice], options: PromptOptions) -> None:
        self.choices, self.options = choices, options
        self.selected = 0
        self.deadline = (options.clock() + options.timeout_s) if options.timeout_s else None

    def seconds_left(self) -> int | None:
        if self.deadline is None:
            return None
        return max(0, int(self.deadline - self.options.clock() + 0.999))

    def box(self, app: Application[Choice],
            render: Callable[[int, int | None], RenderableType]) -> ANSI:
        width = max(20, app.output.get_size().columns)
        return ANSI(to_ansi(render(width, self.seconds_left()), width))

    def buttons(self) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for index, choice in enumerate(self.choices):
            style = "reverse bold" if index == self.selected else ""
            out.append((style, f" {choice.label} "))
            out.append(("", " "))
        return out

    def move(self, step: int) -> None:
        self.selected = (self.selected + step) % len(self.choices)


def _help() -> StyleAndTextTuples:
    return [("class:dim", f" ←→ move · y s a e n · Esc stop · {READY_MARK}")]


def _bindings(state: _State) -> KeyBindings:
    kb = KeyBindings()

    @kb.add("left")
    @kb.add("up")
    def _previous(event: KeyPressEvent) -> None:
        state.move(-1)

    @kb.add("right")
    @kb.add("down")
    @kb.add("tab")
    def _next(event: KeyPressEvent) -> None:
        state.move(1)

    @kb.add("enter")
    def _confirm(event: KeyPressEvent) -> None:
        event.app.exit(result=state.choices[state.selected])

    @kb.add("escape", eager=True)
    @kb.add("c-c")
    def _stop(event: KeyPressEvent) -> None:
        event.app.exit(result=Choice.STOP)

    for choice in state.choices:
        if len(choice.key) == 1:
            kb.add(choice.key)(_picker(choice))
    return kb


def _picker(choice: Choice) -> Callable[[KeyPressEvent], None]:
    def pick(event: KeyPressEvent) -> None:
        event.app.exit(result=choice)

    return pick


def _start_countdown(app: Application[Choice], options: PromptOptions, state: _State) -> None:
    discard_typeahead(app.input)  # again, right before keys are read

    async def tick() -> None:
        while True:
            left = state.seconds_left()
            if left is not None and left <= 0:
                app.exit(result=Choice.TIMEOUT)
                return
            app.invalidate()
            await asyncio.sleep(0.25 if left is not None else 3600)

    app.create_background_task(tick())


def to_ansi(renderable: RenderableType, width: int) -> str:
    """`renderable` as ANSI text `width` columns wide (plain when NO_COLOR is set)."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=True, color_system="standard",
                      no_color="NO_COLOR" in os.environ, legacy_windows=False,
                      emoji=False, highlight=False)
    console.print(renderable)
    return buffer.getvalue().rstrip("\n")


def stdin_is_terminal() -> bool:
    """True when both stdin and stdout are terminals (a person can be asked)."""
    return sys.stdin.isatty() and sys.stdout.isatty()
