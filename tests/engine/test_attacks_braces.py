"""Attacks by brace expansion and by words that expand to several (docs/SPEC.md §4.2).

bash expands `{a,b}` and `{1..3}` before anything else, and an unquoted glob or `$x` may
be several words: `git config core.{fsmonitor,x}` is two operands, `.en{v..v}` is `.env`,
`uniq *.txt` writes its second file. The engine reads the words bash makes (the braces
module, checked against the real bash below); where it cannot, the call is not verified.

Rows, holes and what each asserts: tests/support/attacks.py.
"""

from __future__ import annotations

import re
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saikish.engine.bash.braces import expand
from saikish.engine.bash.shell import analyse
from saikish.engine.bash.words import unquote
from saikish.types import Autonomy, Verdict
from saikish.types import ReasonKind as Why
from tests.support.attacks import RUNS, A, Attack, assert_blocked, assess, context, explain, params

ROWS = [
    # A git hook named by the second word the braces make (the red team ran `id` this way).
    A("git config core.{fsmonitor,'x;id>pwned'}", "git config core.fsmonitor", Why.UNKNOWN,
      RUNS),
    A("s{u,}do id", "sudo", Why.ESCALATION, RUNS),
    A("find . {-delete,-true}", "find . -delete -true", Why.WRITES, "cs"),
    A("uniq {a,b}.txt", "uniq a.txt b.txt", Why.WRITES),
    A("xxd in{,.out}", "xxd in in.out", Why.WRITES),
    A("cat .en{v..v}", "reads .env", Why.SECRET, RUNS),
    A("cat .e{n,n}v", "reads .env", Why.SECRET, RUNS),
    A("for f in .en{v..v}; do cat $f; done", "reads .env", Why.SECRET, RUNS),
    A("grep {.,/root/.ssh/id_rsa}", "reads /root/.ssh/id_rsa", Why.SECRET, RUNS),
    A("look {S,/root/.ssh/id_rsa}", "reads /root/.ssh/id_rsa", Why.SECRET, RUNS),
    A("echo x >> ~/.bashr{c..c}", "> ~/.bashrc", Why.WRITES, "cs"),
    A("echo x > {a,b}", "brace expansion makes several words", Why.UNKNOWN, RUNS),
    A("echo {Z..a}", "a brace expansion saikish does not follow", Why.UNKNOWN, RUNS),
    # A glob or an unquoted $x is as many operands as it matches or splits into.
    A("uniq *.txt", "uniq *.txt", Why.DYNAMIC, RUNS),
    A("xxd in*", "xxd in*", Why.DYNAMIC, RUNS),
    A('x="-r . /root/.ssh"; grep $x', "reads $x", Why.DYNAMIC, RUNS),
    A("jq $x", "reads $x", Why.DYNAMIC, RUNS),
    A("uniq $f", "uniq $f", Why.DYNAMIC, RUNS),
    # ...also as an option's value: the words after the first are more options (red team).
    A('y="x -delete"; find . -name $y', "find . -name $y", Why.DYNAMIC, RUNS),
    A("find . -maxdepth $y", "find . -maxdepth $y", Why.DYNAMIC, RUNS),
    A("awk -F $y '{print}' data", "awk -F $y", Why.DYNAMIC, RUNS),
    A("head -n $y", "head -n $y", Why.DYNAMIC, RUNS),
    A("find . -name *", "find . -name *", Why.DYNAMIC, RUNS),
    # A comment inside "$( )" must not hide the $y after it.
    A('find . -name "$(echo x # it\'s\n)"$y', "find . -name", Why.DYNAMIC, RUNS),
    # Braces beside a substitution: bash expands them, saikish does not follow.
    A("find . -name {$(echo)x}y,-o,-delete}", "brace expansion saikish does not follow",
      Why.UNKNOWN, RUNS),
    A("find . -name {x}y$(echo),-delete}", "brace expansion saikish does not follow",
      Why.UNKNOWN, RUNS),
]


@pytest.mark.parametrize(("row", "autonomy"), params(ROWS))
def test_attack_is_blocked_by_the_part_it_names(row: Attack, autonomy: Autonomy) -> None:
    """Under the permissive prefix rules people write (tests/support/attacks.py)."""
    assert_blocked(row, context(autonomy))


# Everyday forms: decided as the words bash makes of them, quietly.
QUIET = [
    ("ls {src,tests}", ["ls", "src", "tests"]),
    ("cat file{1,2}.txt", ["cat", "file1.txt", "file2.txt"]),
    ("{ls,-la} x", ["ls", "-la", "x"]),
    ("echo {1..3} {a..c}", ["echo", "1", "2", "3", "a", "b", "c"]),
    ("echo {08..10} {5..1..2} {1..a}", ["echo", "08", "09", "10", "5", "3", "1", "{1..a}"]),
    ("echo x{,}", ["echo", "x", "x"]),
    ("echo {,}", ["echo"]),
    ("echo '{a,b}' ${HOME} {x}", ["echo", "{a,b}", "${HOME}", "{x}"]),
    ("grep foo *.txt", ["grep", "foo", "*.txt"]),
    ('grep "$x" file', ["grep", "$x", "file"]),
]


@pytest.mark.parametrize(("command", "argv"), QUIET)
def test_everyday_braces_and_globs_stay_quiet(command: str, argv: list[str]) -> None:
    found = assess(command, context())
    assert found.verdict is Verdict.ALLOW, explain(found)
    assert list(analyse(command).commands[0].argv) == argv


# Words rich in braces, commas, quotes, escapes, sequences and parameters.
_PIECE = st.sampled_from(["a", "b", "1", ",", "{", "}", "..", "'", '"', "\\,", "\\{", "$",
                          "${a}", "x", "-", "'{a,b}'", '"x,y"', "{1..3}", "{a..c}", "{3..1}",
                          "{1..5..2}", "{01..3}", "{1..a}", "{x,y}", "{,}", "{a,{b,c}}",
                          "{-2..02}", "{+1..3}", "{a..e..2}", "{9..-1..-3}", "{Z..a}"])
_WORD = st.lists(_PIECE, min_size=1, max_size=8).map("".join)


@settings(max_examples=500, deadline=None)
@given(_WORD)
def test_brace_expansion_makes_the_words_bash_makes(text: str) -> None:
    """Differential test against the real bash: the words brace expansion makes of one
    word (then quote removal), or None where this module is unsure (never a wrong list)."""
    if text.endswith("\\") or re.search(r"\$['\"]", text):
        return  # a lone backslash at the end, $'..' and $"..": other rules, tested elsewhere
    texts = expand(text)
    if texts is None:
        return  # unsure: the call is not verified (asserted in ROWS above)
    if any(re.search(r"\$(?!a\b|\{a\})", t) for t in texts):
        return  # only $a is set ($$, $1 and the like are bash's own)
    # $a holds its own name: the words bash prints show where each expansion stood.
    shown = subprocess.run(["bash", "--norc", "--noprofile", "-c",
                            "set -f; a='$a'; printf '%s\\0' START " + text],
                           capture_output=True, env={"PATH": "/usr/bin:/bin"})
    if shown.returncode:
        return  # not one word to bash (an unbalanced quote, a bad substitution)
    words = [w.replace("${a}", "$a") for w in shown.stdout.decode().split("\0")[1:-1]]
    ours = [unquote(t).value.replace("${a}", "$a") for t in texts]
    assert ours == words, (text, texts, words)
