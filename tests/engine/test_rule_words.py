"""A rule word's bracket set reads as bash reads it (saikish/rules.py): `[!a]` and `[^a]`
are "not a", every other character in the set is itself, never `re` set syntax."""

from __future__ import annotations

import warnings

import pytest

from saikish.engine.policy import Context, RuleSet, decide
from saikish.rules import parse_rule, word_match
from saikish.tools import builtin_tools
from saikish.types import Assessment, Autonomy, Mode, ReasonKind, Source, ToolCall, Verdict


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


def judge(command: str, mode: Mode = Mode.EVENT_BASED) -> Assessment:
    rules = RuleSet(config_deny=(parse_rule("Bash(rm -[rR]f *)", "test"),))
    return decide(ToolCall("1", "bash", {"command": command}),
                  Context(builtin_tools(), rules, Autonomy.FULL_AUTO, mode, "/srv/p"))


@pytest.mark.parametrize("command", ["rm -rf build", "rm -Rf build"])
def test_a_deny_rule_with_a_bracket_set_rejects_what_its_set_spells(command: str) -> None:
    found = judge(command)
    assert (found.verdict, found.source, found.reason_kind) == (
        Verdict.REJECT, Source.DENY_RULE, ReasonKind.RULE), found.reason


@pytest.mark.parametrize("command", ["rm -R -f build", "/bin/rm -fR build", "rm -fr build"])
def test_other_spellings_of_a_bracketed_deny_rule_are_never_run_unasked(command: str) -> None:
    """A glob in a deny rule's option word has no meaning to match (§4.7): a spelling it
    does not match may still be what the person meant, so it is asked, and rejected where
    nobody can be asked; the reason names the rule."""
    asked = judge(command)
    assert asked.verdict is Verdict.ASK and "deny rule Bash(rm -[rR]f *) could match" in \
        asked.reason, asked.reason
    rejected = judge(command, Mode.AUTO_APPROVE)
    assert (rejected.verdict, rejected.source) == (Verdict.REJECT, Source.MODE), rejected.reason
    assert "cannot be checked against the deny rules" in rejected.reason
