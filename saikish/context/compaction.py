"""Compaction (docs/SPEC.md §10.3): older turns become the model's own summary; recent
turns stay word for word, and a tool call is never parted from its result.

Pure apart from `summarize`, which asks a model through the function it is given.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from saikish.context.tokens import CHARS_PER_TOKEN, message_tokens, messages_tokens
from saikish.models.base import AssistantMessage, Message, ToolResults, UserMessage

SUMMARY_SYSTEM = (
    "You write the working notes of a coding agent. The agent's context window is full, "
    "so the older part of its conversation with a person is replaced by your summary. "
    "Write what the agent needs to carry on: the person's requests (the latest one word "
    "for word), decisions and preferences, files read or changed and how, commands run "
    "and what they showed, calls the person rejected and why, open questions, and what "
    "remains to be done. Be concrete and brief; plain text or Markdown, no preamble.")
HEADER = "[saikish: the earlier part of this conversation was compacted; your summary of it:]"
RESULT_CHARS = 2000  # of one tool result in the summariser's input
TEXT_CHARS = 8000  # of one message's text in it
NOTE = 200  # characters a cut's note takes, about


@dataclass(frozen=True)
class Plan:
    """What a compaction does: `older` is summarised, `kept` stays (results in `shortened`
    cut to fit)."""

    older: tuple[Message, ...]
    kept: tuple[Message, ...]
    shortened: Mapping[str, str] = field(default_factory=dict)  # call id -> content


def plan(messages: Sequence[Message], keep: int) -> Plan | None:
    """Keep the longest recent part within `keep` estimated tokens that starts where no
    result is parted from its call; None when there is nothing older to summarise."""
    starts = {i for i in range(1, len(messages)) if not isinstance(messages[i], ToolResults)}
    if not starts:
        return None
    chosen = max(starts)  # at least the last step is kept, however big
    size = 0
    for i in range(len(messages) - 1, 0, -1):
        size += message_tokens(messages[i])
        if size > keep:
            break
        if i in starts:
            chosen = i
    kept, shortened = shorten(messages[chosen:], keep)
    return Plan(tuple(messages[:chosen]), tuple(kept), shortened)


def shorten(messages: Sequence[Message], budget: int) -> tuple[list[Message], dict[str, str]]:
    """`messages` with their longest tool results cut until they fit `budget` tokens."""
    out = list(messages)
    shortened: dict[str, str] = {}
    while (excess := messages_tokens(out) - budget) > 0:
        longest = max(((len(r.content), i, r) for i, m in enumerate(out)
                       if isinstance(m, ToolResults) for r in m.results),
                      default=None, key=lambda item: item[0])
        if longest is None:
            break
        size, index, result = longest
        # The note the cut adds takes room too; the cut must gain, or it is the last.
        content = cut_result(result.content, max(size - excess * CHARS_PER_TOKEN - NOTE, NOTE),
                             "compacting")
        if len(content) >= size:
            break  # nothing left worth cutting: the plan keeps what it must
        shortened[result.call_id] = content
        out[index] = replace_result(out[index], result.call_id, content)
    return out, shortened


def replace_result(message: Message, call_id: str, content: str) -> Message:
    """`message` (a ToolResults) with one result's content replaced."""
    if not isinstance(message, ToolResults):
        return message
    return ToolResults(tuple(replace(r, content=content) if r.call_id == call_id else r
                             for r in message.results))


def cut_result(content: str, chars: int, why: str) -> str:
    """`content` cut to about `chars` characters: its head and tail, and a note in between."""
    if len(content) <= chars:
        return content
    head, tail = chars * 2 // 3, chars // 3
    return (f"{content[:head]}\n[saikish: {len(content) - head - tail} characters cut here "
            f"({why}): the model's context window is too small for the whole result]\n"
            f"{content[len(content) - tail:]}")


def render(messages: Sequence[Message]) -> list[str]:
    """The conversation as lines of text for the summariser (long parts shortened)."""
    lines = []
    for message in messages:
        if isinstance(message, UserMessage):
            lines.append(f"[person] {_short(message.text, TEXT_CHARS)}")
        elif isinstance(message, AssistantMessage):
            if message.turn.text:
                lines.append(f"[agent] {_short(message.turn.text, TEXT_CHARS)}")
            lines += [f"[agent calls {c.name}] {_short(_arguments(c.wire_arguments), 1000)}"
                      for c in message.turn.tool_calls]
        else:
            lines += [f"[result of {r.name}{' (error)' if r.is_error else ''}] "
                      f"{_short(r.content, RESULT_CHARS)}" for r in message.results]
    return lines


def chunks(lines: Sequence[str], budget: int) -> list[str]:
    """`lines` joined into pieces of at most `budget` estimated tokens each."""
    limit = max(budget * CHARS_PER_TOKEN, 400)
    out: list[str] = []
    current = ""
    for line in lines:
        line = _short(line, limit - 1)
        if current and len(current) + len(line) + 1 > limit:
            out.append(current)
            current = ""
        current = f"{current}\n{line}" if current else line
    return [*out, current] if current else out


Ask = Callable[[str, str], str]  # (system, prompt) -> the model's text


def summarize(ask: Ask, older: Sequence[Message], budget: int, focus: str = "") -> str:
    """The model's summary of `older`, read in pieces of `budget` tokens, each summary
    carried into the next."""
    summary = ""
    wanted = f"\n\nThe person asks the summary to focus on: {focus}" if focus else ""
    for piece in chunks(render(older), budget):
        before = f"Your summary of what came before:\n{summary}\n\n" if summary else ""
        summary = ask(SUMMARY_SYSTEM, f"{before}The conversation to summarise:\n{piece}"
                                      f"{wanted}").strip() or summary
    return summary


def fallback(older: Sequence[Message], why: str) -> str:
    """When no summary could be written: what the person asked, so the goal is not lost."""
    asked = [f"- {_short(m.text, 500)}" for m in older if isinstance(m, UserMessage)]
    return (f"(No summary: the model could not write one: {why}. The older turns were "
            f"dropped. The person's requests in them were:)\n" + "\n".join(asked[-20:]))


def summary_message(summary: str) -> UserMessage:
    """The message that stands for the compacted turns."""
    return UserMessage(f"{HEADER}\n\n{summary}")


def _short(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f" …[{len(text) - limit} more]"


def _arguments(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
