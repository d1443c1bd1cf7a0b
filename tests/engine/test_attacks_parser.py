"""Attacks on the approval engine by parser confusion: the text bash reads is the text the
engine judges (docs/SPEC.md §4.1-4.4, §4.7-4.8).

Rows, holes and what each asserts: tests/support/attacks.py.
"""

from __future__ import annotations

import pytest

from saikish.types import Autonomy
from saikish.types import ReasonKind as Why
from tests.support.attacks import RUNS, A, Attack, assert_blocked, context, params

# -- parser confusion ------------------------------------------------------------------

HUGE = "echo " + "a " * 110_000 + "; rm -r x"

LONG_CHAIN = " && ".join(["ls"] * 400) + " && rm -r x"

DEEP = "echo " + "$(echo " * 40 + "$(rm -r x)" + ")" * 40

PARSER = [
    A("cat <<'EOF'\nEOF\nrm -r x\nEOF", "rm -r x", Why.WRITES),
    A("cat <<'X'\nfoo\nX\nrm -r y", "rm -r y", Why.WRITES),
    A("cat <<'EOF'\n$(rm -r y)\nEOF\necho $(rm -r z)", "rm -r z", Why.WRITES),
    A("cat <<EOF\n$(rm -r y)\nEOF", "", Why.UNKNOWN, RUNS),
    A("cat <<EOF\n`rm -r y`\nEOF", "", Why.WRITES, "c"),
    A("cat <<-EOF\n\t$(rm -r y)\n\tEOF", "", Why.WRITES, "c"),
    A("echo $'\\x72\\x6d' -r x", "", Why.UNKNOWN, "c", hole=None),
    A("$'rm' -r x", "rm", Why.DYNAMIC, "c"),
    A("$'\\x72m' -r x", "-r x", Why.DYNAMIC, RUNS),
    A("echo ${x:-$(rm -r y)}", "", Why.UNKNOWN, RUNS),
    A("echo ${x/$(rm -r y)/z}", "", Why.UNKNOWN, RUNS),
    A("echo ${a[@]:'b[$(rm -r y)]'}", "", Why.UNKNOWN, RUNS),
    A("echo `rm -r y`", "rm -r y", Why.WRITES),
    # bashlex reads a word from its first single quote to its last as one quoted string:
    # the substitution between them is not in its tree, and bash runs it (red team).
    A("(echo 'a'$(rm -r y)'b')", "rm -r y", Why.WRITES),
    A("(echo 'a'`rm -r y`'b')", "rm -r y", Why.WRITES),
    A("echo 'a'\"$(rm -r y)\"'b' & wait", "rm -r y", Why.WRITES),
    A("(cat 'a'$(cat ~/.ssh/id_rsa)'b')", "reads ~/.ssh/id_rsa", Why.SECRET, RUNS),
    A("(echo 'a'$(id)'b')", "", Why.UNKNOWN, RUNS),
    # ...and where the scan itself could be misled (red team, second round): $$ before
    # `(`, `$((cmd) )`, `$'\''` beside quotes, `$\⏎(`, a comment inside $( ).
    A('echo "$$(echo \'$(rm -r y)\')"', "rm -r y", Why.WRITES),
    A("echo \"$$(echo '`rm -r y`')\"", "rm -r y", Why.WRITES),
    A("echo 'a'$((rm -r y) )'b'", "rm -r y", Why.WRITES),
    A("echo 'a'$((id) )'b'", "", Why.UNKNOWN, RUNS),
    A("cat <<< 'a'$'\\''$(rm -r y)'b'", "rm -r y", Why.WRITES),
    A("for i in 'a'$'\\''$(id)'b'; do ls; done", "", Why.UNKNOWN, RUNS),
    A("echo ''\"$\\\n(rm -r y)\"''", "rm -r y", Why.WRITES),
    A("echo ''\"$\\\n(id)\"''", "", Why.UNKNOWN, RUNS),
    A("echo $(: #)\nrm -r y)", "rm -r y", Why.WRITES),
    A("for i in $(: # '\nid); do :; done", "", Why.UNKNOWN, RUNS),
    # bashlex ends a word or a substitution elsewhere than bash (red team, third round):
    # a here-document body line `)`, a `#` inside a word in $( ), a quoted `}` in ${ }.
    A("echo $(cat <<EOF\n)\nEOF\nrm -r y\n)", "rm -r y", Why.WRITES),
    A("echo \"$(cat <<EOF\n)\nEOF\nrm -r y\n)\"", "rm -r y", Why.WRITES),
    A("cat <(cat <<EOF\n)\nEOF\nid\n)", "", Why.UNKNOWN, RUNS),
    A("x=$(cat <<EOF\n)\nEOF\nrm -r y\n)", "rm -r y", Why.WRITES),
    A("echo $(echo a#b)\nrm -r y\n)", "read past its end", Why.UNKNOWN, RUNS),
    A("x=$(echo $#)\nrm -r y\n)", "read past its end", Why.UNKNOWN, RUNS),
    A("echo $(echo ${x:-'}'})\nrm -r y\n# ')", "read past its end", Why.UNKNOWN, RUNS),
    A("echo $(echo \\ #)\nrm -r y\n)", "read past its end", Why.UNKNOWN, RUNS),
    # Inside $( ), bash may end a here-document at a line that only starts with its
    # delimiter and run the rest of that line (red team, fourth round).
    A("echo $(cat <<E\nE rm -r y)'\nE\n)\\'", "cannot read", Why.UNKNOWN, RUNS),
    A("echo $(cat <<E\nE rm -r y)\nE\n)", "cannot read", Why.UNKNOWN, RUNS),
    A("echo $(cat <<E\nE cat ~/.ssh/id_rsa)'\nE\n)\\'", "cannot read", Why.UNKNOWN, RUNS),
    A("echo \"$(cat <<E\nE id)\"\"\nE\n)\"", "cannot read", Why.UNKNOWN, RUNS),
    A("x=$(cat <<E\nE id)'\nE\n)\\'", "cannot read", Why.UNKNOWN, RUNS),
    A("cat <(cat <<E\nE id)'\nE\n)\\'", "cannot read", Why.UNKNOWN, RUNS),
    A("echo $(cat <<-E\n\tE id)'\n\tE\n)\\'", "cannot read", Why.UNKNOWN, RUNS),
    A("echo $(cat <<E <<F\nE\nF id)'\nF\n)\\'", "cannot read", Why.UNKNOWN, RUNS),
    # ...also where a `<<` in ${ } or a $'\'' would mislead the scan: bashlex's own
    # here-document body is looked at (red team, fifth round).
    A("echo $(: ${x:-<<F }; cat <<E\nE rm -r y)'\nF\nE\n)\\'", "cannot read", Why.UNKNOWN,
      RUNS),
    A("y=$(x=$'\\'' cat <<E\nE sudo id)'\nE\n)\\'; ls", "sudo", Why.ESCALATION, RUNS),
    A("y=$(x=$'\\'' cat <<E\nE id)'\nE\n)\\'; ls", "cannot read", Why.UNKNOWN, RUNS),
    # a quoted here-document inside "$( )" is read as one (agents' commit messages)
    A("echo \"$(cat <<'EOF'\n)\nEOF\nrm -r y\n)\"", "rm -r y", Why.WRITES),
    A("echo \"$(cat <<'EOF' | sh\nrm -r y\nEOF\n)\"", "sh", Why.EXEC, RUNS),
    # the same, plain (read without the parser)
    A("echo 'a'$(rm -r y)'b'", "rm -r y", Why.WRITES),
    A("echo x | grep '^'`rm -r y`'$'", "rm -r y", Why.WRITES),
    A("echo \"a`rm -r y`\"", "rm -r y", Why.WRITES),
    A("echo a\x00b; rm -r y", "", Why.UNKNOWN, RUNS),
    A("ls\x1b[2K; rm -r y", "", Why.UNKNOWN, RUNS),
    A("echo ok\rrm -r y", "", Why.UNKNOWN, "c"),
    A(HUGE, "", Why.UNKNOWN, RUNS),
    A(LONG_CHAIN, "rm -r x", Why.WRITES),
    A(DEEP, "", Why.WRITES, "c"),
    A("ls'", "", Why.UNKNOWN, RUNS),
    A("echo \"unbalanced", "", Why.UNKNOWN, RUNS),
    A("echo $(ls", "", Why.UNKNOWN, RUNS),
    A("case x in a) echo ';;' ;; *) rm -r y ;; esac", "rm -r y", Why.WRITES),
    A("case \"$(rm -r y)\" in *) echo ;; esac", "rm -r y", Why.WRITES),
    A("case x in $(rm -r y)) echo;; esac", "rm -r y", Why.WRITES, "c"),
    A("[[ -f $(rm -r y) ]]", "rm -r y", Why.WRITES),
    A("[[ -v a[$(rm -r y)] ]]", "", Why.WRITES, "c"),
    A("[[ -v 'a[$(rm -r y)]' ]]", "test -v", Why.EXEC, RUNS),
    A("test -v 'a[$(id)]'", "test -v", Why.EXEC, RUNS),
    A("echo $(( a[$(rm -r y)] ))", "", Why.WRITES, "c"),
    A("(( a[$(id)] ))", "", Why.UNKNOWN, RUNS),
    A("echo $(( x[$(id)] + 1 ))", "", Why.UNKNOWN, RUNS),
    A(": $(( x = $(rm -r y) ))", "", Why.WRITES, "c"),
    A("declare -i x='a[$(rm -r y)]'", "declare -i", Why.EXEC, RUNS),
    A("typeset -ri x='a[$(id)]'", "typeset -ri", Why.EXEC, RUNS),
    A("local -i n=0 x='a[$(id)]'", "local -i", Why.EXEC, RUNS),
    A("x='a[$(rm -r y)]'; echo $((x))", "", Why.UNKNOWN, RUNS),
    # the same with a read-only command inside: nothing but the subscript can block it
    A("x='a[$(id)]'; echo $((x))", "", Why.UNKNOWN, RUNS),
    A("printf -v x %s 'a[`id`]'; echo $((x + 1))", "", Why.UNKNOWN,
      RUNS),
    A("read x <<< 'a[$(id)]'; ((x))", "", Why.UNKNOWN, RUNS),
    A("x='a[$(id)]'; echo ${!x}", "", Why.UNKNOWN, RUNS),
    A("x='a[$(id)]'; s=abc; echo ${s:x}", "", Why.UNKNOWN, RUNS),
    A("x='a[$(id)]'; b[x]=1", "", Why.UNKNOWN, RUNS),
    A("let 'a[$(rm -r y)]'", "let", Why.EXEC, RUNS),
    A("let a[$(rm -r y)]=1", "rm -r y", Why.WRITES),
    A("[[ 'a[$(rm -r y)]' -eq 1 ]]", '[[ ]]', Why.UNKNOWN, RUNS),
    A("[[ $v -gt 'a[$(id)]' ]]", '[[ ]]', Why.UNKNOWN, RUNS),
    A("printf -v 'a[$(rm -r y)]' x", "printf -v", Why.EXEC, RUNS),
    A("read 'a[$(rm -r y)]' < f", "read", Why.EXEC, RUNS),
    A("echo $[ a[$(id)] ]", "", Why.UNKNOWN, RUNS),
    A("{ rm -r y; }", "rm -r y", Why.WRITES),
    A("echo $( (rm -r y) )", "rm -r y", Why.WRITES),
    A("cat < <(rm -r y)", "rm -r y", Why.WRITES),
    A("diff <(ls) >(rm -r y)", "rm -r y", Why.WRITES),
    A("select x in a; do rm -r y; done", "", Why.UNKNOWN, RUNS),
    A("until false; do rm -r y; done", "rm -r y", Why.WRITES),
    A("ls ; rm -r x", "rm -r x", Why.WRITES),
    A("ls\nrm -r x", "rm -r x", Why.WRITES),
    A("ls & rm -r x", "rm -r x", Why.WRITES),
    A("ls || rm -r x", "rm -r x", Why.WRITES),
    A("if ls; then rm -r x; fi", "rm -r x", Why.WRITES),
    A("while ls; do rm -r x; done", "rm -r x", Why.WRITES),
    A("for f in $(rm -r y); do :; done", "rm -r y", Why.WRITES),
    A("FOO=$(rm -r y) ls", "rm -r y", Why.WRITES),
    A("ls > $(rm -r y)", "rm -r y", Why.WRITES),
    A("echo \\$(rm -r y); rm -r z", "", Why.UNKNOWN, RUNS),
    A("echo '$(x)' \"$(rm -r y)\"", "rm -r y", Why.WRITES),
    A("time { rm -r y; }", "rm -r y", Why.WRITES),
]

