"""The Python HTTP client, ``Client.http``, against real servers: the official
``@modelcontextprotocol/server-everything`` (TypeScript SDK) in streamableHttp mode, a server
on the official Python SDK (core/tests/peers/py_http_server.py: Streamable HTTP with SSE or
JSON answers, and the legacy HTTP+SSE transport, forced and found by the automatic fallback),
and our own Python server (``server.start_http``), seen through a recording TCP proxy where
the wire matters (custom headers, session id, protocol version, the DELETE at close). Then the
failures: nothing listening, an https:// URL, a server killed or stopped mid-session, an
expired session.

Loopback only, free ports, every await bounded. Without the peers (``.peers``, or
``$HYPERMCP_PEERS``) the peer tests are skipped, unless ``HYPERMCP_REQUIRE_PEERS=1``.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from _helpers import Logs, Messages, run, until, within
from hypermcp import Client, Context, OAuth, Server
from hypermcp.client import _HttpConnection  # pyright: ignore[reportPrivateUsage]
from hypermcp.errors import ConnectionClosed, McpError, RequestTimeout, Unauthorized

ROOT = Path(__file__).resolve().parents[2]
PEERS = Path(os.environ.get("HYPERMCP_PEERS") or os.environ.get("PEERS") or ROOT / ".peers")
EVERYTHING = PEERS / "npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
PEER_PYTHON = PEERS / "venv" / "bin" / "python"
PY_HTTP_SERVER = ROOT / "core" / "tests" / "peers" / "py_http_server.py"
LATEST = "2025-11-25"
#: The JSON-RPC code of the errors the HTTP transport makes up (an HTTP status, an expired session).
HTTP_TRANSPORT_ERROR = -32010


# ---- peers --------------------------------------------------------------------------------------


def need(what: str, ok: bool, why: str) -> None:
    """Skips (fails with ``HYPERMCP_REQUIRE_PEERS=1``) when a peer is missing."""
    if ok:
        return
    if os.environ.get("HYPERMCP_REQUIRE_PEERS") == "1":
        pytest.fail(f"HYPERMCP_REQUIRE_PEERS=1 but {what} is unavailable: {why}")
    pytest.skip(f"{what} is unavailable: {why} (run tests/interop/setup_peers.sh)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Peer:
    """A server process on a port, its output in a log file."""

    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def peer(argv: list[str], port: int, tmp: Path, env: dict[str, str] | None = None) -> Iterator[Peer]:
    """Runs ``argv`` until the block ends (then SIGKILL); waits until ``port`` accepts."""
    log = tmp / f"peer-{port}.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
        )
    p = Peer(proc, port, log)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"{argv[:2]} did not listen on port {port}; output:\n{p.output()}")
                time.sleep(0.05)
        yield p
    finally:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="module")
def everything(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Peer]:
    """One server-everything in streamableHttp mode for the module."""
    need("server-everything", EVERYTHING.is_file(), f"{EVERYTHING} not found")
    need("server-everything", shutil.which("node") is not None, "node is not on PATH")
    port = free_port()
    argv = ["node", str(EVERYTHING), "streamableHttp"]
    with peer(argv, port, tmp_path_factory.mktemp("everything"), {"PORT": str(port)}) as p:
        yield p


@contextmanager
def py_sdk_server(tmp: Path, *args: str) -> Iterator[Peer]:
    """core/tests/peers/py_http_server.py (``streamable``, ``json`` or ``sse``) on a free port."""
    need("the official Python SDK", PEER_PYTHON.is_file(), f"{PEER_PYTHON} not found")
    port = free_port()
    with peer([str(PEER_PYTHON), str(PY_HTTP_SERVER), args[0], str(port), *args[1:]], port, tmp) as p:
        yield p


# ---- a recording proxy ----------------------------------------------------------------------------


@dataclass
class Seen:
    """The head of one HTTP request (header names lower-case) and its body."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes = b""


