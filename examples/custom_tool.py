"""Your own tools from plain functions (docs/SPEC.md §7.3).

`@tool` builds the JSON schema the model sees from the signature, the type
hints and the docstring. `risk=` says what a call can do (read-only tools run
without asking under the default autonomy); `requires_confirmation=True`
always asks; `ctx.confirm(...)` asks from inside a running tool, through the
same approver, timeout, audit and `--auto-deny` as any call.

    python examples/custom_tool.py                 # offline: a scripted model
    python examples/custom_tool.py -m openai:gpt-4.1-mini
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Literal

from saikish import Agent, ApprovalRequest, CallFinished, Decision, Source, ToolContext, tool
from saikish.models.script import ScriptModel, parse_turns


@tool(risk="read_only")
def word_count(path: str, ctx: ToolContext) -> str:
    """Count the words in a text file.

    Args:
        path: the file, relative to the workspace
    """
    return str(len((Path(ctx.workspace) / path).read_text(encoding="utf-8").split()))


@tool(requires_confirmation=True)
def deploy(env: Literal["staging", "prod"], ctx: ToolContext) -> str:
    """Deploy the current build to an environment."""
    if env == "prod" and not ctx.confirm("Really deploy to prod?", payload={"env": env}):
        return "not deployed: the person said no"
    return f"deployed to {env}"


class AskOnStdin:
    """Shows each question (a call, or a tool's own ctx.confirm) and reads y/n."""

    def ask(self, request: ApprovalRequest) -> Decision:
        """y approves; anything else rejects this call only."""
        question = request.message or f"run {request.call.name}?"
        print(f"{question} {json.dumps(request.call.wire_arguments)} [y/N] ", end="",
              flush=True)
        if sys.stdin.readline().strip().lower() == "y":
            return Decision.approve(Source.USER)
        return Decision.reject_soft(Source.USER, "the person said no")


DEMO = [
    {"text": "Counting first.", "tool_calls": [
        {"name": "word_count", "arguments": {"path": Path(__file__).name}}]},
    {"text": "Now deploying.", "tool_calls": [{"name": "deploy", "arguments": {"env": "prod"}}]},
    {"text": "All done."},
]


def main(argv: list[str] | None = None) -> int:
    """Run the demo conversation (or a real model) with the two tools."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--model", help="a model spec; default: a scripted demo")
    args = parser.parse_args(argv)
    model = args.model or ScriptModel(parse_turns(DEMO, "custom_tool demo"))
    agent = Agent.create(model=model, tools=[word_count, deploy], approver=AskOnStdin(),
                         workspace=Path(__file__).parent)
    agent.send("count the words in custom_tool.py, then deploy to prod")
    for event in agent.events():
        if isinstance(event, CallFinished):
            print(f"{event.call.name}: {event.result.content}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
