"""Text from the model or from tools, made inert before it reaches the terminal.

rich passes escape sequences through untouched, so a tool call holding
ESC [2J or an OSC title sequence could clear or retitle the terminal, and a
bidi override could make a command read differently from what runs. Every
such character is shown as a visible escape instead.
"""

from __future__ import annotations

import re

_BIDI_AND_INVISIBLE = "\u061c\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e" \
                      "\u2060\u2066\u2067\u2068\u2069\ufeff"
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI_AND_INVISIBLE}]")


def inert(text: str) -> str:
    """`text` with control, bidi and invisible characters shown as \\xNN / \\uNNNN."""
    return _UNSAFE.sub(_visible, text)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
