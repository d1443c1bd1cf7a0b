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
from saikish.models.http_errors import HttpProblem, backoff, classify
from saikish.models.sse import BadStream, whole_json
from saikish.models.waiting import HOSTED, Waits, Watchdog
from saikish.types import Turn

MAX_ATTEMPTS = 4
DEFAULT_TIMEOUT_S = HOSTED.idle
DEFAULT_FIRST_TOKEN_S = HOSTED.first_token
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
    timeout: float = DEFAULT_TIMEOUT_S  # between tokens (llm.timeout)
    clock: Callable[[], float] = time.monotonic
    first_token: float = DEFAULT_FIRST_TOKEN_S  # for the first token (llm.firstTokenTimeout)

    def watchdog(self) -> Watchdog:
        """A fresh watch over one attempt's waits (on the real clock: it really waits)."""
        return Watchdog(Waits(self.first_token, self.timeout))

    @property
    def budget(self) -> float:
        """Seconds after which no new try starts: a stalled server is given up on in minutes."""
        return max(2 * self.timeout, 120.0)

    def run(self, attempt: Callable[[TextSink], Turn], on_text: TextSink) -> Turn:
        """Call `attempt` until it succeeds, a failure is final, or the tries or time run out."""
        started = self.clock()
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
                                     retryable=problem.retryable, partial=partial,
                                     kind=problem.kind) from None
                self.notice(RetryNotice(f"{self.label} {_what(problem)}: waiting {wait:.0f}s "
                                        f"before trying again ({number + 2} of {self.attempts})",
                                        attempt=number + 2, delay_s=wait))
                self.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

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
            return (f"{self.label}: the request is too long for {self.model}'s context "
                    f"window ({what}). saikish compacts older turns and tries once more; "
                    f"if that is not enough, set llm.contextWindow or use a model with a "
                    f"larger window.")
        if problem.kind == "quota":
            return (f"{self.label}: the account has no quota left ({what}). Check the plan "
                    f"and billing; not retrying.")
        if problem.kind == "first_token":
            return f"{self.label}: {what}"
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
    """The server said nothing for `seconds` between tokens."""
    return HttpProblem("timeout", True, f"no data from the server for {seconds:g}s "
                                        f"(llm.timeout in agent.yml)")


def first_token_problem(seconds: float) -> HttpProblem:
    """No first token within `seconds`: never retried, the server may still be at work."""
    return HttpProblem("first_token", False, f"no first token after {seconds:g}s "
                                             f"(llm.firstTokenTimeout in agent.yml); not sent "
                                             f"again: the server may still be working on it")


def waited_problem(watch: Watchdog) -> HttpProblem:
    """The wait that ran out: for the first token, or between tokens."""
    if watch.tokens:
        return timeout_problem(watch.waits.idle)
    return first_token_problem(watch.waits.first_token)


def attempt_problem(exc: Exception, sdk: Any, watch: Watchdog) -> HttpProblem | None:
    """What a failed attempt means (`sdk`: the openai or anthropic module); None for an
    exception that is no failure of the server or the connection."""
    import httpx2  # the SDKs' HTTP library, already loaded by them

    if watch.expired:  # the watchdog cut the stream: whatever broke, its wait ran out
        return waited_problem(watch)
    if isinstance(exc, sdk.APIStatusError):
        return classify(exc.status_code, dict(exc.response.headers), exc.response.text)
    if isinstance(exc, sdk.APITimeoutError) and not isinstance(exc.__cause__,
                                                               httpx2.ConnectTimeout):
        return waited_problem(watch)
    if isinstance(exc, sdk.APIConnectionError):
        return connection_problem(str(exc.__cause__ or exc))
    if isinstance(exc, BadStream):
        return exc.problem
    if isinstance(exc, httpx2.TimeoutException):
        return waited_problem(watch)
    detail = str(exc) or type(exc).__name__
    if isinstance(exc, httpx2.DecodingError):  # a body that does not inflate (bad gzip)
        return HttpProblem("bad_stream", True, f"the answer could not be decoded ({detail})")
    if isinstance(exc, httpx2.TransportError):  # dropped or reset while reading
        return HttpProblem("dropped", True, f"the connection was lost mid-answer ({detail})")
    return None


def truncated_problem(calls: int) -> HttpProblem:
    """The stream ended with neither its end marker nor a finish reason."""
    dropped = f"; its {calls} tool call(s) were not run" if calls else ""
    return HttpProblem("dropped", True, f"the stream ended before the answer was complete "
                                        f"(no end marker, no finish reason){dropped}")


def client_timeout(remote: Remote) -> Any:
    """The SDK timeout: the longer wait as the read timeout (the watchdog keeps the other,
    once the headers are in), a short connect timeout."""
    import httpx2

    seconds = max(remote.first_token, remote.timeout)
    return httpx2.Timeout(seconds, connect=min(seconds, CONNECT_TIMEOUT_S))


def read_answer(response: Any, on_stream: Callable[[Iterator[bytes]], None],
                on_whole: Callable[[Any], None]) -> None:
    """Hand the body to `on_stream` (SSE), or to `on_whole` when the server sent plain JSON."""
    kind = str(response.headers.get("content-type") or "").lower()
    # JSON: a server that ignored stream: true; HTML: a proxy's page (reported as such).
    if ("json" in kind or "html" in kind) and "event-stream" not in kind:
        body = response.read()
        if body.lstrip().startswith((b"data:", b"event:")):  # a stream with the wrong label
            on_stream(iter([body]))
        else:
            on_whole(whole_json(body))
    else:
        on_stream(response.iter_bytes())


def no_key(variable: str, label: str) -> str:
    """The line shown when an API key is missing."""
    return (f"{label} needs an API key: set {variable} (export {variable}=...) or llm.apiKey "
            f"in agent.yml")

