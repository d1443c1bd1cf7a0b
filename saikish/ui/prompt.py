"""The approval prompt (docs/SPEC.md §5.2): a prompt_toolkit Application around the rich box.

prompt_toolkit owns the screen while the box is up: on every redraw the box
is drawn for the terminal's current size, so the countdown and a resize
redraw it, and the choice bar sits right under it. Keys typed before the box
is drawn are thrown away, so text typed ahead can never answer it.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import io
import os
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from prompt_toolkit.application import Application, run_in_terminal
from prompt_toolkit.formatted_text import ANSI, StyleAndTextTuples
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import clear_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, VerticalAlign, Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.output import Output
from rich.console import Console, RenderableType

if TYPE_CHECKING:
    from saikish.runtime.approval import Withdrawal

READY_MARK = "Enter select"  # the last thing drawn: a complete frame is on screen
PAUSED = "countdown paused"


class Choice(enum.Enum):
    """What the person chose in the approval prompt."""

    YES = ("Yes", "y")
    ALWAYS_SESSION = ("Always (session)", "s")
    ALWAYS_REMEMBER = ("Always (remember)", "a")
    EDIT = ("Edit", "e")
    NO = ("No, tell it why", "n")
    STOP = ("No, stop (Esc)", "esc")
    TIMEOUT = ("timed out", "")
    # Another front end answered first (docs/SPEC.md §7.5): the box closed by itself.
    WITHDRAWN = ("answered elsewhere", "")

    @property
    def label(self) -> str:
        """The button text."""
        return self.value[0]

    @property
    def key(self) -> str:
        """The key that picks it directly."""
        return self.value[1]


@dataclass(frozen=True)
class Frame:
    """What one redraw of the box has: the room, the scroll position, the countdown."""

    width: int
    height: int
    scroll: int = 0
    countdown: str | None = None


@dataclass(frozen=True)
class Drawn:
    """One drawn box and how its body scrolls (max_scroll 0: it all fits)."""

    renderable: RenderableType
    scroll: int = 0
    max_scroll: int = 0
    page: int = 1


@dataclass
class PromptOptions:
    """How one prompt behaves: which choices, how long it waits, where it draws."""

    offer_always: bool = True
    timeout_s: float | None = 30.0
    clock: Callable[[], float] = time.monotonic
    input: Input | None = None
    output: Output | None = None
    # Shows the whole preview at a width (`v`); None when there is no pager.
    pager: Callable[[int], None] | None = None
    # Closes the box from another thread when another front end answers first.
    withdrawal: Withdrawal | None = None


class Withdrawn(Exception):
    """Another front end answered the question while a prompt for it was up."""


def ask_choice(draw: Callable[[Frame], Drawn], options: PromptOptions) -> Choice:
    """Show the box `draw` makes for each frame and return the person's choice."""
    choices: list[Choice] = [c for c in Choice if c.key and (
        options.offer_always or c not in (Choice.ALWAYS_SESSION, Choice.ALWAYS_REMEMBER))]
    state = _State(choices, options)
    app: Application[Choice] = Application(
        layout=Layout(HSplit([
            Window(FormattedTextControl(lambda: state.box(app, draw)), wrap_lines=False,
                   dont_extend_height=True),
            Window(FormattedTextControl(lambda: state.bar(app)), wrap_lines=False,
                   dont_extend_height=True),
            Window(FormattedTextControl(lambda: state.help(app)), wrap_lines=False, height=1),
        ], align=VerticalAlign.TOP)),
        key_bindings=_bindings(state),
        erase_when_done=True,
        input=options.input,
        output=options.output,
    )
    app.ttimeoutlen = 0.05  # Esc answers at once instead of waiting for a sequence
    discard_typeahead(app.input)
    with closed_on_withdrawal(app, options.withdrawal,
                              lambda: app.exit(result=Choice.WITHDRAWN)) as watch:

        def pre_run() -> None:
            _start_countdown(app, state)
            watch()

        return app.run(pre_run=pre_run)