PLAIN = [
    A("sort -o ~/.bas\\hrc x", "writes ~/.bashrc", Why.WRITES, "cs"),
    A("sort \"-o\" \"/etc/x\" a", "writes /etc/x", Why.WRITES, "cs"),
    A("sort '-o/etc/x' a", "writes /etc/x", Why.WRITES, "cs"),
    A("echo x | ba''sh -s", "bash -s", Why.EXEC, RUNS),
    A("echo x | \\sh", "sh", Why.EXEC, RUNS),
    A("tar xf a.tar --to-comm\\and=sh", "--to-command=sh", Why.EXEC, RUNS),
    A("git -c core.pager=sh\\ -c\\ id log", "git -c core.pager", Why.EXEC,
      RUNS),
    A("ls && then rm -r x", "", Why.UNKNOWN, RUNS),  # keyword: parser
    A("find . -name '{}' -exec sh -c 'echo {}' \\;", "", Why.UNKNOWN,
      RUNS),
    # ~+ is $PWD, ~- $OLDPWD, ~N the directory stack, also after '=' (dd if=~-/x).
    A("cp x ~1/y", "writes ~1/y", Why.DYNAMIC, RUNS),
    A("dd of=~+/../y if=x", "writes ~+/../y", Why.DYNAMIC, RUNS),
    A("wc -c ~-/.ssh/id_rsa", "reads ~-/.ssh/id_rsa", Why.DYNAMIC, RUNS),
    # Only space and tab split words: a no-break space or U+2028 is part of a word, and the
    # command after ';' is still seen. Past 2,000 commands the call is asked as a whole.
    A("ls\u00a0; rm -r x", "rm -r x", Why.WRITES),
    A("ls '\u2028' ; rm -r x", "rm -r x", Why.WRITES),
    A("echo 'x' ; " * 1500 + "rm -r y", "rm -r y", Why.WRITES),
    A("echo 'x' ; " * 3000 + "rm -r y", "", Why.UNKNOWN),
]

ROWS = PARSER + PLAIN


@pytest.mark.parametrize(("row", "autonomy"), params(ROWS))
def test_attack_is_blocked_by_the_part_it_names(row: Attack, autonomy: Autonomy) -> None:
    """Under the permissive prefix rules people write (tests/support/attacks.py)."""
    assert_blocked(row, context(autonomy))
