"""The command line as a user meets it: main() exit codes, output, and files on disk."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support.harness import ROOT, Run, write_script

SCRIPT = """\
- text: Looking around.
  tool_calls:
    - {name: bash, arguments: {command: "echo hello"}}
    - {name: nope, arguments: {}}
    - {name: bash, arguments: "{not json"}
  usage: {input_tokens: 10, output_tokens: 3}
- text: Now a write.
  tool_calls:
    - {name: write_file, arguments: {path: out.txt, content: "x\\n"}}
  usage: {input_tokens: 20, output_tokens: 4}
- text: All done.
"""

CLI = Callable[..., Run]


def test_one_shot_prints_the_final_answer(cli: CLI, tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yml", "- text: Hello there.\n")
    run = cli("-p", "hi", "-m", model)
    assert (run.code, run.out) == (0, "Hello there.\n")


def test_prompt_from_stdin(cli: CLI, tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yml", "- text: Read it.\n")
    run = cli("-p", "-", "-m", model, stdin="the prompt\n")
    assert (run.code, run.out) == (0, "Read it.\n")


def test_empty_prompt_is_a_usage_error(cli: CLI, tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yml", "- text: x\n")
    assert cli("-p", "-", "-m", model, stdin="  \n").code == 2


def test_exhausted_script_says_so(cli: CLI, tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yml", "[]\n")
    assert cli("-p", "hi", "-m", model).out == "(end of script)\n"


def test_json_output_has_every_call_with_its_decision(cli: CLI, tmp_path: Path) -> None:
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", SCRIPT), "--auto-deny",
              "--output-format", "json")
    assert run.code == 0
    data = json.loads(run.out)
    assert set(data) == {"result", "exit_reason", "calls", "usage", "cost", "warnings"}
    assert data["warnings"] == []
    assert (data["result"], data["exit_reason"]) == ("All done.", "finished")
    assert data["usage"] == {"input_tokens": 30, "output_tokens": 7, "cached_tokens": 0,
                             "cache_write_tokens": 0}
    assert data["cost"] is None  # a script has no price
    calls = [(c["id"], c["name"], c["arguments"], c["decision"], c["source"])
             for c in data["calls"]]
    assert calls == [
        ("call_1", "bash", {"command": "echo hello"}, "approved", "autonomy"),
        ("call_2", "nope", {}, "invalid", "invalid"),
        ("call_3", "bash", "{not json", "invalid", "invalid"),
        ("call_4", "write_file", {"path": "out.txt", "content": "x\n"}, "rejected_soft", "mode"),
    ]
    assert all(set(c) == {"id", "name", "arguments", "decision", "tier", "source", "rule",
                          "edited",
                          "feedback", "risk", "reason", "reason_kind", "final_arguments",
                          "view", "result", "duration_s"} for c in data["calls"])
    # What each call does, as its tool shows it; the kind of reason it was not verified for.
    first, _, _, write = data["calls"]
    assert first["view"] == {"type": "command", "command": "echo hello", "writes": []}
    assert (first["reason_kind"], write["reason_kind"]) == (None, "writes")
    assert write["view"] == {"type": "file_change", "path": "out.txt", "kind": "new",
                             "text": "--- /dev/null\n+++ b/out.txt\n@@ -0,0 +1 @@\n+x",
                             "more": 0, "stat": "+1 −0"}
    assert not Path("out.txt").exists()


def test_no_terminal_stops_hard_and_names_the_ways_out(cli: CLI, tmp_path: Path) -> None:
    # Under --autonomy manual the write is asked (nothing runs contained), and nobody is there.
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", SCRIPT), "--autonomy", "manual")
    assert run.code == 3
    assert "--auto-approve" in run.err and "--auto-deny" in run.err and "allowlist" in run.err
    assert not Path("out.txt").exists()


def test_auto_approve_runs_everything_but_escalation(cli: CLI, tmp_path: Path) -> None:
    script = """\
