"""The Python HTTP server: ``server.start_http`` driven by raw HTTP/1.1 requests (the
standard library only: tests/python/_http_client.py), by the official Python SDK client (a
subprocess under ``.peers/venv``), ``server.run("http")`` in a subprocess, and
``server.asgi_app()`` driven by a hand-written ASGI harness and, when the peers venv has them,
under uvicorn mounted in Starlette.

Every server listens on 127.0.0.1 port 0; every await is bounded (``within``). Without the
peers venv the official-client tests are skipped, unless ``HYPERMCP_REQUIRE_PEERS=1``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import re
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from _helpers import run, until, within
from _http_client import LATEST, Conn, McpSession, SseEvent, init_message, post_headers, request
from hypermcp import Context, McpError, Server

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "python"
INTEROP = ROOT / "tests" / "interop"
PEERS = Path(os.environ.get("PEERS") or os.environ.get("HYPERMCP_PEERS") or ROOT / ".peers")
PEER_PYTHON = PEERS / "venv" / "bin" / "python"


def make_server(**kwargs: Any) -> Server:
    """A server with a tool for each path a call can take."""
    server = Server("http-test", version="1.2.3", **kwargs)

    @server.tool
    async def echo(text: str) -> str:
        """Echo."""
        return text

    @server.tool
    async def later(text: str) -> str:
        """Echo after yielding to the loop (the handler becomes a task)."""
        await asyncio.sleep(0)
        return text

    @server.tool
    async def steps(n: int, ctx: Context) -> str:
        """Progress n times, an info log, then the result."""
        for i in range(n):
            await ctx.report_progress(i + 1, total=n, message=f"step {i + 1}")
        await ctx.info(f"did {n} steps")
        return f"{n} steps"

    @server.tool
    def threaded() -> str:
        """A sync handler: runs in a worker thread."""
        return threading.current_thread().name

    @server.tool(inline=True)
    def inline() -> str:
        """A sync handler run inline on the loop's thread."""
        return threading.current_thread().name

    @server.tool
    async def rpc_error() -> str:
        """Raises McpError: a JSON-RPC error."""
        raise McpError(-32042, "custom failure", {"why": "testing"})

    @server.tool
    def plain_error() -> str:
        """Raises another exception: an isError result."""
        raise ValueError("it broke")

    @server.resource("test://greeting")
    def greeting() -> str:
        return "hello"

    @server.prompt
    def ask(topic: str) -> str:
        return f"Tell me about {topic}"

    return server


async def open_get_stream(port: int, session: McpSession) -> tuple[Conn, AsyncIterator[SseEvent]]:
    """Opens a session's GET stream and reads its priming event (an empty one)."""
    conn = await within(Conn(port).open())
    headers = {
        "Accept": "text/event-stream",
        "Mcp-Session-Id": session.session_id or "",
        "MCP-Protocol-Version": LATEST,
    }
    events = (await within(conn.request("GET", "/mcp", headers))).events()
    assert (await within(anext(events))).data == ""  # priming
    return conn, events


def peers_python() -> Path:
    """The peers venv's python, or a skip (a failure with ``HYPERMCP_REQUIRE_PEERS=1``)."""
    if not PEER_PYTHON.is_file():
        why = f"the official Python SDK peer venv is missing at {PEER_PYTHON}"
        if os.environ.get("HYPERMCP_REQUIRE_PEERS") == "1":
            pytest.fail(f"{why} (run tests/interop/setup_peers.sh)")
        pytest.skip(f"{why} (run tests/interop/setup_peers.sh; HYPERMCP_REQUIRE_PEERS=1 makes this fail)")
    return PEER_PYTHON


