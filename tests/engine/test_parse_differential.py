"""The shell analysis checked against real bash (docs/SPEC.md §4.2, issue 21 item 1).

Scripts come from a small grammar (hypothesis): simple commands whose words use every
kind of quoting, joined by `;` `&&` `||` `|` `&` and newlines, in subshells, groups,
`$( )`, backticks, if/for/while/case and functions, with here-documents under every
delimiter spelling, here-strings, `[[ ]]`, `(( ))`, arrays, assignments and
redirections. Bash runs each one with every command name defined as a function that
logs its name, its argv and what it read on stdin (NUL-separated) to a file of its own; the test
compares that with what `analyse()` extracts:

- every command bash ran is one the analysis found, with the same static words;
- the analysis finds no command that is not in the script (a here-document body read as
  code, a rewrite that ended in the wrong place);
- what a command read from a here-document or here-string is the body the analysis saw;
- every file a redirection created is a write the analysis found.

Each disagreement the generator found is a fixed row in DIFFERENTIALS below, asserting
the part that blocks and why through `decide()`. Nothing in the generated scripts
touches anything outside a temporary directory: every command name is a function.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saikish.engine.bash.shell import ShellAnalysis, SimpleCommand, analyse, mentions_escalation
from saikish.engine.policy import Context, RuleSet, decide
from saikish.engine.tiers import Containment
from saikish.rules import parse_rule
from saikish.tools import builtin_tools
from saikish.types import Tier, ToolCall

# Command names the generator uses; each is a logging function in bash.
NAMES = ("aa", "bb", "cc", "sudo")
# What the analysis may report beyond the script's own commands: `[[ ]]` is read as
# `test`, a bare redirection or `(( ))` as `:`, a function definition's call by its name.
SYNTHETIC = frozenset({"test", ":", "f1", "true", "break"})
UNREADABLE = "it uses shell syntax saikish cannot read"
# Opaque reasons that say the words were not read (the call is never verified, and the
# raw text is scanned for escalation): only that fail-closed part is compared.
NOT_READ = (UNREADABLE, "a line continuation inside a command substitution")
# Commands the rows below name, defined as logging functions too (a function wins over a
# builtin and a program of the same name: nothing real runs).
ROW_NAMES = ("cat", "curl", "echo", "id")
LOGGER = """\
log_() {
  local name=$1; shift
  local input=
  if [ ! -t 0 ]; then input=$(command cat; builtin printf x); input=${input%x}; fi
  # A file per call: the commands of a pipeline log at the same time, and records they
  # appended to one file were seen interleaved.
  log_n=$((log_n + 1))
  builtin printf '%s\\0' "$name" "$input" "$@" > "$SAIKISH_LOG/$BASHPID.$log_n"
}
"""
PRELUDE = LOGGER + "".join(f'{n}() {{ log_ {n} "$@"; }}\n' for n in NAMES + ROW_NAMES)


# -- the grammar ------------------------------------------------------------------------

WORDS = [
    "x1", "'a b'", '"c d"', "e\\ f", "g'h'\"i\"", "$'j\\x41k'", '$"l"', "'$m'",
    '"n$v1"', "\\;o", "'p|q'", "\"r'\"", "']]'", "'))'", "'EOF'", "s\\\\t", "u=w", "--x",
    '"$v1"', "\"$(bb y)\"", "'sudo'", "'<<EOF'", "\\\"", "''", "{a,b}", "'#'", "z#",
    "${v1:-dflt}", "\\$v1",
]
DELIMITERS = [
    ("EOF", "EOF", False), ("'EOF'", "EOF", True), ('"EOF"', "EOF", True),
    ("\\EOF", "EOF", True), ('E"O"F', "EOF", True), ("E'O'F", "EOF", True),
    ("$'EOF'", "EOF", True), ('$"EOF"', "EOF", True), ("$'E\\x4fF'", "EOF", True),
    ("E$'O'F", "EOF", True), ("'E O'", "E O", True), ("END_1", "END_1", False),
]
BODIES = ["hello", "sudo id", "cc from body", "a 'q' \"d\"", "$v1 and `bb z`", "EOF x",
          "  EOF", "$(bb w)", "\\$v1"]


@st.composite
def simple(draw: st.DrawFn) -> str:
    """One simple command: assignments, a name, words, redirections."""
    parts = []
    if draw(st.booleans()) and draw(st.booleans()):
        parts.append(draw(st.sampled_from(["V=1", "v1=q", "W='x y'"])))
    parts.append(draw(st.sampled_from(NAMES)))
    parts += draw(st.lists(st.sampled_from(WORDS), max_size=3))
    redirect = draw(st.sampled_from(["", "", "", "> o1", ">> o2", "2> o3", "< /dev/null",
                                     "<<< x1", "<<< 'h s'", '<<< "$v1"', ">o4 2>&1"]))
    if redirect:
        parts.append(redirect)
    return " ".join(parts)


@st.composite
def heredoc(draw: st.DrawFn) -> str:
    """A command fed a here-document; ends with a newline (the body follows its line)."""
    spelled, delimiter, _quoted = draw(st.sampled_from(DELIMITERS))
    strip = draw(st.booleans())
    body = draw(st.lists(st.sampled_from(BODIES), min_size=0, max_size=3))
    lead = "\t" if strip else ""
    lines = [f"{lead}{line}" for line in body]
    command = draw(simple())
    return f"{command} <<{'-' if strip else ''}{spelled}\n" + "".join(
        f"{line}\n" for line in lines) + f"{lead}{delimiter}\n"


def compound(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Constructs that hold other commands."""
    return st.one_of(
        st.builds(lambda a: f"{{ {a}; }}", inner),
        st.builds(lambda a: f"( {a} )", inner),
        st.builds(lambda a, b: f'{a} "$({b})"', st.sampled_from(NAMES), inner),
        st.builds(lambda a, b: f"{a} `{b}`", st.sampled_from(NAMES), simple()),
        # where bashlex ends a substitution or its word elsewhere than bash
        st.builds(lambda a, b: f"{a} $({a} <<EOF\n)\nEOF\n{b}\n)", st.sampled_from(NAMES),
                  simple()),
        st.builds(lambda a, b: f"{a} $({a} x#y)\n{b}\n)", st.sampled_from(NAMES), simple()),
        # between single-quoted parts (bashlex reads 'x'...'y' as one quoted string)
        st.builds(lambda a, b: f"{a} 'x'$({b})'y'", st.sampled_from(NAMES), inner),
        st.builds(lambda a, b: f"{a} 'x'`{b}`\"'y'\"", st.sampled_from(NAMES), simple()),
        st.builds(lambda a, b: f"if {a}; then {b}; fi", simple(), inner),
        st.builds(lambda a: f"for v1 in p 'q r'; do {a}; done", inner),
        st.builds(lambda a: f"while aa; do {a}; break; done", inner),
        st.builds(lambda w, a: f"case {w} in x1|'a b') {a};; *) {a};; esac",
                  st.sampled_from(["x1", "'a b'", '"$v1"', "zz"]), inner),
        st.builds(lambda a: f"f1() {{ {a}; }}; f1", inner),
        st.builds(lambda a: f"time {a}", inner),
        st.builds(lambda a: f"! {a}", inner),
        st.builds(lambda a: f"{a} # sudo x ; bb", inner),
        st.builds(lambda a: f"{a} x\\\nsudo y", simple()),
        st.builds(lambda a, b: f"{a} \"$({b} <<'EOF'\nsudo\nEOF\n)\"", st.sampled_from(NAMES),
                  simple()),
        st.builds(lambda c, a: f"[[ {c} ]] && {a}",
                  st.sampled_from(["x1 == x1", "-n x1", "a < b", "x1 =~ x.", "x1 == ']]'",
                                   "( -n a ) && -z ''", "$(bb t) == x", "$(bb ']]') == x",
                                   "x == \\]\\]", "x1 =~ ]]", "\"]]\" == x",
                                   "-n `bb ']]'`"]), inner),
        st.builds(lambda c, a: f"(( {c} )) && {a}",
                  st.sampled_from(["1", "2 > 1", "v2 = 3", "(1)", "1 ? 1 : 0",
                                   "$(bb '))') + 1", "1 + $(bb x)", "\"1\" + 1",
                                   "a[$(bb k)] = 1"]), inner),
        st.builds(lambda c, a: f"arr={c}; {a}",
                  st.sampled_from(["(a b)", "('x )' y)", "([1]=x [2]=y)", "()",
                                   '("a b" c)', "(a # c\n)", "([$(bb k)]=1)", "(\\) x)",
                                   '(")" $(bb ")"))', "(`bb z`)", "(x) ; aa"]), inner),
    )


