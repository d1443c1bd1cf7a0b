"""What "always" proposes is never broader than what was approved (docs/SPEC.md §4.4).

One row per case, with the reason: remote commands are named with their host, runners of
fetched or project code with what they run, commands with a path outside the workspace
exactly. Then a property over the tables and generated calls: every proposed rule, put
in force, lets the very call through, and stays within those bounds.
"""

from __future__ import annotations

import os
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saikish.engine.policy import Context, RuleSet, decide
from saikish.errors import RuleError
from saikish.rules import Rule, parse_rule, workspace_relative
from saikish.tools import builtin_tools
from saikish.types import ToolCall, Verdict

WORKSPACE = "/srv/project"


def context(allow: tuple[str, ...] = ()) -> Context:
    rules = RuleSet(config_allow=tuple(parse_rule(r, "test") for r in allow))
    return Context(builtin_tools(), rules, workspace=WORKSPACE)


def proposed(command: str) -> tuple[str, ...]:
    found = decide(ToolCall("1", "bash", {"command": command}), context())
    assert found.verdict is Verdict.ASK, (command, found.reason)
    return tuple(rule.text for rule in found.proposed_rules)


def bash_rules(texts: tuple[str, ...]) -> list[Rule]:
    return [r for r in map(parse_rule, texts) if r.is_bash]


# -- 1. remote commands: the wrapper with its host, never the local command --------------

REMOTE = [
    ("ssh host rm -rf /tmp/x", ("ssh", "host", "rm", "-rf", "/tmp/x"),
     ("rm", "-rf", "/tmp/x"), "ssh runs rm on host: never a rule for a local rm"),
    ("ssh -p 22 user@host 'git pull'", ("ssh", "-p", "22", "user@host", "git pull"),
     ("git", "pull"), "the host and port are part of what was approved"),
    ("ssh host ls", ("ssh", "host", "ls"), ("ls",), "not 'ssh *': any host, any command"),
    ("ssh host 'cat /etc/passwd'", ("ssh", "host", "cat /etc/passwd"),
     ("cat", "/etc/passwd"), "a remote read is no local read_file rule"),
    ("docker exec web rm -rf /x", ("docker", "exec", "web", "rm", "-rf", "/x"),
     ("rm", "-rf", "/x"), "docker exec names its container"),
    ("kubectl exec pod -- rm x", ("kubectl", "exec", "pod", "--", "rm", "x"), ("rm", "x"),
     "kubectl exec names its pod"),
    ("gcloud compute ssh vm --zone z --command 'rm x'",
     ("gcloud", "compute", "ssh", "vm", "--zone", "z", "--command", "rm x"), ("rm", "x"),
     "gcloud compute ssh names its machine"),
]


@pytest.mark.parametrize(("command", "exact", "local", "why"), REMOTE)
def test_always_on_a_remote_command_names_the_wrapper_and_its_host(
        command: str, exact: tuple[str, ...], local: tuple[str, ...], why: str) -> None:
    texts = proposed(command)
    rules = bash_rules(texts)
    assert rules, why
    assert [r for r in map(parse_rule, texts) if not r.is_bash] == [], why
    for rule in rules:
        assert not rule.matches_argv(local), (why, rule.text)
        assert rule.words == exact and not rule.prefix, (why, rule.text)


def test_a_rule_for_the_remote_command_covers_it_next_time_and_no_other_host() -> None:
    texts = proposed("ssh host rm -rf /tmp/x")
    again = decide(ToolCall("2", "bash", {"command": "ssh host rm -rf /tmp/x"}), context(texts))
    assert again.verdict is Verdict.ALLOW, again.reason
    for other in ("ssh other rm -rf /tmp/x", "rm -rf /tmp/x", "ssh host rm -rf /tmp/y"):
        found = decide(ToolCall("3", "bash", {"command": other}), context(texts))
        assert found.verdict is Verdict.ASK, other


@pytest.mark.parametrize(("rule", "command", "why"), [
    ("Bash(ssh host git *)", "ssh host git pull ';' rm -rf /",
     "the remote shell re-reads the words: ';' there ends git and runs rm"),
    ("Bash(ssh host *)", "ssh host rm -rf /", "names the host, not what runs there"),
    ("Bash(ssh host 'ls *')", "ssh host 'ls x; rm -rf /'", "a glob over a remote command line"),
])
def test_a_rule_with_a_glob_over_the_remote_command_never_covers_it(
        rule: str, command: str, why: str) -> None:
    found = decide(ToolCall("1", "bash", {"command": command}), context((rule,)))
    assert found.verdict is Verdict.ASK, why
    assert "rm" in found.reason, (why, found.reason)


