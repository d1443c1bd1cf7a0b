"""What a session costs: tokens per model call and per session, in dollars where the price
is known (docs/SPEC.md §10.4). Pure: prices come from model_table.py and agent.yml."""

from __future__ import annotations

from dataclasses import dataclass, field

from saikish.types import Usage

MILLION = 1_000_000


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens; cached and cache-write prices default to `input`."""

    input: float
    output: float
    cached_input: float | None = None
    cache_write: float | None = None

    def of(self, usage: Usage) -> float:
        """The dollars `usage` costs at this price."""
        cached = min(usage.cached_tokens, usage.input_tokens)
        written = min(usage.cache_write_tokens, usage.input_tokens - cached)
        plain = usage.input_tokens - cached - written
        dollars = (plain * self.input + usage.output_tokens * self.output
                   + cached * _or(self.cached_input, self.input)
                   + written * _or(self.cache_write, self.input))
        return dollars / MILLION


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


@dataclass(frozen=True)
class Spend:
    """One model call: which model, its tokens, and its cost (None: no known price)."""

    model: str
    usage: Usage
    cost: float | None


@dataclass
class Meter:
    """The tokens and dollars of one session, call by call."""

    calls: list[Spend] = field(default_factory=list)

    def add(self, model: str, usage: Usage, price: Price | None) -> Spend:
        """Count one model call; returns what it cost."""
        spend = Spend(model, usage, price.of(usage) if price is not None else None)
        self.calls.append(spend)
        return spend

    @property
    def usage(self) -> Usage:
        """Every token of the session."""
        return self.since(0)[0]

    @property
    def cost(self) -> float | None:
        """The session's dollars; None when no call had a known price."""
        return self.since(0)[1]

    def since(self, start: int) -> tuple[Usage, float | None]:
        """The tokens and dollars of the calls from number `start` on (a mark: len(calls))."""
        total = Usage()
        for spend in self.calls[start:]:
            total += spend.usage
        known = [s.cost for s in self.calls[start:] if s.cost is not None]
        return total, (sum(known) if known else None)

    @property
    def unpriced(self) -> tuple[str, ...]:
        """The models that were used and have no known price."""
        return tuple(dict.fromkeys(s.model for s in self.calls
                                   if s.cost is None and s.usage.any))


def dollars(amount: float | None) -> str:
    """'$0.0123', '$1.23', or '$?' for an unknown cost."""
    if amount is None:
        return "$?"
    return f"${amount:.4f}" if amount < 1 else f"${amount:,.2f}"
