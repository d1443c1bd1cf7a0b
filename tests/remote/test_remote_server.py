"""The remote approval protocol over a real WebSocket on 127.0.0.1 (docs/remote.md, SPEC §7.5).

Each test runs `saikish -p --remote` as a real process with a scripted model and
answers its questions with a real WebSocket client.
"""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from websockets.exceptions import InvalidStatus

from tests.support.remote_client import Client, RemoteRun, bash_turn

pytestmark = pytest.mark.slow  # each test starts saikish and a server


@pytest.fixture
def remote(ws: Path) -> Iterator[Callable[..., RemoteRun]]:
    runs: list[RemoteRun] = []

    def start(script: str, *args: str) -> RemoteRun:
        runs.append(RemoteRun(ws.parent, script, *args))
        return runs[-1]

    yield start
    for run in runs:
        run.kill()


def audit_lines(ws: Path) -> list[dict[str, Any]]:
    path = ws.parent / "state" / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_a_remote_yes_runs_the_call_as_the_persons_answer(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch made", "ls"))
    assert run.banner.startswith("remote approval: http://127.0.0.1:")  # loopback by default
    client = run.client()
    started = client.next("session_started")
    question = client.next("approval_needed")
    assert question["v"] == 1 and question["sessionId"] == started["sessionId"]
    assert (question["tool"], question["arguments"], question["risk"]) == (
        "bash", {"command": "touch made"}, "WRITE")
    assert question["tier"] == "asked"
    assert question["parts"] == [{"text": "touch made", "risk": "WRITE", "level": "MEDIUM",
                                  "permitted": False, "reason": "needs approval"}]
    assert question["proposedRules"] == ["Bash(touch *)"]
    assert question["batch_remaining"] == [{"callId": "call_2", "tool": "bash", "summary": "ls"}]
    # The default countdown, less the moment between asking and sending (a loaded machine).
    assert 29_000 < question["deadline"] - question["timestamp"] <= 30_000
    client.answer(question, True)
    resolved = client.next("approval_resolved")
    assert resolved["executionId"] == question["executionId"]
    assert resolved["answeredBy"] == {"channel": "remote", "client": started["clientId"]}
    assert (resolved["outcome"], resolved["scope"]) == ("approved", "once")
    entry = client.next("audit_entry")["entry"]
    assert (entry["decision"], entry["source"], entry["via"]) == ("approved", "user", "remote")
    finished = client.next("call_finished")
    assert (finished["callId"], finished["exit_code"]) == ("call_1", 0)
    assert client.next("session_ended")["reason"] == "the session ended"
    code, result, err = run.finish()
    assert code == 0 and (ws / "made").exists()
    assert [(c["decision"], c["source"]) for c in result["calls"]] == [
        ("approved", "user"), ("approved", "autonomy")]
    assert "approved from the web page, once" in err
    assert audit_lines(ws)[0]["via"] == "remote"
    assert "via" not in audit_lines(ws)[1]  # a rule's or autonomy's decision says nothing


def test_a_soft_no_skips_the_call_and_tells_the_model_why(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch one", "touch two"))
    client = run.client()
    client.answer(client.next("approval_needed"), False, mode="reject_soft",
                  feedback="not that one")
    client.answer(client.next("approval_needed"), True)  # the batch goes on
    code, result, _ = run.finish()
    assert code == 0
    assert [(c["decision"], c["feedback"]) for c in result["calls"]] == [
        ("rejected_soft", "not that one"), ("approved", None)]
    assert not (ws / "one").exists() and (ws / "two").exists()


def test_a_no_without_a_mode_stops_the_batch(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch one", "touch two"))
    client = run.client()
    client.answer(client.next("approval_needed"), False)  # mode defaults to reject_hard
    resolved = client.next("approval_resolved")
    assert (resolved["outcome"], resolved["feedback"]) == (
        "rejected_hard", "stopped from the web page")
    code, result, _ = run.finish()
    assert code == 3  # stopped
    assert [c["decision"] for c in result["calls"]] == ["rejected_hard", "not_run"]
    assert not list(ws.iterdir())


def test_edited_arguments_are_checked_and_asked_again(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch wrong-name"))
    client = run.client()
    first = client.next("approval_needed")
    client.answer(first, True, arguments={"command": "touch right-name"})
    assert client.next("approval_resolved")["edited"] is True
    again = client.next("approval_needed")  # a new question: the same call, edited
    assert again["executionId"] != first["executionId"]
    assert (again["callId"], again["arguments"]) == ("call_1", {"command": "touch right-name"})
    client.answer(first, True)  # a late answer to the old question changes nothing
    error = client.next("error")
    assert (error["code"], error["executionId"]) == ("already_answered", first["executionId"])
    client.answer(again, True)
    code, result, _ = run.finish()
    assert code == 0 and (ws / "right-name").exists() and not (ws / "wrong-name").exists()
    assert result["calls"][0]["final_arguments"] == {"command": "touch right-name"}


def test_an_edit_that_reaches_escalation_is_still_rejected(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch x"))
    client = run.client()
    client.answer(client.next("approval_needed"), True, arguments={"command": "sudo touch x"})
    entry = client.next("audit_entry")["entry"]  # no second question: the policy rejects it
    assert (entry["decision"], entry["source"]) == ("rejected_soft", "escalation")
    code, result, _ = run.finish()
    assert result["calls"][0]["decision"] == "rejected_soft"


@pytest.mark.parametrize(("scope", "saved"), [
    ("session", None),
    ("project", "project"),
    ("global", "global"),
])
def test_always_keeps_the_rule_where_the_scope_says(remote: Any, ws: Path, scope: str,
                                                    saved: str | None) -> None:
    run = remote(bash_turn("touch a", "touch a"))
    client = run.client()
    client.answer(client.next("approval_needed"), True, scope=scope)
    resolved = client.next("approval_resolved")
    assert (resolved["scope"], resolved["rules"]) == (scope, ["Bash(touch *)"])
    code, result, _ = run.finish()
    # The second, identical call is allowed by the new rule: nobody is asked again.
    assert [c["source"] for c in result["calls"]] == ["user", "session" if saved is None
                                                      else "rule"]
    assert [m["type"] for m in client.seen].count("approval_needed") == 1
    allowlist = ws.parent / "config" / "allowlist.yaml"
    if saved is None:
        assert not allowlist.exists()
        return
    data = yaml.safe_load(allowlist.read_text())
    where = data["allow"] if saved == "global" else data["projects"][str(ws)]["allow"]
    assert "Bash(touch *)" in where


def test_an_edited_rule_is_kept_and_a_bad_one_is_refused(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch a", "touch b"))
    client = run.client()
    question = client.next("approval_needed")
    client.answer(question, True, scope="session", rule="Bash(touch")
    error = client.next("error")
    assert error["code"] == "bad_rule" and error["executionId"] == question["executionId"]
    client.answer(question, True, scope="session", rule="Bash(touch b)")  # still open
    assert client.next("approval_resolved")["rules"] == ["Bash(touch b)"]
    code, result, _ = run.finish()
    assert [c["source"] for c in result["calls"]] == ["user", "session"]


def test_nobody_answering_is_a_timeout_that_stops_the_batch(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch a", "touch b"), "--timeout", "1")
    client = run.client()
    question = client.next("approval_needed")
    # The deadline is fixed when the question is asked; the timestamp is when this client
    # was sent it, a moment later on a loaded machine: what is left, at most the whole second.
    assert 0 < question["deadline"] - question["timestamp"] <= 1000
    assert client.next("approval_timeout")["executionId"] == question["executionId"]
    code, result, _ = run.finish()
    assert code == 3
    assert [(c["decision"], c["source"]) for c in result["calls"]] == [
        ("rejected_hard", "timeout"), ("not_run", "undecided")]


def test_two_clients_racing_one_answer_wins(remote: Any, ws: Path) -> None:
    # A second call keeps the run (and the server) alive until the loser has been told.
    run = remote(bash_turn("touch a", "touch b"))
    first, second = run.client(), run.client()
    ids = [c.next("session_started")["clientId"] for c in (first, second)]
    question = first.next("approval_needed")
    assert second.next("approval_needed")["executionId"] == question["executionId"]
    first.answer(question, True)
    second.answer(question, False, mode="reject_soft")
    resolved = [c.next("approval_resolved") for c in (first, second)]
    assert resolved[0] == resolved[1]  # both are told the same: who answered and what
    winner = ids.index(resolved[0]["answeredBy"]["client"])
    loser = (first, second)[1 - winner]
    assert loser.next("error")["code"] == "already_answered"
    first.answer(first.next("approval_needed"), True)
    code, result, _ = run.finish()
    expected = "approved" if winner == 0 else "rejected_soft"
    assert resolved[0]["outcome"] == result["calls"][0]["decision"] == expected


def test_a_client_that_leaves_loses_nothing(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch a"))
    leaving = run.client()
    question = leaving.next("approval_needed")
    leaving.close()
    staying = run.client()  # the open question is sent again, countdown unchanged
    again = staying.next("approval_needed")
    assert (again["executionId"], again["deadline"]) == (question["executionId"],
                                                         question["deadline"])
    staying.answer(again, True)
    code, _, _ = run.finish()
    assert code == 0 and (ws / "a").exists()


@pytest.mark.parametrize(("frame", "code"), [
    ("{not json", "malformed_json"),
    ("[1, 2]", "bad_message"),
    ('{"type": "approval_response"}', "unsupported_version"),
    ('{"v": 2, "type": "approval_response"}', "unsupported_version"),
    ('{"v": 1, "type": "launch"}', "unknown_type"),
    ('{"v": 1, "type": "approval_response", "approved": true}', "bad_message"),
    ('{"v": 1, "type": "approval_response", "executionId": "nope", "approved": true}',
     "unknown_execution"),
    ('{"v": 1, "type": "set_autonomy", "autonomy": "yolo"}', "bad_message"),
    (b"\x00binary", "bad_message"),
])
def test_a_bad_message_gets_an_error_and_changes_nothing(remote: Any, ws: Path,
                                                         frame: str | bytes, code: str) -> None:
    run = remote(bash_turn("touch a"))
    client = run.client()
    question = client.next("approval_needed")
    client.connection.send(frame)
    assert client.next("error")["code"] == code
    client.answer(question, True)  # the connection and the question are still fine
    assert client.next("approval_resolved")["outcome"] == "approved"
    assert run.finish()[0] == 0


def test_bad_answers_to_an_open_question_are_refused(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch a"))
    client = run.client()
    question = client.next("approval_needed")
    for fields, code in (({"scope": "forever"}, "bad_message"),
                         ({"arguments": [1]}, "bad_arguments"),
                         ({"rule": 3, "scope": "session"}, "bad_rule"),
                         ({"mode": "maybe"}, "bad_message")):
        client.answer(question, True, **fields)
        assert client.next("error")["code"] == code
    client.answer(question, True)
    assert run.finish()[0] == 0


def test_always_is_refused_where_the_box_does_not_offer_it(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch $(date +%s)"))  # a word built at run time: no rule covers it
    client = run.client()
    question = client.next("approval_needed")
    assert question["proposedRules"] == []
    client.answer(question, True, scope="project")
    assert client.next("error")["code"] == "not_offered"
    client.answer(question, False, mode="reject_soft")
    assert run.finish()[1]["calls"][0]["decision"] == "rejected_soft"


def test_set_autonomy_changes_what_is_asked_next(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch a", "touch b"))
    client = run.client()
    question = client.next("approval_needed")
    client.send(type="set_autonomy", autonomy="full-auto")
    assert client.next("autonomy_changed")["autonomy"] == "full-auto"
    client.answer(question, True)
    code, result, _ = run.finish()
    assert [c["source"] for c in result["calls"]] == ["user", "autonomy"]


def test_bad_tokens_are_refused_everywhere(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch a"), "--timeout", "0")
    link = run.link
    for token in ("", "x" * len(link.token), link.token + "x"):
        with pytest.raises(InvalidStatus) as refused:
            Client.open(type(link)(link.netloc, token))
        assert refused.value.response.status_code == 403
        for path in ("/", "/app.js", "/api/audit"):
            assert get(link.netloc, link.http(path, token))[0] == 403
    status, body, headers = get(link.netloc, link.http("/"))
    assert status == 200 and b"saikish" in body
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    client = run.client()
    client.answer(client.next("approval_needed"), True)
    assert run.finish()[0] == 0


def test_other_origins_and_other_hosts_are_refused(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch a"), "--timeout", "0")
    netloc = run.link.netloc
    for origin in (f"http://evil.example:{netloc.split(':')[1]}", "http://127.0.0.1:1",
                   "null"):
        with pytest.raises(InvalidStatus) as refused:
            run.client(origin=origin)
        assert refused.value.response.status_code == 403
    # DNS rebinding: a name that resolves to 127.0.0.1 is not this server's name.
    rebound = netloc.replace("127.0.0.1", "evil.example")
    assert get(netloc, run.link.http("/"), host=rebound)[0] == 421
    client = run.client(origin=f"http://{netloc}")  # the page's own origin is welcome
    client.answer(client.next("approval_needed"), True)
    assert run.finish()[0] == 0


def test_the_audit_api_returns_the_sessions_decisions(remote: Any, ws: Path) -> None:
    run = remote(bash_turn("touch a", "ls") + "- text: more\n  tool_calls:\n"
                 "    - name: bash\n      arguments: {command: touch b}\n", "--timeout", "0")
    client = run.client()
    session = client.next("session_started")["sessionId"]
    client.answer(client.next("approval_needed"), True)
    question = client.next("approval_needed")  # the second batch: two decisions are in
    status, body, _ = get(run.link.netloc, run.link.http(f"/api/audit?sessionId={session}"))
    data = json.loads(body)
    assert status == 200 and (data["v"], data["sessionId"]) == (1, session)
    assert [(e["tool"], e["source"], e.get("via")) for e in data["entries"]] == [
        ("bash", "user", "remote"), ("bash", "autonomy", None)]
    assert get(run.link.netloc, run.link.http("/api/audit?sessionId=other"))[0] == 404
    client.answer(question, False, mode="reject_soft")
    assert run.finish()[0] == 0


def test_a_bad_address_is_one_line_and_exit_2(cli: Any) -> None:
    run = cli("-m", "demo", "-p", "hi", "--remote", "127.0.0.1:99999")
    assert run.code == 2
    assert run.err.strip() == "saikish: --remote '127.0.0.1:99999': the port must be 0-65535"


def test_a_taken_port_is_one_line_and_exit_2(remote: Any, ws: Path, cli: Any) -> None:
    run = remote(bash_turn("touch a"), "--timeout", "0")
    taken = cli("-m", "demo", "-p", "hi", "--remote", run.link.netloc)
    assert taken.code == 2
    assert taken.err.startswith(f"saikish: --remote {run.link.netloc}: cannot listen there")
    assert len(taken.err.strip().splitlines()) == 1


def get(netloc: str, url: str, host: str | None = None) -> tuple[int, bytes, dict[str, str]]:
    """A plain HTTP GET (optionally with another Host header)."""
    hostname, port = netloc.rsplit(":", 1)
    connection = http.client.HTTPConnection(hostname, int(port), timeout=30)
    path = url.split(netloc, 1)[1]
    connection.putrequest("GET", path, skip_host=host is not None)
    if host is not None:
        connection.putheader("Host", host)
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return response.status, body, dict(response.getheaders())


def test_a_lone_surrogate_from_the_model_still_reaches_the_page(remote: Any, ws: Path) -> None:
    # The model's JSON may hold one. (Text output: -p's JSON output cannot print it yet.)
    run = remote(bash_turn("touch a\ud800b"), "--output-format", "text")
    client = run.client()
    question = client.next("approval_needed")
    assert question["arguments"] == {"command": "touch a\ud800b"}
    client.answer(question, False)
    assert client.next("audit_entry")["entry"]["arguments"] == {"command": "touch a\ud800b"}
    run.process.communicate(timeout=60)
    assert run.process.returncode == 3