@pytest.mark.parametrize(("command", "expected"), [
    ("timeout 5 ssh h rm x", ("Bash(timeout 5 ssh h rm x)",)),
    ("ssh h 'rm x; ls /'", ("Bash(ssh h 'rm x; ls /')",)),
    ("ssh h ls > out.txt", ("Bash(ssh h ls)", "write_file(path=out.txt)")),
])
def test_a_carrier_behind_a_wrapper_or_with_a_local_redirect(
        command: str, expected: tuple[str, ...]) -> None:
    # The redirect writes here, not on the host: it gets a local rule of its own.
    assert proposed(command) == expected


# -- 2. runners of fetched or project code: what they run, never the runner ------------

RUNNERS = [
    ("go run ./cmd/x", "./cmd/x", "go run runs the package named"),
    ("go run example.com/mod@v1.2.3 --flag", "example.com/mod@v1.2.3", "a module at a version"),
    ("npx cowsay@1.2 hi", "cowsay@1.2", "not npx cowsay@* nor npx *"),
    ("npx -y cowsay", "cowsay", "npx fetches the package named"),
    ("uvx ruff@0.1 check", "ruff@0.1", "uvx fetches the tool named"),
    ("pipx run black .", "black", "pipx run fetches the package named"),
    ("deno run https://x.example/a.ts", "https://x.example/a.ts", "deno runs the URL named"),
    ("deno run -A main.ts", "main.ts", "deno runs the file named"),
    ("bunx cowsay", "cowsay", "bunx fetches the package named"),
    ("pnpm dlx create-vite", "create-vite", "pnpm dlx fetches the package named"),
    ("yarn dlx cowsay", "cowsay", "yarn dlx fetches the package named"),
    ("cargo run --bin x", "x", "cargo run builds and runs the binary named"),
    ("python -m http.server 8000", "http.server", "python -m runs the module named"),
    ("python3 -m pip install x", "pip", "python -m runs the module named"),
    ("python script.py", "script.py", "python runs the script named"),
    ("node x.js", "x.js", "node runs the script named"),
]


@pytest.mark.parametrize(("command", "named", "why"), RUNNERS)
def test_always_on_a_runner_names_what_it_runs_never_the_runner(
        command: str, named: str, why: str) -> None:
    rules = bash_rules(proposed(command))
    assert rules, why
    for rule in rules:
        assert rule.words is not None and named in rule.words, (why, rule.text)
        fixed_until = rule.words.index(named)
        # Every word up to the one naming what runs is spelled out, none a glob.
        assert all(not set("*?[") & set(w) for w in rule.words[:fixed_until + 1]), rule.text


@pytest.mark.parametrize(("command", "expected"), [
    ("uvx ruff check", ("Bash(uvx ruff check *)",)),
    ("npx cowsay@1.2 hi", ("Bash(npx cowsay@1.2 hi)",)),
    ("go run ./cmd/x", ("Bash(go run ./cmd/x *)",)),
    ("python -m pip install x", ("Bash(python -m pip install *)",)),
    ("cargo run --bin x", ("Bash(cargo run --bin x)",)),
    ("python script.py", ("Bash(python script.py)",)),
    ("deno run https://x.example/a.ts", ("Bash(deno run https://x.example/a.ts)",)),
    ("timeout 5 npm install x", ("Bash(timeout 5 npm install *)",)),
])
def test_the_runner_examples_of_the_spec(command: str, expected: tuple[str, ...]) -> None:
    # docs/SPEC.md §4.4, "What always proposes", word for word.
    assert proposed(command) == expected


@pytest.mark.parametrize("command", ["npx cowsay@1.2 hi", "uvx ruff@0.1 check"])
def test_a_version_is_never_widened(command: str) -> None:
    texts = proposed(command)
    assert all("@*" not in t and "@?" not in t for t in texts), texts
    newer = command.replace("@1.2", "@1.3").replace("@0.1", "@0.2")
    found = decide(ToolCall("2", "bash", {"command": newer}), context(texts))
    assert found.verdict is Verdict.ASK, (newer, found.reason)


