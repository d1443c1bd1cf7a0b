"""What every HTTP model shares: timeouts, retries with visible waits, reading the answer
whatever its shape, and one-line error messages."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from saikish.errors import ModelError
from saikish.events import RetryNotice
from saikish.models.base import TextSink
from saikish.models.http_errors import HttpProblem, backoff
from saikish.models.sse import read_whole, whole_json
from saikish.types import Turn

MAX_ATTEMPTS = 4
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_CALL_TIMEOUT_S = 600.0
CONNECT_TIMEOUT_S = 10.0
# Failures of the connection rather than errors the server chose to send.
_CONNECTION_KINDS = ("connection", "timeout", "dropped", "bad_stream")


class StreamFailure(Exception):
    """One attempt failed; `problem` says how, `partial` what was already shown."""

    def __init__(self, problem: HttpProblem, partial: str = "") -> None:
        super().__init__(problem.message)
        self.problem, self.partial = problem, partial


def _stderr_notice(notice: RetryNotice) -> None:
    """Where a wait is said when no event stream listens (a model used on its own)."""
    print(f"saikish: {notice.message}", file=sys.stderr, flush=True)


@dataclass
class Remote:
    """Retry policy and wording for one provider; `attempt` does one streamed call."""

    label: str
    model: str
    url: str
    key_hint: str = ""
    pull_hint: bool = False
    notice: Callable[[RetryNotice], None] = _stderr_notice
    sleep: Callable[[float], None] = time.sleep
    attempts: int = MAX_ATTEMPTS
    timeout: float = DEFAULT_TIMEOUT_S
    clock: Callable[[], float] = time.monotonic
    # The whole call, retries included (llm.callTimeout): see `within`.
    call_timeout: float = DEFAULT_CALL_TIMEOUT_S
    _ends_at: float = float("inf")

    @property
    def budget(self) -> float:
        """Seconds after which no new try starts: a stalled server is given up on in minutes."""
        return max(2 * self.timeout, 120.0)

    def run(self, attempt: Callable[[TextSink], Turn], on_text: TextSink) -> Turn:
        """Call `attempt` until it succeeds, a failure is final, or the tries or time run out."""
        started = self.clock()
        self._ends_at = started + self.call_timeout
        for number in range(self.attempts):
            shown: list[str] = []
            try:
                return attempt(_recording(shown, on_text))
            except StreamFailure as failure:
                partial = failure.partial or "".join(shown)
                problem = failure.problem
                wait = problem.retry_after if problem.retry_after is not None else backoff(number)
                out_of_time = self.clock() - started + wait > self.budget
                # Text already on screen cannot be taken back: no retry after it.
                if (not problem.retryable or partial or number == self.attempts - 1
                        or out_of_time):
                    raise ModelError(self.describe(problem, number + 1, bool(partial)),
                                     retryable=problem.retryable, partial=partial) from None
                self.notice(RetryNotice(f"{self.label} {_what(problem)}: waiting {wait:.0f}s "
                                        f"before trying again ({number + 2} of {self.attempts})",
                                        attempt=number + 2, delay_s=wait))
                self.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def within(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        """`chunks` until the call's deadline: a server that sends a keep-alive every few
        seconds is never silent long enough for `timeout`, and would hold the run for ever."""
        for chunk in chunks:
            if self.clock() > self._ends_at:
                raise StreamFailure(HttpProblem(
                    "deadline", False, f"no whole answer within {self.call_timeout:g}s "
                                       f"(llm.callTimeout in agent.yml)"))
            yield chunk

    def describe(self, problem: HttpProblem, tries: int, interrupted: bool) -> str:
        """One line saying what happened and what to do."""
        what = problem.message.strip().rstrip(".")
        if interrupted and problem.kind in _CONNECTION_KINDS:
            return f"{self.label}: the answer was interrupted: {what}"
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
        if problem.retryable and tries > 1:
            return f"{self.label}: failed after {tries} tries: {what}"
        if problem.retryable:
            return f"{self.label}: failed: {what}"
        return f"{self.label}: request failed: {what}"


def _recording(shown: list[str], on_text: TextSink) -> TextSink:
    def sink(piece: str) -> None:
        shown.append(piece)
        on_text(piece)

    return sink


def _what(problem: HttpProblem) -> str:
    kind = problem.kind.replace("_", " ")
    return f"{kind} ({problem.message})" if problem.kind in _CONNECTION_KINDS else kind


def connection_problem(message: str) -> HttpProblem:
    """A request that never got an answer (refused, reset)."""
    return HttpProblem("connection", True, message)


def timeout_problem(seconds: float) -> HttpProblem:
    """The server said nothing for `seconds`."""
    return HttpProblem("timeout", True, f"no data from the server for {seconds:g}s "
                                        f"(llm.timeout in agent.yml)")


def transport_problem(exc: Exception, seconds: float) -> HttpProblem:
    """A failure of the connection while the answer was being read, or of its encoding
    (a gzip body that does not inflate): both are worth another try."""
    import httpx2  # the SDKs' HTTP library, already loaded by them

    if isinstance(exc, httpx2.TimeoutException):
        return timeout_problem(seconds)
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx2.DecodingError):
        return HttpProblem("bad_stream", True, f"the answer could not be decoded ({detail})")
    return HttpProblem("dropped", True, f"the connection was lost mid-answer ({detail})")


def truncated_problem(calls: int) -> HttpProblem:
    """The stream ended with neither its end marker nor a finish reason."""
    dropped = f"; its {calls} tool call(s) were not run" if calls else ""
    return HttpProblem("dropped", True, f"the stream ended before the answer was complete "
                                        f"(no end marker, no finish reason){dropped}")


def client_timeout(seconds: float) -> Any:
    """The SDK timeout: `seconds` of silence, a short connect timeout."""
    import httpx2

    return httpx2.Timeout(seconds, connect=min(seconds, CONNECT_TIMEOUT_S))


def read_answer(response: Any, on_stream: Callable[[Iterator[bytes]], None],
                on_whole: Callable[[Any], None], remote: Remote | None = None) -> None:
    """Hand the body to `on_stream` (SSE), or to `on_whole` when the server sent plain JSON;
    within `remote`'s deadline for the call, when given."""
    kind = str(response.headers.get("content-type") or "").lower()
    chunks: Iterator[bytes] = response.iter_bytes()
    if remote is not None:
        chunks = remote.within(chunks)
    # JSON: a server that ignored stream: true; HTML: a proxy's page (reported as such).
    if ("json" in kind or "html" in kind) and "event-stream" not in kind:
        body = read_whole(chunks)
        if body.lstrip().startswith((b"data:", b"event:")):  # a stream with the wrong label
            on_stream(iter([body]))
        else:
            on_whole(whole_json(body))
    else:
        on_stream(chunks)


def no_key(variable: str, label: str) -> str:
    """The line shown when an API key is missing."""
    return (f"{label} needs an API key: set {variable} (export {variable}=...) or llm.apiKey "
            f"in agent.yml")

