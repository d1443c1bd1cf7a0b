"""A model call ends: bad Retry-After values and a body that does not inflate are retried,
and a server that keeps the stream alive without answering meets the first-token wait.

Before: `Retry-After: abc` raised out of the error classifier and a bad gzip body raised
past the transport handlers (both ended the run: "the model call failed unexpectedly");
an SSE comment every few seconds was never silence long enough for llm.timeout, so the
run was held for ever. Comments and pings are not tokens (docs/SPEC.md §10.5).
"""

from __future__ import annotations

import pytest

from saikish.errors import ModelError
from saikish.events import RetryNotice
from tests.models.test_providers import complete, waits
from tests.models.test_stream_faults import APIS, answer, model
from tests.support.wire_server import Reply, serve

JSON = {"content-type": "application/json"}


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("value", ["abc", "nan", "Thu, 99 Foo 2015 07:28:00 GMT", "-3"])
def test_a_retry_after_nobody_can_read_still_retries(api: str, value: str) -> None:
    busy = Reply(b'{"error": {"message": "slow down"}}', status=429,
                 headers={**JSON, "retry-after": value})
    with serve(busy, Reply(answer(api))) as s:
        made = model(api, s.url)
        turn, _ = complete(made)
    assert turn.text == "partial " and len(waits(made)) == 1
    assert 0 <= waits(made)[0] <= 8  # the ordinary backoff, or no wait for "-3"


@pytest.mark.parametrize("api", APIS)
def test_a_body_that_does_not_inflate_is_retried(api: str) -> None:
    broken = Reply(b"\x1f\x8b\x08\x00not gzip at all",
                   headers={"content-type": "text/event-stream", "content-encoding": "gzip"})
    with serve(broken, Reply(answer(api))) as s:
        made = model(api, s.url)
        notices: list[RetryNotice] = []
        made.remote.notice = notices.append
        turn, _ = complete(made)
    assert turn.text == "partial "
    assert notices[0].message.startswith(f"{api} bad stream (the answer could not be decoded")


def keep_alive(api: str) -> Reply:
    """Comments (OpenAI) or pings (Anthropic) every 50 ms for a minute, and no answer."""
    beat = b": keep-alive\n\n" if api == "openai" else \
        b'event: ping\ndata: {"type": "ping"}\n\n'
    return Reply(beat * 1200, split=lambda body: [beat] * 1200, delay=0.05)


@pytest.mark.parametrize("api", APIS)
def test_a_stream_kept_alive_without_an_answer_meets_the_first_token_wait(api: str) -> None:
    with serve(keep_alive(api)) as s:
        made = model(api, s.url)
        made.remote.first_token = 1.0  # beats every 50 ms: only "no token" can end it
        with pytest.raises(ModelError) as raised:
            complete(made)
        tries = len(s.requests)
    assert "no first token after 1s" in str(raised.value)
    assert tries == 1  # never sent again: the server may still be working on it