# -- 3. a path argument outside the workspace: the exact path, never a prefix -------------

PATHS = [
    ("rm /tmp/x", ("Bash(rm /tmp/x)", "write_file(path=/tmp/x)"), "not rm /tmp/* nor rm *"),
    ("cat ~/.config/app/x", ("read_file(path={HOME}/.config/app/x)",), "not ~/*"),
    ("cat /etc/hosts", ("read_file(path=/etc/hosts)",), "not /etc/**: /etc holds more"),
    ("git -C /tmp/x status", ("Bash(git -C /tmp/x status)", "read_file(path=/tmp/x)"),
     "not /tmp/**, and git there exactly (it may find another repository)"),
    ("cp a /tmp/x", ("Bash(cp a /tmp/x)", "write_file(path=/tmp/x)"), "not cp *"),
    ("touch /tmp/x", ("Bash(touch /tmp/x)", "write_file(path=/tmp/x)"), "not touch *"),
    ("chmod 600 ../other/x", ("Bash(chmod 600 ../other/x)", "write_file(path=/srv/other/x)"),
     "a relative path that leaves the workspace is outside too"),
    ("rm '*'", (), "no path rule names a file called '*' alone: nothing, never every file"),
    ("cp -t/tmp a", ("Bash(cp -t/tmp a)", "write_file(path=/tmp)"),
     "a path glued to a short option is a path too"),
    ("cd /tmp && touch x", ("Bash(touch x)", "write_file(path=/tmp/x)", "read_file(path=/tmp)"),
     "after cd the file is outside: touch x exactly, never touch *"),
]


@pytest.mark.parametrize(("command", "expected", "why"), PATHS)
def test_always_on_a_path_outside_names_that_path_only(
        command: str, expected: tuple[str, ...], why: str) -> None:
    home = os.path.expanduser("~")
    assert proposed(command) == tuple(e.replace("{HOME}", home) for e in expected), why


def test_a_rule_for_one_file_outside_does_not_cover_its_neighbours() -> None:
    texts = proposed("rm /tmp/x")
    assert decide(ToolCall("2", "bash", {"command": "rm /tmp/x"}), context(texts)).verdict \
        is Verdict.ALLOW
    for other in ("rm /tmp/y", "rm -rf /tmp", "rm /tmp/x /etc/passwd"):
        assert decide(ToolCall("3", "bash", {"command": other}), context(texts)).verdict \
            is Verdict.ASK, other


# -- 4. the property: a proposal covers the call, and no more than the bounds allow -------

def _outside(word: str) -> bool:
    values = [word, word.split("=", 1)[1] if "=" in word else word,
              word[2:] if word.startswith("-") else word]
    return any(("/" in v or v.startswith("~")) and "://" not in v and
               os.path.isabs(workspace_relative(v, WORKSPACE)) for v in values)


def check_bounds(command: str) -> None:
    """Every proposed rule parses back to itself, lets the call through, and is bounded."""
    found = decide(ToolCall("1", "bash", {"command": command}), context())
    if found.verdict is not Verdict.ASK or not found.proposed_rules:
        return
    texts = [rule.text for rule in found.proposed_rules]
    rules = [parse_rule(t, "proposed") for t in texts]
    assert [r.text for r in rules] == texts  # each reads back as itself
    again = decide(ToolCall("2", "bash", {"command": command}), context(tuple(texts)))
    assert again.verdict is Verdict.ALLOW, (command, texts, again.reason)
    argv = shlex.split(command)
    for rule in rules:
        if not rule.is_bash:
            assert all(not set("*?[") & set(glob) for _, glob in rule.when), rule.text
            continue
        assert rule.words is not None and rule.words[0] in command, rule.text
        if rule.prefix:  # what the '*' covers holds no path outside the workspace
            rest = argv[len(rule.words):]
            assert not any(_outside(w) for w in rest), (command, rule.text)
            assert len(rule.words) >= 2 or argv[0] not in _RUNNER_NAMES, (command, rule.text)
        if {"ssh", "docker", "kubectl", "gcloud"} & set(rule.words):
            assert not rule.prefix, (command, rule.text)


