"""What the remote approval channel costs (docs/remote.md, SPEC §7.5).

1. A question's round trip on loopback: RemoteApprover.ask -> approval_needed over a real
   WebSocket -> a client that answers at once -> the Decision; median and 95th percentile
   over N questions, against asking the same questions of an in-process approver.
2. What `--remote` adds to start-up: importing the channel (websockets and the server) in a
   fresh interpreter that has the agent imported already, against the agent's own import.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from websockets.sync.client import connect

from saikish.config.layers import Config
from saikish.engine.policy import decide
from saikish.remote.address import Address
from saikish.remote.approver import RemoteApprover
from saikish.remote.hub import Hub
from saikish.remote.server import ApprovalServer
from saikish.runtime.approval import ApprovalRequest
from saikish.runtime.session import Session
from saikish.tools import builtin_tools
from saikish.types import Decision, Source, ToolCall

QUESTIONS = 300
RUNS = 5


def answering_client(url: str, count: int) -> None:
    """Answer `count` questions yes, as soon as each arrives."""
    with connect(url) as socket:
        answered = 0
        for frame in socket:
            message = json.loads(frame)
            if message["type"] == "approval_needed":
                socket.send(json.dumps({"v": 1, "type": "approval_response", "approved": True,
                                        "executionId": message["executionId"]}))
                answered += 1
                if answered == count:
                    return


def round_trips(workspace: str) -> tuple[list[float], list[float]]:
    session = Session(Config(), workspace)
    call = ToolCall("c1", "bash", {"command": "touch a"})
    request = ApprovalRequest(call, decide(call, session.context(builtin_tools())), 0, (call,),
                              workspace, tool=builtin_tools()["bash"])
    hub = Hub(session)
    server = ApprovalServer(hub, Address(), "t")
    bound = server.start()
    client = threading.Thread(target=answering_client,
                              args=(f"ws://{bound.netloc}/ws?token=t", QUESTIONS))
    client.start()
    remote = RemoteApprover(hub, None, None)
    while not hub.clients:  # the client is connected before the clock starts
        time.sleep(0.01)
    remote_s = [timed(lambda: remote.ask(request)) for _ in range(QUESTIONS)]
    client.join()
    server.close()
    local_s = [timed(lambda: Decision.approve(Source.USER)) for _ in range(QUESTIONS)]
    return remote_s, local_s


def timed(action: object) -> float:
    started = time.perf_counter()
    action()  # type: ignore[operator]
    return time.perf_counter() - started


def import_s() -> tuple[float, float]:
    """The best of RUNS fresh interpreters: the agent's import, then the channel's on top."""
    code = ("import time; t = time.perf_counter(); import saikish.runtime.agent; "
            "a = time.perf_counter(); import saikish.remote.channel; "
            "print(a - t, time.perf_counter() - a)")
    runs = [tuple(map(float, subprocess.run([sys.executable, "-c", code], capture_output=True,
                                            text=True, check=True).stdout.split()))
            for _ in range(RUNS)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


def main() -> None:
    with tempfile.TemporaryDirectory() as workspace:
        remote_s, local_s = round_trips(workspace)
    p95 = statistics.quantiles(remote_s, n=20)[-1]
    print(f"{QUESTIONS} questions answered over a WebSocket on loopback:")
    print(f"  median {statistics.median(remote_s) * 1000:.2f} ms, 95th percentile "
          f"{p95 * 1000:.2f} ms (an in-process approver: "
          f"{statistics.median(local_s) * 1e6:.1f} µs)")
    agent, channel = import_s()
    print(f"import saikish.runtime.agent {agent * 1000:.0f} ms; then saikish.remote.channel "
          f"(websockets, the server) {channel * 1000:.0f} ms more "
          f"({channel / agent:.0%} of the agent's), paid only with --remote")


if __name__ == "__main__":
    main()