LISTS = st.recursive(
    simple(),
    lambda inner: st.one_of(
        compound(inner),
        st.builds(lambda a, op, b: f"{a} {op} {b}", inner,
                  st.sampled_from([";", "&&", "||", "|", "&", "\n"]), inner)),
    max_leaves=5)


@st.composite
def scripts(draw: st.DrawFn) -> str:
    """A whole script: lists and here-documents, one per line."""
    lines = draw(st.lists(st.one_of(LISTS, heredoc()), min_size=1, max_size=3))
    return "\n".join(line.rstrip("\n") for line in lines) + "\n"


# -- bash's answer ------------------------------------------------------------------------

@dataclass(frozen=True)
class Ran:
    """One command bash ran: its name, words and what it read on stdin."""

    argv: tuple[str, ...]
    stdin: str


@dataclass(frozen=True)
class Truth:
    """What bash did with a script."""

    ran: tuple[Ran, ...]
    created: frozenset[str]


def bash_runs(script: str) -> Truth | None:
    """Run `script` under bash with logging functions; None when bash rejects its syntax."""
    checked = subprocess.run(["bash", "-n"], input=script, text=True, capture_output=True,
                             check=False, timeout=60)
    if checked.returncode != 0:
        return None
    with tempfile.TemporaryDirectory(prefix="saikish-diff-") as scratch:
        log = Path(scratch, ".log")
        log.mkdir()
        Path(scratch, ".script").write_text(PRELUDE + script + "\nwait\n")
        env = {"PATH": os.environ["PATH"], "SAIKISH_LOG": str(log), "HOME": scratch,
               "LC_ALL": "C"}
        subprocess.run(["bash", "--norc", "--noprofile", ".script"], cwd=scratch, env=env,
                       stdin=subprocess.DEVNULL, capture_output=True, check=False, timeout=60)
        created = frozenset(n for n in os.listdir(scratch) if not n.startswith("."))
        records = [entry.read_bytes().decode().split("\0") for entry in sorted(log.iterdir())]
    ran = tuple(Ran((fields[0], *fields[2:-1]), fields[1]) for fields in records)
    return Truth(ran, created)


