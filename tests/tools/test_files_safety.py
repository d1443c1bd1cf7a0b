"""Files stay whole and right (issue 15): a write never lands on content the person did not
see, new files get the umask's mode, and a failed batch still answers every call."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from saikish.runtime.executor import ApprovalRequest
from saikish.tools import RunContext, builtin_tools
from saikish.types import Decision, Source
from tests.runtime.test_loop import agent_for, results

TOOLS = builtin_tools()


def write(path: str, content: str) -> dict[str, object]:
    return {"name": "write_file", "arguments": {"path": path, "content": content}}


def edit(path: str, old: str, new: str) -> dict[str, object]:
    return {"name": "edit_file", "arguments": {"path": path, "old_string": old,
                                               "new_string": new}}


def change_while_asked(path: Path, text: str) -> Callable[[ApprovalRequest], Decision]:
    """An approver that approves, but the file changes on disk while its box is up."""

    def answer(request: ApprovalRequest) -> Decision:
        path.write_text(text)
        return Decision.approve(Source.USER)

    return answer


@pytest.mark.parametrize(("call", "before"), [
    (write("notes.md", "mine"), "old\n"),
    (edit("notes.md", "old", "mine"), "old\n"),
    (write("notes.md", "mine"), None),  # created by someone else meanwhile
])
def test_a_file_changed_while_asked_is_not_overwritten(ws: Path, call: dict[str, object],
                                                       before: str | None) -> None:
    target = ws / "notes.md"
    if before is not None:
        target.write_text(before)
    agent, _, _ = agent_for([{"tool_calls": [call]}, {"text": "ok"}],
                            [change_while_asked(target, "old\nthe person's own edit\n")], ws)
    agent.send("go", lambda piece: None)
    (_, content), = results(agent)
    assert content.startswith("not written: notes.md changed on disk after this call was shown")
    assert target.read_text() == "old\nthe person's own edit\n"


@pytest.mark.parametrize("call", [write("notes.md", "mine\n"), edit("notes.md", "old", "mine")])
def test_an_unchanged_file_is_written(ws: Path, call: dict[str, object]) -> None:
    (ws / "notes.md").write_text("old\n")
    agent, approver, _ = agent_for([{"tool_calls": [call]}, {"text": "ok"}],
                                   [lambda r: Decision.approve(Source.USER)], ws)
    agent.send("go", lambda piece: None)
    assert approver.asked == ["notes.md"]
    assert (ws / "notes.md").read_text() == "mine\n"


@pytest.fixture
def umask() -> Iterator[None]:
    old = os.umask(0o027)
    yield
    os.umask(old)


def test_a_new_file_gets_the_umask_mode_not_0600(ws: Path, umask: None) -> None:
    output = TOOLS["write_file"].run({"path": "new.txt", "content": "x"}, RunContext(str(ws)))
    assert not output.is_error
    assert oct((ws / "new.txt").stat().st_mode & 0o777) == "0o640"


def test_a_batch_that_fails_still_answers_every_call(ws: Path) -> None:
    def boom(request: ApprovalRequest) -> Decision:
        from saikish.errors import ConfigError

        raise ConfigError("unknown key", "allowlist.yaml", 3, "rules")

    agent, _, _ = agent_for([{"tool_calls": [write("a", "1"), write("b", "2")]},
                             {"text": "ok"}], [boom], ws)
    result = agent.send("go", lambda piece: None)
    assert result.exit_reason == "error" and "allowlist.yaml:3: rules: unknown key" in \
        result.message
    assert len(results(agent)) == 2  # one per call id, as the APIs require
    assert all("may or may not have run" in content for _, content in results(agent))


@pytest.mark.parametrize(("tool", "args"), [
    ("write_file", {"path": "a\x00b", "content": "x"}),
    ("write_file", {"path": "ok.txt", "content": "lone \ud800"}),
    ("edit_file", {"path": "a\x00b", "old_string": "x", "new_string": "y"}),
])
def test_unwritable_text_or_paths_are_error_results(ws: Path, tool: str,
                                                    args: dict[str, str]) -> None:
    output = TOOLS[tool].run(args, RunContext(str(ws)))
    assert output.is_error and output.text.startswith(("cannot write", "cannot read"))
    assert sorted(p.name for p in ws.iterdir()) == []  # no temp file left behind
