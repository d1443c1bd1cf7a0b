"""The option grammar engine and the catalogue (docs/SPEC.md §4.7), table-driven.

Each row parses one command with the real catalogue and states what the grammar must
find: the subcommand path, the options it read (by their canonical name), the risk, and
which word a rule must name.
"""

from __future__ import annotations

import pytest

from saikish.engine.bash.shell import CATALOGUE, unquote
from saikish.engine.commands.catalogue import Catalogue, CatalogueError, parse_entry, parse_option
from saikish.engine.commands.grammar import Word, assign_roles, parse
from saikish.types import Risk


def words(command: str) -> list[Word]:
    return [unquote(w) for w in command.split()]


def parsed(command: str):  # type: ignore[no-untyped-def]
    return parse(words(command), CATALOGUE)


@pytest.mark.parametrize(("command", "path", "options", "why"), [
    ("git --no-pager push origin main --force", ("git", "push"), {"--no-pager", "--force"},
     "a global option before the subcommand, an option after the operands"),
    ("git -C sub -c core.pager=x log", ("git", "log"), {"-C", "-c"},
     "value-taking global options shift the subcommand"),
    ("git push --force-w", ("git", "push"), {"--force-with-lease"},
     "a unique prefix of a long option is that option (git parse-options)"),
    ("sed --expr=p f", ("sed",), {"--expression"}, "GNU getopt_long accepts unique prefixes"),
    ("xargs -rE END echo", ("xargs",), {"--no-run-if-empty", "-E"},
     "a clustered short option's value is the rest of the cluster"),
    ("sort -o out in", ("sort",), {"--output"}, "a separate value"),
    ("sort -oout in", ("sort",), {"--output"}, "an attached value"),
    ("tar xzf a.tgz", ("tar",), {"--extract", "--gzip", "--file"},
     "a dash-less first word is a cluster for bundled commands"),
    ("npm --cache /tmp/c config set x y", ("npm", "config", "set"), {"--cache"},
     "npm's global options take values before the subcommand"),
    ("docker --log-level info run img", ("docker", "run"), {"--log-level"},
     "docker's global option with a separate value"),
    ("find . -name '*.py' -delete", ("find",), {"-name", "-delete"},
     "single-dash long options"),
    ("gcc -Iinclude -obuild/app main.c", ("gcc",), {"-I", "-o"},
     "gcc's single-dash options take a value glued to their name"),
])
def test_options_are_read_as_the_real_program_reads_them(
        command: str, path: tuple[str, ...], options: set[str], why: str) -> None:
    found = parsed(command)
    assert found.path == path, why
    assert options <= {name for name, _ in found.options}, why


@pytest.mark.parametrize(("command", "risk", "caveat", "why"), [
    ("sort -o ~/.bashrc x", Risk.WRITE, "sort -o", "an option that writes raises the risk"),
    ("tar --checkpoint-action=exec=sh x.tar", Risk.UNKNOWN, "tar",
     "an option that runs a program"),
    ("git grep -Oless x", Risk.UNKNOWN, "git grep -O", "git grep -O names a pager program"),
    ("ls --frobnicate", Risk.UNKNOWN, "option --frobnicate of ls is not known",
     "an option the grammar does not know"),
    ("git push --fo origin", Risk.UNKNOWN, "not known",
     "an ambiguous prefix (--force, --force-with-lease...) is not a known option"),
    ("git frobnicate", Risk.UNKNOWN, "not a known subcommand", "an unknown subcommand"),
    ("uniq in out", Risk.WRITE, "uniq", "uniq's second operand is written"),
    ("yq -i .a=1 f.yml", Risk.WRITE, "yq", "yq -i edits in place"),
    ("gcc -B/tmp x.c", Risk.UNKNOWN, "gcc -B", "a glued value is still that option (-B runs "
                                                 "programs from the directory)"),
])
def test_dangerous_forms_raise_risk_with_a_reason(command: str, risk: Risk, caveat: str,
                                                  why: str) -> None:
    found = parsed(command)
    assert found.risk.rank >= risk.rank, why
    assert any(caveat in f.why for f in found.findings), (why, found.findings)


@pytest.mark.parametrize(("command", "why"), [
    ("find . $x", "a variable where an option could stand"),
    ("find . {-delete,-true}", "brace expansion where an option could stand"),
    ('sort "$@"', "all arguments, only known at run time"),
    ("git $sub", "a subcommand built at run time"),
])
def test_words_built_at_run_time_where_options_stand_are_hard(command: str, why: str) -> None:
    found = parsed(command)
    assert found.hard, why
    assert "run time" in (found.caveat or ""), why


@pytest.mark.parametrize(("command", "why"), [
    ("cat $f", "cat has no option that raises its risk"),
    ("find *.py -name x", "a glob that cannot spell a find action"),
    ("echo $HOME", "echo's options are harmless"),
    ("rm -- $f", "after --, no word is an option"),
])
def test_run_time_words_that_cannot_change_meaning_are_not_hard(command: str,
                                                                  why: str) -> None:
    assert not parsed(command).hard, why