@contextlib.contextmanager
def closed_on_withdrawal(app: Application[Any], withdrawal: Withdrawal | None,
                         close: Callable[[], None]) -> Iterator[Callable[[], None]]:
    """A pre_run hook for `app`: once `withdrawal` fires (from any thread), `close` runs
    in the app's own event loop, if the app is still up.

    pre_run notes the loop, then looks at the flag: a withdrawal that came before the
    loop existed is seen there, one that comes after finds the loop.
    """
    loops: list[asyncio.AbstractEventLoop] = []

    def close_if_up() -> None:
        if app.future is not None and not app.future.done():
            close()

    def pre_run() -> None:
        loops.append(asyncio.get_running_loop())
        if withdrawal is not None and withdrawal.withdrawn:
            close_if_up()

    def from_elsewhere() -> None:
        for loop in loops:
            with contextlib.suppress(RuntimeError):  # the loop is closed: the app ended
                loop.call_soon_threadsafe(close_if_up)

    remove = withdrawal.on_withdraw(from_elsewhere) if withdrawal is not None else None
    try:
        yield pre_run
    finally:
        if remove is not None:
            remove()


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
        self.paused = False
        self.scroll = 0
        self.drawn = Drawn("")

    def seconds_left(self) -> int | None:
        if self.deadline is None or self.paused:
            return None
        return max(0, int(self.deadline - self.options.clock() + 0.999))

    def countdown(self) -> str | None:
        if self.paused and self.deadline is not None:
            return PAUSED
        left = self.seconds_left()
        return f"auto-deny in {left}s" if left is not None else None

    def box(self, app: Application[Choice], draw: Callable[[Frame], Drawn]) -> ANSI:
        size = app.output.get_size()
        width = max(20, size.columns)
        # The bar and the help line go under the box; one row is left for the cursor.
        height = max(4, size.rows - len(self.bar_lines(width)) - 2)
        self.drawn = draw(Frame(width, height, self.scroll, self.countdown()))
        self.scroll = self.drawn.scroll
        return ANSI(to_ansi(self.drawn.renderable, width))

    def bar_lines(self, width: int) -> list[list[int]]:
        """The choices laid out in lines no wider than `width`, never cut inside one."""
        lines: list[list[int]] = [[]]
        used = 0
        for index, choice in enumerate(self.choices):
            size = len(_button(index, choice)) + 1
            if lines[-1] and used + size > width:
                lines.append([])
                used = 0
            lines[-1].append(index)
            used += size
        return lines

    def bar(self, app: Application[Choice]) -> StyleAndTextTuples:
        out: StyleAndTextTuples = []
        for number, line in enumerate(self.bar_lines(max(20, app.output.get_size().columns))):
            if number:
                out.append(("", "\n"))
            for index in line:
                style = "reverse bold" if index == self.selected else ""
                out.append((style, _button(index, self.choices[index])))
                out.append(("", " "))
        return out

    def help(self, app: Application[Choice]) -> StyleAndTextTuples:
        width = max(20, app.output.get_size().columns)
        letters = " ".join(c.key for c in self.choices if len(c.key) == 1)
        pieces = ["←→ move", f"1-{len(self.choices)} or {letters}", "Esc stop"]
        if self.options.pager is not None:
            pieces.append("v view all")
        while pieces and len(" · ".join([*pieces, READY_MARK])) + 1 > width:
            pieces.pop(0)  # the most obvious hints go first
        return [("class:dim", " " + " · ".join([*pieces, READY_MARK]))]

    def move(self, step: int) -> None:
        self.selected = (self.selected + step) % len(self.choices)

    def scroll_by(self, pages: int) -> None:
        if not self.drawn.max_scroll:
            return  # nothing to scroll: the key does nothing, the countdown runs on
        self.paused = True  # someone is reading: the countdown waits for them
        self.scroll = max(0, min(self.drawn.max_scroll, self.scroll + pages * self.drawn.page))


def _button(index: int, choice: Choice) -> str:
    return f" {index + 1} {choice.label} "


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

    _scroll_keys(kb, state)
    for index, choice in enumerate(state.choices):
        kb.add(str(index + 1))(_picker(choice))
        if len(choice.key) == 1:
            kb.add(choice.key)(_picker(choice))
    return kb


def _scroll_keys(kb: KeyBindings, state: _State) -> None:
    for key, pages in (("pagedown", 1), ("pageup", -1), ("end", 10**6), ("home", -10**6)):
        kb.add(key)(_scroller(state, pages))
    pager = state.options.pager
    if pager is None:
        return

    @kb.add("v")
    def _view(event: KeyPressEvent) -> None:
        state.paused = True
        width = event.app.output.get_size().columns
        run_in_terminal(lambda: pager(width))


def _scroller(state: _State, pages: int) -> Callable[[KeyPressEvent], None]:
    def scroll(event: KeyPressEvent) -> None:
        state.scroll_by(pages)

    return scroll


def _picker(choice: Choice) -> Callable[[KeyPressEvent], None]:
    def pick(event: KeyPressEvent) -> None:
        event.app.exit(result=choice)

    return pick


def _start_countdown(app: Application[Choice], state: _State) -> None:
    discard_typeahead(app.input)  # again, right before keys are read

    async def tick() -> None:
        while True:
            left = state.seconds_left()
            if left is not None and left <= 0:
                app.exit(result=Choice.TIMEOUT)
                return
            app.invalidate()
            await asyncio.sleep(0.25 if state.deadline is not None else 3600)

    app.create_background_task(tick())


def ansi_console(width: int, file: IO[str]) -> Console:
    """The Console the box is drawn with: ANSI colours, plain when NO_COLOR is set."""
    return Console(file=file, width=width, force_terminal=True, color_system="standard",
                   no_color="NO_COLOR" in os.environ, legacy_windows=False, emoji=False,
                   highlight=False)


def to_ansi(renderable: RenderableType, width: int) -> str:
    """`renderable` as ANSI text `width` columns wide (plain when NO_COLOR is set)."""
    buffer = io.StringIO()
    ansi_console(width, buffer).print(renderable)
    return buffer.getvalue().rstrip("\n")


def stdin_is_terminal() -> bool:
    """True when both stdin and stdout are terminals (a person can be asked)."""
    return sys.stdin.isatty() and sys.stdout.isatty()
