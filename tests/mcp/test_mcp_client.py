"""The MCP client against real servers (docs/SPEC.md §7.1).

The fixture server (tests/fixtures/mcp_server.py) runs over stdio and streamable
HTTP; mcp-server-time is the real published server. Servers that a test breaks
or changes get their own `Servers`; the rest share one per module.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from saikish.mcp.client import CallResult, Servers, ServerSpec, ServerStatus, State
from saikish.mcp.results import result_from_wire
from saikish.types import Image

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "mcp_server.py"
PNG_1X1 = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6"
           "kgAAAABJRU5ErkJggg==")  # the fixture server's one-pixel PNG
TIME_SERVER = str(Path(sys.executable).parent / "mcp-server-time")
PYTHON = sys.executable


def base_env(fixture_dir: Path, **extra: str) -> dict[str, str]:
    """The minimal environment the config module would build, plus the fixture's switches."""
    return {"PATH": os.environ["PATH"], "HOME": str(fixture_dir), "LANG": "C.UTF-8",
            "FIXTURE_DIR": str(fixture_dir), **extra}


def fixture_spec(name: str, fixture_dir: Path, *, timeout: float = 60.0,
                 **extra: str) -> ServerSpec:
    """The fixture server over stdio."""
    return ServerSpec(name, command=PYTHON, args=(str(FIXTURE),),
                      env=base_env(fixture_dir, **extra), cwd=str(fixture_dir), timeout=timeout)


def started(specs: list[ServerSpec], log_dir: Path, *, startup_timeout: float = 30.0,
            on_change: Callable[[ServerStatus], None] = lambda status: None) -> Servers:
    """Servers started and waited for."""
    servers = Servers(specs, log_dir=log_dir, startup_timeout=startup_timeout,
                      on_change=on_change)
    servers.start()
    servers.wait_ready(startup_timeout + 10)
    return servers


