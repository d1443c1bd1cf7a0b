"""Choosing a model from `-m PROVIDER:MODEL` or agent.yml's `llm:` (docs/SPEC.md §2, §8)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from saikish.config.layers import Config
from saikish.errors import UsageError
from saikish.models.base import Model

PROVIDERS = ("openai", "anthropic", "ollama", "script", "demo")
DEFAULT_MODELS = {"openai": "gpt-4.1-mini", "anthropic": "claude-sonnet-4-5", "ollama": "qwen3"}


@dataclass(frozen=True)
class ModelSpec:
    """Which provider and model to use."""

    provider: str
    model: str

    def __str__(self) -> str:
        return self.provider if self.provider == "demo" else f"{self.provider}:{self.model}"


def parse_spec(text: str | None, config: Config) -> ModelSpec:
    """`-m` text, else agent.yml's llm section, else whichever API key is set."""
    if text:
        provider, _, model = text.partition(":")
        if provider not in PROVIDERS:
            raise UsageError(f"unknown model provider '{provider}' in -m {text}; use one of "
                             f"{', '.join(PROVIDERS)} (e.g. -m openai:gpt-4.1-mini, -m demo)")
        if provider == "script" and not model:
            raise UsageError("-m script:PATH needs the path of a script file")
        return ModelSpec(provider, model or DEFAULT_MODELS.get(provider, ""))
    llm = config.llm
    if llm.provider:
        return ModelSpec(llm.provider, llm.model or DEFAULT_MODELS.get(llm.provider, ""))
    for provider, variable in (("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")):
        if os.environ.get(variable):
            return ModelSpec(provider, llm.model or DEFAULT_MODELS[provider])
    raise UsageError("no model chosen: try saikish offline with -m demo, or pick one with "
                     "-m openai:MODEL / anthropic:MODEL / ollama:MODEL (or llm: in agent.yml)")


def load_model(spec: ModelSpec, config: Config) -> Model:
    """The Model for `spec`; provider SDKs are imported only here, when needed."""
    if spec.provider == "demo":
        from saikish.models.demo import demo_model

        return demo_model()
    if spec.provider == "script":
        from saikish.models.script import ScriptModel

        return ScriptModel.from_file(Path(spec.model))
    if spec.provider in ("openai", "ollama"):
        from saikish.models.openai_compat import OpenAICompatModel

        return OpenAICompatModel.create(spec.provider, spec.model, config)
    from saikish.models.anthropic_model import AnthropicModel

    return AnthropicModel.create(spec.model, config)
