"""What every HTTP model shares: retries with visible waits, and one-line error messages."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from saikish.errors import ModelError
from saikish.models.base import TextSink
from saikish.models.http_errors import HttpProblem, backoff
from saikish.types import Turn

MAX_ATTEMPTS = 4


class StreamFailure(Exception):
    """One attempt failed; `problem` says how, `partial` what was already shown."""

    def __init__(self, problem: HttpProblem, partial: str = "") -> None:
        super().__init__(problem.message)
        self.problem, self.partial = problem, partial


def _stderr_notice(text: str) -> None:
    print(f"saikish: {text}", file=sys.stderr, flush=True)


@dataclass
class Remote:
    """Retry policy and wording for one provider; `attempt` does one streamed call."""

    label: str
    model: str
    url: str
    key_hint: str = ""
    pull_hint: bool = False
    notice: Callable[[str], None] = _stderr_notice
    sleep: Callable[[float], None] = time.sleep
    attempts: int = MAX_ATTEMPTS

    def run(self, attempt: Callable[[TextSink], Turn], on_text: TextSink) -> Turn:
        """Call `attempt` until it succeeds, a failure is final, or the tries run out."""
        for number in range(self.attempts):
            shown: list[str] = []
            try:
                return attempt(_recording(shown, on_text))
            except StreamFailure as failure:
                partial = failure.partial or "".join(shown)
                problem = failure.problem
                # Text already on screen cannot be taken back: no retry after it.
                if not problem.retryable or partial or number == self.attempts - 1:
                    raise ModelError(self.describe(problem, number + 1, bool(partial)),
                                     retryable=problem.retryable, partial=partial) from None
                wait = problem.retry_after if problem.retry_after is not None else backoff(number)
                self.notice(f"{self.label} {problem.kind.replace('_', ' ')}: waiting {wait:.0f}s "
                            f"before trying again ({number + 2} of {self.attempts})")
                self.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def describe(self, problem: HttpProblem, tries: int, interrupted: bool) -> str:
        """One line saying what happened and what to do."""
        what = problem.message.strip().rstrip(".")
        if interrupted:
            return f"{self.label}: the answer was interrupted by a server error: {what}"
        if problem.kind == "auth":
            return f"{self.label}: the API key was rejected ({what}). {self.key_hint}".strip()
        if problem.kind == "not_found":
            hint = f" Download it with: ollama pull {self.model}" if self.pull_hint else \
                " Check the model name (-m PROVIDER:MODEL)."
            return f"{self.label}: model '{self.model}' not found at {self.url} ({what}).{hint}"
        if problem.kind == "context_length":
            return (f"{self.label}: the conversation is too long for {self.model}'s context "
                    f"window ({what}). Use /clear to start over, or a model with a larger "
                    f"context.")
        if problem.kind == "quota":
            return (f"{self.label}: the account has no quota left ({what}). Check the plan "
                    f"and billing; not retrying.")
        if problem.kind == "connection":
            return (f"{self.label}: cannot connect to {self.url} ({what}). Is the server "
                    f"running, and is the URL right?")
        if problem.retryable:
            return f"{self.label}: failed after {tries} tries: {what}"
        return f"{self.label}: request failed: {what}"


def _recording(shown: list[str], on_text: TextSink) -> TextSink:
    def sink(piece: str) -> None:
        shown.append(piece)
        on_text(piece)

    return sink


def connection_problem(message: str) -> HttpProblem:
    """A request that never got an answer (refused, reset, timed out)."""
    return HttpProblem("connection", True, message)


def no_key(variable: str, label: str) -> str:
    """The line shown when an API key is missing."""
    return (f"{label} needs an API key: set {variable} (export {variable}=...) or llm.apiKey "
            f"in agent.yml")