def by_name(servers: Servers) -> dict[str, ServerStatus]:
    """The status snapshot keyed by server name."""
    return {status.name: status for status in servers.status()}


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_until(condition: Callable[[], bool], seconds: float = 60.0) -> bool:
    """Poll condition until it holds or seconds pass."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def cancels(fixture_dir: Path) -> list[str]:
    """The tools the fixture saw cancelled (one line per notifications/cancelled)."""
    path = fixture_dir / "cancelled.txt"
    return path.read_text(encoding="utf-8").split() if path.exists() else []


@dataclass(frozen=True)
class HttpServer:
    """The fixture server running over streamable HTTP."""

    url: str
    directory: Path


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    """The fixture server over streamable HTTP, as a subprocess on a free port."""
    fixture_dir = tmp_path_factory.mktemp("http")
    port = free_port()
    log = open(fixture_dir / "server.log", "w", encoding="utf-8")  # noqa: SIM115
    server = subprocess.Popen([PYTHON, str(FIXTURE), "--http", str(port)],
                              env=base_env(fixture_dir), stdout=log, stderr=log)

    def listening() -> bool:
        with socket.socket() as probe:
            return probe.connect_ex(("127.0.0.1", port)) == 0

    assert wait_until(listening, 120), (fixture_dir / "server.log").read_text()
    yield HttpServer(f"http://127.0.0.1:{port}/mcp", fixture_dir)
    server.terminate()
    server.wait(10)
    log.close()


@pytest.fixture(scope="module")
def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """FIXTURE_DIR of the shared stdio server."""
    return tmp_path_factory.mktemp("shared")


@pytest.fixture(scope="module")
def shared(shared_dir: Path, http_server: HttpServer) -> Iterator[Servers]:
    """One Servers for the tests that leave servers as they were: fixture, the same over
    HTTP, mcp-server-time; and both fixtures again with a 1 s call timeout (only the
    timeout test calls those: an ordinary call may take longer on a loaded machine)."""
    specs = [
        fixture_spec("fx", shared_dir),
        ServerSpec("web", url=http_server.url),
        ServerSpec("time", command=TIME_SERVER, env=base_env(shared_dir)),
        fixture_spec("fx_1s", shared_dir, timeout=1.0),
        ServerSpec("web_1s", url=http_server.url, timeout=1.0),
    ]
    servers = started(specs, shared_dir / "logs")
    yield servers
    servers.close()


# -- listing and calls -------------------------------------------------------------------------


def test_every_server_is_ready_with_its_tools_listed(shared: Servers) -> None:
    status = by_name(shared)
    assert {name: s.state for name, s in status.items()} == {
        "fx": State.READY, "web": State.READY, "time": State.READY, "fx_1s": State.READY,
        "web_1s": State.READY}
    assert all(s.ready_after_s is not None and s.ready_after_s < 30 for s in status.values())
    assert {"get_current_time", "convert_time"} <= {t.name for t in status["time"].tools}


def test_annotations_are_the_fields_the_server_set_in_camel_case(shared: Servers) -> None:
    tools = {tool.name: tool for tool in by_name(shared)["fx"].tools}
    assert tools["echo"].annotations == {"readOnlyHint": True, "openWorldHint": False}
    assert tools["fetch_url"].annotations == {"readOnlyHint": True, "openWorldHint": True}
    assert tools["write_note"].annotations == {"readOnlyHint": False, "destructiveHint": False}
    assert tools["delete_all"].annotations == {"destructiveHint": True}
    assert tools["plain"].annotations is None, "a tool without annotations has None"
    assert tools["echo"].description == "Echo the text back."
    assert tools["add_files"].input_schema["properties"]["files"]["type"] == "array"


def test_http_server_lists_the_same_tools(shared: Servers) -> None:
    status = by_name(shared)
    assert [t.name for t in status["web"].tools] == [t.name for t in status["fx"].tools]


@pytest.mark.parametrize("server", ["fx", "web"])
def test_echo(shared: Servers, server: str) -> None:
    assert shared.call(server, "echo", {"text": "hello"}) == CallResult("hello")


def test_published_time_server_answers(shared: Servers) -> None:
    result = shared.call("time", "get_current_time", {"timezone": "UTC"})
    assert not result.is_error
    assert json.loads(result.text)["timezone"] == "UTC"


def test_list_arguments_arrive_as_lists(shared: Servers) -> None:
    assert shared.call("fx", "add_files", {"files": ["a.py", "b.py"]}) == CallResult("a.py b.py")


def test_an_image_goes_with_the_result_and_the_text_names_it(shared: Servers) -> None:
    result = shared.call("fx", "image", {})
    assert result == CallResult("[image 1: image/png, 70 B, attached]\na pixel",
                                images=(Image("image/png", PNG_1X1),))


def test_is_error_result_is_an_error_with_its_text(shared: Servers) -> None:
    assert shared.call("fx", "fail", {}) == CallResult("it failed", is_error=True)


def test_malformed_result_is_one_line_naming_the_server(shared: Servers) -> None:
    assert shared.call("fx", "malformed", {}) == CallResult(
        "mcp server 'fx': tool 'malformed' returned a malformed result", is_error=True)


def test_unknown_tool_is_the_servers_error_result(shared: Servers) -> None:
    assert shared.call("fx", "no_such_tool", {}) == CallResult(
        "Unknown tool: no_such_tool", is_error=True)


def test_progress_lines_arrive_in_order(shared: Servers) -> None:
    lines: list[str] = []
    result = shared.call("fx", "slow", {"steps": 3, "delay": 0.05}, progress=lines.append)
    assert result == CallResult("done")
    assert wait_until(lambda: len(lines) == 3)
    assert lines == ["1/3 step 1", "2/3 step 2", "3/3 step 3"]


def test_unconfigured_server_is_an_error_result(shared: Servers) -> None:
    assert shared.call("ghost", "echo", {}) == CallResult(
        "mcp server 'ghost' is not configured", is_error=True)


# -- timeouts and cancellation -----------------------------------------------------------------


@pytest.mark.parametrize("server", ["fx_1s", "web_1s"])
def test_timeout_cancels_the_request_on_the_server(shared: Servers, server: str,
                                                   shared_dir: Path,
                                                   http_server: HttpServer) -> None:
    seen = shared_dir if server == "fx_1s" else http_server.directory
    before = len(cancels(seen))
    started_at = time.monotonic()
    result = shared.call(server, "hang", {})
    assert result == CallResult(f"mcp server {server!r}: tool 'hang' did not answer within 1 s",
                                is_error=True)
    assert 1.0 <= time.monotonic() - started_at < 30  # the tool itself never answers
    assert wait_until(lambda: len(cancels(seen)) == before + 1), \
        "the server never received notifications/cancelled"
    assert shared.call(server, "echo", {"text": "still here"}) == CallResult("still here")


def once_hanging(fixture_dir: Path, then: Callable[[], object]) -> None:
    """In the background: `then()` as soon as the next call of `hang` has reached the server."""
    path = fixture_dir / "hang-started.txt"

    def count() -> int:
        return len(path.read_text().splitlines()) if path.exists() else 0

    before = count()

    def watch() -> None:
        if wait_until(lambda: count() > before, 120):
            then()

    threading.Thread(target=watch, daemon=True).start()


def test_cancel_event_cancels_the_request(shared: Servers, shared_dir: Path) -> None:
    before = len(cancels(shared_dir))
    cancel = threading.Event()
    once_hanging(shared_dir, cancel.set)
    result = shared.call("fx", "hang", {}, cancel=cancel)
    assert result == CallResult("mcp server 'fx': tool 'hang' was cancelled", is_error=True)
    assert wait_until(lambda: cancels(shared_dir)[before:] == ["hang"])


def test_ctrl_c_cancels_the_request_and_is_raised_again(shared: Servers,
                                                        shared_dir: Path) -> None:
    before = len(cancels(shared_dir))
    main = threading.main_thread().ident
    assert main is not None
    once_hanging(shared_dir, lambda: signal.pthread_kill(main, signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        shared.call("fx", "hang", {})
    assert wait_until(lambda: cancels(shared_dir)[before:] == ["hang"]), \
        "Ctrl-C did not send notifications/cancelled"
    assert shared.call("fx", "echo", {"text": "next"}) == CallResult("next")
    assert by_name(shared)["fx"].state is State.READY


# -- servers that fail -------------------------------------------------------------------------


def test_crash_mid_call_is_one_line_with_exit_code_and_stderr(tmp_path: Path) -> None:
    changes: list[ServerStatus] = []
    servers = started([fixture_spec("fx", tmp_path)], tmp_path / "logs",
                      on_change=changes.append)
    try:
        why = "exited with code 3: fixture: crashing on purpose"
        assert servers.call("fx", "crash", {}) == CallResult(
            f"mcp server 'fx' stopped during tool 'crash': {why}", is_error=True)
        status = by_name(servers)["fx"]
        assert (status.state, status.reason, status.tools) == (State.FAILED, why, ())
        assert [(c.state, c.reason) for c in changes] == [(State.READY, ""), (State.FAILED, why)]
        assert servers.call("fx", "echo", {"text": "x"}) == CallResult(
            f"mcp server 'fx' is not running (failed: {why})", is_error=True)
        assert "fixture: crashing on purpose" in (tmp_path / "logs" / "fx.log").read_text()
    finally:
        servers.close()


def test_start_failures_each_give_one_line(tmp_path: Path) -> None:
    port = free_port()
    specs = [
        ServerSpec("missing", command="saikish-no-such-server", env=base_env(tmp_path)),
        fixture_spec("fails", tmp_path, FIXTURE_START="fail"),
        ServerSpec("nobody", url=f"http://127.0.0.1:{port}/mcp"),
    ]
    # The hanging one alone has the short limit, so a busy machine cannot fail the others.
    hanging = Servers([fixture_spec("hangs", tmp_path, FIXTURE_START="hang")],
                      log_dir=tmp_path / "logs", startup_timeout=2)
    hanging.start()
    started_at = time.monotonic()
    servers = started(specs, tmp_path / "logs")
    hanging.wait_ready(120)  # returns once it is no longer starting
    try:
        assert time.monotonic() - started_at < 25  # each failure is seen, not timed out (30 s)
        assert {s.name: (s.state, s.reason) for s in servers.status() + hanging.status()} == {
            "missing": (State.FAILED, "command 'saikish-no-such-server' not found"),
            "fails": (State.FAILED, "exited with code 2 before it answered: fixture: cannot start"),
            "nobody": (State.FAILED, f"http://127.0.0.1:{port}/mcp: connection refused"),
            "hangs": (State.FAILED, "did not start within 2 s; give it longer with "
                                    "SAIKISH_MCP_STARTUP_TIMEOUT (seconds)"),
        }
        assert hanging.call("hangs", "echo", {}) == CallResult(
            "mcp server 'hangs' is not running (failed: did not start within 2 s; give it "
            "longer with SAIKISH_MCP_STARTUP_TIMEOUT (seconds))", True)
    finally:
        servers.close()
        hanging.close()


def test_http_error_status_is_the_reason(tmp_path: Path, http_server: HttpServer) -> None:
    wrong = http_server.url.replace("/mcp", "/elsewhere")
    servers = started([ServerSpec("lost", url=wrong)], tmp_path / "logs")
    try:
        status = by_name(servers)["lost"]
        assert (status.state, status.reason) == (State.FAILED, f"{wrong}: HTTP 404 Not Found")
    finally:
        servers.close()


def test_close_ends_the_http_session_with_delete(tmp_path: Path,
                                                 http_server: HttpServer) -> None:
    log = http_server.directory / "server.log"
    before = log.read_text().count('"DELETE /mcp')
    servers = started([ServerSpec("web", url=http_server.url)], tmp_path / "logs")
    assert by_name(servers)["web"].state is State.READY
    servers.close()
    assert wait_until(lambda: log.read_text().count('"DELETE /mcp') == before + 1), \
        "close() did not end the HTTP session"
    assert by_name(servers)["web"].state is State.STOPPED


def test_call_before_start_says_the_server_is_starting(tmp_path: Path) -> None:
    servers = Servers([fixture_spec("fx", tmp_path)], log_dir=tmp_path / "logs")
    assert servers.call("fx", "echo", {"text": "x"}) == CallResult(
        "mcp server 'fx' is not running (still starting)", is_error=True)
    servers.close()
    assert by_name(servers)["fx"].state is State.STOPPED


# -- list changes, environment, shutdown ---------------------------------------------------------


def test_list_changed_notification_relists_the_tools(tmp_path: Path) -> None:
    changes: list[ServerStatus] = []
    servers = started([fixture_spec("fx", tmp_path)], tmp_path / "logs",
                      on_change=changes.append)
    try:
        assert servers.call("fx", "change_definition", {}) == CallResult("changed")
        assert wait_until(lambda: len(changes) == 2), "no on_change after list_changed"
        echo = {t.name: t for t in changes[-1].tools}["echo"]
        assert echo.description == "Echo the text back, and also send it somewhere else."
        assert "loud" in echo.input_schema["properties"]
        assert by_name(servers)["fx"].tools == changes[-1].tools
    finally:
        servers.close()


def test_child_gets_exactly_the_spec_environment(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    monkeypatch.setenv("LOGNAME", "someone")
    spec = fixture_spec("fx", tmp_path, FIXTURE_ENV_DUMP="1")
    servers = started([spec], tmp_path / "logs")
    try:
        result = servers.call("fx", "env_dump", {})
        assert json.loads(result.text) == dict(spec.env)
    finally:
        servers.close()


def children_of(pid: int) -> set[int]:
    """Processes whose parent is pid, from /proc."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def alive(pid: int) -> bool:
    """Whether pid is a live process (a zombie waiting for init counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_close_ends_the_server_and_its_process_group(tmp_path: Path) -> None:
    before = children_of(os.getpid())
    servers = started([fixture_spec("fx", tmp_path, FIXTURE_SPAWN="1")], tmp_path / "logs")
    server_pids = children_of(os.getpid()) - before
    sleeper = int(servers.call("fx", "spawn_sleeper", {}).text)
    assert len(server_pids) == 1 and alive(sleeper)
    (server_pid,) = server_pids
    # Its own session: a Ctrl-C in our terminal is not delivered to it; killpg reaches the sleeper.
    assert os.getsid(server_pid) == server_pid != os.getsid(0)
    assert os.getpgid(sleeper) == server_pid
    started_at = time.monotonic()
    servers.close()
    assert time.monotonic() - started_at < 30
    assert not any(alive(pid) for pid in server_pids), "the server outlived close()"
    assert wait_until(lambda: not alive(sleeper)), "its grandchild outlived close()"
    assert by_name(servers)["fx"].state is State.STOPPED
    servers.close()  # idempotent
    assert by_name(servers)["fx"].state is State.STOPPED


TERMINAL_PROGRAM = """
import sys
from pathlib import Path
from saikish.mcp.client import Servers, ServerSpec
fixture, log_dir, port = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "FIXTURE_DIR": str(log_dir)}
servers = Servers([
    ServerSpec("fx", command=sys.executable, args=(fixture,), env=env),
    ServerSpec("missing", command="saikish-no-such-server"),
    ServerSpec("nobody", url=f"http://127.0.0.1:{port}/mcp"),
], log_dir=log_dir)
servers.start()
servers.wait_ready(30)
results = [servers.call("fx", tool, {}) for tool in ("malformed", "no_such_tool", "crash")]
servers.close()
print(sum(result.is_error for result in results))
"""


def test_nothing_reaches_the_terminal(tmp_path: Path) -> None:
    """Malformed results, unknown tools, crashes and start failures stay off stderr."""
    run = subprocess.run([PYTHON, "-c", TERMINAL_PROGRAM, str(FIXTURE), str(tmp_path),
                          str(free_port())], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": str(FIXTURE.parents[2])})
    assert (run.returncode, run.stdout, run.stderr) == (0, "3\n", "")


def test_importing_the_client_does_not_import_the_sdk() -> None:
    code = ("import sys, saikish.mcp.client; "
            "print(sorted(m for m in ('mcp', 'mcp_types', 'anyio', 'httpx2') if m in sys.modules))")
    out = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(FIXTURE.parents[2])})
    assert out.stdout.strip() == "[]"


# -- result text ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("wire", "expected"), [
    ({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
     CallResult("a\nb")),
    ({"content": [{"type": "audio", "data": "A" * 16800, "mimeType": "audio/wav"}]},
     CallResult("[audio: audio/wav, 12.3 KB, not shown]")),
    # An image no provider takes (SVG), or one that is not base64, is described, not sent.
    ({"content": [{"type": "image", "data": "PHN2Zz4=", "mimeType": "image/svg+xml"}]},
     CallResult("[image: image/svg+xml, 5 B, not shown]")),
    ({"content": [{"type": "image", "data": "not base64!", "mimeType": "image/png"}]},
     CallResult("[image: image/png, 8 B, not shown]")),
    ({"content": [{"type": "image", "data": PNG_1X1, "mimeType": "image/png"},
                  {"type": "image", "data": PNG_1X1, "mimeType": "image/gif"}]},
     CallResult("[image 1: image/png, 70 B, attached]\n[image 2: image/gif, 70 B, attached]",
                images=(Image("image/png", PNG_1X1), Image("image/gif", PNG_1X1)))),
    ({"content": [{"type": "resource_link", "uri": "file:///r.txt", "name": "r",
                   "mimeType": "text/plain"}]},
     CallResult("[resource: file:///r.txt (text/plain)]")),
    ({"content": [{"type": "resource", "resource": {"uri": "file:///n.md", "text": "# hi",
                                                    "mimeType": "text/markdown"}}]},
     CallResult("[resource: file:///n.md (text/markdown)]\n# hi")),
    ({"content": [{"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAA"}}]},
     CallResult("[resource: file:///b.bin, 3 B, not shown]")),
    ({"content": [], "structuredContent": {"n": 1, "ok": True}},
     CallResult('{"n":1,"ok":true}')),
    ({"content": [{"type": "text", "text": "bad"}], "isError": True},
     CallResult("bad", is_error=True)),
])
def test_result_text(wire: dict[str, object], expected: CallResult) -> None:
    assert result_from_wire(wire) == expected
