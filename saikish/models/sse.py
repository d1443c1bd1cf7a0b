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
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from saikish.models.http_errors import HttpProblem

# Larger than any real event (a whole tool call's arguments) or answer; past them, a
# broken or hostile server is stopped rather than read into memory.
MAX_EVENT = 16 << 20
MAX_ANSWER = 256 << 20
# A blank line ends an SSE event (\r\n\r\n, \n\n or \r\r).
_BOUNDARY = re.compile(r"\r\n\r\n|\n\n|\r\r")


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
    """The events in `chunks`, framed by the SDK's `decoder`, from valid UTF-8; BadStream
    past MAX_EVENT characters in one event or MAX_ANSWER in all."""
    for sse in decoder.iter_bytes(_bounded(_valid_utf8(chunks))):
        yield Event(sse.event if isinstance(sse.event, str) else None, str(sse.data or ""))


def _valid_utf8(chunks: Iterable[bytes]) -> Iterator[str]:
    """`chunks` decoded, invalid bytes replaced; characters split across chunks survive."""
    text = codecs.getincrementaldecoder("utf-8")(errors="replace")
    for chunk in chunks:
        piece = text.decode(chunk)
        if piece:
            yield piece
    tail = text.decode(b"", final=True)
    if tail:
        yield tail


def _bounded(pieces: Iterable[str]) -> Iterator[bytes]:
    """`pieces` as UTF-8, until an event or the whole answer is larger than any real one.

    The SDK's decoder keeps an event's bytes until the blank line that ends it, so one
    endless line (a 4 MB gzip body inflates to 4 GB) would all be held in memory.
    """
    total = since_boundary = 0
    tail = ""
    for piece in pieces:
        total += len(piece)
        window = tail + piece
        ends = [m.end() for m in _BOUNDARY.finditer(window)]
        since_boundary = len(window) - ends[-1] if ends else since_boundary + len(piece)
        if since_boundary > MAX_EVENT or total > MAX_ANSWER:
            what = "one event" if since_boundary > MAX_EVENT else "the answer"
            limit = MAX_EVENT if since_boundary > MAX_EVENT else MAX_ANSWER
            raise BadStream(HttpProblem("too_large", False, f"the server sent more than "
                                        f"{limit >> 20} MB in {what}; stopped reading"))
        tail = window[-3:]
        yield piece.encode("utf-8")


def read_whole(chunks: Iterable[bytes]) -> bytes:
    """A non-streamed body, at most MAX_ANSWER bytes (BadStream past it)."""
    body = bytearray()
    for chunk in chunks:
        body += chunk
        if len(body) > MAX_ANSWER:
            raise BadStream(HttpProblem("too_large", False, f"the server sent more than "
                                        f"{MAX_ANSWER >> 20} MB; stopped reading"))
    return bytes(body)


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
