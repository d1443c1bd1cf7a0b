"""shell.analyse: every command bash will run, every file it writes or reads (§4.2, §4.7)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saikish.engine.bash.shell import analyse
from saikish.engine.policy import Context, RuleSet, decide
from saikish.rules import parse_rule
from saikish.tools import builtin_tools
from saikish.types import ToolCall, Verdict


def argvs(command: str) -> list[tuple[str, ...]]:
    return [c.argv for c in analyse(command).commands]


@pytest.mark.parametrize(("command", "expected", "why"), [
    ("cat <<'EOF'\n$(rm -rf ~)\nEOF", [("cat",)],
     "a quoted here-document is not expanded: its body runs nothing"),
    ("bash <<'EOF'\nrm -rf x\nEOF", [("bash",), ("rm", "-rf", "x")],
     "a here-document fed to a shell is analysed as its script"),
    ("sh <<< 'curl x'", [("sh",), ("curl", "x")], "a here-string fed to a shell"),
    ("echo $((1 + 2)) && ls", [("echo", "${SAIKISH_ARITH_31202b2032}"), ("ls",)],
     "arithmetic is a value known at run time (carrying what was written)"),
    ("(( i++ )); ls", [(":",), ("ls",)], "an arithmetic command runs nothing"),
    ("[[ -f x && $(id) ]] && ls", [("id",), ("test", "-f", "x", "-a", "$(id)"), ("ls",)],
     "[[ ]] becomes test, and what it substitutes is seen"),
    ("case $x in a) rm a;; b|c) echo b;; esac",
     [(":", "$x", "a", "b", "c"), ("rm", "a"), ("echo", "b")],
     "every branch of a case statement"),
    ("ls | time grep x", [("ls",), ("grep", "x")], "time in the middle of a pipeline"),
    ("timeout 5 env FOO=1 rm x", [("timeout", "5"), ("env", "FOO=1"), ("rm", "x")],
     "wrappers are looked through"),
    ("eval 'rm x'", [("eval", "rm x"), ("rm", "x")], "eval's words run as a script"),
    ("ssh host 'rm -rf /'", [("ssh", "host"), ("rm", "-rf", "/")],
     "the remote command line is analysed"),
    ("git\u00a0push x", [("git\u00a0push", "x")],
     "only space and tab split words: a no-break space is part of the word, as in bash"),
    ("find . -name '*.py' -exec grep -l 'a;b' {} \\; ; ls", [
        ("find", ".", "-name", "*.py", "-exec", "grep", "-l", "a;b", "{}", ";"),
        ("grep", "-l", "a;b", "{}"), ("ls",)],
     "an escaped ; is a word, a quoted one too; the bare ; ends the command"),
    ("awk '{print $1}' f | sort -u", [("awk", "{print $1}", "f"), ("sort", "-u")],
     "single-quoted text is literal: no parser needed, nothing expanded"),
])
def test_every_command_is_found(command: str, expected: list[tuple[str, ...]],
                                why: str) -> None:
    analysis = analyse(command)
    assert not analysis.opaque, (why, analysis.opaque)
    assert argvs(command) == expected, why


@pytest.mark.parametrize(("command", "target", "why"), [
    ("{ echo x; } >> ~/.bashrc", "~/.bashrc", "a redirection on a group"),
    ("(echo x) > ~/.profile", "~/.profile", "a redirection on a subshell"),
    ("for i in 1; do echo $i; done > /etc/x", "/etc/x", "a redirection on a loop"),
    ("f() { echo x; } > out", "out", "a redirection on a function body"),
    ("cd sub && echo x > f", "sub/f", "a relative target after cd is under the new directory"),
    ("cd .. && echo x > f", "../f", "cd .. leads out of the workspace"),
    ("sort -o ~/.bashrc x", "~/.bashrc", "an option value the grammar says is written"),
    ("dd if=a of=/dev/sda", "/dev/sda", "dd's of= operand"),
    ("echo x > $HOME/.bashrc", "~/.bashrc", "$HOME is the home directory"),
])
def test_writes_are_found_wherever_they_are(command: str, target: str, why: str) -> None:
    targets = [t.path for c in analyse(command).commands for t in c.writes]
    assert target in targets, (why, targets)


@pytest.mark.parametrize(("command", "why"), [
    ("cd $d && echo x > f", "after a cd to a place known only at run time"),
    ("echo x > $out", "a target built at run time"),
    ("for d in a b; do cd $d; done; echo x > f", "after a cd in a loop"),
])
def test_unknowable_targets_are_unknown(command: str, why: str) -> None:
    targets = [t for c in analyse(command).commands for t in c.writes]
    assert targets and not any(t.known for t in targets), why


def test_a_cd_in_a_subshell_does_not_move_what_follows() -> None:
    targets = [t.path for c in analyse("(cd /tmp) ; echo x > f").commands for t in c.writes]
    assert targets == ["f"]


def test_a_function_shadowing_a_command_marks_its_calls() -> None:
    found = {c.argv: c.shadowed for c in analyse("ls() { rm -rf ~; }; ls").commands}
    assert found[("ls",)] is True
    assert found[("rm", "-rf", "~")] is False


@pytest.mark.parametrize(("command", "reason", "why"), [
    ("echo ${x:-$(rm y)}", "${...}", "bashlex keeps ${...} raw"),
    ("echo $((a[$(id)]))", "subscript", "arithmetic evaluates array subscripts"),
    ("x" * 300_000, "too long", "a size cap before any parsing"),
    ("echo 'unbalanced", "cannot read", "a parse failure is said in plain words"),
    ("find . -exec sh -c 'echo {}' \\;", "file names into the script",
     "find pastes file names into code"),
    ("echo '\n<<\"E\"\n' ; rm -rf ~\nE\n'", "cannot", "a fake here-document delimiter in quotes"),
])
def test_what_cannot_be_understood_is_opaque(command: str, reason: str, why: str) -> None:
    opaque = analyse(command).opaque
    assert any(reason in o for o in opaque), (why, opaque)
    assert not any("Error" in o or "Traceback" in o for o in opaque), "no parser exception text"


CONTEXT = Context(builtin_tools(), RuleSet(
    config_allow=tuple(parse_rule(r) for r in ("Bash(ls *)", "Bash(git diff *)")),
    config_deny=(parse_rule("Bash(rm -rf *)"),)), workspace="/srv/project")
SHELLISH = st.lists(st.sampled_from(list("ab -=$'\"`(){}[];&|<>\\\n*?~!#.\x00\udcff")
                                     + ["ls", "rm", "sudo", "<<", "EOF", "$(", "find", "-exec",
                                        "git", "case", "esac", "[[", "]]", "in", ";;"]),
                    max_size=40).map("".join)


@settings(max_examples=300, deadline=None)
@given(SHELLISH)
def test_analyse_and_decide_never_raise(command: str) -> None:
    analyse(command)
    found = decide(ToolCall("1", "bash", {"command": command}), CONTEXT)
    assert found.verdict in Verdict
    if "sudo" in command.replace("\\", "").replace("'", "").replace('"', "") and \
            found.verdict is Verdict.ALLOW:
        # an allowed command with the word sudo in it must not run sudo
        assert all(c.argv[:1] != ("sudo",) for c in analyse(command).commands)


def test_plain_commands_split_without_the_parser_exactly_as_the_parser_does() -> None:
    from saikish.engine.bash.plain import _plain_segments
    from saikish.engine.bash.preparse import preparse
    from saikish.engine.bash.walker import _Walker

    corpus = (Path(__file__).parents[1] / "fixtures" / "corpus" / "nl2bash.cm")
    lines = corpus.read_text(encoding="utf-8", errors="replace").splitlines()
    plain = [line for line in lines if _plain_segments(line) is not None]
    assert len(plain) > 9000
    for line in plain:
        fast = analyse(line)
        slow = _Walker()
        slow.parsed(preparse(line), 0, (), False)
        if slow.opaque:
            continue  # bashlex cannot read it (then the plain path must not differ in kind)
        # bashlex wrongly finds $( ) and backticks inside single quotes in words shaped
        # like assignments (`alias x='cd $(pwd)'`): bash runs none of them.
        seen = slow.commands
        if [c.argv for c in fast.commands] != [c.argv for c in seen]:
            assert re.search(r"'[^']*(\$\(|`)", line), line
            seen = [c for c in slow.commands if "$()" not in c.via]
        assert [c.argv for c in fast.commands] == [c.argv for c in seen], line
        assert [c.stdin for c in fast.commands] == [c.stdin for c in seen], line
        assert [c.writes for c in fast.commands] == [c.writes for c in seen], line
        assert [c.reads for c in fast.commands] == [c.reads for c in seen], line


# Characters that matter to bash's word splitting and quote removal (`$` and backquotes
# escaped or quoted are plain), variables, and a few plain characters.
_WORDISH = st.lists(st.sampled_from(list("ab-=+:1 \t'\"\\{},*?!#~./$`\u00a0_") +
                                    ["$a", "${b}", '"$a"', '"${ab}x"', "$a1"]),
                    min_size=1, max_size=16).map("".join)
_NAMED = re.compile(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)")


def _unbraced(text: str) -> str:
    return re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}", r"$\1", text)


@settings(max_examples=400, deadline=None)
@given(_WORDISH)
def test_the_plain_path_splits_words_exactly_as_bash_does(text: str) -> None:
    """Differential test against the real bash: whatever one-command text the plain path
    accepts, bash makes the same words of it (globbing off; `~` is the home directory)."""
    import subprocess

    from saikish.engine.bash.plain import _plain_segments
    from saikish.engine.bash.words import unquote

    segments = _plain_segments("printf '%s\\0' START " + text)
    if segments is None or len(segments) != 1 or segments[0].scripts:
        return  # the parser's job, several commands, or code: not run through bash here
    names = set(_NAMED.findall(text))
    if "_" in names or re.search(r"\$[0-9@*#?$!-]", text):
        return  # $_, $1, $@...: bash's own (the last word before, the arguments...)
    # Each variable holds its own name ($a is "$a"): the words bash prints show where each
    # expansion stood, so word boundaries, quotes and escapes around it are compared.
    # Safe to run: no substitution, redirection or separator, so bash can only run
    # printf with these words.
    shown = subprocess.run(["bash", "--norc", "--noprofile", "-c",
                            "set -f; printf '%s\\0' START " + text], capture_output=True,
                           env={"HOME": "/home/someone", "PATH": "/usr/bin:/bin",
                                **{name: f"${name}" for name in names}},
                           check=True).stdout.decode()
    words = [_unbraced(w) for w in shown.split("\0")[1:-1]]
    raws = segments[0][0][3:]
    if any("~" in w and unquote(w).dynamic for w in raws):
        return  # ~+ ~- ~: ...: a place only known at run time, judged as such
    if any("=~" in w or ":~" in w for w in raws):
        return  # a=~/x: bash expands it, and saikish reads such values only as dd's if=/of=
    # bash expands an unquoted leading ~ to the home directory; saikish's path checks do.
    ours = [_unbraced(("/home/someone" + unquote(w).value[1:]) if w == "~" or
                      w.startswith("~/") else unquote(w).value) for w in raws]
    assert ours == words, (text, ours, words)


# Substitutions whose script prints a letter, beside the characters that could end them.
_PRINTED = {"$(printf S)": "S", "`printf B`": "B", "$(printf S | tr S T)": "T",
            "$(echo ')' >/dev/null; printf R)": "R", '$(echo " x )" >/dev/null; printf Q)': "Q"}
_SUBSTITUTING = st.lists(st.sampled_from(list("a- \t'\"\\)`$") + list(_PRINTED) +
                                         ['"$(printf S)"', '"`printf B`"', "$a", "$1", '"$@"',
                                          "$#", '"$(echo ")" >/dev/null; printf R)"']),
                         min_size=1, max_size=10).map("".join)


@settings(max_examples=300, deadline=None)
@given(_SUBSTITUTING)
def test_the_plain_path_ends_substitutions_where_bash_does(text: str) -> None:
    """Differential test against the real bash: where the plain path reads a word with
    `$( )` or backquotes, bash makes the same words, each substitution standing for the
    letter its script prints (safe to run: only printf, tr and echo to /dev/null)."""
    import subprocess

    from saikish.engine.bash.plain import _plain_segments
    from saikish.engine.bash.words import substitutions_in, unquote

    segments = _plain_segments("printf '%s\\0' START " + text)
    if segments is None or len(segments) != 1 or not segments[0].scripts:
        return
    if re.search(r"\$[0-9@*#?$!-]", text):
        return  # bash's own parameters: their words are known only at run time
    scripts = {code[2:-1] if code.startswith("$") else code[1:-1] for code in _PRINTED}
    if not all(s.text in scripts | {'echo ")" >/dev/null; printf R'}
               for s in segments[0].scripts):
        return  # `a`: a script of characters, not run
    names = set(_NAMED.findall(text))  # each holds its own name, as above
    shown = subprocess.run(["bash", "--norc", "--noprofile", "-c",
                            "set -f; printf '%s\\0' START " + text], capture_output=True,
                           env={"PATH": "/usr/bin:/bin", **{n: f"${n}" for n in names}},
                           check=True).stdout
    ours = []
    for raw in segments[0].words[3:]:
        for begin, end in reversed(substitutions_in(raw)):  # each stands for its letter
            code = raw[begin:end]
            raw = raw[:begin] + _PRINTED.get(code, "R" if "printf R" in code else "?") + \
                raw[end:]
        ours.append(unquote(raw).value)
    assert ours == shown.decode().split("\0")[1:-1], text


_SCRIPTISH = st.lists(st.sampled_from(["a", "1", "-", " ", "'", '"', "\\", "$", "{", "}", "*",
                                        "/", "$a", "${b}", '"$a"', "|", ";", "&&", "||",
                                        "cat ", "echo ", "grep -r ", "find . -name ",
                                        "-exec rm {} \\;", "xargs ", "$HOME", "~/", "cd ",
                                        ">", ">>", "2>", " 2>&1", "<", "&>", ">|", ">&-",
                                        "/dev/null", " out", "0<", "12>", ";&", "&>>",
                                        "|&", ";;", "$(", ")", "`", "$(ls)", "`id`",
                                        '"$(cat f)"', "$1", '"$@"', "$?", "'a'"]),
                      min_size=1, max_size=12).map("".join)


@settings(max_examples=600, deadline=None)
@given(_SCRIPTISH)
def test_the_plain_path_finds_the_commands_the_parser_finds(text: str) -> None:
    """Whatever the plain path accepts (redirections included), the walk over bashlex's
    tree finds the same commands, with the same words, input, writes and reads."""
    from saikish.engine.bash.plain import _plain_segments
    from saikish.engine.bash.preparse import preparse
    from saikish.engine.bash.walker import _Walker

    if _plain_segments(text) is None:
        return  # the parser's job
    fast = analyse(text)
    slow = _Walker()
    slow.parsed(preparse(text), 0, (), False)
    seen, found = slow.commands, list(fast.commands)
    if "'" in text and ("$(" in text or "`" in text):
        # bashlex misreads substitutions beside single quotes: it runs `a'$(ls)'` (bash
        # does not) and cannot parse `a'$('`; it misses `'a'$(ls)` (bash runs it: the
        # walk then finds it from the text, opaque). Only the rest is compared there.
        if slow.opaque:
            return
        seen = [c for c in seen if "$()" not in c.via]
        found = [c for c in found if "$()" not in c.via]
    assert not slow.opaque, (text, slow.opaque)
    for attribute in ("argv", "stdin", "writes", "reads", "via", "dynamic_name"):
        assert [getattr(c, attribute) for c in found] == \
            [getattr(c, attribute) for c in seen], (text, attribute)


def test_a_quoted_here_document_inside_a_double_quoted_substitution_is_read() -> None:
    # The commit form of many agents: the command is seen, the body is data (cat's).
    found = analyse("git commit -m \"$(cat <<'EOF'\nfix: a (b)\n\nsudo is text)\nEOF\n)\"")
    assert [c.argv[:3] for c in found.commands] == [("cat",), ("git", "commit", "-m")]
    assert not found.opaque and found.rewritten == ("a quoted here-document",)
    commit = "git commit -m \"$(cat <<'EOF'\nx\nEOF\n)\""
    assert decide(ToolCall("1", "bash", {"command": commit}), CONTEXT).verdict is Verdict.ASK


@pytest.mark.parametrize(("raw", "value", "ansi_c"), [
    ('$$"x"', '$$x', False), ("$?'y'", "$?y", False), ('$"x"', '$x', True),
    ("$'\\n'", "$\\n", True),
])
def test_a_special_parameter_is_never_read_as_a_quote(raw: str, value: str,
                                                      ansi_c: bool) -> None:
    from saikish.engine.bash.words import unquote

    word = unquote(raw)  # `$$"x"` is the process id, then "x"; `$"x"` is locale quoting
    assert (word.value, word.ansi_c, word.dynamic) == (value, ansi_c, not ansi_c)


@pytest.mark.parametrize(("text", "found"), [
    ("x='a[$(id)]'; echo $((x))", True), ("a[`id`]=1", True), ("a[ b] c[$(x)", True),
    ("echo ${arr[$((i + 1))]}", False), ("[ $(id) ]", False), ("a[x] $(id)", False),
    ("[[ -n $(git status) ]]", False), ("a[" * 50_000, False),
])
def test_a_subscript_holding_a_command_is_found_in_one_pass(text: str, found: bool) -> None:
    from saikish.engine.bash.arithmetic import _subscript_code

    assert _subscript_code(text) is found


def test_past_the_command_limit_the_call_is_asked_and_escalation_still_seen() -> None:
    from saikish.engine.bash.shell import MAX_COMMANDS

    many = analyse("true; " * (MAX_COMMANDS + 10))
    assert len(many.commands) == MAX_COMMANDS
    assert any("too many to analyse" in o for o in many.opaque)
    assert analyse("true; " * (MAX_COMMANDS + 10) + "sudo id").raw_escalation
    assert not analyse("true; " * (MAX_COMMANDS - 1)).opaque


def test_case_statements_nested_past_the_limit_are_asked_not_recursed_into() -> None:
    from saikish.engine.bash.preparse import MAX_NESTING

    deep = "case a in a) " * (MAX_NESTING + 1) + "rm -r x;;" + " esac;;" * MAX_NESTING + " esac"
    assert "case statements nested too deep to analyse" in analyse(deep).opaque
    shallow = "case a in a) " * 3 + "rm -r x;;" + " esac;;" * 2 + " esac"
    assert not analyse(shallow).opaque
    assert ("rm", "-r", "x") in argvs(shallow)
    assert "case statements nested too deep to analyse" in analyse("case a in a) " * 5000).opaque


@pytest.mark.parametrize(("text", "names"), [
    ("echo $(( (a + b) * c ))", {"a", "b", "c"}), ("((i++))", {"i"}),
    ("let 'n = m + 1'", {"n", "m"}),
    ("[[ $x -gt 3 ]]", {"x", "gt"}), ("[[ -f x ]]", set()), ("echo ${s:i:n}", {"i", "n"}),
    ("echo ${s:-default}", set()), ("b[k]=1", {"k"}), ("declare -i v=w", {"v", "w"}),
    ("echo $[ p ]", {"p"}), ("echo ${a[j]}", {"j"}),
])
def test_names_bash_may_evaluate_as_arithmetic(text: str, names: set[str]) -> None:
    from saikish.engine.bash.shell import arithmetic_names

    assert arithmetic_names(text) == names


def test_a_here_string_inside_a_substitution_is_no_here_document() -> None:
    found = analyse('diff <(fold -w1 <<< "$s") <(fold -w1 <<< "$r")')
    assert not found.opaque and [c.argv[0] for c in found.commands][:2] == ["fold", "fold"]
