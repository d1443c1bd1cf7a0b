"""`saikish check`: the executor's own pipeline, explained without running anything."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.harness import Run, shared_path

CLI = Callable[..., Run]


def test_check_json_explains_each_command(cli: CLI) -> None:
    run = cli("check", "--json", "--allow", "Bash(git diff *)", "--", "git diff && npm install x")
    data = json.loads(run.out)
    assert (data["decision"], data["risk"]) == ("ask", "NETWORK")
    assert data["commands"] == [
        {"argv": ["git", "diff"], "risk": "READ_ONLY", "allowed_by": "Bash(git diff *)",
         "reason_kind": None},
        {"argv": ["npm", "install", "x"], "risk": "NETWORK", "allowed_by": None,
         "reason_kind": "network"}]
    assert data["reason_kind"] == "network"
    assert data["proposed_rules"] == ["Bash(npm install *)"]


def test_check_uses_config_and_allowlist_rules(cli: CLI) -> None:
    config_dir = Path(os.environ["SAIKISH_CONFIG_DIR"])
    config_dir.mkdir(parents=True)
    # The user's own agent.yml (a project's may only tighten until trusted: test_trust.py).
    (config_dir / "agent.yml").write_text("permissions:\n  allow:\n    - Bash(npm install *)\n")
    assert json.loads(cli("check", "--json", "--", "npm install x").out)["decision"] == "allow"
    (config_dir / "allowlist.yaml").write_text("deny:\n  - Bash(npm install *)\n")
    data = json.loads(cli("check", "--json", "--", "npm install x").out)
    assert (data["decision"], data["source"]) == ("reject", "deny_rule")


def test_check_escalation_and_autonomy(cli: CLI) -> None:
    data = json.loads(cli("check", "--json", "--", "env sudo id").out)
    assert (data["decision"], data["source"], data["risk"]) == ("reject", "escalation",
                                                                "ESCALATION")
    data = json.loads(cli("check", "--json", "--autonomy", "full-auto", "--", "rm x").out)
    assert (data["decision"], data["source"]) == ("allow", "autonomy")


def test_check_tool_calls(cli: CLI) -> None:
    data = json.loads(cli("check", "--json", "--tool", "write_file", "--args",
                          '{"path": "/etc/passwd", "content": ""}').out)
    assert (data["decision"], data["risk"]) == ("ask", "DESTRUCTIVE")
    bad = cli("check", "--tool", "write_file", "--args", "{nope")
    assert bad.code == 2 and "--args is not valid JSON" in bad.err


def test_check_text_output(cli: CLI) -> None:
    run = cli("check", "--", "ls && rm -rf build")
    assert run.code == 0
    assert "ASK" in run.out and "rm -rf build" in run.out and "needs approval" in run.out


def test_check_batch_from_stdin(cli: CLI) -> None:
    run = cli("check", "--batch", "-", "--sandbox", "off", stdin="ls\nsudo id\n[[ x\n")
    lines = [json.loads(line) for line in run.out.splitlines()]
    assert [(d["command"], d["decision"], d["tier"]) for d in lines] == [
        ("ls", "allow", "verified"), ("sudo id", "reject", "rejected"),
        ("[[ x", "ask", "asked")]
    # What cannot be parsed is never verified: with no sandbox it is asked, and says why.
    assert "would run contained, but the sandbox is off" in lines[2]["reason"]


def test_check_batch_skips_blank_lines_and_comments_as_shells_do(cli: CLI) -> None:
    script = "# the commands CI runs\n\nls\n   \n  # indented comment\necho hi  # trailing\n"
    run = cli("check", "--batch", "-", "--exit-code", stdin=script)
    assert run.code == 0  # a blank line used to be a reject (11)
    lines = [json.loads(line) for line in run.out.splitlines()]
    assert [(d["command"], d["decision"]) for d in lines] == [
        ("ls", "allow"), ("echo hi  # trailing", "allow")]


def test_check_shows_arithmetic_as_written(cli: CLI) -> None:
    run = cli("check", "--json", "--", "echo $((1 + 2)) \"n=$((n*2))\"")
    data = json.loads(run.out)
    assert data["commands"][0]["argv"] == ["echo", "$((1 + 2))", "n=$((n*2))"]
    asked = json.loads(cli("check", "--json", "--", "git $((x))").out)
    assert "'$((x))' is built at run time" in asked["reason"]
    assert "SAIKISH" not in json.dumps(asked)


def test_check_needs_a_command(cli: CLI) -> None:
    assert cli("check").code == 2


@pytest.mark.slow
def test_every_corpus_command_gets_a_decision(cli: CLI) -> None:
    corpus = shared_path("corpus", "nl2bash.cm")
    run = cli("check", "--batch", str(corpus))
    lines = run.out.splitlines()
    assert run.code == 0
    assert len(lines) == len(corpus.read_text(encoding="utf-8", errors="replace").splitlines())
    decisions = [json.loads(line)["decision"] for line in lines]
    assert set(decisions) <= {"allow", "ask", "reject"}
    assert decisions.count("allow") > 1000  # quiet: plenty of real commands need no question