- tool_calls:
    - {name: bash, arguments: {command: "sudo touch pwned"}}
    - {name: write_file, arguments: {path: out.txt, content: "ok"}}
- text: finished
"""
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", script), "--auto-approve",
              "--output-format", "json")
    data = json.loads(run.out)
    assert [(c["decision"], c["source"]) for c in data["calls"]] == [
        ("rejected_soft", "escalation"), ("approved", "sandbox")]
    assert Path("out.txt").read_text() == "ok"
    assert not Path("pwned").exists()


def test_deny_rule_in_config_rejects_even_with_auto_approve(cli: CLI, tmp_path: Path) -> None:
    Path("agent.yml").write_text("permissions:\n  deny:\n    - Bash(touch *)\n")
    script = "- tool_calls:\n    - {name: bash, arguments: {command: touch x}}\n- text: ok\n"
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", script), "--auto-approve",
              "--output-format", "json")
    call = json.loads(run.out)["calls"][0]
    assert (call["decision"], call["source"], call["rule"]) == (
        "rejected_soft", "deny_rule", "Bash(touch *)")
    assert not Path("x").exists()


def test_max_iterations_stops_a_runaway_loop(cli: CLI, tmp_path: Path) -> None:
    Path("agent.yml").write_text("llm:\n  maxIterations: 2\n")
    turn = "- tool_calls:\n    - {name: bash, arguments: {command: ls}}\n"
    run = cli("-p", "go", "-m", write_script(tmp_path / "s.yml", turn * 5),
              "--output-format", "json")
    data = json.loads(run.out)
    assert (run.code, data["exit_reason"], len(data["calls"])) == (1, "max_iterations", 2)
    assert "maxIterations" in run.err


@pytest.mark.parametrize(("config", "expected"), [
    ("llm:\n  provider: gpt\n", "agent.yml:2: llm.provider: 'gpt' is not one of: openai"),
    ("llm:\n  modle: x\n", "agent.yml:2: llm.modle: unknown key; allowed: provider, model"),
    ("toolConfirmation:\n  timeout: soon\n", "agent.yml:2: toolConfirmation.timeout: must be"),
    ("toolConfirmation:\n  autonomy: yolo\n", "'yolo' is not one of: full-auto, supervised"),
    ("permissions:\n  allow:\n    - Bash()\n", "agent.yml:3: permissions.allow: 'Bash()'"),
    ("llm: [\n", "agent.yml:2: YAML syntax error"),
    ("tools:\n  bashTimeout: -1\n", "agent.yml:2: tools.bashTimeout: must be >= 1"),
])
def test_bad_config_names_file_line_and_key(cli: CLI, tmp_path: Path, config: str,
                                            expected: str) -> None:
    Path("agent.yml").write_text(config)
    run = cli("-p", "x", "-m", write_script(tmp_path / "s.yml", "- text: x\n"))
    assert run.code == 2
    assert expected in run.err
    assert "Traceback" not in run.err


def test_config_flag_and_lookup_order(cli: CLI, tmp_path: Path) -> None:
    custom = tmp_path / "custom.yml"
    custom.write_text("llm:\n  maxIterations: nope\n")
    run = cli("-c", str(custom), "-p", "x", "-m", "demo")
    assert run.code == 2 and "custom.yml:2" in run.err
    assert cli("-c", str(tmp_path / "missing.yml"), "-p", "x").code == 2


def test_example_config_is_valid_and_documents_every_option() -> None:
    from saikish.config.layers import load_config

    example = ROOT / "agent.yml.example"
    config = load_config(example)
    assert config.confirmation.timeout_ms == 30000
    text = example.read_text()
    for key in ("provider", "model", "apiKey", "baseURL", "maxIterations", "systemPrompt",
                "mode", "timeout", "allowedToolsStorage", "autonomy", "bashTimeout",
                "outputLimit", "allow", "deny"):
        line = next(line for line in text.splitlines() if f"{key}:" in line)
        assert "#" in line or key in ("allow", "deny", "systemPrompt"), key


@pytest.mark.parametrize(("argv", "message"), [
    (["-m", "gpt:4", "-p", "x"], "unknown model provider 'gpt'"),
    (["-m", "script:", "-p", "x"], "needs the path"),
    (["-p", "x"], "no model chosen"),
    (["-m", "openai:gpt-4.1-mini", "-p", "x"], "OPENAI_API_KEY"),
    (["-m", "anthropic:claude-sonnet-4-5", "-p", "x"], "ANTHROPIC_API_KEY"),
    (["--autonomy", "reckless"], "invalid choice"),
    (["--auto-approve", "--auto-deny", "-p", "x"], "not allowed with"),
])
def test_usage_errors_exit_2(cli: CLI, argv: list[str], message: str) -> None:
    run = cli(*argv)
    assert run.code == 2
    assert message in run.err


def test_bad_script_file_is_a_clear_error(cli: CLI, tmp_path: Path) -> None:
    model = write_script(tmp_path / "s.yml", "- text: x\n  tool_calls: [{arguments: {}}]\n")
    run = cli("-p", "x", "-m", model)
    assert run.code == 2 and "turn 1.tool_calls[1]" in run.err and "needs 'name'" in run.err


def test_repl_without_a_terminal_says_so(cli: CLI) -> None:
    run = cli("-m", "demo")
    assert run.code == 2 and "needs a terminal" in run.err


def test_demo_runs_in_a_scratch_workspace_and_removes_it(cli: CLI) -> None:
    Path("notes.md").write_text("mine\n")
    before = sorted(os.listdir("."))
    scratch = Path(tempfile.gettempdir())
    demos_before = set(scratch.glob("saikish-demo-*"))
    run = cli("-m", "demo", "-p", "show me", "--auto-approve", "--output-format", "json")
    data = json.loads(run.out)
    assert run.code == 0
    assert [c["name"] for c in data["calls"]] == ["bash", "bash", "write_file", "bash"]
    assert "hello from saikish" in data["calls"][1]["arguments"]["command"]
    assert sorted(os.listdir(".")) == before  # the start directory is untouched
    assert Path("notes.md").read_text() == "mine\n"
    assert set(scratch.glob("saikish-demo-*")) == demos_before


def test_version_and_help_import_nothing_heavy() -> None:
    code = ("import sys; from saikish.cli.main import main\n"
            "for argv in (['--version'], ['--help']):\n"
            "    try: main(argv)\n"
            "    except SystemExit: pass\n"
            "heavy = {'bashlex', 'prompt_toolkit', 'rich', 'openai', 'anthropic', 'yaml'}\n"
            "print(sorted(heavy & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip().splitlines()[-1] == "[]"


def test_python_dash_m_works() -> None:
    done = subprocess.run([sys.executable, "-m", "saikish", "--version"], capture_output=True,
                          text=True, check=True)
    assert done.stdout.startswith("saikish ")


def test_global_options_may_come_before_a_subcommand(cli: Callable[..., Run],
                                                     tmp_path: Path) -> None:
    config = tmp_path / "agent.yml"
    config.write_text("permissions:\n  allow: [Bash(make *)]\n", encoding="utf-8")
    for argv in (("-c", str(config), "check", "--json", "--", "make all"),
                 (f"--config={config}", "--autonomy", "manual", "check", "--json", "--",
                  "make all")):
        run = cli(*argv)
        assert run.code == 0, run.err
        assert json.loads(run.out)["rule"] == "Bash(make *)"
    assert "allowlist.yaml" in cli("-c", str(config), "allowlist", "path").out
    # An option's value is never a subcommand: this is a prompt that says "check".
    model = tmp_path / "s.yml"
    model.write_text("- text: a prompt, not a subcommand\n", encoding="utf-8")
    run = cli("-m", f"script:{model}", "-p", "check")
    assert (run.code, run.out) == (0, "a prompt, not a subcommand\n")
