"""Headless output for CI (docs/events.md): json, stream-json, --fail-on-deny, JSON errors."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.harness import Run, write_script

CLI = Callable[..., Run]

# Call 1 runs (exit code 3), call 2 asks and there is no terminal: the batch stops there,
# so call 3 is never reached.
STOPPING = """\
- text: Trying.
  tool_calls:
    - {name: bash, arguments: {command: "echo out; exit 3"}}
    - {name: bash, arguments: {command: "curl -s http://127.0.0.1:9/a"}}
    - {name: bash, arguments: {command: "curl -s http://127.0.0.1:9/b"}}
- text: never
"""

DENIED = """\
- tool_calls:
    - {name: bash, arguments: {command: "touch a"}}
- text: Finished anyway.
"""


def test_json_reports_results_reasons_and_calls_never_reached(cli: CLI, tmp_path: Path) -> None:
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", STOPPING),
              "--output-format", "json")
    assert run.code == 3
    data = json.loads(run.out)
    assert (data["exit_reason"], data["result"], data["warnings"]) == ("stopped", "Trying.", [])
    first, second, third = data["calls"]
    assert (first["decision"], first["source"], first["risk"]) == (
        "approved", "autonomy", "READ_ONLY")
    assert first["result"] == {"is_error": True, "exit_code": 3,
                               "excerpt": "out\n[exit code 3]"}
    assert first["duration_s"] >= 0
    assert (second["decision"], second["source"], second["result"]) == (
        "rejected_hard", "no_tty", None)
    assert "no terminal to ask" in second["feedback"]
    assert "curl" in second["reason"] and "network" in second["reason"]
    # Not "rejected by the user": nobody decided about it.
    assert (third["decision"], third["source"], third["arguments"]) == (
        "not_run", "undecided", {"command": "curl -s http://127.0.0.1:9/b"})
    assert "error" not in data


def test_stream_json_is_the_event_stream_then_the_result(cli: CLI, tmp_path: Path) -> None:
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", STOPPING),
              "--output-format", "stream-json")
    lines = [json.loads(line) for line in run.out.splitlines()]
    types = [line["type"] for line in lines]
    assert types[0] == "turn_start" and types[-2:] == ["run_end", "result"]
    decided = [line for line in lines if line["type"] == "call_decided"]
    assert [(d["call"]["arguments"]["command"], d["decision"], d["source"]) for d in decided] \
        == [("echo out; exit 3", "approved", "autonomy"),
            ("curl -s http://127.0.0.1:9/a", "rejected_hard", "no_tty")]
    results = [line for line in lines if line["type"] == "call_result"]
    assert [r["decision"] for r in results] == ["approved", "rejected_hard", "not_run"]
    assert lines[-1]["calls"][2]["decision"] == "not_run"
    assert "".join(line["text"] for line in lines if line["type"] == "text_delta") == "Trying."


def test_fail_on_deny_turns_a_finished_run_with_a_rejection_into_exit_4(
        cli: CLI, tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yml", DENIED)
    plain = cli("-p", "go", "-m", model, "--auto-deny")
    strict = cli("-p", "go", "-m", model, "--auto-deny", "--fail-on-deny")
    assert (plain.code, strict.code) == (0, 4)
    assert strict.out == "Finished anyway.\n"


def test_fail_on_deny_keeps_exit_0_when_nothing_was_rejected(cli: CLI, tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yml", "- tool_calls: [{name: bash, arguments: "
                                             "{command: ls}}]\n- text: ok\n")
    assert cli("-p", "go", "-m", model, "--fail-on-deny").code == 0


def test_a_config_error_still_prints_a_json_object(cli: CLI, tmp_path: Path) -> None:
    (tmp_path / "bad.yml").write_text("toolConfirmation: {mode: sometimes}\n", encoding="utf-8")
    run = cli("-p", "go", "-m", "demo", "-c", str(tmp_path / "bad.yml"), "--output-format",
              "json")
    assert run.code == 2
    data: dict[str, Any] = json.loads(run.out)
    assert (data["exit_reason"], data["calls"]) == ("error", [])
    assert "bad.yml" in data["error"] and "mode" in data["error"]
    assert "bad.yml" in run.err  # and the person still gets the one line on stderr


def test_an_unknown_model_in_stream_json_ends_with_a_result_line(cli: CLI) -> None:
    run = cli("-p", "go", "-m", "nosuch:x", "--output-format", "stream-json")
    last = json.loads(run.out.splitlines()[-1])
    assert (last["type"], last["exit_reason"]) == ("result", "error")
    assert "unknown model provider 'nosuch'" in last["error"]


def test_max_iterations_is_a_warning(cli: CLI, tmp_path: Path) -> None:
    script = "".join("- tool_calls: [{name: bash, arguments: {command: ls}}]\n"
                     for _ in range(3))
    (tmp_path / "agent.yml").write_text("llm: {maxIterations: 2}\n", encoding="utf-8")
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", script), "-c",
              str(tmp_path / "agent.yml"), "--output-format", "json")
    data = json.loads(run.out)
    assert data["exit_reason"] == "max_iterations"
    assert data["warnings"] == ["stopped after 2 model calls (llm.maxIterations)"]


def test_docs_name_every_event_source_and_decision() -> None:
    from saikish.events import EVENT_TYPES
    from saikish.types import Outcome, Risk, Source
    from saikish.vocabulary import EXIT_REASONS

    text = (Path(__file__).resolve().parents[2] / "docs" / "events.md").read_text()
    kinds = [str(t.kind) for t in EVENT_TYPES]  # type: ignore[attr-defined]
    words = ([f"`{k}`" for k in kinds] + [f"`{s.value}`" for s in Source]
             + [f"`{o.value}`" for o in Outcome] + [f"`{r.name}`" for r in Risk]
             + [f"`{e}`" for e in EXIT_REASONS])
    assert [w for w in words if w not in text] == []