_RUNNER_NAMES = {"npx", "uvx", "bunx", "python", "node", "deno", "go", "cargo", "pipx"}

TABLE = [row[0] for row in REMOTE] + [row[0] for row in RUNNERS] + [row[0] for row in PATHS] + [
    "npm install left-pad", "git push origin main", "touch a && mkdir b", "rm -rf build",
    "cat f > out.txt", "timeout 5 npm install x", "uv run pytest", "env A=1 git push",
    "find . -exec rm {} \\;", "sed -i s/a/b/ /tmp/x", "ssh host 'rm x; ls /'",
    "timeout 5 ssh h rm x", "ssh h ls > out.txt", "bash -c 'ssh h rm x'",
    "echo x > a.txt && rm /tmp/y", "sed -i 's/a*/b/' f.txt", "python -m '*'",
    "cd B && find . >> ../tmp.txt",
]


@pytest.mark.parametrize("command", TABLE)
def test_every_proposal_in_the_tables_covers_its_call_within_bounds(command: str) -> None:
    check_bounds(command)


_HEADS = ["rm", "rm -f", "cp a", "touch", "chmod 600", "cat", "mkdir -p", "git push",
          "npm install", "npx", "npx -y", "uvx", "pipx run", "go run", "deno run",
          "python", "python -m", "node", "ssh host", "ssh -p 2 h", "docker exec c",
          "kubectl exec p --", "timeout 5 rm", "env X=1 touch", "sed -i s/a/b/",
          "timeout 5 ssh h", "echo x > out.txt; rm", "uv run", "xargs rm", "git -C /tmp/r add",
          "cd /tmp && touch", "cd src && cat", "ls"]
_WORDS = ["/tmp/x", "/etc/hosts", "~/.config/app/x", "../up/x", "src/a.py", "x", "-v",
          "cowsay@1.2", "ruff@0.1", "main.ts", "https://x.example/a.ts", "origin", "*",
          "a b", "--out=/tmp/o", "rm -rf /", "-o/etc/x", "-t/tmp"]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(_HEADS), st.lists(st.sampled_from(_WORDS), min_size=0, max_size=3))
def test_generated_calls_get_proposals_within_bounds(head: str, words: list[str]) -> None:
    check_bounds(" ".join([head] + [shlex.quote(w) for w in words]))


@pytest.mark.parametrize(("tool", "args", "expected", "why"), [
    ("write_file", {"path": "../other/x", "content": ""}, ("write_file(path=/srv/other/x)",),
     "outside, named as it is matched: the rule covers the call next time"),
    ("write_file", {"path": "src/../notes.txt", "content": ""}, ("write_file(path=notes.txt)",),
     "named as it is matched, or the rule would never match it"),
    ("write_file", {"path": "src/*.py", "content": ""}, (),
     "a '*' in the path would cover every .py file there: nothing is proposed"),
    ("write_file", {"path": "a,b", "content": ""}, (),
     "a ',' would read back as two arguments: nothing is proposed"),
    ("read_file", {"path": "/etc/hosts"}, ("read_file(path=/etc/hosts)",), "the file read"),
])
def test_a_file_tool_is_proposed_for_its_path_exactly(
        tool: str, args: dict[str, object], expected: tuple[str, ...], why: str) -> None:
    call = ToolCall("1", tool, args)
    found = decide(call, context())
    assert found.verdict is Verdict.ASK, found.reason
    assert tuple(rule.text for rule in found.proposed_rules) == expected, why
    if expected:
        assert decide(call, context(expected)).verdict is Verdict.ALLOW, why


@pytest.mark.parametrize("text", ["Bash(ls [2-1])", "Bash(cat file[z-a].txt *)"])
def test_a_rule_word_that_is_no_glob_is_said_when_the_rule_is_read(text: str) -> None:
    # Proposals once copied such words into rules; checking the next call then raised.
    with pytest.raises(RuleError, match="is not a glob"):
        parse_rule(text, "agent.yml")


def test_a_word_with_brackets_is_proposed_only_if_a_rule_can_name_it() -> None:
    assert proposed("rm -rf 'file[2-1]'") == ()  # no rule word matches it literally
    assert proposed("rm -rf 'a*b'") == ("Bash(rm -rf a[*]b)",)
