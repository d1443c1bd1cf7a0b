"""MCP config as Claude Code users paste it (docs/SPEC.md §7.1): `${VAR:-default}` and `$$`
expansion, a workspace's `.mcp.json` started only once trusted; the fixture server, real."""

from __future__ import annotations

import json
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from saikish.config.trust import load_config_trusted
from saikish.mcp.expansion import UnsetVariable, expand
from saikish.models.base import ToolResults
from saikish.runtime.agent import Agent
from saikish.store import paths
from tests.mcp.test_mcp_e2e import FIXTURE, _running, calls_script, run_json
from tests.support.harness import Run

CLI = Callable[..., Run]


@pytest.fixture
def tag() -> Iterator[str]:
    """A marker in the fixture server's environment; none may be running at the end."""
    marker = uuid.uuid4().hex
    yield marker
    assert _running(marker) == [], "an MCP server outlived saikish"


@pytest.mark.parametrize(("value", "expanded"), [
    ("${A}/x", "a/x"),
    ("$A-$B", "a-"),  # B is set and empty
    ("${NOPE:-fallback}", "fallback"),
    ("${B:-when empty}", "when empty"),
    ("${A:-unused}", "a"),
    ("${NOPE:-}", ""),
    ("cost: $$5 and $${A}", "cost: $5 and ${A}"),
])
def test_expansion_is_claude_codes(value: str, expanded: str) -> None:
    assert expand(value, {"A": "a", "B": ""}) == expanded


def test_an_unset_variable_without_default_is_named() -> None:
    with pytest.raises(UnsetVariable, match="environment variable NOPE is not set"):
        expand("Bearer ${NOPE}", {})


def mcp_json(ws: Path, marker: str) -> Path:
    """A project's .mcp.json in Claude Code's shape, with variables to expand."""
    servers = {"mcpServers": {"fx": {
        "command": sys.executable, "args": [str(FIXTURE)],
        "env": {"FIXTURE_DIR": str(ws), "FIXTURE_TAG": marker, "FIXTURE_ENV_DUMP": "1",
                "REGION": "${FX_REGION:-eu-west}", "TOKEN": "${FX_TOKEN}",
                "PRICE": "$$5"}}}}
    path = ws / ".mcp.json"
    path.write_text(json.dumps(servers, indent=2))
    return path


def test_a_trusted_mcp_json_starts_its_servers_with_variables_expanded(
        cli: CLI, ws: Path, tmp_path: Path, tag: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("FX_TOKEN", "t0k")
    mcp_json(ws, tag)
    model = calls_script(tmp_path, ("mcp__fx__env_dump", {}))
    untrusted = run_json(cli, "-m", model, "-p", "go", "--auto-approve")
    assert f"{ws / '.mcp.json'}: 1 setting ignored because this project's .mcp.json is not " \
        "trusted (mcpServers)" in untrusted["_stderr"]
    assert untrusted["calls"][0]["decision"] == "invalid"  # nothing was started
    trust = cli("trust")
    assert trust.code == 0 and f"trusted: {ws / '.mcp.json'}" in trust.out
    user = paths.config_dir() / "agent.yml"  # the person's own rule for the tool
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text("permissions: {allow: [mcp__fx__env_dump]}\n")
    with Agent.create(model, config=load_config_trusted(None, ws), workspace=ws) as agent:
        agent.send("go")
        results = [m for m in agent.messages if isinstance(m, ToolResults)]
    environment: dict[str, Any] = json.loads(results[0].results[0].content)
    assert (environment["REGION"], environment["TOKEN"], environment["PRICE"]) == (
        "eu-west", "t0k", "$5")


def test_an_mcp_json_changed_after_trust_is_untrusted_again(
        cli: CLI, ws: Path, tmp_path: Path, tag: str) -> None:
    path = mcp_json(ws, tag)
    assert cli("trust").code == 0
    path.write_text(path.read_text().replace("eu-west", "us-east"))
    data = run_json(cli, "-m", calls_script(tmp_path, ("mcp__fx__echo", {"text": "x"})),
                    "-p", "go", "--auto-approve")
    assert "this project's .mcp.json is not trusted" in data["_stderr"]
    assert data["calls"][0]["decision"] == "invalid"


def test_a_broken_mcp_json_is_one_line_with_its_line(cli: CLI, ws: Path, tmp_path: Path) -> None:
    (ws / ".mcp.json").write_text('{\n  "mcpServers": {\n    "x": {"url": 7}\n  }\n}\n')
    run = cli("-m", "demo", "-p", "hi")
    assert run.code == 2
    assert run.err.strip() == (f"saikish: {ws / '.mcp.json'}:3: mcpServers.x.url: must be an "
                               "http:// or https:// URL")
