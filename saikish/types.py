"""The vocabulary of saikish: calls, results, risks, decisions.

Everything here is a small frozen value. The engine (shell, risk, rules,
policy) produces these; the executor, the UI and the models consume them.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from saikish.records import quick
from saikish.rules import Rule, parse_rule, rule_texts


class ExitReason(str, enum.Enum):
    """How one message's run ended (docs/events.md `run_end`); compares equal to its value."""

    FINISHED = "finished"  # the model answered
    STOPPED = "stopped"  # a hard rejection or a hook stopped the batch
    MAX_ITERATIONS = "max_iterations"  # llm.maxIterations model turns were not enough
    ERROR = "error"  # the model could not be reached, or answered badly

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)

class Level(enum.IntEnum):
    """How much harm a risk can do; the columns of the autonomy matrix."""

    LOW = 0
    MEDIUM = 1
    HIGH = 2
    CRITICAL = 3


class Risk(enum.Enum):
    """What a command or tool call can do, ordered from harmless to forbidden."""

    READ_ONLY = (0, Level.LOW)
    BUILD_TEST = (1, Level.MEDIUM)
    WRITE = (2, Level.MEDIUM)
    NETWORK = (3, Level.MEDIUM)
    DESTRUCTIVE = (4, Level.HIGH)
    UNKNOWN = (5, Level.HIGH)
    ESCALATION = (6, Level.CRITICAL)

    # `_value_` rather than `value`: the engine asks these for every word it reads, and
    # enum's `value` descriptor costs several times a plain attribute.
    @property
    def rank(self) -> int:
        """Position in the order; the riskiest of several wins."""
        return self._value_[0]

    @property
    def level(self) -> Level:
        """The autonomy matrix column this risk falls in."""
        return self._value_[1]

    @staticmethod
    def highest(risks: Any) -> Risk:
        """The riskiest of `risks`; READ_ONLY for none."""
        return max(risks, key=_rank, default=Risk.READ_ONLY)


def _rank(risk: Risk) -> int:
    return risk._value_[0]


class ReasonKind(enum.Enum):
    """What kind of reason a part of a call has for needing a person (docs/SPEC.md §4.1):
    a typed field beside the reason's words, for programs and tests to read."""

    EXEC = "exec"  # runs a program or code (the project's own, configuration that names one)
    WRITES = "writes"  # writes, changes or deletes a file
    NETWORK = "network"  # reaches another machine
    ESCALATION = "escalation"  # runs as another user
    READS_OUTSIDE = "reads_outside"  # reads a file outside the workspace or named at run time
    SECRET = "secret"  # hands a secret, a credential or the environment on
    DYNAMIC = "dynamic"  # a name, word or path known only at run time
    UNKNOWN = "unknown"  # a command, option or form nobody catalogued
    RULE = "rule"  # a deny or ask rule or a hook the person set
    INVALID = "invalid"  # the call itself is malformed

    @staticmethod
    def of(risk: Risk) -> ReasonKind:
        """The kind a risk stands for when nothing more precise was said."""
        return _KIND_OF_RISK[risk]


_KIND_OF_RISK = {Risk.READ_ONLY: ReasonKind.READS_OUTSIDE, Risk.BUILD_TEST: ReasonKind.EXEC,
                 Risk.WRITE: ReasonKind.WRITES, Risk.NETWORK: ReasonKind.NETWORK,
                 Risk.DESTRUCTIVE: ReasonKind.WRITES, Risk.UNKNOWN: ReasonKind.UNKNOWN,
                 Risk.ESCALATION: ReasonKind.ESCALATION}


class Autonomy(enum.Enum):
    """How much the person lets saikish do without asking (docs/SPEC.md §4.3)."""

    FULL_AUTO = "full-auto"
    SUPERVISED = "supervised"
    CAUTIOUS = "cautious"
    MANUAL = "manual"


class Mode(enum.Enum):
    """What happens to a call nobody permitted: ask, or answer for the person."""

    EVENT_BASED = "event-based"
    AUTO_APPROVE = "auto-approve"
    AUTO_DENY = "auto-deny"


class Scope(enum.Enum):
    """Where an "Always (remember)" rule is saved (docs/SPEC.md §4.5)."""

    PROJECT = "project"
    GLOBAL = "global"


class Verdict(enum.Enum):
    """What the policy says about a call before anyone is asked."""

    ALLOW = "allow"
    ASK = "ask"
    REJECT = "reject"
    INVALID = "invalid"


class Outcome(enum.Enum):
    """What finally happened to a call."""

    APPROVED = "approved"
    REJECTED_SOFT = "rejected_soft"
    REJECTED_HARD = "rejected_hard"
    INVALID = "invalid"
    # Never decided: an earlier call of the batch stopped it (docs/SPEC.md §6).
    NOT_RUN = "not_run"


