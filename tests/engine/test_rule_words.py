"""A rule word's bracket set reads as bash reads it (saikish/rules.py): `[!a]` and `[^a]`
are "not a", every other character in the set is itself, never `re` set syntax."""

from __future__ import annotations

import warnings

import pytest

from saikish.rules import word_match


@pytest.mark.parametrize(("pattern", "word", "matches"), [
    ("[!a]b", "cb", True), ("[!a]b", "ab", False),
    ("[^a]b", "cb", True), ("[^a]b", "ab", False),  # deny rules must not narrow this
    ("[a^]", "^", True), ("[a-c]", "b", True), ("[a-c]", "d", False),
    ("[[]x", "[x", True),  # `re` reads "[[" as a nested set (FutureWarning)
    ("[&&b]", "&", True), ("[~~b]", "~", True), ("[||b]", "|", True),
    ("[\\]", "\\", True),
    ("x[ab]*", "xab", True),
])
def test_a_bracket_set_is_read_as_bash_reads_it(pattern: str, word: str,
                                                matches: bool) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a set `re` would one day read otherwise fails here
        assert word_match(word, pattern) is matches
