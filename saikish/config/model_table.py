"""What saikish knows about models (saikish/data/models.yml): context window and price.

agent.yml may override both (`llm.contextWindow`, `llm.prices`); a local server's
own figure for the window comes from context/probe.py and wins over the table.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import yaml

from saikish.cost import Price

PROVIDERS_WITH_TABLE = ("openai", "anthropic", "ollama")
PRICE_KEYS = {"input": "input", "output": "output", "cachedInput": "cached_input",
              "cacheWrite": "cache_write"}


@dataclass(frozen=True)
class ModelInfo:
    """One row of the table: the window in tokens and the price, each None when unknown."""

    context_window: int | None = None
    price: Price | None = None


@dataclass(frozen=True)
class ModelTable:
    """The table of known models, with agent.yml's price overrides (model globs) on top."""

    rows: Mapping[str, ModelInfo] = field(default_factory=dict)
    prices: tuple[tuple[str, Price], ...] = ()

    @classmethod
    def load(cls, prices: tuple[tuple[str, Price], ...] = ()) -> ModelTable:
        """The table shipped with saikish, and agent.yml's `llm.prices`."""
        text = resources.files("saikish").joinpath("data/models.yml").read_text("utf-8")
        data = yaml.safe_load(text) or {}
        return cls({str(k).lower(): _row(v) for k, v in data.items()}, prices)

    def info(self, model: str) -> ModelInfo:
        """What is known about `model` (a name as the provider spells it)."""
        row = self.rows.get(match(model, self.rows), ModelInfo())
        for pattern, price in self.prices:  # the person's own prices win
            if fnmatch.fnmatchcase(model.lower(), pattern.lower()):
                return ModelInfo(row.context_window, price)
        return row


def match(model: str, keys: Mapping[str, Any]) -> str:
    """The longest key `model` starts with at a word boundary; "" when none does."""
    name = model.lower().rsplit("/", 1)[-1]
    best = ""
    for key in keys:
        if len(key) > len(best) and name.startswith(key) and \
                (len(name) == len(key) or not name[len(key)].isalnum()):
            best = key
    return best


def _row(value: Mapping[str, Any]) -> ModelInfo:
    context = value.get("context")
    price = None
    if "input" in value and "output" in value:
        price = Price(**{PRICE_KEYS[k]: float(v) for k, v in value.items() if k in PRICE_KEYS})
    return ModelInfo(int(context) if context else None, price)


def model_id(name: str) -> str:
    """The provider's own name for a model named "provider:model"; "" for scripts and demos,
    which the table does not know."""
    provider, _, model = name.partition(":")
    return model if provider in PROVIDERS_WITH_TABLE else ""