async def run_process(*argv: str, limit: float = 60.0, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Runs a program to its end (killed after ``limit`` s): exit code, stdout, stderr."""
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), limit)
    except asyncio.TimeoutError:
        proc.kill()
        out, err = await proc.communicate()
        return -1, out.decode(), err.decode() + f"\n(killed after {limit} s)"
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def load_example(name: str) -> ModuleType:
    """Imports an example module under a name of its own (a fresh Server each time)."""
    spec = importlib.util.spec_from_file_location(f"_example_{name}_{time.monotonic_ns()}", EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


# ---- Streamable HTTP, raw ------------------------------------------------------------------------


def test_initialize_call_and_notification() -> None:
    async def main() -> None:
        server = make_server()
        http = await within(server.start_http("127.0.0.1", 0))
        try:
            assert http.host == "127.0.0.1" and http.port > 0
            assert http.url == f"http://127.0.0.1:{http.port}/mcp"
            resp = await within(request(http.port, "POST", "/mcp", post_headers(), init_message()))
            assert resp.status == 200 and resp.content_type == "application/json"
            sid = resp.headers["mcp-session-id"]
            assert re.fullmatch(r"[0-9a-f]{32}", sid), sid
            result = resp.json()["result"]
            assert result["protocolVersion"] == LATEST
            assert result["serverInfo"] == {"name": "http-test", "version": "1.2.3"}
            assert {"tools", "resources", "prompts", "logging"} <= set(result["capabilities"])
            assert http.session_count == 1

            # A notification: 202 with no body.
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            resp = await within(request(http.port, "POST", "/mcp", post_headers(sid, LATEST), note))
            assert resp.status == 202 and resp.body == b""

            call = {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": "hi"}},
            }
            resp = await within(request(http.port, "POST", "/mcp", post_headers(sid, LATEST), call))
            assert resp.status == 200 and resp.content_type == "application/json"
            assert resp.headers["mcp-session-id"] == sid
            assert resp.json() == {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "hi"}]}}

            # A handler that waits (a task) still answers with one JSON body.
            session = McpSession(http.port)
            session.session_id, session.version = sid, LATEST
            assert (await within(session.call_tool("later", {"text": "yo"})))["result"]["content"][0]["text"] == "yo"
            tools = (await within(session.call("tools/list")))["result"]["tools"]
            assert {t["name"] for t in tools} >= {"echo", "later", "steps", "threaded", "inline"}
            read = await within(session.call("resources/read", {"uri": "test://greeting"}))
            assert read["result"]["contents"][0]["text"] == "hello"
            prompt = await within(session.call("prompts/get", {"name": "ask", "arguments": {"topic": "tea"}}))
            assert prompt["result"]["messages"][0]["content"]["text"] == "Tell me about tea"
        finally:
            await within(http.stop())

    run(main())


def test_progress_and_logs_stream_before_the_result() -> None:
    async def main() -> None:
        server = make_server()
        async with await within(server.start_http("127.0.0.1", 0)) as http:
            session = await within(McpSession(http.port).initialize())
            assert (await within(session.call("logging/setLevel", {"level": "debug"})))["result"] == {}
            msg = {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {"name": "steps", "arguments": {"n": 3}, "_meta": {"progressToken": "tok"}},
            }
            conn = await within(Conn(http.port).open())
            resp = await within(session.post(msg, conn))
            assert resp.status == 200 and resp.is_sse
            assert resp.headers["mcp-session-id"] == session.session_id
            events = [ev async for ev in resp.events()]
            # 2025-11-25: a priming event (an id, no data) first; every event has an id.
            assert events[0].data == "" and events[0].id
            assert all(ev.id for ev in events)
            msgs = [ev.json() for ev in events if ev.data]
            methods = [m.get("method") for m in msgs]
            assert methods == ["notifications/progress"] * 3 + ["notifications/message", None], msgs
            assert [m["params"]["progress"] for m in msgs[:3]] == [1, 2, 3]
            assert all(m["params"]["progressToken"] == "tok" and m["params"]["total"] == 3 for m in msgs[:3])
            assert msgs[0]["params"]["message"] == "step 1"
            assert msgs[3]["params"] == {"level": "info", "data": "did 3 steps"}
            assert msgs[4] == {"jsonrpc": "2.0", "id": 5, "result": {"content": [{"type": "text", "text": "3 steps"}]}}
            # The connection is reusable after the stream ended.
            answer = await within(session.call_tool("echo", {"text": "again"}, conn))
            assert answer["result"]["content"][0]["text"] == "again"
            conn.close()

            # An older revision: no priming event, the same messages.
            old = await within(McpSession(http.port).initialize("2025-06-18"))
            resp = await within(old.post(dict(msg, id=6)))
            assert resp.is_sse
            events = [ev async for ev in resp.events()]
            assert all(ev.data for ev in events)
            assert [ev.json().get("method") for ev in events][-1] is None

    run(main())


def test_http_status_codes() -> None:
    async def main() -> None:
        server = make_server()
        async with await within(server.start_http("127.0.0.1", 0, max_body=2048)) as http:
            port = http.port
            session = await within(McpSession(port).initialize())
            ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}

            async def status(method: str, headers: dict[str, str], body: Any = b"") -> int:
                return (await within(request(port, method, "/mcp", headers, body))).status

            # Unknown session: 404 (POST, GET and DELETE); no session id at all: 400.
            unknown = post_headers("0" * 32, LATEST)
            assert await status("POST", unknown, ping) == 404
            assert await status("GET", {"Accept": "text/event-stream", "Mcp-Session-Id": "0" * 32}) == 404
            assert await status("DELETE", {"Mcp-Session-Id": "0" * 32}) == 404
            assert await status("POST", post_headers(), ping) == 400

            # DNS-rebinding guard: a foreign Origin or Host is refused.
            resp = await within(request(port, "POST", "/mcp", session.headers(Origin="http://evil.example"), ping))
            assert resp.status == 403 and resp.json()["error"]["code"] == -32000
            assert await status("POST", session.headers(Origin=f"http://localhost:{port}"), ping) == 200
            assert await status("POST", session.headers(Host="evil.example"), ping) == 403
            assert await status("POST", session.headers(Host=f"localhost:{port}"), ping) == 200

            # Media types and sizes.
            assert await status("POST", session.headers(**{"Content-Type": "text/plain"}), ping) == 415
            assert await status("POST", session.headers(Accept="application/json"), ping) == 406
            assert await status("POST", session.headers(Accept="text/event-stream"), ping) == 406
            assert (
                await status("GET", {"Accept": "application/json", "Mcp-Session-Id": session.session_id or ""}) == 406
            )
            big = {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"pad": "x" * 4096}}
            resp = await within(request(port, "POST", "/mcp", session.headers(), big))
            assert resp.status == 413 and resp.json()["error"]["code"] == -32600
            assert await status("POST", session.headers(**{"MCP-Protocol-Version": "1999-01-01"}), ping) == 400
            assert await status("PUT", session.headers(), ping) == 405
            assert (await within(request(port, "GET", "/elsewhere", {}))).status == 404
            resp = await within(request(port, "POST", "/mcp", session.headers(), "{not json"))
            assert resp.status == 400 and resp.json()["error"]["code"] == -32700

            # DELETE ends the session: then 404.
            assert http.session_count == 1
            assert (await within(session.delete())).status == 200
            assert await status("POST", session.headers(), ping) == 404
            assert (await within(session.delete())).status == 404
            await until(lambda: http.session_count == 0)

    run(main())


def test_legacy_sse_endpoint_and_messages() -> None:
    async def main() -> None:
        server = make_server()
        async with await within(server.start_http("127.0.0.1", 0)) as http:
            conn = await within(Conn(http.port).open())
            resp = await within(conn.request("GET", "/sse", {"Accept": "text/event-stream"}))
            assert resp.status == 200 and resp.is_sse
            events = resp.events()
            endpoint = await within(anext(events))
            assert endpoint.event == "endpoint"
            assert re.fullmatch(r"/messages\?sessionId=[0-9a-f]{32}", endpoint.data), endpoint.data
            post = {"Content-Type": "application/json"}

            async def send(msg: dict[str, Any]) -> None:
                r = await within(request(http.port, "POST", endpoint.data, post, msg))
                assert r.status == 202, (r.status, r.body)

            await send(init_message("2024-11-05", rid=1))
            answer = await within(anext(events))
            assert answer.event == "message"
            assert answer.json()["result"]["protocolVersion"] == "2024-11-05"
            await send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            await send(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {"name": "later", "arguments": {"text": "legacy"}},
                }
            )
            answer = await within(anext(events))
            assert answer.json() == {
                "jsonrpc": "2.0",
                "id": 2,
                "result": {"content": [{"type": "text", "text": "legacy"}]},
            }
            await send(
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "tools/call",
                    "params": {"name": "steps", "arguments": {"n": 2}, "_meta": {"progressToken": 9}},
                }
            )
            got = [(await within(anext(events))).json() for _ in range(4)]
            assert [m.get("method") for m in got] == [
                "notifications/progress",
                "notifications/progress",
                "notifications/message",
                None,
            ]
            assert got[-1]["result"]["content"][0]["text"] == "2 steps"

            # An unknown session id: 404; the session ends with its stream.
            bad = await within(
                request(
                    http.port,
                    "POST",
                    "/messages?sessionId=" + "0" * 32,
                    post,
                    {"jsonrpc": "2.0", "id": 4, "method": "ping"},
                )
            )
            assert bad.status == 404
            assert http.session_count == 1
            conn.close()
            await until(lambda: http.session_count == 0)
            assert (
                await within(
                    request(http.port, "POST", endpoint.data, post, {"jsonrpc": "2.0", "id": 5, "method": "ping"})
                )
            ).status == 404

    run(main())


def test_get_stream_gets_list_changed_when_tools_change() -> None:
    async def main() -> None:
        server = make_server()
        async with await within(server.start_http("127.0.0.1", 0)) as http:
            session = await within(McpSession(http.port).initialize())
            conn = await within(Conn(http.port).open())
            headers = {
                "Accept": "text/event-stream",
                "Mcp-Session-Id": session.session_id or "",
                "MCP-Protocol-Version": LATEST,
            }
            resp = await within(conn.request("GET", "/mcp", headers))
            assert resp.status == 200 and resp.is_sse
            events = resp.events()
            priming = await within(anext(events))
            assert priming.data == "" and priming.id

            async def added() -> str:
                return "new"

            server.add_tool(added, name="added")
            ev = await within(anext(events))
            assert ev.json() == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
            tools = (await within(session.call("tools/list")))["result"]["tools"]
            assert "added" in {t["name"] for t in tools}
            assert (await within(session.call_tool("added")))["result"]["content"][0]["text"] == "new"
            assert server.remove_tool("added")
            ev = await within(anext(events))
            assert ev.json()["method"] == "notifications/tools/list_changed"
            # A second GET stream of the same session is refused while this one is open.
            assert (await within(request(http.port, "GET", "/mcp", headers))).status == 409
            conn.close()

    run(main())


def test_lifespan_entered_once_and_exited_on_stop() -> None:
    log: list[str] = []

    @asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[dict[str, int]]:
        log.append("enter")
        yield {"calls": 0}
        log.append("exit")

    server = make_server(lifespan=lifespan)

    @server.tool
    async def count(ctx: Context) -> int:
        ctx.lifespan_context["calls"] += 1
        return ctx.lifespan_context["calls"]

    async def main() -> None:
        http = await within(server.start_http("127.0.0.1", 0))
        assert log == ["enter"]
        sessions = [await within(McpSession(http.port).initialize()) for _ in range(3)]
        for i, s in enumerate(sessions):
            answer = await within(s.call_tool("count"))
            assert answer["result"]["structuredContent"] == {"result": i + 1}
        assert log == ["enter"]
        await within(http.stop())
        assert log == ["enter", "exit"]
        assert server.lifespan_context is None
        # Stopping twice is harmless; the lifespan is not exited again...
        await within(http.stop())
        assert log == ["enter", "exit"]
        # ... and a new start enters it again.
        again = await within(server.start_http("127.0.0.1", 0))
        assert log == ["enter", "exit", "enter"]
        await within(asyncio.gather(again.stop(), again.stop()))
        assert log == ["enter", "exit", "enter", "exit"]

    run(main())


def test_sync_inline_and_failing_handlers() -> None:
    async def main() -> None:
        server = make_server()
        loop_thread = threading.current_thread().name
        async with await within(server.start_http("127.0.0.1", 0)) as http:
            session = await within(McpSession(http.port).initialize())
            worker = (await within(session.call_tool("threaded")))["result"]["content"][0]["text"]
            assert worker != loop_thread and not worker.startswith("hypermcp")
            inline = (await within(session.call_tool("inline")))["result"]["content"][0]["text"]
            assert inline == loop_thread
            err = await within(session.call_tool("rpc_error"))
            assert err["error"] == {"code": -32042, "message": "custom failure", "data": {"why": "testing"}}
            res = await within(session.call_tool("plain_error"))
            assert res["result"]["isError"] is True
            assert res["result"]["content"] == [{"type": "text", "text": "it broke"}]
            unknown = await within(session.call_tool("nope"))
            assert unknown["error"]["code"] == -32602
            bad_args = await within(session.call_tool("echo", {"text": 5}))
            assert bad_args.get("error") or bad_args["result"]["isError"]

            # What the context knows about the request and the client, over HTTP.
            @server.tool
            async def who(ctx: Context) -> dict[str, Any]:
                return {
                    "client": (ctx.client_info or {}).get("name"),
                    "version": ctx.protocol_version,
                    "id": ctx.request_id,
                    "token": ctx.progress_token,
                }

            msg = {
                "jsonrpc": "2.0",
                "id": "req-9",
                "method": "tools/call",
                "params": {"name": "who", "arguments": {}, "_meta": {"progressToken": "p9"}},
            }
            answer = (await within((await within(session.post(msg))).messages()))[-1]
            assert answer["result"]["structuredContent"] == {
                "client": "raw-http-test",
                "version": LATEST,
                "id": "req-9",
                "token": "p9",
            }

    run(main())


def test_a_thousand_calls_over_fifty_connections() -> None:
    async def main() -> None:
        server = make_server()
        async with await within(server.start_http("127.0.0.1", 0)) as http:
            sessions = [await within(McpSession(http.port).initialize()) for _ in range(5)]
            answered = 0

            async def worker(n: int) -> None:
                nonlocal answered
                session = sessions[n % len(sessions)]
                async with Conn(http.port) as conn:
                    for i in range(20):
                        tool = ("echo", "later", "threaded", "inline")[i % 4]
                        text = f"{n}-{i}"
                        args = {"text": text} if tool in ("echo", "later") else {}
                        answer = await session.call_tool(tool, args, conn)
                        got = answer["result"]["content"][0]["text"]
                        if tool in ("echo", "later"):
                            assert got == text, (got, text)
                        answered += 1

            started = time.monotonic()
            await within(asyncio.gather(*(worker(n) for n in range(50))), 60)
            assert answered == 1000
            assert time.monotonic() - started < 60
            assert http.session_count == 5

    run(main(), limit=90)


def test_stop_delivers_the_answer_of_a_call_in_flight() -> None:
    async def main() -> None:
        server = make_server()
        started = asyncio.Event()
        release = asyncio.Event()
        exited: list[str] = []

        @server.tool
        async def wait_for_release() -> str:
            started.set()
            await release.wait()
            return "released"

        http = await within(server.start_http("127.0.0.1", 0))
        session = await within(McpSession(http.port).initialize())
        conn = await within(Conn(http.port).open())
        msg = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "wait_for_release", "arguments": {}},
        }
        reply = asyncio.ensure_future(session.post(msg, conn))
        await within(started.wait())

        async def stop() -> None:
            await http.stop()
            exited.append("stopped")

        stopping = asyncio.ensure_future(stop())
        await asyncio.sleep(0.3)
        assert not stopping.done()  # waits for the call
        release.set()
        await within(stopping)
        resp = await within(reply)
        msgs = await within(resp.messages(), 2)
        assert msgs[-1] == {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": "released"}]}}
        assert exited == ["stopped"]
        conn.close()

    run(main())


# ---- run("http") in a process --------------------------------------------------------------------


def test_run_http_in_a_subprocess_answers_and_exits_on_sigterm() -> None:
    async def main() -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(EXAMPLES / "echo_server.py"),
            "--http",
            "0",
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            assert proc.stderr is not None
            line = (await within(proc.stderr.readline())).decode()
            m = re.search(r"serving on http://127\.0\.0\.1:(\d+)/mcp$", line.strip())
            assert m, line
            port = int(m.group(1))
            session = await within(McpSession(port).initialize())
            assert session.init_result["serverInfo"]["name"] == "hypermcp-echo"
            answer = await within(session.call_tool("echo", {"text": "from a process"}))
            assert answer["result"]["content"][0]["text"] == "from a process"
            proc.send_signal(signal.SIGTERM)
            assert await within(proc.wait()) == 0
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()

    run(main())


def test_run_sse_in_a_subprocess_announces_the_legacy_url_and_exits_on_sigint() -> None:
    script = (
        f"import sys; sys.path.insert(0, {str(EXAMPLES)!r}); from echo_server import server; server.run('sse', port=0)"
    )

    async def main() -> None:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-c", script, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        try:
            assert proc.stderr is not None
            line = (await within(proc.stderr.readline())).decode()
            m = re.search(r"serving on http://127\.0\.0\.1:(\d+)/sse$", line.strip())
            assert m, line
            conn = await within(Conn(int(m.group(1))).open())
            resp = await within(conn.request("GET", "/sse", {"Accept": "text/event-stream"}))
            endpoint = await within(anext(resp.events()))
            assert endpoint.event == "endpoint"
            proc.send_signal(signal.SIGINT)
            assert await within(proc.wait()) == 0
            conn.close()
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()

    run(main())


def test_a_start_after_a_failed_lifespan_enters_it() -> None:
    fail = [True]

    @asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[str]:
        if fail[0]:
            raise RuntimeError("database down")
        yield "ready"

    server = make_server(lifespan=lifespan)

    async def main() -> None:
        with pytest.raises(RuntimeError, match="database down"):
            await server.start_http("127.0.0.1", 0)
        fail[0] = False
        async with await within(server.start_http("127.0.0.1", 0)):
            assert server.lifespan_context == "ready"

    run(main())


# ---- the official Python SDK client ---------------------------------------------------------------


@pytest.mark.parametrize("transport", ["--url", "--sse-url"])
def test_official_client_walks_the_weather_server(transport: str) -> None:
    """tests/interop/py_sdk_full.py (sampling, elicitation, progress, logs, resources, prompts,
    completion, errors) against the weather example served by ``start_http`` here."""
    peer = peers_python()
    weather = load_example("weather_server")

    async def main() -> None:
        async with await within(weather.server.start_http("127.0.0.1", 0)) as http:
            url = http.url if transport == "--url" else http.url.replace("/mcp", "/sse")
            code, out, err = await run_process(
                str(peer), str(INTEROP / "py_sdk_full.py"), "--timeout", "30", transport, url
            )
            assert code == 0, f"py_sdk_full failed ({code}):\n{out}\n{err}"
            assert "py_sdk_full: ok" in out
            assert "plan_trip (elicitation + sampling)" in out

    run(main(), limit=90)


# ---- ASGI ----------------------------------------------------------------------------------------


class AsgiHarness:
    """Drives an ASGI app: lifespan events, then HTTP requests with a body, collecting the
    response messages; the client can disconnect mid-response."""

    def __init__(self, app: Any, host: str = "testserver") -> None:
        self.app = app
        self.host = host
        self._lifespan_in: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._lifespan_out: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._lifespan: asyncio.Future[None] | None = None

    async def startup(self) -> dict[str, Any]:
        async def send(msg: dict[str, Any]) -> None:
            await self._lifespan_out.put(msg)

        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}
        self._lifespan = asyncio.ensure_future(self.app(scope, self._lifespan_in.get, send))
        await self._lifespan_in.put({"type": "lifespan.startup"})
        return await within(self._lifespan_out.get())

    async def shutdown(self) -> dict[str, Any]:
        await self._lifespan_in.put({"type": "lifespan.shutdown"})
        msg = await within(self._lifespan_out.get())
        assert self._lifespan is not None
        await within(self._lifespan)
        return msg

    def open(
        self,
        method: str,
        path: str,
        headers: dict[str, str] | None = None,
        body: Any = b"",
        *,
        root_path: str = "",
        query: str = "",
        chunks: int = 1,
    ) -> AsgiExchange:
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        hs = [(b"host", self.host.encode())] + [(k.lower().encode(), v.encode()) for k, v in (headers or {}).items()]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": root_path,
            "headers": hs,
            "client": ("127.0.0.1", 50000),
            "server": (self.host, 80),
        }
        return AsgiExchange(self.app, scope, body, chunks)

    async def request(self, *args: Any, **kwargs: Any) -> AsgiExchange:
        ex = self.open(*args, **kwargs)
        await within(ex.finish())
        return ex


class AsgiExchange:
    """One HTTP request to an ASGI app and what it sent back."""

    def __init__(self, app: Any, scope: dict[str, Any], body: bytes, chunks: int) -> None:
        self.status = 0
        self.headers: dict[str, str] = {}
        self.body = b""
        self.more = True
        self._disconnect = asyncio.Event()
        self._progress = asyncio.Event()
        size = max(1, -(-len(body) // chunks))
        self._parts = [body[i : i + size] for i in range(0, len(body), size)] or [b""]
        self.task = asyncio.ensure_future(app(scope, self._receive, self._send))

    async def _receive(self) -> dict[str, Any]:
        if self._parts:
            part = self._parts.pop(0)
            return {"type": "http.request", "body": part, "more_body": bool(self._parts)}
        await self._disconnect.wait()
        return {"type": "http.disconnect"}

    async def _send(self, msg: dict[str, Any]) -> None:
        if msg["type"] == "http.response.start":
            self.status = msg["status"]
            self.headers = {bytes(k).decode().lower(): bytes(v).decode() for k, v in msg["headers"]}
        elif msg["type"] == "http.response.body":
            self.body += msg.get("body", b"")
            self.more = msg.get("more_body", False)
        self._progress.set()

    async def until_body(self, needle: bytes) -> None:
        while needle not in self.body:
            self._progress.clear()
            if self.task.done():
                self.task.result()
                raise AssertionError(f"the response ended without {needle!r}: {self.body!r}")
            await within(self._progress.wait())

    async def finish(self) -> None:
        await self.task
        self._disconnect.set()

    def disconnect(self) -> None:
        self._disconnect.set()

    def json(self) -> Any:
        return json.loads(self.body)

    def sse_messages(self) -> list[Any]:
        out = []
        for block in self.body.decode().split("\n\n"):
            data = [line[6:] for line in block.split("\n") if line.startswith("data: ")]
            if data and data[0]:
                out.append(json.loads("\n".join(data)))
        return out


def test_asgi_app_with_a_harness() -> None:
    log: list[str] = []

    @asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[str]:
        log.append("enter")
        yield "state"
        log.append("exit")

    server = make_server(lifespan=lifespan)

    cancelled: list[str] = []

    @server.tool
    async def hang(ctx: Context) -> str:
        await ctx.info("hanging")
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            cancelled.append("hang")
            raise
        return "never"

    async def main() -> None:
        # The default allow-list is localhost: a "testserver" Host is refused...
        refused = AsgiHarness(make_server().asgi_app())
        ex = await refused.request("POST", "/mcp", post_headers(), init_message())
        assert ex.status == 403 and "testserver" in ex.json()["error"]["message"]

        # ... unless allowed.
        app = server.asgi_app(allowed_hosts=["testserver"])
        h = AsgiHarness(app)
        assert await h.startup() == {"type": "lifespan.startup.complete"}
        assert log == ["enter"]
        ex = await h.request("POST", "/mcp", post_headers(), init_message(), chunks=3)
        assert ex.status == 200 and ex.headers["content-type"] == "application/json"
        sid = ex.headers["mcp-session-id"]
        assert ex.json()["result"]["serverInfo"]["name"] == "http-test"
        hs = post_headers(sid, LATEST)
        ex = await h.request("POST", "/mcp", hs, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert ex.status == 202 and ex.body == b""
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "asgi"}},
        }
        ex = await h.request("POST", "/mcp", hs, call)
        assert ex.status == 200 and ex.json()["result"]["content"][0]["text"] == "asgi"

        # Mounted: the mount point and the endpoint path both reach the endpoint.
        for path, root in (("/mcp", "/mcp"), ("/mcp/", "/mcp"), ("/", "")):
            ex = await h.request("POST", path, hs, dict(call, id=3), root_path=root)
            assert ex.status == 200, (path, root, ex.status, ex.body)
        ex = await h.request("POST", "/other", hs, call)
        assert ex.status == 404
        ex = await h.request("POST", "/a path/ü", hs, call)
        assert ex.status == 404
        ex = await h.request("POST", "/mcp", dict(hs, **{"X-Bad": "a\x01b"}), call)
        assert ex.status in (400, 200), ex.status

        # Progress and logs stream before the result.
        await h.request(
            "POST", "/mcp", hs, {"jsonrpc": "2.0", "id": 4, "method": "logging/setLevel", "params": {"level": "info"}}
        )
        steps = {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "steps", "arguments": {"n": 2}, "_meta": {"progressToken": 1}},
        }
        ex = await h.request("POST", "/mcp", hs, steps)
        assert ex.status == 200 and ex.headers["content-type"] == "text/event-stream" and not ex.more
        msgs = ex.sse_messages()
        assert [m.get("method") for m in msgs] == [
            "notifications/progress",
            "notifications/progress",
            "notifications/message",
            None,
        ]

        # Errors from the handlers.
        ex = await h.request(
            "POST",
            "/mcp",
            hs,
            {"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "rpc_error", "arguments": {}}},
        )
        assert ex.json()["error"]["code"] == -32042
        ex = await h.request(
            "POST",
            "/mcp",
            hs,
            {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "plain_error", "arguments": {}}},
        )
        # A sync handler runs in a worker thread: when it ends after the answer had to start
        # (a loaded machine), the answer streams (SSE) rather than comes as one JSON body.
        json_body = ex.headers["content-type"] == "application/json"
        answer = ex.json() if json_body else ex.sse_messages()[-1]
        assert answer["result"]["isError"] is True

        # A client that goes away mid-stream: the call goes on (the client may resume the
        # stream) until the session ends (DELETE, below).
        hanging = h.open(
            "POST",
            "/mcp",
            hs,
            {"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"name": "hang", "arguments": {}}},
        )
        await hanging.until_body(b"hanging")
        hanging.disconnect()
        await within(hanging.task)
        assert cancelled == []

        # Status codes come from the engine.
        assert (await h.request("POST", "/mcp", post_headers("0" * 32, LATEST), call)).status == 404
        assert (await h.request("POST", "/mcp", dict(hs, **{"Content-Type": "text/plain"}), call)).status == 415
        assert (await h.request("POST", "/mcp", dict(hs, Accept="application/json"), call)).status == 406
        big = {"jsonrpc": "2.0", "id": 9, "method": "ping", "params": {"pad": "x" * (5 * 1024 * 1024)}}
        ex = await h.request("POST", "/mcp", hs, big, chunks=64)
        assert ex.status == 413

        # The legacy transport, mounted under a prefix: the endpoint event carries it.
        sse = h.open(
            "GET",
            "/sse",
            {"Accept": "text/event-stream"},
            root_path="/mcp",
        )
        await sse.until_body(b"\n\n")
        m = re.search(rb"event: endpoint\ndata: (\S+)\n\n", sse.body)
        assert m, sse.body
        endpoint = m.group(1).decode()
        assert endpoint.startswith("/mcp/messages?sessionId="), endpoint
        path, _, query = endpoint.partition("?")
        ex = await h.request(
            "POST",
            path,
            {"Content-Type": "application/json"},
            init_message("2024-11-05", rid=1),
            root_path="/mcp",
            query=query,
        )
        assert ex.status == 202
        await sse.until_body(b'"protocolVersion":"2024-11-05"')
        sse.disconnect()
        await within(sse.task)

        ex = await h.request("DELETE", "/mcp", hs)
        assert ex.status == 200
        assert (await h.request("POST", "/mcp", hs, call)).status == 404
        await until(lambda: cancelled == ["hang"])

        # A stream still open at shutdown ends; later requests get 503.
        stream = h.open("GET", "/sse", {"Accept": "text/event-stream"})
        await stream.until_body(b"event: endpoint")
        assert await h.shutdown() == {"type": "lifespan.shutdown.complete"}
        assert log == ["enter", "exit"]
        await within(stream.task)
        assert not stream.more
        assert (await h.request("POST", "/mcp", hs, call)).status == 503

    run(main())


def test_asgi_app_enters_the_lifespan_on_first_use_without_lifespan_events() -> None:
    """Mounted in Starlette, a sub-app gets no lifespan events: the server's lifespan is
    entered on the first request (and exited by ``shutdown()``)."""
    log: list[str] = []

    @asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[str]:
        log.append("enter")
        yield "ready"
        log.append("exit")

    server = make_server(lifespan=lifespan)

    @server.tool
    async def state(ctx: Context) -> str:
        return str(ctx.lifespan_context)

    async def main() -> None:
        app = server.asgi_app(allowed_hosts=["testserver"])
        h = AsgiHarness(app)
        results = await asyncio.gather(*(h.request("POST", "/mcp", post_headers(), init_message()) for _ in range(3)))
        assert [ex.status for ex in results] == [200, 200, 200]
        assert log == ["enter"]
        hs = post_headers(results[0].headers["mcp-session-id"], LATEST)
        call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "state", "arguments": {}}}
        ex = await h.request("POST", "/mcp", hs, call)
        assert ex.json()["result"]["content"][0]["text"] == "ready"
        await within(app.shutdown())
        assert log == ["enter", "exit"]

    run(main())


# Runs a script as ``python SCRIPT ARGS`` would, with one more import folder first.
ASGI_RUNNER = """
import os, runpy, sys
sys.path[0:0] = [sys.argv[1], os.path.dirname(sys.argv[2])]
sys.argv = sys.argv[2:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""

# The weather server mounted at /mcp (Mount("/mcp")) instead of the root.
MOUNTED_AT_MCP = """
import sys
from contextlib import asynccontextmanager

import uvicorn
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Mount, Route

from weather_server import server

mcp = server.asgi_app()


@asynccontextmanager
async def lifespan(app):
    await mcp.startup()
    yield
    await mcp.shutdown()


async def home(request):
    return PlainTextResponse("weather home")


app = Starlette(routes=[Route("/", home), Mount("/mcp", app=mcp)], lifespan=lifespan)
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""


@pytest.mark.parametrize(
    ("app", "walks"),
    [
        ("asgi_app.py", [("--url", "/mcp"), ("--sse-url", "/sse")]),
        # Mounted under /mcp: the endpoint is /mcp/ (/mcp is redirected), the legacy stream
        # /mcp/sse, whose endpoint event must name /mcp/messages.
        ("mounted", [("--url", "/mcp/"), ("--url", "/mcp"), ("--sse-url", "/mcp/sse")]),
    ],
)
def test_asgi_app_under_uvicorn_and_starlette_with_the_official_client(app: str, walks: list[tuple[str, str]]) -> None:
    """The weather server in a Starlette app beside a normal route, under uvicorn on the peers
    venv's python (which has starlette and uvicorn), walked by the official Python SDK client:
    examples/python/asgi_app.py (mounted at the root), and mounted at /mcp."""
    peer = peers_python()
    if os.system(f"{peer} -c 'import starlette, uvicorn' 2>/dev/null") != 0:
        pytest.skip("starlette or uvicorn is not importable in the peers venv")
    import hypermcp

    async def main() -> None:
        with tempfile.TemporaryDirectory() as tmp:
            # hypermcp (an abi3 build of the same Python) for the peers venv, alone.
            os.symlink(Path(hypermcp.__file__).parent, Path(tmp) / "hypermcp")
            script = EXAMPLES / "asgi_app.py"
            if app == "mounted":
                os.symlink(EXAMPLES / "weather_server.py", Path(tmp) / "weather_server.py")
                script = Path(tmp) / "mounted.py"
                script.write_text(MOUNTED_AT_MCP)
            with socket.socket() as s:
                s.bind(("127.0.0.1", 0))
                port = s.getsockname()[1]
            proc = await asyncio.create_subprocess_exec(
                str(peer),
                "-c",
                ASGI_RUNNER,
                tmp,
                str(script),
                "--port",
                str(port),
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
            try:

                async def ready() -> None:
                    while True:
                        try:
                            r = await request(port, "GET", "/", {})
                            if r.status == 200:
                                return
                        except OSError:
                            pass
                        if proc.returncode is not None:
                            raise AssertionError("the ASGI app exited")
                        await asyncio.sleep(0.05)

                await within(ready(), 20)
                home = await within(request(port, "GET", "/", {}))
                assert b"weather" in home.body
                for flag, path in walks:
                    url = f"http://127.0.0.1:{port}{path}"
                    code, out, err = await run_process(
                        str(peer), str(INTEROP / "py_sdk_full.py"), "--timeout", "30", flag, url
                    )
                    assert code == 0, f"py_sdk_full {flag} {url} failed ({code}):\n{out}\n{err}"
                proc.send_signal(signal.SIGTERM)
                # uvicorn shuts down gracefully, then re-raises the signal it caught.
                assert await within(proc.wait(), 15) in (0, -signal.SIGTERM)
                assert proc.stderr is not None
                stderr = (await proc.stderr.read()).decode()
                # The weather lifespan ran and was exited.
                assert "weather server: served" in stderr, stderr
            finally:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()

    run(main(), limit=120)


def test_resource_updates_reach_subscribed_sessions() -> None:
    async def main() -> None:
        server = make_server()
        async with await within(server.start_http("127.0.0.1", 0)) as http:
            # One session as usual, one that never sent notifications/initialized (so it
            # never handed the loop an event).
            normal = await within(McpSession(http.port).initialize())
            quiet = McpSession(http.port)
            resp = await within(request(http.port, "POST", "/mcp", post_headers(), init_message()))
            quiet.session_id, quiet.version = resp.headers["mcp-session-id"], LATEST
            streams = []
            for s in (normal, quiet):
                answer = await within(s.call("resources/subscribe", {"uri": "test://greeting"}))
                assert answer.get("result") == {}, answer
                streams.append(await open_get_stream(http.port, s))
            server.notify_resource_updated("test://greeting")
            server.notify_resource_updated("test://other")  # nobody subscribed
            for conn, events in streams:
                ev = await within(anext(events))
                assert ev.json() == {
                    "jsonrpc": "2.0",
                    "method": "notifications/resources/updated",
                    "params": {"uri": "test://greeting"},
                }
                conn.close()

    run(main())


def test_resource_updates_once_per_session_with_two_http_servers() -> None:
    async def main() -> None:
        server = make_server()
        async with (
            await within(server.start_http("127.0.0.1", 0)) as a,
            await within(server.start_http("127.0.0.1", 0)) as b,
        ):
            streams = []
            for http in (a, b):
                s = await within(McpSession(http.port).initialize())
                await within(s.call("resources/subscribe", {"uri": "test://greeting"}))
                streams.append(await open_get_stream(http.port, s))
            server.notify_resource_updated("test://greeting")
            server.notify_resource_updated("test://greeting")
            for conn, events in streams:
                for _ in range(2):
                    ev = await within(anext(events))
                    assert ev.json()["method"] == "notifications/resources/updated"
                # No third (duplicate) event.
                with pytest.raises(asyncio.TimeoutError):
                    await asyncio.wait_for(anext(events), 0.3)
                conn.close()

    run(main())


def test_idle_sessions_get_no_connection_until_their_first_call() -> None:
    async def main() -> None:
        server = make_server()
        errors: list[Any] = []
        asyncio.get_running_loop().set_exception_handler(lambda loop, ctx: errors.append(ctx))
        seen: list[Any] = []

        @server.on_notification("notifications/roots/list_changed")
        def roots_changed(params: Any) -> None:
            raise RuntimeError("callback failed")

        @server.on_notification("notifications/custom/thing")
        def custom(params: Any) -> None:
            seen.append(params)

        async with await within(server.start_http("127.0.0.1", 0)) as http:
            host = http._host
            # 2025-03-26 takes JSON-RPC batches (two notifications reach the loop as one);
            # the latest revision primes SSE streams (so a test knows they are attached).
            first = await within(McpSession(http.port).initialize("2025-03-26"))
            second = await within(McpSession(http.port).initialize())
            third = await within(McpSession(http.port).initialize())
            batch = [
                {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
                {"jsonrpc": "2.0", "method": "notifications/custom/thing", "params": {"a": 1}},
            ]
            assert (await within(first.post(batch))).status == 202
            # The callbacks ran without a connection, the failing one reported without losing
            # the other; the loop has seen every session's events by now.
            await until(lambda: seen == [{"a": 1}] and len(errors) == 1)
            assert "callback failed" in str(errors[0]["exception"])
            assert host._conns == {}
            assert http.session_count == 3

            # A call gets its session a connection.
            answer = await within(first.call_tool("echo", {"text": "hi"}))
            assert answer["result"]["content"][0]["text"] == "hi"
            assert len(host._conns) == 1
            assert (await within(third.call_tool("echo", {"text": "hi"})))["result"]["content"][0]["text"] == "hi"
            assert len(host._conns) == 2

            # Resource updates reach a session with a connection and one without, once each.
            streams = []
            for s in (third, second):
                assert (await within(s.call("resources/subscribe", {"uri": "test://greeting"})))["result"] == {}
                streams.append(await open_get_stream(http.port, s))
            assert len(host._conns) == 2  # subscribing is answered natively
            server.notify_resource_updated("test://greeting")
            for conn, events in streams:
                ev = await within(anext(events))
                assert ev.json()["params"] == {"uri": "test://greeting"}
                with pytest.raises(asyncio.TimeoutError):
                    await asyncio.wait_for(anext(events), 0.3)
                conn.close()

            # Closing ends a connection; a session without one closes as well.
            for s in (first, second):
                assert (await within(s.delete())).status == 200
            await until(lambda: len(host._conns) == 1 and http.session_count == 1)

    run(main())


def test_sampling_elicitation_and_roots_round_trips_over_raw_http() -> None:
    async def main() -> None:
        server = make_server()

        @server.tool
        async def ask(ctx: Context) -> str:
            sampled = await ctx.sample("What is the weather?", max_tokens=10)
            answer = await ctx.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
            roots = await ctx.list_roots()
            name = (answer.content or {}).get("name")
            return f"{sampled['content']['text']} / {answer.action}:{name} / {roots[0]['uri']}"

        async with await within(server.start_http("127.0.0.1", 0)) as http:
            caps = {"sampling": {}, "elicitation": {"form": {}}, "roots": {}}
            session = await within(McpSession(http.port).initialize(capabilities=caps))
            resp = await within(
                session.post(
                    {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "ask", "arguments": {}}}
                )
            )
            assert resp.is_sse
            replies = {
                "sampling/createMessage": {
                    "role": "assistant",
                    "content": {"type": "text", "text": "Sunny"},
                    "model": "m",
                },
                "elicitation/create": {"action": "accept", "content": {"name": "Ada"}},
                "roots/list": {"roots": [{"uri": "file:///work", "name": "work"}]},
            }
            seen = []
            result = None
            async for ev in resp.events():
                if not ev.data:
                    continue
                msg = ev.json()
                if "method" in msg:
                    seen.append(msg["method"])
                    if msg["method"] == "sampling/createMessage":
                        assert msg["params"]["maxTokens"] == 10
                    reply = {"jsonrpc": "2.0", "id": msg["id"], "result": replies[msg["method"]]}
                    r = await within(request(http.port, "POST", "/mcp", session.headers(), reply))
                    assert r.status == 202, (r.status, r.body)
                elif msg.get("id") == 1:
                    result = msg
            assert seen == ["sampling/createMessage", "elicitation/create", "roots/list"]
            assert result is not None
            assert result["result"]["content"][0]["text"] == "Sunny / accept:Ada / file:///work"

            # A client without the sampling capability: the handler's request fails with an
            # McpError, which the tool lets through: a JSON-RPC error.
            plain = await within(McpSession(http.port).initialize())
            answer = await within(plain.call_tool("ask"))
            assert answer["error"]["code"] == -32601 and "sampling" in answer["error"]["message"]

    run(main())


def test_cancellation_and_sse_polling_resumption() -> None:
    async def main() -> None:
        server = make_server()
        cancelled: list[int] = []
        release = asyncio.Event()

        @server.tool
        async def hang(ctx: Context) -> str:
            await ctx.info("started")
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.append(1)
                raise
            return "never"

        @server.tool
        async def polled(ctx: Context) -> str:
            await ctx.info("before the hang-up")
            assert ctx.close_sse_stream()
            await release.wait()
            await ctx.info("after the hang-up")
            return "resumed"

        async with await within(server.start_http("127.0.0.1", 0)) as http:
            session = await within(McpSession(http.port).initialize())
            await within(session.call("logging/setLevel", {"level": "info"}))

            # notifications/cancelled: the handler gets CancelledError, no answer is sent.
            resp = await within(
                session.post(
                    {"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": "hang", "arguments": {}}}
                )
            )
            events = resp.events()
            assert (await within(anext(events))).data == ""  # priming
            assert (await within(anext(events))).json()["params"]["data"] == "started"
            note = await within(session.notify("notifications/cancelled", {"requestId": 10, "reason": "enough"}))
            assert note.status == 202
            await until(lambda: cancelled == [1])
            rest = [ev async for ev in events]
            assert all(ev.json().get("id") != 10 for ev in rest if ev.data), rest

            # ctx.close_sse_stream(): the connection ends after a retry hint; GET with
            # Last-Event-ID gets the rest.
            resp = await within(
                session.post(
                    {"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {"name": "polled", "arguments": {}}}
                )
            )
            first = [ev async for ev in resp.events()]
            assert [ev.json()["params"]["data"] for ev in first if ev.data] == ["before the hang-up"]
            assert first[-1].retry is not None or any(ev.retry for ev in first)
            last_id = [ev.id for ev in first if ev.id][-1]
            release.set()
            headers = {
                "Accept": "text/event-stream",
                "Mcp-Session-Id": session.session_id or "",
                "MCP-Protocol-Version": LATEST,
                "Last-Event-ID": last_id or "",
            }
            again = await within(request(http.port, "GET", "/mcp", headers))
            assert again.status == 200
            msgs = await within(again.messages())
            assert [m.get("method") for m in msgs] == ["notifications/message", None], msgs
            assert msgs[-1]["result"]["content"][0]["text"] == "resumed"

    run(main())


def test_a_failing_notification_callback_does_not_lose_the_rest_of_the_batch() -> None:
    async def main() -> None:
        server = make_server()
        errors: list[Any] = []
        asyncio.get_running_loop().set_exception_handler(lambda loop, ctx: errors.append(ctx))

        @server.on_notification("notifications/roots/list_changed")
        def roots_changed(params: Any) -> None:
            raise RuntimeError("callback failed")

        async with await within(server.start_http("127.0.0.1", 0)) as http:
            session = await within(McpSession(http.port).initialize("2025-03-26"))
            batch = [
                {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/call",
                    "params": {"name": "later", "arguments": {"text": "still"}},
                },
            ]
            resp = await within(session.post(batch))
            msgs = await within(resp.messages())
            assert msgs[-1]["id"] == 1 and msgs[-1]["result"]["content"][0]["text"] == "still"
            await until(lambda: len(errors) == 1)
            assert "callback failed" in str(errors[0]["exception"])
            # The session keeps serving.
            assert (await within(session.call_tool("echo", {"text": "ok"})))["result"]["content"][0]["text"] == "ok"

    run(main())


def test_modes_and_options() -> None:
    async def main() -> None:
        server = make_server()
        with pytest.raises(TypeError, match="unknown HTTP option"):
            await server.start_http("127.0.0.1", 0, bogus=True)

        # json_response: one JSON body even for a call with progress.
        async with await within(server.start_http("127.0.0.1", 0, json_response=True)) as http:
            session = await within(McpSession(http.port).initialize())
            resp = await within(
                session.post(
                    {
                        "jsonrpc": "2.0",
                        "id": 1,
                        "method": "tools/call",
                        "params": {"name": "steps", "arguments": {"n": 2}, "_meta": {"progressToken": 1}},
                    }
                )
            )
            assert resp.status == 200 and resp.content_type == "application/json"
            assert resp.json()["result"]["content"][0]["text"] == "2 steps"

        # stateless: no session id; every POST stands alone; GET is 405.
        async with await within(server.start_http("127.0.0.1", 0, stateless=True)) as http:
            resp = await within(request(http.port, "POST", "/mcp", post_headers(), init_message()))
            assert resp.status == 200 and "mcp-session-id" not in resp.headers
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "later", "arguments": {"text": "s"}},
            }
            resp = await within(request(http.port, "POST", "/mcp", post_headers(version=LATEST), call))
            assert (await resp.messages())[-1]["result"]["content"][0]["text"] == "s"
            assert (await within(request(http.port, "GET", "/mcp", {"Accept": "text/event-stream"}))).status == 405
            await until(lambda: http.session_count == 0)

        # Another path, the legacy transport off.
        async with await within(server.start_http("127.0.0.1", 0, path="/api/mcp", legacy_sse=False)) as http:
            assert http.url.endswith("/api/mcp")
            session = await within(McpSession(http.port, "/api/mcp").initialize())
            assert (await within(session.call("ping")))["result"] == {}
            assert (await within(request(http.port, "GET", "/sse", {"Accept": "text/event-stream"}))).status == 404

    run(main())


def test_identify_in_results_off_names_the_server_in_discovery_only() -> None:
    """``identify_in_results=False``: 2026-07-28 results carry no
    ``io.modelcontextprotocol/serverInfo`` in ``_meta``, but ``server/discover`` (where the
    spec asks for it) still does; by default every result carries it."""
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }

    async def exchange(port: int, rid: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
        extra = {"Mcp-Method": method}
        name = params.get("name") or params.get("uri")
        if name:
            extra["Mcp-Name"] = name
        body = {"jsonrpc": "2.0", "id": rid, "method": method, "params": {**params, "_meta": meta}}
        resp = await within(request(port, "POST", "/mcp", post_headers(version="2026-07-28", **extra), body))
        assert resp.status == 200, resp.text
        msg = (await resp.messages())[-1]
        assert "result" in msg, msg
        return msg["result"]

    info = {"name": "http-test", "version": "1.2.3"}
    calls: list[tuple[str, dict[str, Any]]] = [
        ("server/discover", {}),
        ("tools/list", {}),
        ("tools/call", {"name": "echo", "arguments": {"text": "hi"}}),
        ("resources/read", {"uri": "test://greeting"}),
    ]

    async def main() -> None:
        for identify in (True, False):
            async with await within(make_server(identify_in_results=identify).start_http("127.0.0.1", 0)) as http:
                for rid, (method, params) in enumerate(calls):
                    result = await exchange(http.port, rid, method, params)
                    named = result.get("_meta", {}).get("io.modelcontextprotocol/serverInfo")
                    wanted = info if identify or method == "server/discover" else None
                    assert named == wanted, (identify, method, result)
                    assert result["resultType"] == "complete", result

    run(main())


def test_a_port_in_use_fails_and_leaves_nothing_behind() -> None:
    log: list[str] = []

    @asynccontextmanager
    async def lifespan(server: Server) -> AsyncIterator[None]:
        log.append("enter")
        yield
        log.append("exit")

    server = make_server(lifespan=lifespan)

    async def main() -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            s.listen()
            with pytest.raises(OSError, match="cannot listen"):
                await server.start_http("127.0.0.1", s.getsockname()[1])
        assert log == ["enter", "exit"]
        assert not server._connections
        async with await within(server.start_http("127.0.0.1", 0)):
            assert log == ["enter", "exit", "enter"]
        assert log == ["enter", "exit", "enter", "exit"]

    run(main())


def make_pki(folder: Path) -> tuple[Path, Path, Path]:
    """A CA and a certificate it signs for localhost and 127.0.0.1 (openssl): (ca, cert, key)."""
    import shutil
    import subprocess

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    ca_key, ca, key, csr, cert, ext = (folder / n for n in ("ca.key", "ca.pem", "key.pem", "c.csr", "cert.pem", "ext"))
    ext.write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
    for argv in (
        ["req", "-x509", *ec, "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=hypermcp test CA"],
        ["req", *ec, "-keyout", key, "-out", csr, "-subj", "/CN=localhost"],
        ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-extfile", ext],
    ):
        subprocess.run(["openssl", *map(str, argv)], check=True, capture_output=True)
    return ca, cert, key


def test_https_serving_with_our_client_and_the_official_one() -> None:
    async def main() -> None:
        from hypermcp import Client

        with tempfile.TemporaryDirectory() as tmp:
            ca, cert, key = make_pki(Path(tmp))
            server = make_server()
            with pytest.raises(ValueError, match="both tls_cert and tls_key"):
                await server.start_http(port=0, tls_cert=cert)
            with pytest.raises(Exception, match="cannot read the TLS file"):
                await server.start_http(port=0, tls_cert=Path(tmp) / "missing.pem", tls_key=key)
            async with await server.start_http(port=0, tls_cert=cert, tls_key=key) as http:
                assert http.url.startswith("https://127.0.0.1:"), http.url
                async with Client.http(http.url, ca_file=ca) as client:
                    assert (await client.call_tool("echo", {"text": "over tls"})).text == "over tls"
                # The official Python SDK client (httpx) trusting the CA through SSL_CERT_FILE.
                script = (
                    "import asyncio, sys\n"
                    "from mcp import ClientSession\n"
                    "from mcp.client.streamable_http import streamable_http_client\n"
                    "async def main():\n"
                    "    async with streamable_http_client(sys.argv[1]) as s:\n"
                    "        async with ClientSession(s[0], s[1]) as c:\n"
                    "            await c.initialize()\n"
                    "            r = await c.call_tool('echo', {'text': 'official over tls'})\n"
                    "            print(r.content[0].text)\n"
                    "asyncio.run(main())\n"
                )
                env = {**os.environ, "SSL_CERT_FILE": str(ca)}
                code, out, err = await run_process(str(peers_python()), "-c", script, http.url, env=env)
                assert code == 0, err
                assert out.strip() == "official over tls", out

    run(main())


def test_auth_option_makes_an_oauth_resource_server() -> None:
    async def main() -> None:
        import urllib.request

        from hypermcp import Client
        from hypermcp.errors import Unauthorized

        server = make_server()
        with pytest.raises(ValueError, match="jwks_uri"):
            await server.start_http(
                port=0, auth={"resource": "https://mcp.test/mcp", "authorization_servers": ["https://as.test"]}
            )
        auth = {
            "resource": "https://mcp.test/mcp",
            "authorization_servers": ["https://as.test"],
            "jwks_uri": "https://as.test/jwks",
            "required_scopes": ["mcp:tools"],
        }
        async with await server.start_http(port=0, auth=auth) as http:
            base = http.url[: -len(http.path)]

            def get(path: str) -> dict[str, Any]:
                with urllib.request.urlopen(base + path, timeout=10) as r:
                    return json.loads(r.read())

            doc = await asyncio.to_thread(get, "/.well-known/oauth-protected-resource/mcp")
            assert doc["resource"] == "https://mcp.test/mcp" and doc["authorization_servers"] == ["https://as.test"]
            with pytest.raises(Unauthorized) as info:
                await within(Client.http(http.url, mode="legacy").connect())
            assert "401" in str(info.value), info.value

    run(main())


def test_handlers_see_the_request_and_entries_need_their_scopes() -> None:
    """The app's own async verifier (``auth.verify``) admits tokens; ``ctx.auth``,
    ``ctx.headers`` and ``ctx.session_id`` tell handlers about the request; ``scopes=`` on a
    tool, resource or prompt is enforced with 403 ``insufficient_scope`` naming them."""

    async def main() -> None:
        import urllib.error
        import urllib.request

        from hypermcp import AuthInfo, Client, Headers
        from hypermcp.errors import DefinitionError

        seen: list[str] = []

        async def verify(token: str) -> dict[str, Any] | None:
            seen.append(token)
            await asyncio.sleep(0)
            if token == "user":
                return {"sub": "alice", "client_id": "app", "scope": "mcp:tools", "tenant": "t1"}
            if token == "admin":
                return {"sub": "root", "scope": "mcp:tools mcp:admin"}
            if token == "boom":
                raise ValueError("this token was revoked")
            return None

        server = Server("scoped")

        @server.tool
        async def whoami(ctx: Context) -> dict[str, Any]:
            auth = ctx.auth
            assert isinstance(auth, AuthInfo) and isinstance(ctx.headers, Headers)
            return {
                "subject": auth.subject,
                "client_id": auth.client_id,
                "scopes": list(auth.scopes),
                "tenant": auth.claims.get("tenant"),
                "custom": ctx.headers.get("X-Custom"),
                "has_authorization": "authorization" in ctx.headers,
                "session": ctx.session_id,
            }

        @server.tool(scopes=["mcp:admin"])
        def admin() -> str:
            return "admin done"

        @server.resource("secret://{name}", scopes="mcp:admin")
        def secret(name: str) -> str:
            return f"secret {name}"

        @server.prompt(scopes=["mcp:admin"])
        def audit() -> str:
            return "audit"

        with pytest.raises(DefinitionError, match="scope name"):
            server.add_tool(lambda: "x", name="bad", scopes=["has space"])
        assert "bad" not in [t for t in server._tools]

        auth = {
            "resource": "https://mcp.test/mcp",
            "authorization_servers": ["https://as.test"],
            "required_scopes": ["mcp:tools"],
            "verify": verify,
        }
        with pytest.raises(ValueError, match="expected a function"):
            await server.start_http(port=0, auth={**auth, "verify": "not a function"})
        async with await server.start_http(port=0, auth=auth) as http:
            headers = {"Authorization": "Bearer user", "X-Custom": "yes"}
            async with Client.http(http.url, headers=headers, mode="legacy") as client:
                r = await within(client.call_tool("whoami", {}))
                got = r["structuredContent"]
                assert got["subject"] == "alice" and got["client_id"] == "app", got
                assert got["scopes"] == ["mcp:tools"] and got["tenant"] == "t1", got
                assert got["custom"] == "yes" and got["has_authorization"] is False, got
                assert got["session"] and len(got["session"]) > 8, got
                with pytest.raises(McpError, match="403"):
                    await within(client.call_tool("admin", {}))
            assert "user" in seen

            def post(token: str, message: dict[str, Any]) -> tuple[int, str]:
                req = urllib.request.Request(
                    http.url,
                    data=json.dumps(message).encode(),
                    headers={
                        "Authorization": f"Bearer {token}",
                        "Content-Type": "application/json",
                        "Accept": "application/json, text/event-stream",
                    },
                )
                try:
                    with urllib.request.urlopen(req, timeout=10) as r:
                        return r.status, ""
                except urllib.error.HTTPError as e:
                    return e.code, e.headers.get("WWW-Authenticate", "")

            def call(method: str, params: dict[str, Any]) -> dict[str, Any]:
                return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}

            for message in (
                call("tools/call", {"name": "admin", "arguments": {}}),
                call("resources/read", {"uri": "secret://plans"}),
                call("prompts/get", {"name": "audit"}),
            ):
                status, www = await asyncio.to_thread(post, "user", message)
                assert status == 403, (message, status)
                assert 'error="insufficient_scope"' in www and 'scope="mcp:tools mcp:admin"' in www, www
            # The verifier's refusals: None, and an exception whose message reaches the client.
            status, www = await asyncio.to_thread(post, "nobody", call("tools/list", {}))
            assert status == 401 and 'error="invalid_token"' in www, www
            status, www = await asyncio.to_thread(post, "boom", call("tools/list", {}))
            assert status == 401 and "this token was revoked" in www, www
            async with Client.http(http.url, headers={"Authorization": "Bearer admin"}, mode="legacy") as client:
                r = await within(client.call_tool("admin", {}))
                assert r["content"][0]["text"] == "admin done"

    run(main())


# ---- replicas sharing a store (Redis) ------------------------------------------------------------


def start_redis() -> tuple[Any, int] | None:
    """A redis-server of the test's own on a free port, or None (a skip) when it is not
    installed (a failure with ``HYPERMCP_REQUIRE_REDIS=1``; `make peers` installs it)."""
    import shutil
    import subprocess

    if shutil.which("redis-server") is None:
        if os.environ.get("HYPERMCP_REQUIRE_REDIS") == "1":
            pytest.fail("redis-server is required (HYPERMCP_REQUIRE_REDIS=1) but not installed")
        return None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        cwd=tempfile.gettempdir(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, port
        except OSError:
            time.sleep(0.02)
    proc.kill()
    pytest.fail("redis-server did not start")


def test_a_store_that_cannot_be_reached_fails_at_start_with_a_clear_error() -> None:
    async def main() -> None:
        server = make_server()
        with pytest.raises(OSError, match=r"cannot reach Redis at redis://127\.0\.0\.1:1/0"):
            await within(server.start_http("127.0.0.1", 0, store="redis://127.0.0.1:1/0"), 20)
        with pytest.raises(Exception, match="unsupported store"):
            await within(server.start_http("127.0.0.1", 0, store="memcached://x"), 20)

    run(main())


def test_two_servers_sharing_redis_serve_one_session() -> None:
    started = start_redis()
    if started is None:
        pytest.skip("redis-server is not installed (make peers installs it)")
    proc, port = started
    url = f"redis://127.0.0.1:{port}/0"

    async def main() -> None:
        a = await within(make_server().start_http("127.0.0.1", 0, store=url), 20)
        b = await within(make_server().start_http("127.0.0.1", 0, store=url), 20)
        try:
            # initialize on A; everything else on B, which never saw the session.
            resp = await within(request(a.port, "POST", "/mcp", post_headers(), init_message()))
            sid = resp.headers["mcp-session-id"]
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            resp = await within(request(b.port, "POST", "/mcp", post_headers(sid, LATEST), note))
            assert resp.status == 202
            session = McpSession(b.port)
            session.session_id, session.version = sid, LATEST
            answer = await within(session.call_tool("echo", {"text": "through b"}))
            assert answer["result"]["content"][0]["text"] == "through b"
            assert b.session_count == 1
            # DELETE through B ends it on A too.
            resp = await within(request(b.port, "DELETE", "/mcp", post_headers(sid, LATEST)))
            assert resp.status == 200
            await until(lambda: a.session_count == 0)
            resp = await within(request(a.port, "POST", "/mcp", post_headers(sid, LATEST), note))
            assert resp.status == 404
        finally:
            await within(a.stop())
            await within(b.stop())

    try:
        run(main())
    finally:
        proc.kill()
        proc.wait()
