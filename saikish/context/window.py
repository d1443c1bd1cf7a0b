"""How big the model's context window is, and how full a request would make it
(docs/SPEC.md §10.3). Mutable per session: it learns from the server.

The window comes from agent.yml's llm.contextWindow, else the server's own figure,
else saikish/data/models.yml, else a cautious default. Estimates are corrected by
the ratio between the server's count of the last request and our estimate of it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from saikish.config.model_table import ModelTable, model_id

COMPACT_AT = 0.85  # of the window: compact older turns before the request gets bigger
KEEP_RECENT = 0.30  # of the window: recent turns kept word for word by a compaction
RESULT_SHARE = 0.30  # of the window: the most one tool result may take
MAX_RESERVE = 8192  # tokens kept free for the answer (Anthropic's max_tokens)
HOSTED_DEFAULT = 128_000
MIN_RATIO = 0.8  # the lowest correction of our estimates a server's count can bring
LOCAL_DEFAULT = 8192
OLLAMA_DEFAULT = 4096  # Ollama's own default num_ctx; it cuts longer prompts silently
_LIMITS = [  # what servers say when a request is too long, with the window in it
    re.compile(r"maximum context length is (\d+)", re.IGNORECASE),  # OpenAI, vLLM
    re.compile(r"limit of (\d+) tokens", re.IGNORECASE),  # OpenAI's newer wording
    re.compile(r"tokens? > (\d+) maximum", re.IGNORECASE),  # Anthropic
    re.compile(r"context (?:size|window|length) (?:is |of )?\(?(\d{3,})", re.IGNORECASE),
    re.compile(r"n_ctx\D{0,5}(\d{3,})", re.IGNORECASE),  # llama.cpp
]


@dataclass
class ContextWindow:
    """The window in tokens, where that figure came from, and the estimate correction."""

    tokens: int
    source: str  # "agent.yml" | "server" | "table" | "default" | "learned"
    ratio: float = 1.0  # server's count / our estimate, from the last request

    @property
    def reserve(self) -> int:
        """Tokens kept free for the model's answer."""
        return min(MAX_RESERVE, self.tokens // 8)

    @property
    def limit(self) -> int:
        """The prompt size at which older turns are compacted."""
        return min(int(self.tokens * COMPACT_AT), self.tokens - self.reserve)

    def tokens_of(self, estimate: int) -> int:
        """An estimate corrected by what the server counted before."""
        return int(estimate * self.ratio)

    def full(self, estimate: int) -> bool:
        """True when a request of `estimate` tokens should not be sent as it is."""
        return self.tokens_of(estimate) > self.limit

    def share(self, estimate: int) -> float:
        """How much of the window a request of `estimate` tokens fills (0.0-1.0+)."""
        return self.tokens_of(estimate) / self.tokens

    def learn(self, estimate: int, counted: int) -> None:
        """The server counted `counted` tokens for a request we estimated at `estimate`.

        Believed upwards more than downwards: a server that reuses a cached prefix may
        count only the tokens it evaluated (Ollama), and guessing too low overflows.
        """
        if estimate > 0 and counted > 0:
            self.ratio = min(max(counted / estimate, MIN_RATIO), 4.0)

    def shrink_to(self, tokens: int) -> None:
        """The server refused a request: its window is at most `tokens`."""
        if tokens < self.tokens:
            self.tokens, self.source = max(tokens, 256), "learned"

    def budget(self, share: float) -> int:
        """`share` of the window, as an estimate (before the correction)."""
        return int(self.tokens * share / self.ratio)


def window_from_error(message: str) -> int | None:
    """The window a server names in its "too long" error, if it names one."""
    for pattern in _LIMITS:
        found = pattern.search(message)
        if found:
            return int(found.group(1))
    return None


def resolve_window(configured: int | None, model: Any, table: ModelTable) -> ContextWindow:
    """agent.yml's figure, else the server's, else the table's, else a default."""
    if configured:
        return ContextWindow(configured, "agent.yml")
    ask = getattr(model, "server_window", None)
    served = ask() if callable(ask) else None  # (tokens, source) from a local server
    if served:
        return ContextWindow(*served)
    known = table.info(model_id(str(getattr(model, "name", "")))).context_window
    if known:
        return ContextWindow(known, "table")
    local = bool(getattr(model, "local", False))
    return ContextWindow(LOCAL_DEFAULT if local else HOSTED_DEFAULT, "default")