@dataclass
class Recorder:
    """A TCP proxy in front of a server that records every request the client sends (the
    responses, SSE streams included, flow through untouched)."""

    upstream: int
    seen: list[Seen] = field(default_factory=list[Seen])
    port: int = 0
    _server: asyncio.Server | None = None
    _tasks: set[asyncio.Task[None]] = field(default_factory=set[asyncio.Task[None]])

    async def start(self) -> Recorder:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    def url(self, path: str = "/mcp") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def methods(self) -> list[str]:
        return [s.method for s in self.seen]

    async def close(self) -> None:
        assert self._server is not None
        self._server.close()
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)
        except OSError:
            writer.close()
            self._tasks.discard(task)
            return

        async def requests() -> None:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, path, _ = lines[0].split(" ", 2)
                headers: dict[str, str] = {}
                for line in lines[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                assert "chunked" not in headers.get("transfer-encoding", ""), headers
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                self.seen.append(Seen(method, path, headers, body))
                up_writer.write(head + body)

        async def responses() -> None:
            while data := await up_reader.read(65536):
                writer.write(data)
                await writer.drain()

        try:
            await asyncio.gather(requests(), responses())
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        finally:
            writer.close()
            up_writer.close()
            self._tasks.discard(task)


# ---- our own server -------------------------------------------------------------------------------


def make_server(cancelled: list[str]) -> Server:
    """A server with a tool for each path a call over HTTP can take; ``cancelled`` collects
    the calls of ``slow`` that were cancelled."""
    server = Server("http-client-test", version="0.9.0")

    @server.tool
    async def echo(text: str) -> str:
        """Echo."""
        await asyncio.sleep(0)
        return text

    @server.tool
    async def slow(ms: int, ctx: Context) -> str:
        """Sleeps ``ms`` milliseconds (records a cancellation)."""
        try:
            await asyncio.sleep(ms / 1000)
        except asyncio.CancelledError:
            cancelled.append(f"slow {ms}")
            raise
        return f"slept {ms}"

    @server.tool
    async def steps(n: int, ctx: Context) -> str:
        """Progress n times and an info log."""
        for i in range(n):
            await ctx.report_progress(i + 1, total=n, message=f"step {i + 1}")
            await asyncio.sleep(0.01)
        await ctx.info(f"did {n} steps")
        return f"{n} steps"

    @server.tool
    async def ask(ctx: Context) -> str:
        """Samples, elicits, lists the roots."""
        sampled = await ctx.sample("What is the weather?", max_tokens=10)
        answer = await ctx.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        roots = await ctx.list_roots()
        name = (answer.content or {}).get("name")
        return f"{sampled['content']['text']} / {answer.action}:{name} / {[r['uri'] for r in roots]}"

    @server.resource("test://greeting")
    def greeting() -> str:
        return "hello"

    @server.prompt
    def topic(name: str) -> str:
        return f"Tell me about {name}"

    return server


@dataclass
class Ours:
    """Our server running over HTTP, and the calls of its ``slow`` tool that were cancelled."""

    http: Any
    cancelled: list[str]

    @property
    def url(self) -> str:
        return self.http.url

    @property
    def port(self) -> int:
        return self.http.port

    @property
    def session_count(self) -> int:
        return self.http.session_count


@asynccontextmanager
async def serving(**options: Any) -> AsyncIterator[Ours]:
    """``make_server(...).start_http`` on a free port, stopped at the end."""
    cancelled: list[str] = []
    http = await within(make_server(cancelled).start_http("127.0.0.1", 0, **options))
    try:
        yield Ours(http, cancelled)
    finally:
        await within(http.stop(), 20)


async def sampling_reply(params: Any) -> dict[str, Any]:
    asked = params["messages"][0]["content"]["text"]
    return {
        "role": "assistant",
        "content": {"type": "text", "text": f"sampled: {asked}"},
        "model": "test-model",
        "stopReason": "endTurn",
    }


# ---- server-everything --------------------------------------------------------------------------


def test_everything_handshake_tools_and_echo(everything: Peer) -> None:
    async def main() -> None:
        client = Client.http(everything.url("/mcp"), sampling_handler=sampling_reply)
        async with client:
            assert "everything" in client.server_info.name
            assert client.protocol_version == LATEST
            assert "tools" in client.server_capabilities
            await within(client.ping())
            names = {t.name for t in await within(client.list_tools())}
            # trigger-sampling-request is registered only for clients declaring sampling.
            assert {"echo", "get-sum", "trigger-long-running-operation", "trigger-sampling-request"} <= names
            r = await within(client.call_tool("echo", {"message": "over http"}))
            assert r.text == "Echo: over http" and r.is_error is False
            r = await within(client.call_tool("get-sum", {"a": 2, "b": 40}))
            assert "42" in r.text
        assert client.closed

    run(main())


def test_everything_long_running_operation_reports_progress(everything: Peer) -> None:
    async def main() -> None:
        got: list[tuple[float, float | None, str | None]] = []
        async with Client.http(everything.url("/mcp")) as client:
            r = await within(
                client.call_tool(
                    "trigger-long-running-operation",
                    {"duration": 0.6, "steps": 3},
                    progress_handler=lambda p, t, m: got.append((p, t, m)),
                )
            )
            assert "Long running operation completed" in r.text
            assert [(p, t) for p, t, _ in got] == [(1, 3), (2, 3), (3, 3)]

            # The client-wide progress_handler serves calls that do not pass their own.
            also: list[float] = []
        async with Client.http(everything.url("/mcp"), progress_handler=lambda p, t, m: also.append(p)) as client:
            await within(client.call_tool("trigger-long-running-operation", {"duration": 0.2, "steps": 2}))
            assert also == [1, 2]

    run(main())


def test_everything_sampling_request_is_answered_by_the_handler(everything: Peer) -> None:
    async def main() -> None:
        asked: list[Any] = []

        async def sampling(params: Any) -> dict[str, Any]:
            asked.append(params)
            return await sampling_reply(params)

        async with Client.http(everything.url("/mcp"), sampling_handler=sampling) as client:
            r = await within(client.call_tool("trigger-sampling-request", {"prompt": "ping?", "maxTokens": 10}))
            assert "LLM sampling result" in r.text, r.text
            assert "test-model" in r.text and "sampled: " in r.text and "ping?" in r.text
            assert len(asked) == 1
            assert asked[0]["maxTokens"] == 10
            assert "ping?" in asked[0]["messages"][0]["content"]["text"]

    run(main())


def test_everything_prompts_and_resources(everything: Peer) -> None:
    async def main() -> None:
        async with Client.http(everything.url("/mcp")) as client:
            prompts = {p.name: p for p in await within(client.list_prompts())}
            assert {"simple-prompt", "args-prompt"} <= set(prompts)
            simple = await within(client.get_prompt("simple-prompt"))
            assert simple.messages[0].role == "user" and simple.messages[0].content.text
            args = await within(client.get_prompt("args-prompt", {"city": "Paris", "state": "IDF"}))
            assert args.messages[0].content.text == "What's weather in Paris, IDF?"

            resources = await within(client.list_resources())
            assert len(resources) > 0
            first = resources[0]
            read = await within(client.read_resource(first.uri))
            assert read.contents[0].uri == first.uri and read.text

            templates = {t.uri_template for t in await within(client.list_resource_templates())}
            assert "demo://resource/dynamic/text/{resourceId}" in templates
            dynamic = await within(client.read_resource("demo://resource/dynamic/text/7"))
            assert dynamic.text.startswith("Resource 7:"), dynamic.text

            with pytest.raises(McpError):
                await within(client.get_prompt("no-such-prompt"))

    run(main())


# ---- the official Python SDK server ------------------------------------------------------------


def test_python_sdk_streamable_http(tmp_path: Path) -> None:
    async def main(p: Peer) -> None:
        people: list[Any] = []

        async def elicit(params: Any) -> dict[str, Any]:
            people.append(params)
            return {"action": "accept", "content": {"name": "Ada", "age": 36}}

        headers = {"Authorization": "Bearer sdk-token", "X-Custom-Header": "custom value"}
        async with Client.http(
            p.url("/mcp"), mode="legacy", headers=headers, transport="http", elicitation_handler=elicit
        ) as client:
            assert client.server_info.name == "py-http-test"
            assert client.protocol_version == LATEST
            assert (await within(client.call_tool("echo", {"text": "hi"}))).text == "echo: hi"

            # The custom headers reach the official server's handler, with the session's.
            seen = await within(client.call_tool("headers"))
            h = json.loads(seen.text)
            assert h["authorization"] == "Bearer sdk-token", h
            assert h["x-custom-header"] == "custom value", h
            assert h["mcp-protocol-version"] == LATEST, h
            assert h["mcp-session-id"], h

            progress: list[tuple[float, float | None, str | None]] = []
            r = await within(client.call_tool("progress", {"steps": 4}, progress_handler=lambda *a: progress.append(a)))
            assert r.text == "done after 4 steps"
            assert progress == [(i, 4, f"step {i}") for i in range(1, 5)]

            assert (await within(client.call_tool("ask"))).text == "hello Ada, 36"
            assert people[0]["message"] == "Who are you?"
            assert set(people[0]["requestedSchema"]["properties"]) == {"name", "age"}

            # The server closes the call's SSE stream midway: the client resumes it.
            resumed: list[float] = []
            r = await within(client.call_tool("resume", progress_handler=lambda p, t, m: resumed.append(p)))
            assert r.text == "answered after the stream was resumed"
            assert resumed == [1, 2]

    with py_sdk_server(tmp_path, "streamable") as p:
        run(main(p), 60)
        log = p.output()
    assert "DELETE /mcp" in log, log


def test_python_sdk_json_answers_and_the_get_stream(tmp_path: Path) -> None:
    async def main(p: Peer) -> None:
        messages = Messages()
        async with Client.http(p.url("/mcp"), mode="legacy", message_handler=messages) as client:
            assert (await within(client.call_tool("echo", {"text": "json"}))).text == "echo: json"
            # A notification unrelated to any call travels on the standalone GET stream.
            assert (await within(client.call_tool("announce"))).text == "announced"
            await until(lambda: "notifications/tools/list_changed" in messages.methods())

    with py_sdk_server(tmp_path, "json") as p:
        run(main(p))


def test_python_sdk_legacy_sse_forced_and_by_fallback(tmp_path: Path) -> None:
    async def main(p: Peer) -> None:
        async def elicit(params: Any) -> dict[str, Any]:
            return {"action": "accept", "content": {"name": "Bob", "age": 7}}

        async def walk(transport: str) -> None:
            async with Client.http(
                p.url("/sse"), mode="legacy", transport=transport, elicitation_handler=elicit
            ) as client:
                assert client.server_info.name == "py-http-test"
                r = await within(client.call_tool("echo", {"text": transport}))
                assert r.text == f"echo: {transport}"
                got: list[tuple[float, float | None, str | None]] = []
                r = await within(client.call_tool("progress", {"steps": 3}, progress_handler=lambda *a: got.append(a)))
                assert [p for p, _, _ in got] == [1, 2, 3]
                assert (await within(client.call_tool("ask"))).text == "hello Bob, 7"
                # Concurrent calls share the legacy stream.
                many = await within(asyncio.gather(*(client.call_tool("echo", {"text": str(i)}) for i in range(20))))
                assert [m.text for m in many] == [f"echo: {i}" for i in range(20)]

        await walk("sse")
        await walk("auto")  # the POST of initialize is refused (405): the fallback finds the stream

        # Streamable HTTP only: the refusal is reported, no fallback.
        with pytest.raises(McpError) as info:
            await within(Client.http(p.url("/sse"), mode="legacy", transport="http").connect())
        assert "405" in str(info.value) and p.url("/sse") in str(info.value), info.value

    with py_sdk_server(tmp_path, "sse") as p:
        run(main(p), 60)
        log = p.output()
    # auto: a POST of initialize to /sse refused, then the event stream.
    assert '"POST /sse HTTP/1.1" 405' in log, log
    assert log.count('"GET /sse HTTP/1.1" 200') >= 2, log


# ---- our own server -----------------------------------------------------------------------------


def test_headers_session_and_delete_on_the_wire() -> None:
    async def main() -> None:
        async with serving() as http:
            proxy = await Recorder(http.port).start()
            try:
                headers = {"Authorization": "Bearer our-token", "X-Trace": "abc-123"}
                client = Client.http(proxy.url(), mode="legacy", headers=headers)
                async with client:
                    assert client.server_info.name == "http-client-test"
                    assert client.server_info.version == "0.9.0"
                    assert (await within(client.call_tool("echo", {"text": "yo"}))).text == "yo"
                    assert http.session_count == 1
                    await until(lambda: "GET" in proxy.methods())
                await until(lambda: http.session_count == 0)
            finally:
                await proxy.close()
            seen = proxy.seen
            assert seen[0].method == "POST" and b'"initialize"' in seen[0].body
            assert "mcp-session-id" not in seen[0].headers
            sid = seen[1].headers["mcp-session-id"]
            assert len(sid) == 32
            for s in seen:
                assert s.headers["authorization"] == "Bearer our-token", s
                assert s.headers["x-trace"] == "abc-123", s
                assert s.headers["host"] == f"127.0.0.1:{proxy.port}", s
            for s in seen[1:]:
                assert s.headers["mcp-session-id"] == sid, s
                assert s.headers["mcp-protocol-version"] == LATEST, s
            for s in seen:
                if s.method == "POST":
                    assert s.headers["content-type"] == "application/json"
                    assert s.headers["accept"] == "application/json, text/event-stream"
            assert b"notifications/initialized" in seen[1].body
            gets = [s for s in seen if s.method == "GET"]
            assert gets and gets[0].headers["accept"] == "text/event-stream"
            assert seen[-1].method == "DELETE", [s.method for s in seen]

    run(main())


def test_close_without_the_get_stream_sends_delete() -> None:
    async def main() -> None:
        async with serving() as http:
            proxy = await Recorder(http.port).start()
            try:
                async with Client.http(proxy.url(), mode="legacy", open_get_stream=False) as client:
                    await within(client.call_tool("echo", {"text": "x"}))
                    assert http.session_count == 1
                assert http.session_count == 0
            finally:
                await proxy.close()
            assert proxy.methods() == ["POST", "POST", "POST", "DELETE"], proxy.methods()

    run(main())


def test_sampling_elicitation_and_roots_round_trips() -> None:
    async def main() -> None:
        asked: list[str] = []

        async def elicit(params: Any) -> dict[str, Any]:
            asked.append(params["message"])
            return {"action": "accept", "content": {"name": "Ada"}}

        async with serving() as http:
            async with Client.http(
                http.url, sampling_handler=sampling_reply, elicitation_handler=elicit, roots=["file:///work"]
            ) as client:
                r = await within(client.call_tool("ask"))
                assert r.text == "sampled: What is the weather? / accept:Ada / ['file:///work']", r.text
                assert asked == ["Your name?"]
                await within(client.set_roots(["file:///a", "file:///b"]))
                r = await within(client.call_tool("ask"))
                assert r.text.endswith("['file:///a', 'file:///b']"), r.text

            # A handler that fails: the server's request gets an error, the tool reports it.
            async def broken(params: Any) -> dict[str, Any]:
                raise RuntimeError("no model here")

            async with Client.http(http.url, sampling_handler=broken) as client:
                with pytest.raises(McpError, match="no model here"):
                    await within(client.call_tool("ask"))

    run(main())


def test_progress_logs_and_resources_over_http() -> None:
    async def main() -> None:
        logs = Logs()
        async with serving() as http:
            async with Client.http(http.url, logging_handler=logs) as client:
                await within(client.set_logging_level("info"))
                got: list[tuple[float, float | None, str | None]] = []
                r = await within(client.call_tool("steps", {"n": 3}, progress_handler=lambda *a: got.append(a)))
                assert r.text == "3 steps"
                assert got == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
                await until(lambda: logs.levels_and_data() == [("info", "did 3 steps")])
                assert (await within(client.read_resource("test://greeting"))).text == "hello"
                prompt = await within(client.get_prompt("topic", {"name": "tea"}))
                assert prompt.messages[0].content.text == "Tell me about tea"

    run(main())


def test_a_call_with_a_timeout_is_cancelled_and_the_session_goes_on() -> None:
    async def main() -> None:
        async with serving() as http:
            async with Client.http(http.url) as client:
                started = time.monotonic()
                with pytest.raises(RequestTimeout):
                    await within(client.call_tool("slow", {"ms": 5000}, timeout=0.2))
                assert time.monotonic() - started < 2
                # The server was told: its handler is cancelled.
                await until(lambda: http.cancelled == ["slow 5000"])
                assert (await within(client.call_tool("slow", {"ms": 10}, timeout=5))).text == "slept 10"
                # The caller giving up (wait_for) cancels too.
                with pytest.raises(asyncio.TimeoutError):
                    await asyncio.wait_for(client.call_tool("slow", {"ms": 4000}), 0.2)
                await until(lambda: http.cancelled == ["slow 5000", "slow 4000"])
                assert (await within(client.call_tool("echo", {"text": "still here"}))).text == "still here"

    run(main())


def test_five_hundred_concurrent_calls() -> None:
    async def main() -> None:
        async with serving() as http:
            async with Client.http(http.url) as client:
                for _ in range(2):
                    results = await within(
                        asyncio.gather(*(client.call_tool("echo", {"text": f"n{i}"}) for i in range(500))), 30
                    )
                    assert [r.text for r in results] == [f"n{i}" for i in range(500)]
                # Mixed with slower calls and progress.
                mixed = await within(
                    asyncio.gather(
                        *(client.call_tool("slow", {"ms": 50}) for _ in range(50)),
                        *(client.call_tool("steps", {"n": 2}) for _ in range(50)),
                    )
                )
                assert [r.text for r in mixed] == ["slept 50"] * 50 + ["2 steps"] * 50

    run(main(), 60)


# ---- failures -----------------------------------------------------------------------------------


def test_nothing_listening_fails_at_connect_naming_the_url() -> None:
    async def main() -> None:
        url = f"http://127.0.0.1:{free_port()}/mcp"
        started = time.monotonic()
        client = Client.http(url)
        with pytest.raises(ConnectionClosed) as info:
            await within(client.connect())
        assert url in str(info.value) and "refused" in str(info.value).lower(), info.value
        assert time.monotonic() - started < 2
        assert client.closed
        with pytest.raises(ConnectionClosed):
            await within(client.list_tools())
        # The same with async with, and for the legacy transport.
        with pytest.raises(ConnectionClosed) as info:
            async with Client.http(url, transport="sse"):
                pass
        assert url in str(info.value)

    run(main())


def test_https_and_bad_options_are_clear_errors() -> None:
    async def main() -> None:
        # https:// is spoken (core/tests/suite/http_tls.rs connects through TLS); ca_file reaches the
        # engine, which reads it before connecting.
        with pytest.raises(ConnectionClosed) as info:
            await within(Client.http("https://127.0.0.1:1/mcp", ca_file="/nonexistent/ca.pem").connect())
        assert "cannot read the CA file /nonexistent/ca.pem" in str(info.value), info.value
        assert "https://127.0.0.1:1/mcp" in str(info.value)
        with pytest.raises(ConnectionClosed) as info:
            await within(Client.http("ftp://example.com/").connect())
        assert "unsupported URL scheme" in str(info.value)
        with pytest.raises(ConnectionClosed) as info:
            await within(Client.http("http://127.0.0.1:1/mcp", headers={"Bad Header": "x"}).connect())
        assert "invalid HTTP header name" in str(info.value)
        with pytest.raises(ValueError, match="transport"):
            Client.http("http://127.0.0.1:1/mcp", transport="websocket")
        with pytest.raises(ValueError, match="connect_timeout"):
            Client.http("http://127.0.0.1:1/mcp", connect_timeout=-1)
        started = time.monotonic()
        with pytest.raises(ValueError, match="option"):
            await within(Client(_HttpConnection("http://127.0.0.1:1/mcp", None, {"bogus": 1})).connect())
        assert time.monotonic() - started < 1

    run(main())


@asynccontextmanager
async def refusing_server() -> AsyncIterator[str]:
    """An HTTP server answering every request with 401 and a bare Bearer challenge."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next(
                (int(h.split(b":")[1]) for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")), 0
            )
            await reader.readexactly(length)
            body = b'{"error":"invalid_token"}'
            writer.write(
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer\r\ncontent-type: application/json\r\n"
                b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(body), body)
            )
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        server.close()


def test_oauth_options_and_refusals_are_clear_errors() -> None:
    async def main() -> None:
        # The engine checks the auth options when the client is made.
        with pytest.raises(ValueError, match="loopback"):
            Client.http("http://127.0.0.1:1/mcp", auth=OAuth(redirect_uri="http://example.com/cb"))
        with pytest.raises(ValueError, match="client_credentials grant needs"):
            Client.http("http://127.0.0.1:1/mcp", auth=OAuth(grant="client_credentials"))
        with pytest.raises(ValueError, match="unknown"):
            Client.http("http://127.0.0.1:1/mcp", auth={"bogus": 1})
        assert "<set>" in repr(OAuth(client_id="c", client_secret="hush")) and "hush" not in repr(
            OAuth(client_secret="hush")
        )
        async with refusing_server() as url:
            # No auth: the refusal says what to do.
            with pytest.raises(Unauthorized) as info:
                await within(Client.http(url, mode="legacy").connect())
            assert "401" in str(info.value) and "auth" in str(info.value), info.value
            # With auth, a server that refuses even the authorization endpoint: the flow's
            # reason, not a hang (the headless handler cannot log a user in).
            auth = OAuth(authorize="headless", redirect_uri="http://127.0.0.1:9/cb")
            with pytest.raises(Unauthorized) as info:
                await within(Client.http(url, mode="legacy", auth=auth).connect())
            assert "authorization failed" in str(info.value) and "401" in str(info.value), info.value
            # The app's own handler gets the authorization URL and the redirect URI; its failure
            # is the reason the call fails with.
            seen: list[tuple[str, str]] = []

            async def refuse(url_: str, redirect_uri: str) -> str:
                seen.append((url_, redirect_uri))
                raise RuntimeError("the user closed the window")

            auth = OAuth(client_id="app", redirect_uri="http://127.0.0.1:9/cb", on_authorize=refuse)
            with pytest.raises(Unauthorized) as info:
                await within(Client.http(url, mode="legacy", auth=auth).connect())
            assert "on_authorize failed: RuntimeError: the user closed the window" in str(info.value), info.value
            assert len(seen) == 1 and seen[0][1] == "http://127.0.0.1:9/cb"
            assert "/authorize?" in seen[0][0] and "code_challenge_method=S256" in seen[0][0], seen

    run(main())


def test_connect_timeout_bounds_an_unanswered_connect() -> None:
    async def main() -> None:
        # A listener whose accept queue is full: the kernel drops further SYNs, so connecting
        # neither succeeds nor fails until connect_timeout.
        with socket.socket() as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(0)
            port = listener.getsockname()[1]
            fillers: list[socket.socket] = []
            try:
                for _ in range(8):
                    s = socket.socket()
                    fillers.append(s)
                    s.setblocking(False)
                    s.connect_ex(("127.0.0.1", port))
                await asyncio.sleep(0.1)
                url = f"http://127.0.0.1:{port}/mcp"
                started = time.monotonic()
                with pytest.raises(ConnectionClosed) as info:
                    await within(Client.http(url, connect_timeout=0.3).connect())
                assert time.monotonic() - started < 3
                assert url in str(info.value) and "timed out" in str(info.value), info.value
            finally:
                for s in fillers:
                    s.close()

    run(main())


def test_a_legacy_stream_that_closes_at_once_fails_connect() -> None:
    async def main() -> None:
        async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            # The event stream names its endpoint, then ends: the session is over at once.
            try:
                await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                writer.close()  # a pooled connection closed unused
                return
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n"
                b"event: endpoint\ndata: /messages\n\n"
            )
            await writer.drain()
            writer.close()

        canned = await asyncio.start_server(answer, "127.0.0.1", 0)
        port = canned.sockets[0].getsockname()[1]
        try:
            for _ in range(5):
                client = Client.http(f"http://127.0.0.1:{port}/sse", transport="sse")
                with pytest.raises(ConnectionClosed) as info:
                    await within(client.connect(), 5)
                assert "HTTP+SSE event stream" in str(info.value), info.value
                assert client.closed
        finally:
            canned.close()

    run(main())


SERVER_SCRIPT = """
import asyncio, sys
from hypermcp import Server
server = Server("doomed")

@server.tool
async def echo(text: str) -> str:
    return text

@server.tool
async def slow(ms: int) -> str:
    await asyncio.sleep(ms / 1000)
    return "slept"

server.run("http", port=int(sys.argv[1]), retry=0.2)
"""


def test_server_killed_mid_call_fails_pending_calls_as_closed(tmp_path: Path) -> None:
    script = tmp_path / "doomed.py"
    script.write_text(SERVER_SCRIPT)
    port = free_port()

    async def main(p: Peer) -> None:
        client = Client.http(p.url("/mcp"), mode="legacy")
        await within(client.connect())
        assert (await within(client.call_tool("echo", {"text": "alive"}))).text == "alive"
        pending = [asyncio.ensure_future(client.call_tool("slow", {"ms": 30_000})) for _ in range(3)]
        await asyncio.sleep(0.3)
        started = time.monotonic()
        p.proc.send_signal(signal.SIGKILL)
        for fut in pending:
            with pytest.raises(ConnectionClosed) as info:
                await within(fut)
            assert p.url("/mcp") in str(info.value) and "unreachable" in str(info.value), info.value
        assert time.monotonic() - started < 5
        await until(lambda: client.closed)
        with pytest.raises(ConnectionClosed) as info:
            await within(client.call_tool("echo", {"text": "anyone?"}))
        assert "refused" in str(info.value).lower(), info.value
        await within(client.close())

    with peer([sys.executable, str(script), str(port)], port, tmp_path) as p:
        run(main(p))


def test_server_stopped_ends_the_client_after_the_call_in_flight() -> None:
    async def main() -> None:
        http = await within(make_server([]).start_http("127.0.0.1", 0, retry=0.2))
        client = Client.http(http.url, mode="legacy")
        await within(client.connect())
        try:
            call = asyncio.ensure_future(client.call_tool("slow", {"ms": 300}))
            await asyncio.sleep(0.1)
            await within(http.stop(), 20)
            # A graceful stop lets the call in flight answer ...
            assert (await within(call)).text == "slept 300"
            # ... then the client learns nothing listens any more, and says so.
            await until(lambda: client.closed)
            with pytest.raises(ConnectionClosed) as info:
                await within(client.call_tool("echo", {"text": "x"}))
            assert http.url in str(info.value), info.value
        finally:
            await within(client.close())

    run(main())


def test_an_expired_session_is_a_clear_error() -> None:
    async def main() -> None:
        async with serving(session_idle_timeout=0.2) as http:
            # No GET stream: an open stream would keep the session busy (never idle).
            async with Client.http(http.url, mode="legacy", open_get_stream=False) as client:
                assert (await within(client.call_tool("echo", {"text": "a"}))).text == "a"
                await until(lambda: http.session_count == 0, 5)
                with pytest.raises(McpError) as info:
                    await within(client.call_tool("echo", {"text": "b"}))
                assert info.value.code == HTTP_TRANSPORT_ERROR
                assert "session expired" in str(info.value) and "404" in str(info.value), info.value
                # No new session behind the caller's back: the client is closed.
                await until(lambda: client.closed)
                with pytest.raises(ConnectionClosed):
                    await within(client.call_tool("echo", {"text": "c"}))
                assert http.session_count == 0

    run(main())


def test_close_is_idempotent_and_fails_pending_calls() -> None:
    async def main() -> None:
        async with serving() as http:
            client = Client.http(http.url)
            await within(client.connect())
            call = asyncio.ensure_future(client.call_tool("slow", {"ms": 5000}))
            await asyncio.sleep(0.1)
            started = time.monotonic()
            await within(client.close())
            await within(client.close())
            assert time.monotonic() - started < 3
            with pytest.raises(ConnectionClosed, match="the client closed the connection"):
                await within(call)
            await until(lambda: http.session_count == 0)

    run(main())
