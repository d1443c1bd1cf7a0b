"""Protocol v1 as values (docs/remote.md): addresses, client messages, answers -> Decisions.

Pure tables, one row per case with the reason in the row; the wire itself is tested
in test_remote_server.py.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from saikish.config.layers import Config
from saikish.engine.policy import decide
from saikish.errors import UsageError
from saikish.remote.address import Address, host_allowed, origin_allowed, parse_address
from saikish.remote.channel import banner_lines
from saikish.remote.protocol import (
    AnswerScope,
    ApprovalResponse,
    ProtocolError,
    RejectMode,
    SetAutonomy,
    answer_scope,
    decision_for,
    parse_client,
)
from saikish.remote.view import approval_needed, file_change
from saikish.runtime.approval import ApprovalRequest
from saikish.runtime.session import Session
from saikish.tools import builtin_tools
from saikish.types import Autonomy, Decision, Outcome, Scope, Source, ToolCall
from tests.support.rules import texts

TOOLS = builtin_tools()


@pytest.mark.parametrize(("text", "expected"), [
    (None, Address("127.0.0.1", 0)),        # --remote alone: loopback, any free port
    ("", Address("127.0.0.1", 0)),
    ("8765", Address("127.0.0.1", 8765)),   # a port alone stays on loopback
    (":8765", Address("127.0.0.1", 8765)),
    ("localhost:1", Address("localhost", 1)),
    ("0.0.0.0:8765", Address("0.0.0.0", 8765)),  # named by the person: then it is served
    ("[::1]:8765", Address("::1", 8765)),
    ("[::1]", Address("::1", 0)),
    ("phone-lan.example", Address("phone-lan.example", 0)),
])
def test_addresses(text: str | None, expected: Address) -> None:
    assert parse_address(text) == expected


@pytest.mark.parametrize(("text", "why"), [
    ("127.0.0.1:99999", "the port must be 0-65535"),
    ("host:port", "give HOST:PORT"),
    ("::1:80", "give HOST:PORT"),          # IPv6 needs brackets
    ("[nothost]:80", "give HOST:PORT"),
    ("[1:2:3]:80", "is not an IPv6 address"),
])
def test_bad_addresses_say_what_is_wrong(text: str, why: str) -> None:
    with pytest.raises(UsageError, match=why):
        parse_address(text)


@pytest.mark.parametrize(("address", "loopback"), [
    (Address("127.0.0.1"), True), (Address("127.3.4.5"), True), (Address("::1"), True),
    (Address("localhost"), True), (Address("0.0.0.0"), False), (Address("::"), False),
    (Address("192.168.1.20"), False), (Address("phone-lan.example"), False),
])
def test_only_loopback_goes_without_a_warning(address: Address, loopback: bool) -> None:
    assert address.loopback is loopback
    lines = banner_lines(address.with_port(80), "http://x/?token=t")
    assert lines[0] == "remote approval: http://x/?token=t"
    assert (len(lines) == 1) is loopback  # a second line warns that others can reach it


@pytest.mark.parametrize(("host", "allowed", "why"), [
    ("127.0.0.1:80", True, "the address in the link"),
    ("localhost:80", True, "localhost cannot be rebound"),
    ("[::1]:80", True, "an IP literal cannot be rebound"),
    ("evil.example:80", False, "DNS rebinding: a name that resolves to us is not ours"),
    ("127.0.0.1:81", False, "another port"),
    ("127.0.0.1", False, "no port"),
    ("", False, "no Host at all"),
    (None, False, "no Host at all"),
])
def test_the_host_header_must_name_this_server(host: str | None, allowed: bool,
                                               why: str) -> None:
    assert host_allowed(host, Address("127.0.0.1", 80)) is allowed, why


def test_a_named_host_is_ours_too() -> None:
    assert host_allowed("phone-lan.example:80", Address("phone-lan.example", 80))
    assert not host_allowed("other.example:80", Address("phone-lan.example", 80))


@pytest.mark.parametrize(("origin", "allowed", "why"), [
    (None, True, "not a browser (a script, a phone app)"),
    ("http://127.0.0.1:80", True, "the page's own origin"),
    ("HTTP://127.0.0.1:80", True, "scheme and host are case-insensitive"),
    ("http://127.0.0.1:81", False, "another service on this machine"),
    ("http://evil.example", False, "another site"),
    ("https://127.0.0.1:80", False, "another scheme is another origin"),
    ("null", False, "a sandboxed or file: page"),
])
def test_the_origin_must_be_the_pages_own(origin: str | None, allowed: bool, why: str) -> None:
    assert origin_allowed(origin, "127.0.0.1:80") is allowed, why


# -- what a client sends ---------------------------------------------------------------

def frame(**fields: Any) -> str:
    return json.dumps({"v": 1, "type": "approval_response", "executionId": "q1", **fields})


@pytest.mark.parametrize(("text", "expected"), [
    (frame(approved=True), ApprovalResponse("q1", True)),
    (frame(approved=False), ApprovalResponse("q1", False, mode=RejectMode.HARD)),
    (frame(approved=False, mode="reject_soft", feedback="  why  "),
     ApprovalResponse("q1", False, mode=RejectMode.SOFT, feedback="why")),
    (frame(approved=False, feedback="   "), ApprovalResponse("q1", False)),  # blank: none
    (frame(approved=True, scope="global", rule="Bash(ls *)"),
     ApprovalResponse("q1", True, AnswerScope.GLOBAL, rules=("Bash(ls *)",))),
    (frame(approved=True, scope="session", rule=["Bash(a)", " ", "Bash(b)"]),
     ApprovalResponse("q1", True, AnswerScope.SESSION, rules=("Bash(a)", "Bash(b)"))),
    (frame(approved=True, arguments={"command": "ls"}),
     ApprovalResponse("q1", True, arguments={"command": "ls"})),
    ('{"v": 1, "type": "set_autonomy", "autonomy": "manual"}', SetAutonomy(Autonomy.MANUAL)),
])
def test_client_messages(text: str, expected: object) -> None:
    assert parse_client(text) == expected


@pytest.mark.parametrize(("text", "code", "why"), [
    ("{", "malformed_json", "not JSON"),
    ("[" * 100_000, "malformed_json", "nested past the recursion limit: an error, not a crash"),
    ('"text"', "bad_message", "not an object"),
    ('{"type": "approval_response"}', "unsupported_version", "no version"),
    ('{"v": "1", "type": "approval_response"}', "unsupported_version", "a string is not 1"),
    ('{"v": 1}', "unknown_type", "no type"),
    ('{"v": 1, "type": "approval_needed"}', "unknown_type", "a server message sent back"),
    (frame(approved="yes"), "bad_message", "approved must be a bool"),
    (json.dumps({"v": 1, "type": "approval_response", "approved": True}), "bad_message",
     "no executionId"),
    (frame(approved=True, scope="always"), "bad_message", "an unknown scope"),
    (frame(approved=False, mode="soft"), "bad_message", "an unknown mode"),
    (frame(approved=False, feedback=3), "bad_message", "feedback must be text"),
    (frame(approved=True, arguments="ls"), "bad_arguments", "arguments must be an object"),
    (frame(approved=True, rule={"a": 1}), "bad_rule", "a rule is text"),
    ('{"v": 1, "type": "set_autonomy", "autonomy": "yolo"}', "bad_message", "no such level"),
])
def test_bad_client_messages(text: str, code: str, why: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_client(text)
    assert refused.value.code == code, why
    assert refused.value.wire()["type"] == "error"


# -- an answer becomes the Decision the terminal would make ----------------------------------

def request_for(command: str, ws: Path, **changes: Any) -> ApprovalRequest:
    call = ToolCall("c1", "bash", {"command": command})
    assessment = decide(call, Session(Config(), str(ws)).context(builtin_tools()))
    return replace(ApprovalRequest(call, assessment, 0, (call,), str(ws),
                                   tool=TOOLS.get(call.name)), **changes)


@pytest.mark.parametrize(("response", "outcome", "remember", "persist", "scope"), [
    (ApprovalResponse("q", True), Outcome.APPROVED, (), False, Scope.PROJECT),
    (ApprovalResponse("q", True, AnswerScope.SESSION), Outcome.APPROVED, ("Bash(touch *)",),
     False, Scope.PROJECT),
    (ApprovalResponse("q", True, AnswerScope.PROJECT), Outcome.APPROVED, ("Bash(touch *)",),
     True, Scope.PROJECT),
    (ApprovalResponse("q", True, AnswerScope.GLOBAL), Outcome.APPROVED, ("Bash(touch *)",),
     True, Scope.GLOBAL),
    (ApprovalResponse("q", True, AnswerScope.SESSION, rules=("Bash(touch a)",)),
     Outcome.APPROVED, ("Bash(touch a)",), False, Scope.PROJECT),
    (ApprovalResponse("q", True, AnswerScope.PROJECT, rules=()), Outcome.APPROVED, (), False,
     Scope.PROJECT),  # every rule dropped: approved once, as an emptied rule line does
    (ApprovalResponse("q", False, mode=RejectMode.SOFT), Outcome.REJECTED_SOFT, (), False,
     Scope.PROJECT),
    (ApprovalResponse("q", False), Outcome.REJECTED_HARD, (), False, Scope.PROJECT),
])
def test_answers_become_the_terminals_decisions(ws: Path, response: ApprovalResponse,
                                                outcome: Outcome, remember: tuple[str, ...],
                                                persist: bool, scope: Scope) -> None:
    decision = decision_for(response, request_for("touch a", ws))
    assert (decision.outcome, texts(decision.remember), decision.persist, decision.scope) == (
        outcome, remember, persist, scope)
    # A person's answer, and the audit line says it came from the remote channel.
    assert (decision.source, decision.via) == (Source.USER, "remote")


def test_an_edit_is_sent_round_again(ws: Path) -> None:
    decision = decision_for(ApprovalResponse("q", True, arguments={"command": "touch b"}),
                            request_for("touch a", ws))
    assert decision.edited_call == ToolCall("c1", "bash", {"command": "touch b"})


@pytest.mark.parametrize(("response", "changes", "command", "code"), [
    (ApprovalResponse("q", True, AnswerScope.SESSION), {}, "touch $(date)", "not_offered"),
    (ApprovalResponse("q", True, arguments={"a": 1}), {"message": "Deploy?"}, "touch a",
     "not_offered"),
    (ApprovalResponse("q", True, AnswerScope.SESSION, rules=("Bash(touch",)), {}, "touch a",
     "bad_rule"),
])
def test_answers_the_box_would_not_offer_are_refused(ws: Path, response: ApprovalResponse,
                                                     changes: dict[str, Any], command: str,
                                                     code: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        decision_for(response, request_for(command, ws, **changes))
    assert (refused.value.code, refused.value.execution_id) == (code, "q")


@pytest.mark.parametrize(("decision", "scope"), [
    (Decision.approve(Source.USER), "once"),
    (Decision.always(("Bash(ls)",), persist=False), "session"),
    (Decision.always(("Bash(ls)",), persist=True), "project"),
    (Decision.always(("Bash(ls)",), persist=True, scope=Scope.GLOBAL), "global"),
    (Decision.reject_soft(Source.USER), None),
])
def test_the_scope_told_to_every_client(decision: Decision, scope: str | None) -> None:
    assert answer_scope(decision) == scope


# -- what the page is shown ------------------------------------------------------------------

def test_the_question_carries_the_tier(ws: Path) -> None:
    plain = approval_needed(request_for("curl https://x.example", ws), "q", "s", None, 5)
    assert (plain["tier"], plain["deadline"]) == ("asked", None)


def test_each_part_says_why_it_runs_or_is_asked(ws: Path) -> None:
    message = approval_needed(request_for("ls && rm -rf build > log", ws), "q", "s", None, 0)
    assert [(p["text"], p["permitted"], p["reason"]) for p in message["parts"]] == [
        ("ls", True, "allowed by the autonomy level"),
        ("rm -rf build", False, "needs approval: rm -r deletes whole directory trees"),
        ("> log", False, "needs approval: output redirection writes a file")]


@pytest.mark.parametrize(("tool", "arguments", "kind", "lines"), [
    ("write_file", {"path": "new.txt", "content": "a\n"}, "new",
     ["--- /dev/null", "+++ b/new.txt", "@@ -0,0 +1 @@", "+a"]),
    ("write_file", {"path": "old.txt", "content": "two\n"}, "overwrite",
     ["--- a/old.txt", "+++ b/old.txt", "@@ -1 +1 @@", "-one", "+two"]),
    ("edit_file", {"path": "old.txt", "old_string": "one", "new_string": "1"}, "edit",
     ["--- a/old.txt", "+++ b/old.txt", "@@ -1 +1 @@", "-one", "+1"]),
    ("edit_file", {"path": "old.txt", "old_string": "zzz", "new_string": "1"}, "edit_fails",
     ["- zzz", "+ 1"]),
])
def test_file_changes_are_shown_as_a_diff(ws: Path, tool: str, arguments: dict[str, Any],
                                          kind: str, lines: list[str]) -> None:
    (ws / "old.txt").write_text("one\n")
    change = file_change(TOOLS[tool].show(ToolCall("c", tool, arguments), str(ws)))
    assert change is not None
    assert (change["kind"], change["text"].splitlines(), change["more"]) == (kind, lines, 0)


def test_a_write_to_a_fifo_is_special_not_a_new_file(ws: Path) -> None:
    """The page says the write will fail, as the box does; nothing reads the FIFO."""
    os.mkfifo(ws / "pipe")
    change = file_change(TOOLS["write_file"].show(
        ToolCall("c", "write_file", {"path": "pipe", "content": "x\n"}), str(ws)))
    assert change is not None and (change["kind"], change["text"]) == ("special", "")


def test_a_huge_diff_is_cut_and_says_how_much(ws: Path) -> None:
    content = "".join(f"{n}\n" for n in range(3000))
    change = file_change(TOOLS["write_file"].show(
        ToolCall("c", "write_file", {"path": "big", "content": content}), str(ws)))
    assert change is not None and change["more"] == 3003 - 2000