# -- the comparison -------------------------------------------------------------------------

def matches(found: SimpleCommand, ran: Ran) -> bool:
    """True when `found` is the command bash ran, word for word where its words are static
    (a word with an expansion, a glob or a brace may become any number of words)."""
    if found.argv[:1] != ran.argv[:1]:
        return False
    return _words_match(found.argv[1:], ran.argv[1:])


def _words_match(found: Sequence[str], ran: Sequence[str]) -> bool:
    if not found:
        return not ran
    if any(c in found[0] for c in "$`*?[{~"):
        return any(_words_match(found[1:], ran[k:]) for k in range(len(ran) + 1))
    return bool(ran) and found[0] == ran[0] and _words_match(found[1:], ran[1:])


def disagreements(script: str, truth: Truth, analysis: ShellAnalysis) -> list[str]:
    """How the analysis differs from what bash did (empty when they agree).

    Text the parser could not read at all is opaque (never verified, asked or contained):
    then only the fail-closed part is checked, that an escalation bash ran is seen in the
    raw text (policy rejects it by that)."""
    found = analysis.commands
    if any(reason in analysis.opaque for reason in NOT_READ):
        hidden = any(r.argv[0] == "sudo" for r in truth.ran)
        return ["bash ran sudo, the raw text scan missed it"] if hidden and \
            mentions_escalation(script) is None else []
    wrong = [f"bash ran {r.argv!r}, the analysis did not find it" for r in truth.ran
             if not any(matches(f, r) for f in found)]
    wrong += [f"the analysis found {f.argv!r}, which is not in the script" for f in found
              if f.argv and f.name not in NAMES and f.name not in SYNTHETIC
              and not f.name.endswith("=...")]
    for ran in truth.ran:
        fed = [f.feed for f in found if matches(f, ran)]
        if ran.stdin and fed and None not in fed and \
                ran.stdin.rstrip("\n") not in (b.rstrip("\n") for b in fed if b is not None):
            wrong.append(f"{ran.argv!r} read {ran.stdin!r}; the analysis saw {fed!r}")
    written = {os.path.basename(t.path) for f in found for t in f.writes}
    wrong += [f"a redirection created {name}, the analysis found no write of it"
              for name in sorted(truth.created - written)]
    return wrong


