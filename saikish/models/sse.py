"""From the bytes of a streamed answer to JSON events, whatever the server sends
(docs/SPEC.md §1: SSE framing is the SDKs' job).

The SSE framing is the SDKs' own decoder (never hand-written); what is ours
is making its input safe: invalid UTF-8 becomes U+FFFD instead of an
exception, and a data line that is not JSON is either noise (skipped) or
damage (reported), never a crash.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from saikish.models.http_errors import HttpProblem


class Decoder(Protocol):
    """An SDK's SSE decoder: bytes in, events with `.event` and `.data` out."""

    def iter_bytes(self, iterator: Iterator[bytes]) -> Iterator[Any]:
        """Every event in the byte stream."""
        ...


@dataclass(frozen=True)
class Event:
    """One server-sent event: its name and its data text."""

    name: str | None
    data: str


class BadStream(Exception):
    """The stream is damaged beyond reading; `problem` says how."""

    def __init__(self, problem: HttpProblem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def events(chunks: Iterable[bytes], decoder: Decoder) -> Iterator[Event]:
    """The events in `chunks`, framed by the SDK's `decoder`, from valid UTF-8."""
    for sse in decoder.iter_bytes(_valid_utf8(chunks)):
        yield Event(sse.event if isinstance(sse.event, str) else None, str(sse.data or ""))


def _valid_utf8(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """`chunks` re-encoded so they decode cleanly; characters split across chunks survive."""
    text = codecs.getincrementaldecoder("utf-8")(errors="replace")
    for chunk in chunks:
        piece = text.decode(chunk)
        if piece:
            yield piece.encode("utf-8")
    tail = text.decode(b"", final=True)
    if tail:
        yield tail.encode("utf-8")


def json_object(data: str) -> Mapping[str, Any] | None:
    """The JSON object in a data line; None for noise (keep-alives, non-objects).

    A line that starts like an object but does not parse is damage: part of the
    answer is missing, so it is reported rather than skipped.
    """
    text = data.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise BadStream(HttpProblem(
            "bad_stream", True, f"the server sent a damaged event: {_shorten(text)}")) from None
    return value if isinstance(value, Mapping) else None


def whole_json(body: bytes) -> Any:
    """A non-streamed answer's body as JSON, or BadStream saying what came instead."""
    text = body.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise BadStream(HttpProblem(
            "bad_stream", False, f"the server sent neither a stream nor JSON: "
                                 f"{_shorten(text)}")) from None


def _shorten(text: str, limit: int = 120) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[:limit] + "…"
