"""Tokens and dollars (docs/SPEC.md §10.4): the price table, agent.yml's prices, and the
cost of every recorded wire fixture, served by a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from saikish.config.layers import load_config
from saikish.config.model_table import ModelTable, match
from saikish.cost import Meter, Price, dollars
from saikish.types import Usage
from tests.models.test_providers import anthropic_model, complete, fixtures, load, openai_model
from tests.support.wire_server import Reply, serve

# Each fixture's cost, worked out by hand from its recorded usage and the list price of
# the model the stream names (US dollars per million tokens), so a wrong sum or a
# misread usage field shows here.
EXPECTED_COST: dict[str, float | None] = {
    # claude-sonnet-4: 377 in at $3, 65 out at $15
    "anthropic_text_then_tool": (377 * 3 + 65 * 15) / 1e6,
    # claude-sonnet-4: 2 plain in at $3, 22 written to the cache at $3.75, 13,993 read
    # from it at $0.30, 72 out at $15
    "anthropic_thinking_parallel_tools": (2 * 3 + 22 * 3.75 + 13993 * 0.30 + 72 * 15) / 1e6,
    # claude-opus-4-1 (priced as claude-opus-4): $15 in, $75 out
    "anthropic_tool_docs": (472 * 15 + 89 * 75) / 1e6,
    "anthropic_text_basic": (25 * 15 + 15 * 75) / 1e6,
    "anthropic_thinking_no_usage": 0.0,  # no usage on the wire: nothing counted
    # claude-sonnet-4-5 and claude-3-7-sonnet: $3 in, $15 out
    "anthropic_tool_no_args": (565 * 3 + 48 * 15) / 1e6,
    "anthropic_max_tokens_incomplete_tool": (450 * 3 + 124 * 15) / 1e6,
    # claude-haiku-4.5 behind Copilot's OpenAI-compatible API: 25,939 prompt tokens of
    # which 25,429 cached ($1 plain, $0.10 cached), 58 out at $5
    "copilot_claude_index1": ((25939 - 25429) * 1 + 25429 * 0.10 + 58 * 5) / 1e6,
    # gpt-4o: $2.50 in, $10 out
    "openai_tool_parallel": (149 * 2.5 + 60 * 10) / 1e6,
    "openai_tool_single": (76 * 2.5 + 24 * 10) / 1e6,
    "framing_crlf_comments": (76 * 2.5 + 24 * 10) / 1e6,
    "openai_text_basic": (14 * 2.5 + 30 * 10) / 1e6,
    "openai_refusal": (79 * 2.5 + 11 * 10) / 1e6,
    "openai_length": (79 * 2.5 + 1 * 10) / 1e6,
    # gpt-4.1: $2 in, $8 out
    "openai_tool_usage_null": (60 * 2 + 15 * 8) / 1e6,
    # zephyr-7b behind TGI: no price known, and no usage either
    "tgi_nospace_no_done": None,
}
ERRORS = {"openai_midstream_error", "anthropic_midstream_error"}  # no answer, nothing billed


def served_model(body: bytes) -> str:
    """The model name the recorded stream itself reports."""
    found = re.search(rb'"model":\s*"([^"]+)"', body)
    assert found, "every fixture names its model"
    return found.group(1).decode()


WIRE = [(api, name) for api in ("openai", "anthropic") for name in fixtures(api)]


def test_every_fixture_has_a_worked_out_cost() -> None:
    assert {name for _, name in WIRE} - ERRORS == set(EXPECTED_COST)


@pytest.mark.parametrize(("api", "name"), [w for w in WIRE if w[1] not in ERRORS])
def test_the_cost_of_each_recorded_answer(api: str, name: str) -> None:
    body, spec = load(api, name)
    with serve(Reply(body, headers=spec["http"]["headers"])) as server:
        model: Any = anthropic_model(server.url) if api == "anthropic" else \
            openai_model(server.url)
        turn, _ = complete(model)
    meter = Meter()
    spend = meter.add(served_model(body), turn.usage, ModelTable.load().info(
        served_model(body)).price)
    expected = EXPECTED_COST[name]
    if expected is None:
        assert spend.cost is None and meter.cost is None
    else:
        assert spend.cost == pytest.approx(expected, rel=1e-9, abs=1e-12)
        assert meter.cost == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("model", "key"), [
    ("gpt-4o-2024-08-06", "gpt-4o"),
    ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),  # the longer key wins
    ("openai/gpt-4.1-mini", "gpt-4.1-mini"),  # a gateway's vendor prefix
    ("claude-opus-4-1-20250805", "claude-opus-4"),
    ("claude-opus-4-5", "claude-opus-4-5"),
    ("Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF", "qwen2.5-coder"),
    ("qwen3:8b", "qwen3"),
    ("qwen30b", ""),  # a key ends at a word boundary
    ("gpt-4", ""),
])
def test_a_model_name_matches_the_longest_key_at_a_boundary(model: str, key: str) -> None:
    assert match(model, ModelTable.load().rows) == key


def test_cached_and_written_tokens_are_priced_apart() -> None:
    price = Price(input=3.0, output=15.0, cached_input=0.3, cache_write=3.75)
    usage = Usage(input_tokens=1_000_000, output_tokens=0, cached_tokens=600_000,
                  cache_write_tokens=100_000)
    assert price.of(usage) == pytest.approx(0.3 * 3 + 0.6 * 0.3 + 0.1 * 3.75)
    assert Price(1.0, 2.0).of(Usage(1_000_000, 1_000_000, 1_000_000)) == 3.0  # no cache price


def test_agent_yml_prices_override_the_table_by_glob(tmp_path: Path) -> None:
    path = tmp_path / "agent.yml"
    path.write_text("llm:\n  prices:\n    'gpt-4o*': {input: 1, output: 1}\n"
                    "    'my-local-*': {input: 0.5, output: 0.5, cachedInput: 0}\n")
    table = ModelTable.load(load_config(path).llm.prices)
    assert table.info("gpt-4o-2024-08-06").price == Price(1.0, 1.0)
    assert table.info("gpt-4o").context_window == 128000  # the window still from the table
    assert table.info("my-local-model").price == Price(0.5, 0.5, 0.0)
    assert table.info("unknown-model") == table.info("")


@pytest.mark.parametrize(("text", "problem"), [
    ("llm:\n  prices:\n    x: {input: 1}\n", "llm.prices.x: needs input and output"),
    ("llm:\n  prices:\n    x: {input: 1, output: -2}\n", "llm.prices.x.output: must be >= 0"),
    ("llm:\n  prices:\n    x: {input: 1, output: 2, cached: 1}\n",
     "llm.prices.x.cached: unknown key; allowed: input, output, cachedInput, cacheWrite"),
    ("llm:\n  contextWindow: 10\n", "llm.contextWindow: must be >= 256"),
    ("llm:\n  textToolCalls: maybe\n", "'maybe' is not one of: auto, on, off"),
])
def test_bad_llm_values_name_the_line_and_key(cli: Any, tmp_path: Path, text: str,
                                              problem: str) -> None:
    path = tmp_path / "agent.yml"
    path.write_text(text)
    run = cli("-c", str(path), "-p", "hi", "-m", "demo", "--output-format", "json")
    assert run.code == 2 and problem in run.err and f"{path}:" in run.err, run.err
    assert json.loads(run.out)["exit_reason"] == "error"


def test_dollars_are_shown_with_enough_digits() -> None:
    assert (dollars(0.00123), dollars(12.5), dollars(None)) == ("$0.0012", "$12.50", "$?")


USAGE = {"prompt_tokens": 1000, "completion_tokens": 100,
         "prompt_tokens_details": {"cached_tokens": 800}}
# gpt-4.1: 200 plain prompt tokens at $2, 800 cached at $0.50, 100 out at $8 per million
GPT41_COST = (200 * 2 + 800 * 0.5 + 100 * 8) / 1e6


@pytest.mark.parametrize("output", ["json", "stream-json"])
def test_json_outputs_carry_tokens_and_cost(cli: Any, output: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.models.test_providers import chunk, sse

    answer = sse(chunk(content="hi"), {"choices": [], "usage": USAGE}, chunk(finish="stop"))
    with serve(Reply(answer)) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
        run = cli("-p", "hello", "-m", "openai:gpt-4.1", "--output-format", output)
    assert run.code == 0, run.err
    lines = [json.loads(line) for line in run.out.splitlines()]
    usage = {"input_tokens": 1000, "output_tokens": 100, "cached_tokens": 800,
             "cache_write_tokens": 0}
    final = lines[-1]
    assert (final["usage"], final["cost"]) == (usage, pytest.approx(GPT41_COST))
    if output == "stream-json":
        [event] = [line for line in lines if line["type"] == "usage"]
        assert event == {"type": "usage", **usage, "cost": pytest.approx(GPT41_COST)}
        [end] = [line for line in lines if line["type"] == "run_end"]
        assert end["cost"] == pytest.approx(GPT41_COST)


def test_an_untrusted_project_sets_the_window_but_not_the_prices(ws: Path) -> None:
    from saikish.config.layers import load_effective

    (ws / "agent.yml").write_text("llm:\n  contextWindow: 4096\n  firstTokenTimeout: 5000\n"
                                  "  prices:\n    '*': {input: 0, output: 0}\n")
    config = load_effective(None, ws)
    assert config.llm.context_window == 4096  # a fact about the model: it loosens nothing
    assert config.llm.prices == () and config.llm.first_token_timeout is None
    warned = "\n".join(config.warnings())  # one line for the file, naming what it ignored
    assert "2 settings ignored" in warned and "llm.prices" in warned and \
        "llm.firstTokenTimeout" in warned
    ignored = {item.key: item.why for item in config.ignored}
    assert ignored["llm.prices"].startswith("changes the costs shown")
    assert ignored["llm.firstTokenTimeout"].startswith("loosens")


def test_saikish_config_shows_prices_readably(cli: Any, tmp_path: Path) -> None:
    path = tmp_path / "agent.yml"
    path.write_text("llm:\n  prices:\n    'my-*': {input: 1.5, output: 3}\n")
    run = cli("config", "-c", str(path))
    assert "my-*: $1.5 in, $3 out per million tokens" in run.out, run.out