@settings(max_examples=250, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(scripts())
def test_the_analysis_finds_what_bash_runs(script: str) -> None:
    truth = bash_runs(script)
    if truth is None:
        return  # bash itself rejects the text: nothing to compare
    analysis = analyse(script)
    wrong = disagreements(script, truth, analysis)
    assert not wrong, f"{script!r}\n" + "\n".join(wrong)


# -- the rows: each differential found, fixed -------------------------------------------------

HELD = Containment(sandbox=True, checkpoints=True)
WORKSPACE = "/srv/project"


def judge(command: str):  # type: ignore[no-untyped-def]
    ctx = Context(builtin_tools(), RuleSet(), workspace=WORKSPACE, containment=HELD)
    return decide(ToolCall("1", "bash", {"command": command}), ctx)


@dataclass(frozen=True)
class Row:
    """A script the analysis once misread: the tier it must end in, the part that blocks
    it (a word of the reason) and why."""

    command: str
    tier: Tier
    part: str
    why: str


R = Row
REJECTED, ASKED, CONTAINED = Tier.REJECTED, Tier.ASKED, Tier.CONTAINED
SUDO = "never run by saikish"
NETWORK = "reaches the network"
DIFFERENTIALS: Sequence[Row] = (
    # Here-document delimiters: bash 5.2 removes quotes from the word as from any word,
    # decodes $'...' and reads $"..." as "..." (the pre-parser took `$'EOF'` for `$EOF`,
    # and the body ran to the end of the text, hiding every command after it).
    R("cat <<$'EOF'\nhi\nEOF\nsudo id", REJECTED, "sudo", SUDO),
    R('cat <<$"EOF"\nhi\nEOF\nsudo id', REJECTED, "sudo", SUDO),
    R("cat <<E$'O'F\nhi\nEOF\nsudo id", REJECTED, "sudo", SUDO),
    R("cat <<$'E\\x4fF'\nhi\nEOF\nsudo id", REJECTED, "sudo", SUDO),
    R("cat <<$'EOF'\nhi\nEOF\ncurl https://example.com", ASKED, "curl", NETWORK),
    R('cat <<-E"O"F\n\thi\n\tEOF\ncurl https://example.com', ASKED, "curl", NETWORK),
    # A line continuation joins the delimiter word (`'E'\\` + `OF` is EOF): the cut body
    # does not sit where bashlex expects it, so nothing is read as verified.
    R("cat <<'E'\\\nOF\nhi\nEOF\ncurl https://example.com\nE\n", CONTAINED,
      "cannot be fully analysed", "shell syntax saikish cannot read"),
    # `<<-` strips the tabs of a quoted body too (the body read was the tabbed text).
    R("cat <<-'EOF'\n\thi\n\tEOF\nsudo id", REJECTED, "sudo", SUDO),
    # Backticks: bash removes the backslash before \\, $ and ` before reading the script.
    R("echo `s\\\\udo id`", REJECTED, "sudo", SUDO),
    # bashlex cannot read an escaped $( in backticks: not read, so contained (no network).
    R("echo `echo \\$(curl https://example.com)`", CONTAINED, "cannot be fully analysed",
      "shell syntax saikish cannot read"),
    # An unquoted here-document body runs its $( ) and backticks: found, and opaque.
    R("cat <<EOF\n$(sudo id)\nEOF", REJECTED, "sudo", SUDO),
    R("cat <<EOF\n`curl https://example.com`\nEOF", ASKED, "here-document", NETWORK),
    # Array literals and arithmetic the pre-parser replaces: what their $( ) runs is
    # analysed (an array key is arithmetic: a=([$(cmd)]=1) runs cmd).
    R("a=([$(sudo id)]=1)", REJECTED, "sudo", SUDO),
    R('arr=(")" $(curl https://example.com))', ASKED, "array", NETWORK),
    R("(( a[$(curl -s https://example.com)] = 1 ))", ASKED, "arithmetic", NETWORK),
    R("echo $(( 1 + $(curl https://example.com) ))", ASKED, "arithmetic", NETWORK),
    R("arr=('x )' y); curl https://example.com", ASKED, "curl", NETWORK),
    # `$(((` with no `))` pair at its end is a substitution holding a subshell, not
    # arithmetic: its commands were read as an arithmetic expression.
    R('echo "$((( 1 )) ; sudo id)"', REJECTED, "sudo", SUDO),
    R("echo $((( 1 )) ; curl https://example.com)", ASKED, "curl", NETWORK),
    # The `))` that ends arithmetic is not one inside quotes in a substitution in it.
    R("(( $(echo '))') + 1 )) && sudo id", REJECTED, "sudo", SUDO),
    R("(( $(curl https://example.com/'))') + 1 ))", ASKED, "arithmetic", NETWORK),
    # [[ ]] ends at its own ]], not at one inside quotes or a substitution.
    R("[[ x == ']]' ]]; sudo id", REJECTED, "sudo", SUDO),
    R("[[ $(echo ']]') == x ]] && curl https://example.com", ASKED, "curl", NETWORK),
    # A line continuation inside $( ): bashlex's positions then point into the joined text,
    # so the words re-read from the source were wrong (`sudo x\\<newline>sudo y` gave `xsu`).
    R('echo "$(printf x\\\nfoo y)"', CONTAINED, "cannot be fully analysed",
      "a line continuation inside a command substitution"),
    R('echo "$(sudo x\\\nsudo y)"', REJECTED, "sudo", SUDO),
    # What bashlex reads only after a rewrite is never verified (contained at most).
    R("[[ -f x ]] && cat README.md", CONTAINED, "rewrite of [[ ]]", "not verified"),
    R("cat <<'EOF'\nhi\nEOF", CONTAINED, "rewrite of a quoted here-document", "not verified"),
    R("echo $((6 * 7))", CONTAINED, "rewrite of arithmetic", "not verified"),
    R("a=(x y); echo ok", CONTAINED, "rewrite of an array literal", "not verified"),
    R("case x in x) cat README.md;; esac", CONTAINED, "rewrite of a case statement",
      "not verified"),
)


@pytest.mark.parametrize("row", DIFFERENTIALS, ids=lambda r: repr(r.command)[:60])
def test_each_differential_found_is_fixed(row: Row) -> None:
    found = judge(row.command)
    assert found.tier is row.tier, found.reason
    assert row.part in found.reason and row.why in found.reason, found.reason
    truth = bash_runs(row.command)
    assert truth is not None
    analysis = analyse(row.command)
    missed = [r.argv for r in truth.ran if not any(matches(f, r) for f in analysis.commands)]
    assert not missed or any(reason in analysis.opaque for reason in NOT_READ), \
        f"bash ran {missed}, the analysis did not find it"


def test_a_rule_does_not_lift_a_rewrite_to_run_outside_the_sandbox() -> None:
    """A rule allowing curl verifies `curl URL`, but not on a rewrite: curl needs the
    network the sandbox does not give, so a person is asked."""
    rules = RuleSet(config_allow=(parse_rule("Bash(curl *)", "test"),))
    ctx = Context(builtin_tools(), rules, workspace=WORKSPACE, containment=HELD)
    plain = decide(ToolCall("1", "bash", {"command": "curl https://example.com"}), ctx)
    assert plain.tier is Tier.VERIFIED, plain.reason
    found = decide(ToolCall("1", "bash", {"command": "[[ -n x ]] && curl https://example.com"}),
                   ctx)
    assert found.tier is Tier.ASKED, found.reason
    assert "rewrite of [[ ]]" in found.reason and NETWORK in found.reason, found.reason


def test_substitutions_nested_past_the_bound_are_opaque() -> None:
    """Each `"$(` level is rewritten as a script of its own, which scans to its end: past
    a fixed depth the rest is left to bashlex and the call is opaque (no quadratic work)."""
    text = "[[ x ]]; " + 'echo "$(' * 2_000 + "sudo id"  # [[ ]]: the rewriter runs
    assert "command substitutions nested too deep to analyse" in analyse(text).opaque
    assert judge(text).tier is Tier.REJECTED
