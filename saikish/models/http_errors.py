"""HTTP errors from LLM servers -> what happened, whether to retry, and how long to wait.

Pure code: classified from status, headers and body text (tests/fixtures/wire
contract 6). The SDKs retry every 429 alike, including insufficient_quota,
and do not read x-ratelimit-reset-*, so the retry decision is ours.
"""

from __future__ import annotations

import email.utils
import json
import math
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_WAIT_S = 60.0
_CONTEXT = re.compile(
    r"context[_ ]length|context window|maximum context|prompt is too long|too many tokens|"
    r"exceed_context_size|exceeds? the (?:available )?context|reduce the length|"
    r"input is too long|n_ctx|context size", re.IGNORECASE)


@dataclass(frozen=True)
class HttpProblem:
    """One classified error response."""

    kind: str  # auth | not_found | context_length | rate_limit | quota | overloaded | server
    retryable: bool
    message: str
    retry_after: float | None = None


def classify(status: int, headers: Mapping[str, str], body: str,
             now: float | None = None) -> HttpProblem:
    """What an error response means; never raises, whatever the body."""
    error = _error_object(body)
    code = str(error.get("code") or "")
    etype = str(error.get("type") or "")
    message = str(error.get("message") or _plain(body) or f"HTTP {status}")
    lower = {k.lower(): v for k, v in headers.items()}
    if status in (401, 403) or etype in ("authentication_error", "permission_error"):
        return HttpProblem("auth", False, message)
    if status == 404 or code == "model_not_found" or etype == "not_found_error":
        return HttpProblem("not_found", False, message)
    if code == "insufficient_quota" or etype == "insufficient_quota":
        return HttpProblem("quota", False, message)
    if status == 429 or etype == "rate_limit_error":
        return HttpProblem("rate_limit", True, message, retry_after(lower, now))
    if status in (400, 413, 422) and (_CONTEXT.search(message) or _CONTEXT.search(code)
                                      or _CONTEXT.search(etype)):
        return HttpProblem("context_length", False, message)
    if status == 529 or etype == "overloaded_error":
        return HttpProblem("overloaded", True, message, retry_after(lower, now))
    if status >= 500 or status == 408:
        return HttpProblem("server", True, message, retry_after(lower, now))
    return HttpProblem("request", False, message)


def retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds to wait from retry-after-ms, retry-after, then the rate-limit reset headers."""
    if "retry-after-ms" in headers:
        seconds = _number(headers["retry-after-ms"])
        if seconds is not None:
            return min(max(seconds / 1000, 0.0), MAX_WAIT_S)
    if "retry-after" in headers:
        value = headers["retry-after"].strip()
        seconds = _number(value)
        if seconds is None:
            seconds = _http_date_in(value, now)
        if seconds is not None:
            return min(max(seconds, 0.0), MAX_WAIT_S)
    resets = [_duration(v) for k, v in headers.items() if k.startswith("x-ratelimit-reset")]
    resets += [_rfc3339_in(v, now) for k, v in headers.items()
               if k.startswith("anthropic-ratelimit-") and k.endswith("-reset")
               and headers.get(k.replace("-reset", "-remaining")) == "0"]
    known = [r for r in resets if r is not None]
    return min(max(known), MAX_WAIT_S) if known else None


def backoff(attempt: int) -> float:
    """Exponential backoff with jitter: about 0.5, 1, 2, 4 s... capped at 8 s."""
    import random

    base: float = min(0.5 * 2.0 ** attempt, 8.0)
    return base * (0.75 + random.random() / 2)


def _error_object(body: str) -> dict[str, Any]:
    try:
        data = json.loads(body)
    except (ValueError, TypeError, RecursionError):  # an error body nested past any real one
        return {}
    if isinstance(data, Mapping):
        inner = data.get("error")
        if isinstance(inner, Mapping):
            return dict(inner)
        if isinstance(inner, str):
            return {"message": inner}
        return dict(data)
    return {}


def _plain(body: str) -> str:
    """A short readable line from a non-JSON body (an nginx 502 page, say)."""
    text = re.sub(r"<[^>]+>", " ", body or "")
    return " ".join(text.split())[:200]


def _number(value: str) -> float | None:
    """A finite number, or None ('abc', 'nan' and 'inf' are no wait anybody meant)."""
    try:
        number = float(value)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _http_date_in(value: str, now: float | None) -> float | None:
    """Seconds until an HTTP date ('Wed, 21 Oct 2015 07:28:00 GMT'); None for anything else."""
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return parsed.timestamp() - (now or time.time()) if parsed else None


def _duration(value: str) -> float | None:
    """Go-style durations as OpenAI sends them: '976ms', '1s', '6m0s', '1h2m3.5s'."""
    parts = re.findall(r"([\d.]+)(ms|h|m|s)", value.strip())
    if not parts:
        return _number(value)
    scale = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
    numbers = [(_number(n), unit) for n, unit in parts]
    if any(n is None for n, _ in numbers):
        return None  # '1.2.3s': no duration
    return float(sum((n or 0.0) * scale[unit] for n, unit in numbers))


def _rfc3339_in(value: str, now: float | None) -> float | None:
    from datetime import datetime

    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(moment.timestamp() - (now or time.time()), 0.0)
