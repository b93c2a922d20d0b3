#!/usr/bin/env python3
"""One legacy (2025-11-25) session through a load balancer in front of replicas sharing a
store, with the official Python SDK client (mcp 2.3.0 ``ClientSession``); run by
tests/scale/run_scale.py, which starts the replicas, Redis and nginx.

    scale_legacy.py --url URL --replica PORT:PID [--replica PORT:PID ...] [--no-kill]

Steps, each checked:
1. ``initialize`` and ``tools/list`` through the balancer;
2. ``forecast`` with progress (three notifications, in order);
3. ``plan_trip``: the server's elicitation and sampling requests are answered by POSTs the
   balancer may send to any replica (the answers reach the replica whose handler waits);
   ``outlook`` as a task (2025-11-25 tasks), started on one replica, polled and cancelled
   through others; another finished and its result taken through a third;
4. ``resources/subscribe`` to ``weather://paris/now``; once the SDK's GET stream is open, the
   replica holding it is found (nginx names it in an ``X-Upstream`` header) and ``report`` is
   called directly on another replica (not through the balancer): the update raised there
   reaches the client on the GET stream;
5. unless ``--no-kill``: the replica holding the GET stream is killed with SIGKILL; the SDK
   reconnects its GET stream through the balancer with ``Last-Event-ID`` to a live replica;
   a second update, raised on a live replica, arrives; a call still succeeds;
6. the session ends with DELETE (the SDK's close).

Exit 0 with one ``scale_legacy: ok (...)`` line on stdout, or print what failed and exit 1.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "interop"))

from sdk_harness import CheckFailed, check, sdk_missing, use_peers_python

use_peers_python(__file__)

try:
    import anyio
    import mcp_types as types
    from mcp import ClientSession, MCPDeprecationWarning
    from mcp.client.session import ClientRequestContext
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client
except ImportError as exc:
    sdk_missing("scale_legacy", exc)

import warnings  # noqa: E402

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

PREFIX = "scale_legacy"
SAMPLED = "Pack an umbrella."


def post(port: int, session: str, body: dict[str, Any]) -> dict[str, Any]:
    """POSTs ``body`` to one replica directly (not through the balancer)."""
    req = urllib.request.Request(
        f"http://127.0.0.1:{port}/mcp",
        data=json.dumps(body).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Mcp-Session-Id": session,
            "MCP-Protocol-Version": "2025-11-25",
        },
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=10) as r:
        text = r.read().decode()
    if text.startswith("{"):
        return json.loads(text)
    # An SSE answer: the message with the request's id.
    for line in text.splitlines():
        if line.startswith("data: ") and len(line) > 6:
            message = json.loads(line[6:])
            if message.get("id") == body.get("id") and "method" not in message:
                return message
    raise CheckFailed(f"no answer to {body} in {text!r}")


async def run(url: str, replicas: dict[int, int], kill: bool) -> list[str]:
    done: list[str] = []
    session_ids: list[str] = []
    updates: list[str] = []
    elicited: list[Any] = []

    get_streams: list[int] = []  # the replica of each GET stream opened, in order

    async def on_response(response: Any) -> None:
        sid = response.headers.get("mcp-session-id")
        if sid and sid not in session_ids:
            session_ids.append(sid)
        upstream = response.headers.get("x-upstream", "")
        if response.request.method == "GET" and response.status_code == 200 and ":" in upstream:
            # The balancer names the replica that answered (the last one it tried).
            get_streams.append(int(upstream.rsplit(":", 1)[1]))

    async def elicitation(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        elicited.append(params)
        return types.ElicitResult(action="accept", content={"city": "london", "days": 2})

    async def sampling(context: ClientRequestContext, params: types.CreateMessageRequestParams) -> Any:
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=SAMPLED), model="scale-model"
        )

    async def messages(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updates.append(message.params.uri)

    http = create_mcp_http_client()
    http.event_hooks["response"] = [on_response]
    async with http, streamable_http_client(url, http_client=http) as (read, write):
        async with ClientSession(
            read, write, elicitation_callback=elicitation, sampling_callback=sampling, message_handler=messages
        ) as session:
            init = await session.initialize()
            check(init.protocol_version == "2025-11-25", f"negotiated {init.protocol_version}")
            check(len(session_ids) == 1, f"session ids seen: {session_ids}")
            sid = session_ids[0]
            names = {t.name for t in (await session.list_tools()).tools}
            check({"forecast", "plan_trip", "report"} <= names, f"tools: {sorted(names)}")
            done.append("initialize + tools/list")

            progress: list[float] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append(value)

            res = await session.call_tool("forecast", {"city": "Paris", "days": 3}, progress_callback=on_progress)
            check(not res.is_error, f"forecast: {res}")
            with anyio.move_on_after(2):
                while len(progress) < 3:
                    await anyio.sleep(0.01)
            check(progress == [1.0, 2.0, 3.0], f"progress: {progress}")
            done.append("forecast with progress")

            res = await session.call_tool("plan_trip", {})
            text = "".join(c.text for c in res.content if isinstance(c, types.TextContent))
            check(not res.is_error and "london" in text and SAMPLED in text, f"plan_trip: {text!r}")
            check(len(elicited) == 1, f"elicitations: {len(elicited)}")
            done.append("plan_trip (elicitation + sampling answered through the balancer)")

            # A task started through one replica, read, cancelled and finished through others.
            ports = list(replicas)

            def rpc(port: int, rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
                return post(port, sid, {"jsonrpc": "2.0", "id": rid, "method": method, "params": params})

            started = rpc(
                ports[0], 800, "tools/call", {"name": "outlook", "arguments": {"city": "lima", "days": 60}, "task": {}}
            )
            task = started.get("result", {}).get("task", {})
            check(task.get("status") == "working", f"outlook as a task on :{ports[0]}: {started}")
            tid = task["taskId"]
            got = rpc(ports[1], 801, "tasks/get", {"taskId": tid})
            check(got.get("result", {}).get("status") == "working", f"tasks/get on :{ports[1]}: {got}")
            cancelled = rpc(ports[2 % len(ports)], 802, "tasks/cancel", {"taskId": tid})
            check(cancelled.get("result", {}).get("status") == "cancelled", f"tasks/cancel: {cancelled}")
            got = rpc(ports[0], 803, "tasks/get", {"taskId": tid})
            check(got.get("result", {}).get("status") == "cancelled", f"tasks/get after the cancel: {got}")
            started = rpc(
                ports[1], 804, "tools/call", {"name": "outlook", "arguments": {"city": "paris", "days": 1}, "task": {}}
            )
            tid = started["result"]["task"]["taskId"]
            result = rpc(ports[2 % len(ports)], 805, "tasks/result", {"taskId": tid})
            text = result.get("result", {}).get("content", [{}])[0].get("text", "")
            check(text.startswith("Paris:") and text.endswith("for 1 days"), f"tasks/result: {result}")
            done.append("tasks started, polled, cancelled and finished through different replicas")

            async def report_and_wait(port: int, rid: int, sky: str, count: int) -> None:
                """``report`` on one replica directly; waits (bounded) for the count-th update."""
                r = rpc(port, rid, "tools/call", {"name": "report", "arguments": {"city": "paris", "sky": sky}})
                check("result" in r, f"report on replica {port}: {r}")
                with anyio.move_on_after(10):
                    while len(updates) < count:
                        await anyio.sleep(0.02)

            await session.subscribe_resource("weather://paris/now")
            # The GET stream: the balancer says which replica answered it.
            with anyio.move_on_after(10):
                while not get_streams:
                    await anyio.sleep(0.05)
            check(bool(get_streams), "the SDK opened no GET stream")
            holder = get_streams[-1]
            check(holder in replicas, f"the GET stream is on :{holder}, not a replica of {sorted(replicas)}")
            others = [p for p in replicas if p != holder]
            # Let every replica learn of the subscription, then raise the update elsewhere.
            await anyio.sleep(0.3)
            await report_and_wait(others[-1], 900, "storm", 1)
            check(updates == ["weather://paris/now"], f"updates after a report on another replica: {updates}")
            done.append(f"update raised on :{others[-1]} reached the GET stream on :{holder}")

            if kill:
                os.kill(replicas[holder], signal.SIGKILL)
                live = list(others)
                # The SDK reconnects the GET stream (Last-Event-ID) through the balancer.
                opened = len(get_streams)
                with anyio.move_on_after(15):
                    while len(get_streams) == opened:
                        await anyio.sleep(0.05)
                check(len(get_streams) > opened, "the GET stream was not reopened")
                reconnected = get_streams[-1]
                check(reconnected in live, f"the GET stream reopened on :{reconnected}, not a live replica {live}")
                await anyio.sleep(0.3)
                await report_and_wait(live[0], 901, "calm", 2)
                check(len(updates) == 2, f"updates after the kill: {updates}")
                res = await session.call_tool("forecast", {"city": "Lima", "days": 1})
                check(not res.is_error, f"forecast after the kill: {res}")
                done.append(f"replica :{holder} killed (SIGKILL); GET stream resumed on :{reconnected}; calls go on")
            # Nothing arrived twice.
            await anyio.sleep(0.5)
            check(len(updates) == (2 if kill else 1), f"an update came twice: {updates}")
    print(json.dumps({"session": session_ids[0]}), file=sys.stderr)
    done.append("session deleted")
    return done


def main() -> int:
    args = sys.argv[1:]
    url = None
    replicas: dict[int, int] = {}
    kill = True
    while args:
        a = args.pop(0)
        if a == "--url":
            url = args.pop(0)
        elif a == "--replica":
            port, pid = args.pop(0).split(":")
            replicas[int(port)] = int(pid)
        elif a == "--no-kill":
            kill = False
        else:
            print(f"{PREFIX}: unknown argument {a!r}", file=sys.stderr)
            return 2
    if not url or len(replicas) < 2:
        print(f"{PREFIX}: usage: --url URL --replica PORT:PID (two or more)", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        done = anyio.run(_bounded, url, replicas, kill)
    except CheckFailed as e:
        print(f"{PREFIX}: FAILED: {e}", file=sys.stderr)
        return 1
    except BaseException as e:  # noqa: BLE001 - one line for any failure
        from sdk_harness import describe

        print(f"{PREFIX}: FAILED: {describe(e)}", file=sys.stderr)
        return 1
    print(f"{PREFIX}: ok ({'; '.join(done)}; {time.monotonic() - started:.1f} s)")
    return 0


async def _bounded(url: str, replicas: dict[int, int], kill: bool) -> list[str]:
    with anyio.fail_after(90):
        return await run(url, replicas, kill)


if __name__ == "__main__":
    sys.exit(main())
