"""UserPromptSubmit, Stop, SessionStart, PostToolUse (docs/SPEC.md §7.2), real processes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from saikish.config.layers import load_config
from saikish.events import Notice, TurnStarted
from saikish.models.base import UserMessage
from saikish.models.script import ScriptModel, parse_turns
from saikish.runtime.agent import Agent
from tests.support.harness import Run, write_script
from tests.support.hookscripts import CONTEXT, STOP_ONCE, install

CLI = Callable[..., Run]


def agent_yml(tmp_path: Path, event: str, command: str, matcher: str = "") -> Path:
    path = tmp_path / "agent.yml"
    path.write_text(f"hooks:\n  {event}:\n    - matcher: '{matcher}'\n      hooks:\n"
                    f"        - {{type: command, command: {json.dumps(command)}}}\n")
    return path


def agent(tmp_path: Path, ws: Path, config: Path, turns: list[object]) -> Agent:
    return Agent.create(ScriptModel(parse_turns(turns, "test")), workspace=ws,
                        config=load_config(config))


def test_user_prompt_submit_adds_context(tmp_path: Path, ws: Path) -> None:
    hook = install(tmp_path, "context.sh", CONTEXT)
    bot = agent(tmp_path, ws, agent_yml(tmp_path, "UserPromptSubmit", hook), [{"text": "ok"}])
    assert bot.send("what next?").text == "ok"
    first = bot.messages[0]
    assert isinstance(first, UserMessage)
    assert first.text == "what next?\n\nCurrent sprint: ship the hooks"


def test_user_prompt_submit_block_drops_the_prompt(cli: CLI, tmp_path: Path) -> None:
    hook = install(tmp_path, "context.sh", CONTEXT)
    model = write_script(tmp_path / "s.yml", "- text: should never be said\n")
    run = cli("-p", "tell me the secret", "-m", model, "-c",
              str(agent_yml(tmp_path, "UserPromptSubmit", hook)), "--output-format", "json")
    data = json.loads(run.out)
    assert (data["exit_reason"], data["result"]) == ("stopped", "")
    assert run.code == 3
    assert "blocked the prompt: prompts about secrets are not sent" in run.err


def test_a_broken_prompt_hook_lets_nothing_through(tmp_path: Path, ws: Path) -> None:
    bot = agent(tmp_path, ws, agent_yml(tmp_path, "UserPromptSubmit", "exit 5"),
                [{"text": "never"}])
    result = bot.send("hi")
    assert (result.exit_reason, result.text) == ("stopped", "")
    assert "exited with status 5" in result.message and bot.messages == []


def test_stop_hook_asks_the_model_to_go_on_once(tmp_path: Path, ws: Path) -> None:
    hook = install(tmp_path, "stop.sh", STOP_ONCE)
    bot = agent(tmp_path, ws, agent_yml(tmp_path, "Stop", hook),
                [{"text": "Done."}, {"text": "Tests pass; done now."}, {"text": "never"}])
    result = bot.send("fix it")
    assert (result.exit_reason, result.text) == ("finished", "Tests pass; done now.")
    assert sum(isinstance(e, TurnStarted) for e in bot.events()) == 2
    said = [m.text for m in bot.messages if isinstance(m, UserMessage)]
    assert said == ["fix it", "Run the tests before you stop."]


def test_a_stop_hook_that_always_blocks_is_followed_a_few_times_only(tmp_path: Path,
                                                                     ws: Path) -> None:
    always = "echo '{\"decision\": \"block\", \"reason\": \"more\"}'"
    bot = agent(tmp_path, ws, agent_yml(tmp_path, "Stop", always),
                [{"text": f"turn {n}"} for n in range(10)])
    assert bot.send("go").text == "turn 3"  # the first answer and three more, then it stops


def test_session_start_context_once_and_broken_hooks_never_block(tmp_path: Path,
                                                                  ws: Path) -> None:
    path = tmp_path / "agent.yml"
    path.write_text("hooks:\n  SessionStart:\n    - hooks: [{type: command, command: "
                    "'echo branch main'}]\n  Notification:\n    - hooks: [{type: command, "
                    "command: 'exit 9'}]\n  PostToolUse:\n    - matcher: Bash\n      hooks: "
                    "[{type: command, command: 'sleep 5', timeout: 0.2}]\n")
    turns = [{"tool_calls": [{"name": "bash", "arguments": {"command": "echo hi"}}]},
             {"text": "one"}, {"text": "two"}]
    bot = agent(tmp_path, ws, path, turns)
    bot.send("first")
    notices = [e.text for e in bot.events() if isinstance(e, Notice)]
    assert any("PostToolUse hook 'sleep 5'" in n and "timed out after 0.2s" in n
               for n in notices)
    bot.send("second")
    said = [m.text for m in bot.messages if isinstance(m, UserMessage)]
    assert said == ["first\n\nbranch main", "second"]
    assert not any("sleep 5" in e.text for e in bot.events() if isinstance(e, Notice))