@pytest.mark.parametrize(("command", "inner", "why"), [
    ("timeout 10 rm x", ("rm", "x"), "timeout's duration, then the command"),
    ("env -u X FOO=1 rm x", ("rm", "x"), "env's options and assignments, then the command"),
    ("nice -n 5 rm x", ("rm", "x"), "nice's value-taking option"),
    ("xargs -0 -n1 rm", ("rm",), "xargs runs its operands"),
    ("uv run pytest -x", ("pytest", "-x"), "a runner runs its operands"),
    ("python3 -m pytest -q", ("pytest", "-q"), "python -m runs a module with the rest"),
    ("busybox rm -rf x", ("rm", "-rf", "x"), "busybox runs an applet"),
])
def test_what_a_command_runs_is_found(command: str, inner: tuple[str, ...], why: str) -> None:
    found = parsed(command)
    spans = [i for i in found.inner if i.script is None]
    assert spans, why
    argv = tuple(w.value for w in words(command))
    assert argv[spans[0].start:spans[0].end] == inner, why


@pytest.mark.parametrize(("roles", "n", "expected"), [
    ("path* write", 3, ["path", "path", "write"]),
    ("text path*", 1, ["text"]),
    ("path? write?", 2, ["path", "write"]),
    ("path? write?", 3, None),
    ("text+", 0, None),
])
def test_operand_roles_fit_from_both_ends(roles: str, n: int, expected: list[str] | None) -> None:
    entry = parse_entry("t.cat", 1, [f"operands {roles}"])
    assert assign_roles(entry.operands, n) == expected


@pytest.mark.parametrize(("line", "problem"), [
    ("-o=FILE writez", "neither an option spelling nor an effect"),
    ("writes", "at least one spelling"),
])
def test_bad_option_lines_name_the_problem(line: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_option(line)


def test_a_broken_entry_names_its_file_and_line() -> None:
    with pytest.raises(CatalogueError, match=r"x\.cat:3: "):
        parse_entry("x.cat", 1, ["risk read", "risk sideways"])


def test_every_catalogue_entry_parses() -> None:
    catalogue = Catalogue()
    names = catalogue.names()
    assert len(names) >= 200
    broken = [name for name in names if catalogue.get(*name.split()) is None]
    assert broken == [], catalogue.errors[:5]


def test_every_name_the_engine_knew_before_is_catalogued() -> None:
    # The names v1 of the engine classified (risk.SIMPLE and its special cases).
    known = ("ls cat head tail grep rg wc pwd echo printf true false which file stat du df "
             "tree cut tr diff cmp comm basename dirname realpath readlink date whoami id "
             "hostname uname printenv sort uniq find sed awk xargs env timeout nice jq yq "
             "touch mkdir cp mv tee ln tar unzip zip gzip chmod chown rm kill curl wget ssh "
             "scp rsync git npm pnpm yarn bun pip pip3 cargo go docker podman kubectl gh uv "
             "poetry make pytest python python3 node bash sh perl ruby dd iconv man dc").split()
    missing = [name for name in known if CATALOGUE.get(name) is None]
    assert missing == []


@pytest.mark.parametrize(("command", "from_stdin"), [
    ("make -f - all", True), ("make --file=/dev/stdin", True), ("make -f Makefile.dev", False),
    ("make test", False),
])
def test_a_code_file_naming_stdin_makes_the_input_code(command: str, from_stdin: bool) -> None:
    """make -f -: the makefile (code) is whatever the input holds, as for an interpreter."""
    assert parsed(command).stdin_code is from_stdin



@pytest.mark.parametrize(("command", "risk", "from_stdin", "why"), [
    ("ruby -v", Risk.READ_ONLY, False, "the version, then ruby exits"),
    ("ruby -v --", Risk.READ_ONLY, False, "no script after --: still only the version"),
    ("ruby -v x.rb", Risk.BUILD_TEST, False, "-v with a script runs the script"),
    ("ruby -v -", Risk.READ_ONLY, True, "'-' is the input as the script: code from stdin"),
    ("ruby --verbose", Risk.READ_ONLY, True, "--verbose is no version option"),
    ("lua -v", Risk.READ_ONLY, False, "lua -v prints the version"),
    ("gcc -v", Risk.READ_ONLY, False, "gcc -v alone prints the version and exits"),
    ("gcc -v x.c", Risk.BUILD_TEST, False, "gcc -v FILE compiles, verbosely"),
])
def test_a_version_option_is_read_only_only_with_no_operand(command: str, risk: Risk,
                                                            from_stdin: bool, why: str) -> None:
    found = parsed(command)
    assert (found.risk, found.stdin_code) == (risk, from_stdin), why


@pytest.mark.parametrize(("command", "from_stdin"), [
    ("fakeroot", True), ("fakeroot make install", False), ("unshare --user", True),
    ("unshare --user id", False), ("nice", False),
])
def test_a_wrapper_with_no_command_runs_its_input_only_when_marked(command: str,
                                                                  from_stdin: bool) -> None:
    """stdin code on a wrapper: with no command it starts a shell that reads its input."""
    assert parsed(command).stdin_code is from_stdin


def test_an_extra_operand_must_be_named_by_a_rule_too_few_is_only_a_caveat() -> None:
    extra = parsed("whoami x y")
    assert [(f.risk, f.index) for f in extra.findings] == [(Risk.UNKNOWN, 1)]
    few = parsed("cp a")
    assert all(f.index is None for f in few.findings
               if "operands it does not take" in f.why)