class Source(enum.Enum):
    """Which step of the pipeline decided (docs/SPEC.md §4.1, §8)."""

    RULE = "rule"
    AUTONOMY = "autonomy"
    MODE = "mode"
    USER = "user"
    SESSION = "session"
    TIMEOUT = "timeout"
    ESCALATION = "escalation"
    DENY_RULE = "deny_rule"
    INVALID = "invalid"
    NO_TTY = "no_tty"
    AUTO_BUDGET = "auto_budget"
    HOOK = "hook"
    UNDECIDED = "undecided"
    # Not verified, but nothing in it needs a person: it runs contained (§4.1 tiers).
    SANDBOX = "sandbox"


class Tier(enum.Enum):
    """How a call ends (docs/SPEC.md §4.1): verified, contained, asked, or rejected."""

    VERIFIED = "verified"  # understood and harmless, or a rule/level the person set covers it
    CONTAINED = "contained"  # not verified, needs no person: runs in the sandbox, checkpointed
    ASKED = "asked"  # needs a person
    REJECTED = "rejected"  # never runs (escalation, deny rules, invalid, a mode's refusal)


@quick
@dataclass(frozen=True)
class ToolCall:
    """One call the model asked for. `arguments` is the parsed JSON object."""

    id: str
    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    # The raw argument text when it was not a JSON object: the call is invalid.
    raw_arguments: str | None = None
    # Provider-specific fields that must be sent back unchanged (e.g. Gemini's).
    extra: Mapping[str, Any] = field(default_factory=dict)

    @property
    def wire_arguments(self) -> Any:
        """The arguments as the model sent them, for logs and JSON output."""
        return self.raw_arguments if self.raw_arguments is not None else dict(self.arguments)

    def with_arguments(self, arguments: Mapping[str, Any]) -> ToolCall:
        """The same call with other (e.g. edited) arguments."""
        return replace(self, arguments=dict(arguments), raw_arguments=None)


@dataclass(frozen=True)
class Image:
    """An image a tool returned (an MCP server's), for the models that take images."""

    mime: str  # image/png, image/jpeg, image/gif or image/webp
    data: str  # base64


@dataclass(frozen=True)
class ToolResult:
    """What goes back to the model for one call id."""

    call_id: str
    name: str
    content: str
    is_error: bool = False
    # Images that go with `content` (which names each one) where the provider takes them.
    images: tuple[Image, ...] = ()


UNJUDGED = "nothing says the sandbox contains it"


@quick
@dataclass(frozen=True)
class CommandCheck:
    """One simple command of a bash call, as the policy judged it."""

    argv: tuple[str, ...]
    risk: Risk
    allowed_by: str | None = None
    # Why a rule cannot cover this command (dangerous argument, write target...).
    caveat: str | None = None
    # A write this command makes by redirection, shown as its own line.
    is_redirect: bool = False
    # Permitted without a rule: the autonomy level runs this risk without asking.
    auto: bool = False
    # False when no autonomy level may run it unasked (an unknown option, a word built at
    # run time, a read outside the workspace): only a rule or the person can.
    autonomy_may: bool = True
    # When nobody permits it: why it needs a person, or None when the sandbox and the
    # checkpoints contain what it does (code that runs in the workspace, a write inside it).
    # The default needs a person: a part nobody judged is never contained (fails closed).
    need: str | None = UNJUDGED
    # What kind of reason `caveat` is; None: the kind the risk stands for.
    kind: ReasonKind | None = None

    @property
    def reason_kind(self) -> ReasonKind:
        """What kind of reason this part has to be asked about (docs/SPEC.md §4.1)."""
        return self.kind or ReasonKind.of(self.risk)

    @property
    def permitted(self) -> bool:
        """True when a rule or the autonomy level lets this part run."""
        return self.allowed_by is not None or self.auto

    @property
    def containable(self) -> bool:
        """True when this part may run contained if nobody permits it (§4.1)."""
        return self.need is None

    @property
    def text(self) -> str:
        """The command as a person would type it."""
        return " ".join(self.argv)


@quick
@dataclass(frozen=True)
class Assessment:
    """The policy's answer for one call: verdict, why, and what 'always' would add."""

    verdict: Verdict
    risk: Risk
    source: Source
    reason: str
    rule: str | None = None
    commands: tuple[CommandCheck, ...] = ()
    # The rules an "always" answer would add; empty when no rule can cover the call.
    proposed_rules: tuple[Rule, ...] = ()
    # Only the person may answer (an ask rule, a changed MCP tool): neither /auto nor
    # --auto-approve answers for them.
    forced: bool = False
    # Allowed although not verified: it runs contained (sandbox, checkpoint), §4.1.
    contained: bool = False
    # Why it was not verified, for a contained call ("'pytest' is build-test").
    unverified: str = ""
    # What kind of reason decided the call as a whole (escalation, a rule, a read outside);
    # None: the kind of its deciding part (reason_kind).
    kind: ReasonKind | None = None

    @property
    def reason_kind(self) -> ReasonKind | None:
        """What kind of reason kept the call from being verified; None when it was."""
        if self.kind is not None:
            return self.kind
        if self.tier is Tier.VERIFIED:
            return None
        blocking = [c for c in self.commands if not c.permitted]
        needing = [c for c in blocking if not c.containable]
        if self.tier is Tier.ASKED and needing:
            return needing[0].reason_kind
        return blocking[0].reason_kind if blocking else ReasonKind.of(self.risk)

    @property
    def tier(self) -> Tier:
        """Which of the four tiers this answer puts the call in (docs/SPEC.md §4.1)."""
        if self.verdict in (Verdict.REJECT, Verdict.INVALID):
            return Tier.REJECTED
        if self.verdict is Verdict.ASK:
            return Tier.ASKED
        return Tier.CONTAINED if self.contained else Tier.VERIFIED


