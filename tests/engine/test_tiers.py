"""The four tiers (docs/SPEC.md §4.1): verified, contained, asked, rejected.

Every row names the tier a call must end in with a working sandbox and checkpoints, and
for contained and asked rows the words of the reason: why it was not verified, or why it
needs a person. Paths outside the workspace are outside /tmp too (tests run under /tmp,
which the sandbox makes private).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

import pytest

from saikish.engine.policy import Context, RuleSet, decide
from saikish.engine.tiers import Containment
from saikish.rules import parse_rule
from saikish.runtime.approval import ApprovalRequest, NoTerminalApprover
from saikish.tools import builtin_tools
from saikish.types import Autonomy, Mode, Outcome, Source, Tier, ToolCall, Verdict

WORKSPACE = "/srv/project"
HELD = Containment(sandbox=True, checkpoints=True)


def context(*, held: Containment = HELD, autonomy: Autonomy = Autonomy.CAUTIOUS,
            mode: Mode = Mode.EVENT_BASED, allow: Iterable[str] = (),
            deny: Iterable[str] = ()) -> Context:
    rules = RuleSet(config_allow=tuple(parse_rule(r, "test") for r in allow),
                    config_deny=tuple(parse_rule(r, "test") for r in deny))
    return Context(builtin_tools(), rules, autonomy, mode, WORKSPACE, held)


def bash(command: str, ctx: Context | None = None) -> ToolCall:
    return ToolCall("1", "bash", {"command": command})


def judge(command: str, ctx: Context | None = None):  # type: ignore[no-untyped-def]
    return decide(bash(command), ctx or context())


VERIFIED = ["git status", "ls -la src", "cat README.md", "rg -n TODO src", "git log --oneline -5",
            "git -C . status"]

# (command, words of why it was not verified)
CONTAINED = [
    ("pytest -q", "build-test"),
    ("npm test", "build-test"),
    ("make", "build-test"),
    ("python3 script.py", "build-test"),
    ("python3 -c 'print(1)'", "Python code given on the command line"),
    ("./run.sh --fast", "unknown"),
    ("sed -i s/a/b/ f.txt", "write"),
    ("echo x > out.txt", "output redirection writes a file"),
    ("echo x > -", "output redirection writes a file"),  # a file named -, not a descriptor
    ("echo x &>> -", "output redirection writes a file"),
    ("echo x >&\u00b2", "output redirection writes a file"),  # a file named ², no descriptor
    ("cat in >& \uff12", "a descriptor bash does not read as one"),  # bashlex reads ２ as 2
    # Print ~/.gitconfig's values (tokens in URLs): the sandbox's private home hides it.
    ("git config --global --list", "prints environment variables or credentials"),
    ("git var -l", "prints environment variables or credentials"),
    # git elsewhere than the workspace root may find a repository a contained step made.
    ("git -C sub status", "build-test"),
    ("cd sub && git log -3", "build-test"),
    ("env -C sub git status", "build-test"),
    # Clear the environment, and saikish's git guard (safe.bareRepository) with it.
    ("env -i git -C sub status", "clears the environment"),
    ("exec -c git status", "clears the environment"),
    ("rm old.txt", "destructive"),
    ("rm -f a.txt b.txt", "destructive"),
    ("mv a.txt b.txt", "write"),
    ("cat /etc/os-release", "outside the workspace"),
    ("npx tsc --noEmit", "network"),
    ("uv run pytest", "network"),
    ("[[ x", "cannot be fully analysed"),
    ('cat "$f"', "only known at run time"),
    ("touch /tmp/scratch", "writes a file"),
    ("PYTHONPATH=. pytest tests", "changes what runs"),
    ("env", "environment"),
    ("[[ -f x ]] && cat README.md", "parsed after a rewrite of [[ ]]"),
    ("cat <<'EOF'\n# notes\nEOF", "parsed after a rewrite of a quoted here-document"),
    ("echo $((6 * 7))", "parsed after a rewrite of arithmetic"),
]

# (command, words of why it needs a person)
ASKED = [
    ("curl https://example.com", "network"),
    ("npm install left-pad", "network"),
    ("git push origin main", "network"),
    ("git commit -m x", "git metadata"),
    ("git add .", "git metadata"),
    ("git checkout -- .", "git metadata"),
    ("echo x > /etc/profile.d/x.sh", "outside the workspace"),
    ("echo x > .git/hooks/pre-commit", "git metadata"),
    ("echo x > agent.yml", "saikish's config"),
    ("touch agent.yml", "saikish's config"),
    ("mkdir .saikish", "saikish's config"),
    ("cp x.txt /opt/x.txt", "outside the workspace"),
    ("cat /home/someone/.bashrc", "outside the workspace"),
    ("cat ~/.bashrc", "outside the workspace"),
    ("echo x >> ~/.bashrc", "outside the workspace"),
    ("cat ~/.ssh/id_rsa", "secrets"),
    ("cat .env", "secrets"),
    ("cat /etc/shadow", "secrets"),
    ("cat *.pem", "secrets"),
    ("rm -rf build", "recursive, forced or bulk"),
    ("find . -name '*.pyc' -delete", "recursive, forced or bulk"),
    ("rm *.log", "bulk"),
    ("rm a b c d e f g h i j k", "bulk"),
    ("kill 1234", "recursive, forced or bulk"),
    ("npx tsc && git push", "network"),
]


@pytest.mark.parametrize("command", VERIFIED)
def test_verified_runs_as_before(command: str) -> None:
    found = judge(command)
    assert (found.verdict, found.tier, found.source) == (Verdict.ALLOW, Tier.VERIFIED,
                                                          Source.AUTONOMY)


@pytest.mark.parametrize(("command", "why"), CONTAINED)
def test_what_needs_no_person_runs_contained(command: str, why: str) -> None:
    found = judge(command)
    assert (found.verdict, found.tier, found.source) == (Verdict.ALLOW, Tier.CONTAINED,
                                                          Source.SANDBOX), found.reason
    assert why in found.unverified and "runs contained in the sandbox" in found.reason


@pytest.mark.parametrize(("command", "why"), ASKED)
def test_what_needs_a_person_is_asked_and_says_why(command: str, why: str) -> None:
    found = judge(command)
    assert (found.verdict, found.tier) == (Verdict.ASK, Tier.ASKED), found.reason
    assert why in found.reason, found.reason


@pytest.mark.parametrize(("command", "why"), ASKED)
def test_auto_approve_does_not_answer_for_a_person(command: str, why: str) -> None:
    found = judge(command, context(mode=Mode.AUTO_APPROVE))
    assert found.tier is Tier.ASKED
    # Headless, nobody can answer: rejected soft with the reason and the way out (a rule).
    request = ApprovalRequest(bash(command), found, 0, (bash(command),), WORKSPACE,
                              mode=Mode.AUTO_APPROVE)
    decision = NoTerminalApprover().ask(request)
    assert (decision.outcome, decision.source) == (Outcome.REJECTED_SOFT, Source.MODE)
    assert decision.feedback and "needs a person" in decision.feedback and \
        why in decision.feedback and "rule" in decision.feedback


def test_escalation_is_rejected_whatever_contains_it() -> None:
    for command in ("sudo ls", "python3 -c 'import os; os.system(\"sudo id\")'"):
        found = judge(command, context(mode=Mode.AUTO_APPROVE))
        assert (found.tier, found.source) == (Tier.REJECTED, Source.ESCALATION)


def test_auto_approve_answers_for_the_contained_tier() -> None:
    found = judge("pytest -q", context(mode=Mode.AUTO_APPROVE))
    assert (found.verdict, found.tier) == (Verdict.ALLOW, Tier.CONTAINED)


def test_auto_deny_and_manual_contain_nothing() -> None:
    denied = judge("pytest -q", context(mode=Mode.AUTO_DENY))
    assert (denied.tier, denied.source) == (Tier.REJECTED, Source.MODE)
    manual = judge("pytest -q", context(autonomy=Autonomy.MANUAL))
    assert manual.tier is Tier.ASKED and "would run contained" not in manual.reason
    assert judge("ls", context(autonomy=Autonomy.MANUAL)).tier is Tier.ASKED


def test_without_a_sandbox_the_contained_tier_is_asked_and_says_what_is_missing() -> None:
    found = judge("pytest -q", context(held=Containment(missing="bwrap not found")))
    assert found.tier is Tier.ASKED
    assert "it would run contained, but bwrap not found" in found.reason
    # The person turned the sandbox off and runs --auto-approve: it runs, unsandboxed.
    chosen = judge("pytest -q", context(held=Containment(unsandboxed=True),
                                        mode=Mode.AUTO_APPROVE))
    assert chosen.tier is Tier.CONTAINED and "unsandboxed" in chosen.reason
    # ... but what needs a person still does.
    assert judge("curl https://x.example", context(held=Containment(unsandboxed=True),
                                                   mode=Mode.AUTO_APPROVE)).tier is Tier.ASKED


def test_code_that_cannot_be_read_is_asked_when_a_deny_rule_could_name_it() -> None:
    # A deny rule is the person's wish: unreadable code might be what it names.
    found = judge("[[ x", context(deny=["Bash(rm *)"]))
    assert found.tier is Tier.ASKED


def test_a_protected_path_the_session_names_needs_a_person() -> None:
    held = replace(HELD, protected=(f"{WORKSPACE}/.husky",))
    found = judge("echo x > .husky/pre-commit", context(held=held))
    assert found.tier is Tier.ASKED and "git metadata" in found.reason
    assert judge("echo x > husky.txt", context(held=held)).tier is Tier.CONTAINED


def write(path: str, content: str = "x") -> ToolCall:
    return ToolCall("1", "write_file", {"path": path, "content": content})


@pytest.mark.parametrize(("path", "tier"), [
    ("src/app.py", Tier.CONTAINED),
    ("notes.md", Tier.CONTAINED),
    ("/opt/app/x.py", Tier.ASKED),
    ("../sibling/x.py", Tier.ASKED),
    (".git/config", Tier.ASKED),
    (".git/hooks/pre-commit", Tier.ASKED),
    ("agent.yml", Tier.ASKED),
    (".saikish/rules.yaml", Tier.ASKED),
])
def test_file_edits_in_the_workspace_are_contained_by_the_checkpoint(path: str,
                                                                     tier: Tier) -> None:
    assert decide(write(path), context()).tier is tier
    # Without checkpoints, nothing makes an edit undoable: it is asked; without a working
    # sandbox nothing is contained (docs/SPEC.md §4.1).
    no_undo = context(held=Containment(sandbox=True))
    assert decide(write(path), no_undo).tier is Tier.ASKED
    no_sandbox = context(held=Containment(checkpoints=True))
    assert decide(write(path), no_sandbox).tier is Tier.ASKED


@pytest.mark.parametrize(("rule", "path", "covered"), [
    ("write_file", "src/app.py", True),
    ("write_file", "/opt/app/x.py", False),
    ("write_file", ".git/config", False),
    ("write_file", "agent.yml", False),
    ("write_file", ".saikish/x", False),
    ("write_file(path=**)", "agent.yml", False),
    ("write_file(path=agent.yml)", "agent.yml", True),
    ("edit_file", "src/app.py", True),
])
def test_a_bare_write_rule_covers_the_workspace_only(rule: str, path: str,
                                                     covered: bool) -> None:
    tool = "edit_file" if rule.startswith("edit_file") else "write_file"
    arguments = {"path": path, "old_string": "a", "new_string": "b"} if tool == "edit_file" \
        else {"path": path, "content": "x"}
    found = decide(ToolCall("1", tool, arguments),
                   context(held=Containment(), allow=[rule]))
    assert (found.source is Source.RULE) is covered, found.reason
    # The same rule never covers a shell redirection to that place either.
    shell = judge(f"echo x > {path}", context(held=Containment(), allow=[rule, "Bash(echo *)"]))
    assert (shell.verdict is Verdict.ALLOW) is (covered and tool == "write_file"), shell.reason
