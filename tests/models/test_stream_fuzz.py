"""Both stream assemblers fed random chunk sequences: nothing but our own errors escapes.

Property-based (hypothesis), bounded so the suite stays fast. Two levels: random
JSON objects shaped like the wire's (right keys, any values), and random bytes
cut anywhere (SSE framing, invalid UTF-8, non-JSON lines) through the SDKs' SSE
decoders into the same code the providers run.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saikish.models import anthropic_model, anthropic_stream, openai_compat, openai_stream
from saikish.models.sse import BadStream, events

KEYS = ["type", "index", "choices", "delta", "message", "content", "tool_calls", "function",
        "name", "arguments", "id", "finish_reason", "usage", "object", "error", "refusal",
        "reasoning_content", "content_block", "text", "partial_json", "thinking", "signature",
        "stop_reason", "prompt_tokens", "completion_tokens", "input_tokens", "output_tokens"]
WORDS = ["message_start", "content_block_start", "content_block_delta", "content_block_stop",
         "message_delta", "message_stop", "error", "ping", "text", "tool_use", "thinking",
         "text_delta", "input_json_delta", "thinking_delta", "signature_delta", "stop",
         "tool_calls", "length", "bash", '{"command": "ls"}', '{"comm', "", "\ud800", "\x00"]

SCALARS = (st.none() | st.booleans() | st.integers(-3, 3) | st.integers()
           | st.floats(allow_nan=True) | st.sampled_from(WORDS) | st.text(max_size=8))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(KEYS), inner, max_size=5),
                      max_leaves=8)
OBJECTS = st.dictionaries(st.sampled_from(KEYS), VALUES, max_size=5)
BOUNDED = settings(max_examples=200, deadline=None, database=None,
                   suppress_health_check=[HealthCheck.too_slow])


@BOUNDED
@given(st.lists(OBJECTS, max_size=8))
def test_openai_assembler_takes_any_objects(chunks: list[dict[str, Any]]) -> None:
    assembler = openai_stream.OpenAIAssembler()
    for chunk in chunks:
        assert isinstance(assembler.feed(chunk), str)
    turn = openai_compat.to_turn(assembler)
    assert all(isinstance(c.arguments, dict) and c.name for c in turn.tool_calls)


@BOUNDED
@given(st.lists(OBJECTS, max_size=8))
def test_anthropic_assembler_takes_any_objects(events_: list[dict[str, Any]]) -> None:
    assembler = anthropic_stream.AnthropicAssembler()
    for event in events_:
        assert isinstance(assembler.feed(event), str)
    turn = anthropic_model.to_turn(assembler)
    assert all(isinstance(c.arguments, dict) and c.name for c in turn.tool_calls)


def _lines(objects: list[Any], extra: list[bytes]) -> bytes:
    body = b"".join(b"event: " + str(o.get("type"))[:20].encode("utf-8", "replace") + b"\n"
                    + b"data: " + json.dumps(o).encode() + b"\n\n" for o in objects)
    return body + b"".join(extra)


RAW = st.sampled_from([b"data: [DONE]\n\n", b"data: {\n\n", b"data: ping\n\n", b"\xff\xfe",
                       b"\r\n", b"event: error\n", b": comment\n", b"data: 5\n\n",
                       b"data: {\"type\": \"error\"}\n\n", b"\xe2\x98"]) | st.binary(max_size=8)


def _pieces(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(body) + 1) for c in cuts})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]


@BOUNDED
@given(st.lists(OBJECTS, max_size=6), st.lists(RAW, max_size=4),
       st.lists(st.integers(0, 10_000), max_size=8))
def test_openai_stream_takes_any_bytes(objects: list[dict[str, Any]], raw: list[bytes],
                                       cuts: list[int]) -> None:
    from openai._streaming import SSEDecoder

    assembler = openai_stream.OpenAIAssembler()
    shown: list[str] = []
    try:
        openai_stream.consume(assembler, events(_pieces(_lines(objects, raw), cuts),
                                                SSEDecoder()), shown.append)
    except BadStream as exc:
        assert exc.problem.message.startswith("the server sent a damaged event")
    assert "".join(shown) == assembler.text
    openai_compat.to_turn(assembler)


@BOUNDED
@given(st.lists(OBJECTS, max_size=6), st.lists(RAW, max_size=4),
       st.lists(st.integers(0, 10_000), max_size=8))
def test_anthropic_stream_takes_any_bytes(objects: list[dict[str, Any]], raw: list[bytes],
                                          cuts: list[int]) -> None:
    from anthropic._streaming import SSEDecoder

    assembler = anthropic_stream.AnthropicAssembler()
    shown: list[str] = []
    try:
        anthropic_stream.consume(assembler, events(_pieces(_lines(objects, raw), cuts),
                                                   SSEDecoder()), shown.append)
    except BadStream as exc:
        assert exc.problem.message.startswith("the server sent a damaged event")
    anthropic_model.to_turn(assembler)


@BOUNDED
@given(VALUES)
def test_a_whole_answer_of_any_shape_is_read_or_reported(data: Any) -> None:
    for assembler, feed, to_turn in (
            (openai_stream.OpenAIAssembler(), openai_stream.feed_whole, openai_compat.to_turn),
            (anthropic_stream.AnthropicAssembler(), anthropic_stream.feed_whole,
             anthropic_model.to_turn)):
        try:
            feed(assembler, data, lambda piece: None)  # type: ignore[arg-type]
        except BadStream:
            continue
        to_turn(assembler)  # type: ignore[arg-type]