@dataclass(frozen=True)
class Decision:
    """The final outcome for one call, with the step that decided it."""

    outcome: Outcome
    source: Source
    rule: str | None = None
    feedback: str | None = None
    # The person's edit of the call: it goes through the whole pipeline again.
    edited_call: ToolCall | None = None
    # "Always" rules to add before the call runs, and whether to save them to the file.
    remember: tuple[Rule, ...] = ()
    persist: bool = False
    # Which allowlist scope a persisted rule goes to; relative path rules stay in the project.
    scope: Scope = Scope.PROJECT
    # The channel a person answered through when it was not the terminal: "remote" for the
    # web page (docs/SPEC.md §7.5). The audit line says so.
    via: str | None = None
    # Deny rules to add (an editor's "reject always"), saved to the file when `persist`.
    forbid: tuple[Rule, ...] = ()

    @classmethod
    def approve(cls, source: Source, rule: str | None = None) -> Decision:
        """Run the call."""
        return cls(Outcome.APPROVED, source, rule)

    @classmethod
    def always(cls, rules: Sequence[Rule | str], persist: bool,
               scope: Scope = Scope.PROJECT) -> Decision:
        """Run the call and allow `rules` from now on (saved to the file when `persist`).
        A rule written as text ("Bash(ls *)", from a program's own approver) is read as
        the allowlist reads it; RuleError when it does not parse."""
        values = _rules(rules, "always")
        return cls(Outcome.APPROVED, Source.USER, rule_texts(values), remember=values,
                   persist=persist, scope=scope)

    @classmethod
    def edit(cls, call: ToolCall) -> Decision:
        """The person changed the call: decide again about the edited call."""
        return cls(Outcome.APPROVED, Source.USER, edited_call=call)

    @classmethod
    def reject_soft(
        cls, source: Source, feedback: str | None = None, rule: str | None = None
    ) -> Decision:
        """Skip this call; the rest of the batch goes on."""
        return cls(Outcome.REJECTED_SOFT, source, rule, feedback)

    @classmethod
    def never(cls, rules: Sequence[Rule | str], persist: bool) -> Decision:
        """Skip this call and deny `rules` from now on; the rest of the batch goes on."""
        values = _rules(rules, "reject always")
        return cls(Outcome.REJECTED_SOFT, Source.USER, rule_texts(values),
                   f"the person rejects this from now on ({rule_texts(values)})",
                   forbid=values, persist=persist)

    @classmethod
    def reject_hard(cls, source: Source, feedback: str | None = None) -> Decision:
        """Skip this call and every later call in the batch; stop the loop."""
        return cls(Outcome.REJECTED_HARD, source, None, feedback)

    @classmethod
    def invalid(cls, problem: str) -> Decision:
        """The call is malformed; the model gets the problem as an error."""
        return cls(Outcome.INVALID, Source.INVALID, None, problem)

    @classmethod
    def not_run(cls, reason: str) -> Decision:
        """Never reached: an earlier hard rejection stopped the batch."""
        return cls(Outcome.NOT_RUN, Source.UNDECIDED, None, reason)

    @property
    def approved(self) -> bool:
        """True when the call runs."""
        return self.outcome is Outcome.APPROVED


@dataclass(frozen=True)
class Usage:
    """Token counts of one or more model calls.

    `input_tokens` counts every prompt token, cached or not (what the context holds);
    `cached_tokens` are those of them read from the provider's prompt cache and
    `cache_write_tokens` those written to it (Anthropic), both already in `input_tokens`.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens,
            self.cached_tokens + other.cached_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
        )

    @property
    def any(self) -> bool:
        """True when a server reported any count at all."""
        return bool(self.input_tokens or self.output_tokens)


class StopReason(enum.Enum):
    """What the loop must act on after one model call."""

    END_TURN = "end_turn"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    ERROR = "error"


@dataclass(frozen=True)
class Turn:
    """One finished model call: text, tool calls and what the provider must keep."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    stop: StopReason = StopReason.END_TURN
    # Calls cut off by max_tokens or with broken JSON: reported, never run.
    incomplete_calls: tuple[ToolCall, ...] = ()
    # Provider blocks (e.g. Anthropic thinking with signature) sent back unchanged.
    provider_blocks: tuple[Mapping[str, Any], ...] = ()
    reasoning: str | None = None


def _rules(rules: Sequence[Rule | str], origin: str) -> tuple[Rule, ...]:
    return tuple(r if isinstance(r, Rule) else parse_rule(r, origin) for r in rules)
