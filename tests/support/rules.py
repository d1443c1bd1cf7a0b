"""Rules written as text in tests, and back: the product passes Rule values (saikish/rules.py)."""

from __future__ import annotations

from collections.abc import Iterable

from saikish.rules import Rule, parse_rule


def rules(*texts: str) -> tuple[Rule, ...]:
    """Rules as the allowlist reads them."""
    return tuple(parse_rule(text, "test") for text in texts)


def texts(values: Iterable[Rule]) -> tuple[str, ...]:
    """The rules' texts, as a person reads them."""
    return tuple(rule.text for rule in values)
