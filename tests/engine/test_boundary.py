"""Reads have a boundary, and saikish's own keys stay home (docs/SPEC.md §4.8)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from saikish.engine import boundary
from saikish.engine.policy import Context, RuleSet, decide
from saikish.rules import Rule, one_look, parse_rule, real_path
from saikish.tools import builtin_tools
from saikish.tools.base import RunContext
from saikish.tools.files import grep
from saikish.tools.sandbox.childenv import child_environment
from saikish.types import Autonomy, Mode, ReasonKind, Source, Tier, ToolCall, Verdict
from tests.support.harness import Run, write_script

CLI = Callable[..., Run]
WS = "/srv/project"


@pytest.mark.parametrize(("path", "concern", "why"), [
    ("src/app.py", None, "an ordinary file inside"),
    (".", None, "the workspace itself"),
    ("/etc/hosts", boundary.OUTSIDE, "absolute path outside"),
    ("../other/x", boundary.OUTSIDE, "../ leaves the workspace"),
    ("src/../../x", boundary.OUTSIDE, "../ inside a path"),
    ("~", boundary.OUTSIDE, "home"),
    (".env", boundary.SECRET, ".env"),
    (".env.production", boundary.SECRET, ".env.*"),
    ("config/server.pem", boundary.SECRET, "*.pem"),
    ("deploy.key", boundary.SECRET, "*.key"),
    ("~/.ssh/id_rsa", boundary.SECRET, "id_* in .ssh, outside too: secret wins"),
    ("keys/id_ed25519", boundary.SECRET, "id_* anywhere"),
    (".ssh", boundary.SECRET, "the .ssh directory itself"),
    ("~/.aws/credentials", boundary.SECRET, ".aws/"),
    ("~/.netrc", boundary.SECRET, ".netrc"),
    (".npmrc", boundary.SECRET, ".npmrc"),
    (".git-credentials", boundary.SECRET, ".git-credentials"),
    ("/proc/self/environ", boundary.SECRET, "another process's environment"),
    ("/proc/1/environ", boundary.SECRET, "pid 1's environment"),
    ("src/environment.py", None, "a name that only looks like one"),
    ("docs/keys.md", None, "*.key does not match keys.md"),
])
def test_read_concern(path: str, concern: str | None, why: str) -> None:
    assert boundary.read_concern(path, WS) == concern, why


def test_a_link_out_of_the_workspace_is_outside(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "secret.txt").write_text("x")
    (ws / "innocent.txt").symlink_to(tmp_path / "secret.txt")
    (ws / "token.txt").symlink_to(tmp_path / ".env")
    assert boundary.read_concern("innocent.txt", str(ws)) == boundary.OUTSIDE
    assert boundary.read_concern("token.txt", str(ws)) == boundary.SECRET  # resolved name


def test_each_decision_looks_at_the_file_system_again(tmp_path: Path) -> None:
    # One decision resolves a path once (rules.one_look); a link repointed after it, as a
    # call that ran may do, is read anew by the next decision, never from the first's.
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "notes.txt").write_text("x")
    (tmp_path / "keys").mkdir()
    (tmp_path / "keys" / "notes.txt").write_text("x")
    (ws / "link").symlink_to(ws / "docs")
    context = Context(builtin_tools(), RuleSet(), Autonomy.CAUTIOUS, Mode.EVENT_BASED, str(ws))
    call = ToolCall("1", "bash", {"command": "cat link/notes.txt && wc -l link/notes.txt"})
    assert decide(call, context).tier is Tier.VERIFIED
    (ws / "link").unlink()
    (ws / "link").symlink_to(tmp_path / "keys")
    again = decide(call, context)
    assert again.verdict is Verdict.ASK
    assert again.reason.startswith("reads link/notes.txt, which is outside the workspace")
    assert again.reason_kind is ReasonKind.READS_OUTSIDE


def test_a_batch_check_looks_once_for_all_its_lines_and_a_run_again_each_time(
        tmp_path: Path) -> None:
    # `saikish check --batch` runs nothing between its lines: one look at the file system
    # holds for all of them (an outer one_look keeps its answers); outside it, each
    # decision looks again.
    tmp_path = tmp_path.resolve()
    (tmp_path / "docs").mkdir()
    (tmp_path / "keys").mkdir()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "docs")
    with one_look():
        assert real_path(str(link)) == str(tmp_path / "docs")
        link.unlink()
        link.symlink_to(tmp_path / "keys")
        with one_look():  # a decision inside the batch
            assert real_path(str(link)) == str(tmp_path / "docs")
    with one_look():
        assert real_path(str(link)) == str(tmp_path / "keys")


@pytest.mark.parametrize(("name", "secret"), [
    ("OPENAI_API_KEY", True), ("GITHUB_TOKEN", True), ("github_token", True),
    ("AWS_SECRET_ACCESS_KEY", True), ("AWS_PROFILE", True), ("DB_PASSWORD", True),
    ("DATABASE_URL", True), ("SENTRY_DSN", True), ("SLACK_WEBHOOK_URL", True),
    ("MONGODB_URI", True), ("REDIS_URL", True), ("AZURE_STORAGE_CONNECTION_STRING", True),
    ("HOME", False), ("PATH", False), ("NODE_ENV", False), ("LANG", False),
    ("API_URL", False), ("BASE_URL", False), ("PWD", False),
])
def test_secret_variable_names(name: str, secret: bool) -> None:
    # The one predicate: `printenv NAME` and `echo $NAME` both ask it
    # (tests/engine/test_attacks_environment.py).
    assert boundary.is_secret_variable(name) is secret


def ctx(allow: tuple[str, ...] = (), autonomy: Autonomy = Autonomy.CAUTIOUS,
        mode: Mode = Mode.EVENT_BASED, ask: tuple[str, ...] = ()) -> Context:
    rules = RuleSet(config_allow=tuple(parse_rule(r) for r in allow),
                    config_ask=tuple(parse_rule(r) for r in ask))
    return Context(builtin_tools(), rules, autonomy, mode, WS)


def call(tool: str, **args: object) -> ToolCall:
    return ToolCall("1", tool, args)


@pytest.mark.parametrize(("tool", "args", "reason", "proposed"), [
    ("read_file", {"path": "/etc/hosts"}, "read_file reads /etc/hosts, which is outside the "
     "workspace", "read_file(path=/etc/hosts)"),
    ("list_files", {"path": "/"}, "list_files reads /, which is outside the workspace",
     "list_files(path=/)"),
    ("grep", {"pattern": "KEY", "path": "~"}, "outside the workspace",
     "grep(path={HOME})"),
    ("read_file", {"path": ".env"}, "read_file reads .env, which is a file that may hold "
     "secrets", "read_file(path=.env)"),
    ("read_file", {"path": "~/.ssh/id_rsa"}, "may hold secrets",
     "read_file(path={HOME}/.ssh/id_rsa)"),
])
def test_reads_across_the_boundary_are_asked_even_under_full_auto(
        tool: str, args: dict[str, object], reason: str, proposed: str) -> None:
    for autonomy in (Autonomy.CAUTIOUS, Autonomy.FULL_AUTO):
        found = decide(call(tool, **args), ctx(allow=(tool,), autonomy=autonomy))
        # A bare tool rule was written for the workspace: it does not carry reads out of it.
        assert found.verdict is Verdict.ASK, autonomy
        assert reason in found.reason
        # HOME is the test's own (tests/conftest.py), so it is read when the test runs.
        assert texts(found.proposed_rules) == (
            proposed.replace("{HOME}", os.path.expanduser("~")),)


@pytest.mark.parametrize(("path", "glob"), [
    ("/etc/hosts", "/etc/hosts"), ("/etc", "/etc"), ("/vmlinuz", "/vmlinuz"),
    ("~/notes.txt", "{HOME}/notes.txt"),
    ("~/src/x.py", "{HOME}/src/x.py"),
])
def test_always_offers_the_path_read_never_its_directory(path: str, glob: str) -> None:
    expected = glob.replace("{HOME}", os.path.expanduser("~"))
    assert boundary.proposal_glob(path, WS, boundary.OUTSIDE) == expected


@pytest.mark.parametrize("command", ["cat /proc/self/environ", None])
def test_a_rule_for_proc_self_names_self_never_this_processs_pid(command: str | None) -> None:
    the_call = call("bash", command=command) if command else \
        call("read_file", path="/proc/self/environ")
    found = decide(the_call, ctx())
    assert found.verdict is Verdict.ASK
    proposed = texts(found.proposed_rules)
    assert proposed == ("read_file(path=/proc/self/environ)",), proposed
    assert str(os.getpid()) not in proposed[0]
    # ... and the rule then covers the same words, and nothing else of /proc.
    allowed = ctx(allow=proposed)
    assert decide(the_call, allowed).verdict is Verdict.ALLOW
    assert decide(call("read_file", path="/proc/1/environ"), allowed).verdict is Verdict.ASK


def test_the_proposed_rule_then_allows_that_file_only() -> None:
    rule = decide(call("read_file", path="/etc/hosts"), ctx()).proposed_rules[0].text
    allowed = ctx(allow=(rule,))
    found = decide(call("read_file", path="/etc/hosts"), allowed)
    assert (found.verdict, found.rule) == (Verdict.ALLOW, "read_file(path=/etc/hosts)")
    # Its neighbours in /etc were not approved (docs/SPEC.md §4.4).
    assert decide(call("read_file", path="/etc/hostname"), allowed).verdict is Verdict.ASK
    assert decide(call("read_file", path="/var/log/syslog"), allowed).verdict is Verdict.ASK
    # A rule for a directory written by hand still never covers a secret below it.
    assert decide(call("read_file", path="/etc/ssl/private/server.key"),
                  ctx(allow=("read_file(path=/etc/**)",))).verdict is Verdict.ASK
    exact = ctx(allow=("read_file(path=.env)",))
    assert decide(call("read_file", path=".env"), exact).verdict is Verdict.ALLOW
    assert decide(call("read_file", path=".env"),
                  ctx(allow=("read_file(path=**)",))).verdict is Verdict.ASK


def test_modes_answer_boundary_reads_for_the_person() -> None:
    # A file tool runs in saikish itself, not in the sandbox: a read outside the workspace
    # needs a person, and --auto-approve never answers for one (docs/SPEC.md §4.1).
    found = decide(call("read_file", path="/etc/hosts"), ctx(mode=Mode.AUTO_APPROVE))
    assert (found.verdict, found.tier) == (Verdict.ASK, Tier.ASKED)
    assert "outside the workspace" in found.reason
    found = decide(call("read_file", path="/etc/hosts"), ctx(mode=Mode.AUTO_DENY))
    assert (found.verdict, found.source) == (Verdict.REJECT, Source.MODE)


def test_an_ask_rule_beats_allow_rules_and_autonomy_and_names_itself() -> None:
    rules = ctx(allow=("read_file",), autonomy=Autonomy.FULL_AUTO,
                ask=("read_file(path=notes/**)",))
    found = decide(call("read_file", path="notes/plan.md"), rules)
    assert (found.verdict, found.rule) == (Verdict.ASK, "read_file(path=notes/**)")
    assert found.reason == "asked by rule read_file(path=notes/**)"
    assert found.proposed_rules == ()  # no allow rule could lift an ask rule
    assert decide(call("read_file", path="src/a.py"), rules).verdict is Verdict.ALLOW
    denied = decide(call("read_file", path="notes/plan.md"),
                    ctx(ask=("read_file",), mode=Mode.AUTO_DENY))
    assert (denied.verdict, denied.source, denied.rule) == (Verdict.REJECT, Source.MODE,
                                                             "read_file")
    approved = decide(call("read_file", path="notes/plan.md"),
                      ctx(ask=("read_file",), mode=Mode.AUTO_APPROVE))
    assert approved.verdict is Verdict.ASK  # an ask rule is the person's wish to see it


def test_check_names_the_ask_rule(cli: CLI) -> None:
    assert cli("allowlist", "add", "--ask", "write_file").code == 0
    run = cli("check", "--json", "--autonomy", "full-auto", "--tool", "write_file",
              "--args", '{"path": "a.txt", "content": "x"}')
    data = json.loads(run.out)
    assert (data["decision"], data["rule"], data["reason"]) == ("ask", "write_file",
                                                               "asked by rule write_file")


def test_grep_over_a_tree_skips_secret_files(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("API_KEY=sk-live\n")
    (tmp_path / "app.py").write_text("API_KEY = os.environ['API_KEY']\n")
    out = grep({"pattern": "API_KEY"}, RunContext(str(tmp_path))).text
    assert "sk-live" not in out and "app.py:1:" in out
    assert "[not searched, may hold secrets: .env; read_file asks for them]" in out


def test_children_never_inherit_saikishs_keys() -> None:
    env = {"OPENAI_API_KEY": "sk-a", "ANTHROPIC_API_KEY": "sk-b", "MY_KEY": "sk-c",
           "HOME": "/home/me", "PATH": "/bin"}
    assert child_environment(["sk-c"], env) == {"HOME": "/home/me", "PATH": "/bin"}


@pytest.mark.parametrize(("sandbox", "kept"), [
    ("off", True),  # outside, the rest of the environment is kept (saikish.tools.sandbox.childenv)
    ("auto", False),  # inside, only the allowed names pass (docs/SPEC.md §4.9)
])
def test_env_through_the_bash_tool_shows_no_key_saikish_holds(
        cli: CLI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandbox: str,
        kept: bool) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-held")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-anthropic-held")
    monkeypatch.setenv("MY_PROVIDER_KEY", "sk-from-agent-yml")
    monkeypatch.setenv("HARMLESS_MARKER", "still-here")
    user = Path(os.environ["SAIKISH_CONFIG_DIR"])
    user.mkdir(parents=True)
    (user / "agent.yml").write_text("llm:\n  apiKey: $MY_PROVIDER_KEY\n")
    model = write_script(tmp_path / "s.yml", "- tool_calls:\n"
                         "    - {name: bash, arguments: {command: 'env > env.txt'}}\n"
                         "- text: done\n")
    run = cli("-p", "show env", "-m", model, "--auto-approve", "--sandbox", sandbox)
    assert run.code == 0
    output = Path("env.txt").read_text()
    assert ("HARMLESS_MARKER=still-here" in output) is kept
    for secret in ("sk-openai-held", "sk-anthropic-held", "sk-from-agent-yml"):
        assert secret not in output


def texts(rules: tuple[Rule, ...]) -> tuple[str, ...]:
    return tuple(rule.text for rule in rules)
