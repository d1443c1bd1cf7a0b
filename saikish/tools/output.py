"""Bounded capture of tool output: keep the head and the tail, count what was cut."""

from __future__ import annotations

import collections


class BoundedText:
    """Collects text, keeping at most `limit` characters: the start and the end."""

    def __init__(self, limit: int) -> None:
        self.limit = max(limit, 200)
        self._head_limit = self.limit // 2
        self._tail_limit = self.limit - self._head_limit
        self._head: list[str] = []
        self._head_size = 0
        self._tail: collections.deque[str] = collections.deque()
        self._tail_size = 0
        self.total = 0

    def add(self, text: str) -> None:
        """Append `text`; once over the limit, the middle is dropped."""
        self.total += len(text)
        room = self._head_limit - self._head_size
        if room > 0:
            self._head.append(text[:room])
            self._head_size += len(text[:room])
            text = text[room:]
        if text:
            self._tail.append(text)
            self._tail_size += len(text)
            while self._tail_size - len(self._tail[0]) >= self._tail_limit:
                self._tail_size -= len(self._tail.popleft())

    def render(self) -> str:
        """The kept text, with a note saying how much of the middle was cut."""
        head, tail = "".join(self._head), "".join(self._tail)
        if self.total <= self.limit:
            return head + tail
        tail = tail[-self._tail_limit:]
        cut = self.total - len(head) - len(tail)
        return f"{head}\n[... {cut} characters cut; the output had {self.total} ...]\n{tail}"


def truncate(text: str, limit: int) -> str:
    """`text` bounded to `limit` characters, with a note when cut."""
    bounded = BoundedText(limit)
    bounded.add(text)
    return bounded.render()
