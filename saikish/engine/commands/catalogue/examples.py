"""The catalogue's examples (`quiet` and `asks` lines), judged by the engine itself.

An example is a command line an entry vouches for: `quiet` lines must be verified with no
rules under cautious autonomy, `asks` lines must not be, and must be stopped for the quoted
reason (README.md beside this file, "Examples"). Loading the catalogue skips these lines;
only `python -m saikish.engine.commands.catalogue` (and the tests) judge them, here.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from saikish.engine.commands.catalogue import Catalogue
from saikish.engine.policy import Context, decide
from saikish.types import Assessment, Autonomy, Risk, ToolCall, Verdict

# A fixed, fake workspace: examples name paths relative to it, or outside it on purpose.
WORKSPACE = "/srv/project"
KEYWORDS = ("quiet", "asks")
# `asks COMMAND LINE "reason words"`: the reason is the last double-quoted part.
_ASKS = re.compile(r'^(?P<line>.*\S)\s+"(?P<reason>[^"]+)"$')


@dataclass(frozen=True)
class Example:
    """One `quiet` or `asks` line of an entry."""

    where: str  # file:line
    keyword: str
    line: str  # the bash command line
    reason: str = ""  # for `asks`: words the blocking reason must contain


@dataclass(frozen=True)
class Judgement:
    """What the engine said about one example, and whether that is what the example says."""

    example: Example
    said: str
    holds: bool

    @property
    def problem(self) -> str:
        """One line naming the example, where it is, and what the engine said."""
        ex = self.example
        wanted = "verified" if ex.keyword == "quiet" else f'not verified, for "{ex.reason}"'
        return f"{ex.where}: {ex.keyword} {ex.line!r} should be {wanted}; the engine: {self.said}"


def examples(catalogue: Catalogue,
             files: Iterable[str] = ()) -> tuple[list[Example], list[str]]:
    """Every example of every entry (of the named files only, when `files` names some),
    and one line per malformed example line."""
    wanted = set(files)
    found: list[Example] = []
    malformed: list[str] = []
    for name, block in catalogue.blocks().items():
        if name != " ".join(block.words) or (wanted and block.filename not in wanted):
            continue  # an alias's block, or a file not asked for
        for offset, raw in enumerate(block.lines, 1):
            try:
                example = read_example(raw, f"{block.filename}:{block.line + offset}")
            except ValueError as exc:
                malformed.append(str(exc))
                continue
            if example is not None:
                found.append(example)
    return found, malformed


def read_example(raw: str, where: str) -> Example | None:
    """The example a catalogue line holds, or None; ValueError when it is malformed."""
    # The rest of the line is bash as written ('#' included): no trailing comment here.
    keyword, _, rest = raw.strip().partition(" ")
    if keyword not in KEYWORDS:
        return None
    rest = rest.strip()
    if keyword == "quiet":
        if not rest:
            raise ValueError(f"{where}: quiet needs a command line")
        return Example(where, keyword, rest)
    match = _ASKS.match(rest)
    if match is None:
        raise ValueError(f'{where}: write asks COMMAND LINE "reason words"')
    return Example(where, keyword, match.group("line"), match.group("reason"))


@dataclass(frozen=True)
class _Bash:
    """The bash tool as a decision sees it (engine.toolfacts.ToolFacts): the engine
    imports no tool, so the examples name the one tool they call themselves."""

    name: str = "bash"
    schema: Mapping[str, Any] = field(default_factory=lambda: {
        "type": "object", "properties": {"command": {"type": "string"}},
        "required": ["command"]})
    requires_confirmation: bool = False
    aliases: tuple[str, ...] = ()
    writes_argument: str | None = None
    definition_change: Callable[[], str | None] | None = None

    def risk(self, arguments: Mapping[str, Any], workspace: str) -> Risk:
        """Bash's risk is the policy's, per command."""
        return Risk.UNKNOWN


def context() -> Context:
    """No rules, cautious autonomy, nothing contained: 'not verified' is 'not ALLOW'."""
    return Context({"bash": _Bash()}, autonomy=Autonomy.CAUTIOUS, workspace=WORKSPACE)


def judge(example: Example, ctx: Context) -> Judgement:
    """Run the engine on one example."""
    found = decide(ToolCall("example", "bash", {"command": example.line}), ctx)
    said = f"{found.verdict.value}: {found.reason}"
    verified = found.verdict is Verdict.ALLOW and not found.contained
    if example.keyword == "quiet":
        return Judgement(example, said, verified)
    return Judgement(example, said, not verified and example.reason in blocking_text(found))


def blocking_text(found: Assessment) -> str:
    """The assessment's reason and the caveats of the parts nobody permitted."""
    caveats = [c.caveat for c in found.commands if not c.permitted and c.caveat]
    return "\n".join([found.reason, *caveats])


def broken(catalogue: Catalogue, files: Iterable[str] = ()) -> tuple[int, list[str]]:
    """(examples judged, one line per example the engine disagrees with, or malformed)."""
    found, malformed = examples(catalogue, files)
    ctx = context()
    return len(found), malformed + [j.problem for j in (judge(e, ctx) for e in found)
                                    if not j.holds]
