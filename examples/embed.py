"""Embed saikish in your own program, with your own approval UI (docs/SPEC.md §7.3).

The approver below lets plain reads inside the workspace through and asks on
stdin about everything else, saying why each call is asked: a read of
/etc/shadow or .env is read-only too, but its reasons say READS_OUTSIDE or
SECRET, so it is asked. Autonomy `manual` sends every call to it, so it sees
even `ls`; deny rules and escalation still reject before anyone is asked.

    python examples/embed.py -m openai:gpt-4.1-mini "what is in this directory?"
    python examples/embed.py -m script:session.yml "go"        # offline
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TextIO

from saikish import (
    Agent,
    ApprovalRequest,
    AskReason,
    Autonomy,
    CallDecided,
    Decision,
    Event,
    Source,
    TextDelta,
)


class ReadsOrAsk:
    """Approves plain reads inside the workspace; asks the person on `stdin` about the rest."""

    def __init__(self, stdin: TextIO, stdout: TextIO) -> None:
        self.stdin, self.stdout = stdin, stdout

    def ask(self, request: ApprovalRequest) -> Decision:
        """One call -> a Decision (the whole Approver protocol)."""
        # Not `assessment.risk is Risk.READ_ONLY`: reading ~/.ssh or .env is read-only too.
        if request.reasons == (AskReason.READS,):
            return Decision.approve(Source.USER)
        arguments = json.dumps(request.call.wire_arguments, ensure_ascii=False)
        why = ", ".join(reason.value for reason in request.reasons)
        self.stdout.write(f"\n{request.call.name} {arguments}\n"
                          f"  [{why}] {request.assessment.reason}; run it? [y/N] ")
        self.stdout.flush()
        if self.stdin.readline().strip().lower() in ("y", "yes"):
            return Decision.approve(Source.USER)
        return Decision.reject_soft(Source.USER, "the person said no")


def show(event: Event) -> None:
    """Print the answer as it streams, and one line per decision."""
    if isinstance(event, TextDelta):
        print(event.text, end="", flush=True)
    elif isinstance(event, CallDecided):
        print(f"\n[{event.decision.outcome.value} by {event.decision.source.value}] "
              f"{event.call.name} {json.dumps(event.call.wire_arguments)}")


def main(argv: list[str] | None = None) -> int:
    """Run one prompt; exit 0 when the agent finished."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-m", "--model", default="openai:gpt-4.1-mini")
    parser.add_argument("-w", "--workspace", default=".")
    parser.add_argument("prompt")
    args = parser.parse_args(argv)
    agent = Agent.create(model=args.model, approver=ReadsOrAsk(sys.stdin, sys.stdout),
                         workspace=args.workspace, autonomy=Autonomy.MANUAL)
    agent.subscribe(show)
    result = agent.send(args.prompt)
    print(f"\n-- {result.exit_reason}")
    return 0 if result.exit_reason == "finished" else 1


if __name__ == "__main__":
    sys.exit(main())
