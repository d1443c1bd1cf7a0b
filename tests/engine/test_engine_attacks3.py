"""Attacks on the approval engine, third pass: the changes of the plain-path tokenizer, the
run-time tilde places, `.git` writes, array subscripts anywhere in the text, the `version`
effect and the new wrapper entries; then runners, reads, hijacks and arithmetic more broadly.

Same row type and helpers as tests/engine/test_engine_attacks.py (docs/SPEC.md §4.1-4.4, §4.7-4.8):
each row names the command, the part that must block it and a piece of the reason. Rows with
`hole=` are attacks the engine lets through today, marked xfail(strict) with a severity; they
list only the autonomy levels at which the call goes through today, so a fix turns them into
failures the coordinator sees. The claims about bash in the comments were checked against
man bash, the tools' manuals or sources, or (word splitting and quote removal only) a
`set -f; printf '[%s]\\n' WORDS` run of harmless text.

Safety: the attack strings are only ever handed to `decide()`; nothing runs them.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from saikish.types import Autonomy, Source, Verdict
from saikish.types import ReasonKind as Why
from tests.engine.test_engine_attacks import (
    LEVELS,
    RUNS,
    A,
    Attack,
    assert_blocked,
    assess,
    context,
    explain,
)

DENY_RM = "Bash(rm -rf *)"
DENY_PUSH = "Bash(git push --force *)"

# -- regression: the plain path splits and unquotes as bash does ------------------------------

# A backslash, a quote or a tab never hides a word from the deny rules (the words bash makes
# are `rm -rf x`, `git push -f`, ...).
DENY_PLAIN = [
    ("rm \\-rf x", DENY_RM),
    ("rm -r\\f x", DENY_RM),
    ("\\r\\m '-r'f x", DENY_RM),
    ("ls || 'rm' -r\"f\" x", DENY_RM),
    ("ls\t&&\trm -rf x", DENY_RM),
    ("ls ;rm -rf x", DENY_RM),
    ("echo a#b; rm -rf x", DENY_RM),  # '#' inside a word is no comment
    ("git pu\\sh -\\f", DENY_PUSH),
    ("git \"push\" --forc\\e", DENY_PUSH),
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

# -- regression: writes into .git are code git runs later --------------------------------------

GIT_DIR = [
    A("install -D x .git/hooks/pre-commit", "writes .git/hooks/pre-commit",
      Why.WRITES, "cs"),
    A("dd of=.git/config if=x", "writes .git/config", Why.WRITES, "cs"),
    A("git checkout-index --prefix=.git/hooks/ pre-commit", "writes .git/hooks",
      Why.WRITES, "cs"),
    A("git archive HEAD | tar -x -C .git/hooks", "writes .git/hooks",
      Why.WRITES, "cs"),
    A("unzip x.zip -d .git", "writes .git", Why.WRITES, "cs"),
    A("ln -sf ../../x .git/hooks/pre-commit", "writes .git/hooks/pre-commit",
      Why.WRITES, "cs"),
    A("cp x /srv/project/.git/config", "writes /srv/project/.git/config",
      Why.WRITES, "cs"),
    A("mv -t .git/hooks x", "writes .git/hooks", Why.WRITES, "cs"),
    A("sort -o .git/config x", "writes .git/config", Why.WRITES, "cs"),
    A("cp x src/../.git/config", "writes src/../.git/config", Why.WRITES,
      "cs"),
    # the link itself names .git: what is written through it later is .git too
    A("ln -s .git g && cp x g/hooks/pre-commit", "writes .git", Why.WRITES, "cs"),
    A("mv .git g && cp x g/config && mv g .git", "writes .git", Why.WRITES, "cs"),
    A("pushd .git && cp ../x config", "writes config", Why.DYNAMIC, RUNS),
]

# -- regression: new catalogue entries (wrappers, version, patch -d, cpio -i) -----------------

CATALOGUE = [
    A("unbuffer sh -c 'rm -r y'", "rm -r y", Why.WRITES),
    A("toybox rm -r y", "rm -r y", Why.WRITES),
    A("systemd-inhibit rm -r y", "rm -r y", Why.WRITES),
    A("catchsegv rm -r y", "rm -r y", Why.WRITES),
    A("entr rm -r y", "rm -r y", Why.WRITES),
    A("entr -s 'rm -r y'", "entr -s", Why.EXEC, RUNS),
    A("xvfb-run -s '-fp /x' ls", "xvfb-run -s", Why.EXEC, RUNS),
    A("xvfb-run -e /tmp/err ls", "writes /tmp/err", Why.WRITES, "cs"),
    A("dbus-run-session --dbus-daemon=./x ls", "--dbus-daemon", Why.EXEC,
      RUNS),
    A("dbus-run-session --config-file=x.conf ls", "--config-file",
      Why.EXEC, RUNS),
    A("fakeroot -l ./x.so ls", "fakeroot -l", Why.EXEC, RUNS),
    # faketime takes its options as whole words only: read as TIMESTAMP CMD, any option
    # makes the command an unknown program (here 'now ls')
    A("faketime --date-prog=./x now ls", "now ls", Why.UNKNOWN, "cs"),
    A("ruby -ve 'system(\"id\")'", "ruby -ve", Why.EXEC, RUNS),
    A("ruby -v -r./x", "ruby -v -r./x", Why.EXEC, RUNS),
    A("lua -v -e 'os.execute(1)'", "lua -v -e", Why.EXEC, RUNS),
    A("gcc -v -wrapper sh,-c,id", "gcc -v -wrapper", Why.EXEC, RUNS),
    A("gcc -v -B./x/ --help", "gcc -v -B./x/", Why.EXEC, RUNS),
    A("clang -v -fplugin=./x.so", "clang -v -fplugin", Why.EXEC, RUNS),
    A("patch -d/etc -p1 < x.patch", "writes /etc", Why.WRITES, "cs"),
    A("patch --directory /etc -p1 < x.patch", "writes /etc", Why.WRITES, "cs"),
    A("cpio -i < a.cpio", "cpio -i", Why.WRITES, "cs"),
    A("cpio --extract -F a.cpio", "cpio --extract", Why.WRITES, "cs"),
]

# -- array subscripts: bash evaluates `a[...]` in a value wherever it does arithmetic ----------
# `$((x))`, `[[ $x -gt 0 ]]`, `${!x}` and an integer variable evaluate the value x holds as an
# expression; `a[$(cmd)]` in it runs cmd. The text check added today looks for `$(` or a
# backtick after `name[` in the command's text, but the value can be built at run time:
# `a[\$\(cmd\)]` and `printf 'a[%s(cmd)]' '$'` both make `a[$(cmd)]` (checked with printf).

SUBSCRIPT = [
    A("x='a[`id`]'; echo ${!x}", "", Why.UNKNOWN, RUNS),
    A("printf -v x %s 'a[$(id)]'; [[ $x -gt 0 ]]", "", Why.UNKNOWN,
      RUNS),
    A("x='a[$(rm -r y)]'; echo $((x))", "", Why.UNKNOWN, RUNS),
]
ESCAPED_SUBSCRIPT = "an escaped or built value bash evaluates as an expression: HIGH"
SUBSCRIPT_HOLES = [
    A("x=a[\\$\\(rm\\ -r\\ y\\)]; echo $((x))", "", Why.UNKNOWN, RUNS),
    A("printf -v x 'a[%s(rm -r y)]' '$'; echo $((x))", "", Why.UNKNOWN, RUNS),
    A("x=$(printf 'a[\\x24(rm -r y)]'); echo $((x + 1))", "", Why.UNKNOWN, RUNS),
    A("read x <<< 'a[$''(rm -r y)]'; echo $((x))", "", Why.UNKNOWN, RUNS),
    A("declare -i n; n=a[\\$\\(rm\\ -r\\ y\\)]", "", Why.UNKNOWN, RUNS),
    A("x=a[\\$\\(rm\\ -r\\ y\\)]; [[ $x -gt 0 ]]", "", Why.UNKNOWN, RUNS),
    A("x=a[\\$\\(rm\\ -r\\ y\\)]; echo ${!x}", "", Why.UNKNOWN, RUNS),
]

ATTACKS3 = PLAIN + GIT_DIR + CATALOGUE + SUBSCRIPT + SUBSCRIPT_HOLES

# -- holes with no rules at all: autonomy alone runs them -------------------------------------

NO_RULES3 = [
    # procps watch joins its words into one string and runs it with `sh -c` unless -x
    # (man watch: "-x ... Pass command to exec(2) instead of sh -c"); saikish analyses the
    # words as argv, so quoted shell text in them is never seen.
    A("watch ls '; rm -r y'", "rm -r y", Why.WRITES, "cs"),
    A("watch echo '$(rm -r y)'", "rm -r y", Why.WRITES, "cs"),
    # A command with no path operand reads the working directory (man grep: "if no file
    # operand is given, grep searches the working directory"); after a cd out of the
    # workspace that is the home directory, a sibling project, /etc.
    A("cd ~ && grep -r 'PRIVATE KEY'", "reads", Why.READS_OUTSIDE, RUNS),
    A("cd ~/.ssh && grep -r -A30 KEY", "reads", Why.SECRET, RUNS),
    A("cd .. && rg -uu password", "reads", Why.READS_OUTSIDE, RUNS),
    A("env -C ~ grep -r token", "reads", Why.READS_OUTSIDE, RUNS),
    A("pushd ~ && rg -uu KEY", "reads", Why.DYNAMIC, RUNS),
    A("cd && rg -uu KEY", "reads", Why.READS_OUTSIDE, RUNS),
    A("cd / && ls -la", "reads", Why.READS_OUTSIDE, RUNS),
    # BSD `e` may come as its own word: "Options of different types may be freely mixed"
    # (man ps); only a first word holding 'e' is looked at.
    A("ps ax e", "ps ax e", Why.SECRET, RUNS),
    A("ps -A e", "ps -A e", Why.SECRET, RUNS),
    A("ps -e -o pid,args e", "ps -e -o pid,args e", Why.SECRET, RUNS),
    # faketime (libfaketime src/faketime.c) compares each word to -m, -p, -f,
    # --exclude-monotonic, --date-prog, -v, -h exactly and takes the first other word as
    # the timestamp: '--' is the timestamp (with -f no date(1) check) and 'rm' the program.
    A("faketime -f -- rm ls -r x", "-- rm ls -r x", Why.UNKNOWN, "cs"),
    A("faketime -f -mf rm ls -r x", "-mf rm ls -r x", Why.UNKNOWN, "cs"),
    # GNU patch -B PREFIX / -Y PREFIX: "with -B /junk/ the simple backup file name for
    # src/patch/util.c is /junk/src/patch/util.c" (man patch): backups land outside.
    A("patch -b -B ~/. bashrc x.patch", "writes ~/.", Why.WRITES, "s"),
    A("patch -b --prefix=/tmp/ -p1 -i x.patch", "writes /tmp/", Why.WRITES, "s"),
    A("patch -b -Y ../../ -p1 -i x.patch", "writes ../../", Why.WRITES, "s"),
    # A glob that bash expands to .git: what is written is .git/config or .git/hooks.
    A("cp x .gi?/config", "writes .gi?/config", Why.WRITES, "s"),
    A("printf '[core]\\n\\tfsmonitor = ./x\\n' >> .gi?/config", "> .gi?/config",
      Why.WRITES, "s"),
    A("cp pre-commit .[g]it/hooks", "writes .[g]it/hooks", Why.WRITES,
      "s"),
    A("tar -xf x.tar -C .gi?", "writes .gi?", Why.WRITES, "s"),
    A("ln -s .gi? g && cp x g/config", "writes .gi?", Why.WRITES,
      "s"),
    # GNU tar --transform renames members when extracting too (man tar); '.git/' is a name
    # like any other.
    A("tar -xf x.tar --transform='s,^,.git/hooks/,'", "--transform", Why.WRITES, "s"),
    # A bare repository is a git dir not named .git: its config (core.fsmonitor,
    # diff.external) is as much code as .git/config. saikish runs every command with
    # safe.bareRepository=explicit, so `git -C b` never uses it (tests/tools/test_tools.py,
    # test_bash_uses_a_bare_repository_only_when_it_is_named); naming one is asked:
    A("git --git-dir=b --work-tree=. status", "--git-dir", Why.EXEC, "c"),
    # GNU tar: "An archive name that has a colon in it specifies a file or device on a remote
    # machine", reached with rsh (man tar); --force-local turns it off.
    A("tar tf evil.example:a.tar", "tar tf", Why.NETWORK, "c"),
    # zsh reads $ZDOTDIR/.zshenv for every shell, -c included: a workspace .zshenv runs.
    A("ZDOTDIR=. zsh -c ls", "zsh -c ls", Why.EXEC, RUNS),
    A("VIRTUAL_ENV=./evil uv pip list", "uv pip list", Why.EXEC, RUNS),
    A("SSLKEYLOGFILE=~/.bashrc curl https://x.example", "curl", Why.EXEC, "s"),
    # gcc -v prints the version and goes on compiling and linking its inputs; -l is an
    # input (the linker runs and writes a.out), though it is no operand to the grammar.
    A("gcc -v -shared -lc", "gcc -v -shared -lc", Why.EXEC, "c"),
    # python -m puts the current directory first on sys.path: ./json.py runs.
    A("python3 -m json.tool x.json", "json.tool", Why.EXEC, "c",
      hole="LOW: a json.py or json/ in the workspace runs instead of the standard module"),
]

# -- holes that need an allow rule people write ------------------------------------------------

RULED = [
    # A rule for cp/tee/tar covers a write whose glob bash expands into .git.
    (["Bash(cp *)"], A("cp x .gi?/config", "writes .gi?/config",
                       Why.WRITES, "c")),
    (["Bash(tee *)"], A("tee -a .gi?/config < f", "writes .gi?/config",
                        Why.WRITES, "c")),
    (["Bash(tar *)"], A("tar -xf x.tar --transform='s,^,.git/hooks/,'", "--transform", Why.WRITES,
                        "c")),
    # 'names .git' is tested as a substring: a glob meant for .github or .gitignore reaches in.
    ([{"tool": "write_file", "when": {"path": ".git*/**"}}],
     A("echo x >> .git/config", "> .git/config", Why.WRITES, "cs")),
    ([{"tool": "write_file", "when": {"path": ".git*"}}],
     A("printf 'gitdir: ./evil\\n' > .git", "> .git", Why.WRITES, "s")),
    # regression: a rule that does not name .git never reaches into it
    ([{"tool": "write_file", "when": {"path": "**"}}],
     A("echo x >> .git/config", "> .git/config", Why.WRITES, "cs")),
    (["Bash(cp *)"], A("cp x .git/hooks/pre-commit", "writes .git/hooks/pre-commit",
                       Why.WRITES, "cs")),
]

# -- symlinks from a cloned project: 'home' -> the home directory, 'h=' -> / ------------------

SYMLINKS3 = [
    # bash expands ~ after the '=' of a word that looks like an assignment, even as an
    # argument (printf: h=~/x -> h=/home/.../x); through the link 'h=' that is the home.
    A("cat h=~/.gitconfig", "reads h=~/.gitconfig", Why.DYNAMIC, RUNS),
    A("cp x h=~/.bashrc", "writes", Why.DYNAMIC, "s"),
    # grep -R and rg -L follow the links they meet while recursing.
    # Left open: asking for every grep -R would also stop rules covering `xargs grep` (its
    # input could spell -R); links named as paths are resolved (below).
    A("grep -R KEY .", "grep -R", Why.READS_OUTSIDE, RUNS,
      hole="MEDIUM: grep -R follows home -> the home directory"),
    A("rg -L KEY", "rg -L", Why.READS_OUTSIDE, RUNS,
      hole="MEDIUM: rg -L follows home -> the home directory"),
    # regression: a link named as a path is resolved
    A("cat home/.bashrc", "reads home/.bashrc", Why.READS_OUTSIDE, RUNS),
]


@pytest.mark.parametrize(("row", "autonomy"),
                         [row.param(level) for row in ATTACKS3 for level in row.levels])
def test_attack_is_blocked_by_the_part_it_names(row: Attack, autonomy: Autonomy) -> None:
    assert_blocked(row, context(autonomy))


@pytest.mark.parametrize(("row", "autonomy"),
                         [row.param(level) for row in NO_RULES3 for level in row.levels])
def test_attack_is_blocked_with_no_rules_at_all(row: Attack, autonomy: Autonomy) -> None:
    assert_blocked(row, context(autonomy, allow=[]))


def _ruled() -> list[object]:
    return [pytest.param(rules, row, LEVELS[level], id=f"{level}:{rules}:{row.command[:50]}",
                         marks=[pytest.mark.xfail(strict=True, reason=f"HOLE: {row.hole}")]
                         if row.hole else [])
            for rules, row in RULED for level in row.levels]


@pytest.mark.parametrize(("rules", "row", "autonomy"), _ruled())
def test_attack_is_blocked_under_the_rules_people_write(rules: list[object], row: Attack,
                                                       autonomy: Autonomy) -> None:
    assert_blocked(row, context(autonomy, allow=rules))


@pytest.mark.parametrize(("row", "autonomy"),
                         [row.param(level) for row in SYMLINKS3 for level in row.levels])
def test_links_in_a_cloned_project_do_not_lead_out(row: Attack, autonomy: Autonomy,
                                                  tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "home").symlink_to(tmp_path / "home")
    (workspace / "h=").symlink_to("/")
    (tmp_path / "home" / ".ssh").mkdir(parents=True)
    monkeypatch.chdir(workspace)
    assert_blocked(row, replace(context(autonomy, allow=[]), workspace=str(workspace)))


@pytest.mark.parametrize(("command", "rule"), DENY_PLAIN)
@pytest.mark.parametrize("level", ["c", "f"])
def test_quotes_and_escapes_never_hide_a_denied_command(command: str, rule: str,
                                                        level: str) -> None:
    found = assess(command, context(LEVELS[level]))
    assert (found.verdict, found.source, found.rule) == (
        Verdict.REJECT, Source.DENY_RULE, rule), explain(found)
