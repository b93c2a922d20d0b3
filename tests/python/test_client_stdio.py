"""The hypermcp Python client over stdio: against the Rust echo server, a scripted stdlib
server (pagination, server requests, crashes, a server that will not die) and, when
installed, ``@modelcontextprotocol/server-everything``.

Plain ``asyncio.run`` in each test: no pytest plugin needed.

Environment: ``HYPERMCP_ECHO_SERVER`` points at the echo server binary (default:
``target/release/examples/echo_server``, built by ``cargo build --release -p hypermcp
--example echo_server``); ``HYPERMCP_REQUIRE_PEERS=1`` turns a missing server-everything (or
node) into a failure instead of a skip.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import sys
import textwrap
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from hypermcp.client import Client, Page, Record, ToolResult, _ClientConnection, prompt_ref
from hypermcp.errors import (
    ConnectionClosed,
    InvalidParams,
    McpError,
    MethodNotFound,
    RequestTimeout,
    ToolError,
)

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / ".peers/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


def echo_server() -> str:
    path = Path(
        os.environ.get("HYPERMCP_ECHO_SERVER")
        or Path(os.environ.get("HYPERMCP_BUILD") or ROOT / "target/release") / "examples/echo_server"
    )
    if not path.is_file():
        pytest.fail(
            f"the Rust echo server is missing at {path}: build it with "
            "`cargo build --release -p hypermcp-examples --example echo_server` or set HYPERMCP_ECHO_SERVER"
        )
    return str(path)


def everything() -> list[str]:
    node = shutil.which("node")
    if node is None or not EVERYTHING.is_file():
        why = "node is not installed" if node is None else f"server-everything is missing at {EVERYTHING}"
        if os.environ.get("HYPERMCP_REQUIRE_PEERS") == "1":
            pytest.fail(f"{why} (run tests/interop/setup_peers.sh)")
        pytest.skip(f"{why} (run tests/interop/setup_peers.sh; HYPERMCP_REQUIRE_PEERS=1 makes this fail)")
    return [node, str(EVERYTHING), "stdio"]


def alive(pid: int) -> bool:
    """Whether ``pid`` exists at all (a zombie counts: it was never reaped)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# A stdlib-only MCP server driven line by line, for what the real servers cannot show.
SCRIPTED = textwrap.dedent(
    r"""
    import json, os, signal, sys, time

    mode = sys.argv[1] if len(sys.argv) > 1 else "normal"
    if mode == "stubborn":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    sys.stderr.write("scripted server starting\n")
    sys.stderr.flush()
    TOOLS = [{"name": f"t{i}", "inputSchema": {"type": "object"}} for i in range(8)]
    cancelled = []
    asked = 0

    def send(msg):
        msg["jsonrpc"] = "2.0"
        sys.stdout.write(json.dumps(msg) + "\n")
        sys.stdout.flush()

    def text(id, value, is_error=False):
        out = {"content": [{"type": "text", "text": value}]}
        if is_error:
            out["isError"] = True
        send({"id": id, "result": out})

    def read():
        line = sys.stdin.readline()
        return json.loads(line) if line else None

    while True:
        msg = read()
        if msg is None:
            if mode == "stubborn":
                time.sleep(60)
            break
        method, id, params = msg.get("method"), msg.get("id"), msg.get("params") or {}
        if method == "initialize":
            send({"id": id, "result": {
                "protocolVersion": params["protocolVersion"],
                "capabilities": {"tools": {}, "logging": {}, "resources": {"subscribe": True}},
                "serverInfo": {"name": "scripted", "version": "1.2.3"},
                "instructions": "Scripted for tests.",
                "_meta": {"client": params["clientInfo"], "caps": params["capabilities"]},
            }})
        elif method == "notifications/cancelled":
            cancelled.append([params.get("requestId"), params.get("reason")])
        elif method in ("ping", "logging/setLevel"):
            send({"id": id, "result": {}})
        elif method == "tools/list":
            start = int(params.get("cursor") or 0)
            page = {"tools": TOOLS[start:start + 3]}
            if start + 3 < len(TOOLS):
                page["nextCursor"] = str(start + 3)
            send({"id": id, "result": page})
        elif method == "resources/subscribe":
            send({"id": id, "result": {}})
            send({"method": "notifications/resources/updated", "params": {"uri": params["uri"]}})
        elif method == "tools/call":
            name, args = params["name"], params.get("arguments") or {}
            token = (params.get("_meta") or {}).get("progressToken")
            if name == "hang":
                pass
            elif name == "exit":
                sys.stderr.write("fatal: the scripted server crashed\n")
                sys.stderr.flush()
                os._exit(3)
            elif name == "cancelled":
                text(id, json.dumps(cancelled))
            elif name == "fail":
                text(id, "it broke", is_error=True)
            elif name == "bad":
                send({"id": id, "error": {"code": -32602, "message": "bad arguments", "data": {"x": 1}}})
            elif name == "notify":
                send({"method": "notifications/message",
                      "params": {"level": "warning", "logger": "scripted", "data": args}})
                send({"method": "notifications/tools/list_changed"})
                text(id, "ok")
            elif name == "progress":
                for i in range(1, 4):
                    if token is not None:
                        send({"method": "notifications/progress",
                              "params": {"progressToken": token, "progress": i, "total": 3, "message": f"step {i}"}})
                send({"id": id, "result": {"content": [], "structuredContent": {"steps": 3}}})
            elif name == "ask":
                # Sends args["method"] to the client and answers with the client's reply.
                asked += 1
                rid = f"s{asked}"
                request = {"id": rid, "method": args["method"]}
                if args.get("params") is not None:
                    request["params"] = args["params"]
                send(request)
                if args.get("cancel"):
                    time.sleep(0.2)
                    why = "changed my mind"
                    send({"method": "notifications/cancelled", "params": {"requestId": rid, "reason": why}})
                    text(id, "cancelled it")
                    continue
                while True:
                    reply = read()
                    if reply is None:
                        sys.exit(0)
                    if reply.get("id") == rid and "method" not in reply:
                        reply.pop("jsonrpc", None)
                        reply.pop("id", None)
                        text(id, json.dumps(reply))
                        break
            else:
                send({"id": id, "error": {"code": -32602, "message": f"unknown tool {name}"}})
        elif id is not None:
            send({"id": id, "error": {"code": -32601, "message": f"no method {method}"}})
    """
)


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    path = tmp_path_factory.mktemp("scripted") / "scripted_server.py"
    path.write_text(SCRIPTED)
    return [sys.executable, str(path)]


# ---- records -----------------------------------------------------------------------------------


def test_record_attribute_access() -> None:
    r = Record(
        {
            "structuredContent": {"a": [{"innerValue": 1}]},
            "isError": False,
            "_meta": {"k": "v"},
            "plain": 2,
        }
    )
    assert r.structured_content.a[0].inner_value == 1
    assert isinstance(r.structured_content, Record)
    assert isinstance(r.structured_content.a[0], Record)
    assert r.is_error is False
    assert r.meta == {"k": "v"}
    assert r.plain == 2
    with pytest.raises(AttributeError):
        _ = r.missing
    assert r.get_field("missing", 7) == 7
    assert r == {"structuredContent": {"a": [{"innerValue": 1}]}, "isError": False, "_meta": {"k": "v"}, "plain": 2}
    assert json.loads(json.dumps(r)) == r
    r.structured_content.a[0]["innerValue"] = 5  # changes through records stay in the tree
    assert r["structuredContent"]["a"][0]["innerValue"] == 5
    with pytest.raises(AttributeError):
        r.new = 1  # pyright: ignore[reportAttributeAccessIssue]


def test_tool_result_helpers() -> None:
    res = ToolResult(
        {"content": [{"type": "text", "text": "a"}, {"type": "image", "data": ""}, {"type": "text", "text": "b"}]}
    )
    assert res.text == "a\nb"
    assert res.is_error is False
    assert res.structured_content is None
    assert ToolResult({}).content == []
    page = Page([1, 2], "next")
    assert page == [1, 2] and page.next_cursor == "next"


# ---- the Rust echo server ----------------------------------------------------------------------


def test_echo_server_tools() -> None:
    async def main() -> None:
        async with Client.stdio(echo_server()) as client:
            assert client.server_info.name == "hypermcp-echo"
            # Our servers speak both eras: an auto client speaks 2026-07-28 with them.
            assert client.protocol_version == "2026-07-28" and client.modern
            assert "tools" in client.server_capabilities
            assert client.state == "operating"
            await client.ping()
            tools = await client.list_tools()
            assert [t.name for t in tools] == ["echo"]
            assert tools.next_cursor is None
            assert tools[0].input_schema["required"] == ["text"]
            result = await client.call_tool("echo", {"text": "héllo"})
            assert isinstance(result, ToolResult)
            assert result.text == "héllo"
            assert result.is_error is False
            assert result == {"content": [{"type": "text", "text": "héllo"}]}
            assert json.loads(json.dumps(result)) == result
            many = await asyncio.gather(*(client.call_tool("echo", {"text": str(i)}) for i in range(300)))
            assert [r.text for r in many] == [str(i) for i in range(300)]
            with pytest.raises(MethodNotFound):
                await client.list_prompts()  # the server has no prompts capability
            with pytest.raises(McpError):
                await client.call_tool("no-such-tool", {})

    run(main())


def test_echo_server_close_leaves_no_child() -> None:
    async def main() -> int:
        client = Client.stdio(echo_server())
        await client.connect()
        pid = client.connection.pid  # pyright: ignore[reportAttributeAccessIssue]
        assert isinstance(pid, int) and alive(pid)
        await client.close()
        assert client.closed
        await client.close()  # idempotent
        with pytest.raises(ConnectionClosed):
            await client.ping()
        return pid

    pid = run(main())
    assert not alive(pid)


def test_wait_for_cancels_the_request() -> None:
    async def main() -> None:
        async with Client.stdio(echo_server()) as client:
            # The answer cannot arrive within 0 s: wait_for cancels, the client tells the server.
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(client.call_tool("echo", {"text": "x"}), 0)
            assert (await client.call_tool("echo", {"text": "after"})).text == "after"

    run(main())


# ---- the scripted server -----------------------------------------------------------------------


def test_pagination_walk(scripted: list[str]) -> None:
    async def main() -> None:
        async with Client.stdio(*scripted) as client:
            assert client.instructions == "Scripted for tests."
            assert client.server_info.version == "1.2.3"
            everything = await client.list_tools()
            assert [t.name for t in everything] == [f"t{i}" for i in range(8)]
            assert everything.next_cursor is None
            page = await client.list_tools(cursor="3")
            assert [t.name for t in page] == ["t3", "t4", "t5"]
            assert page.next_cursor == "6"
            last = await client.list_tools(cursor=page.next_cursor)
            assert [t.name for t in last] == ["t6", "t7"] and last.next_cursor is None

    run(main())


def test_declared_capabilities_follow_handlers(scripted: list[str]) -> None:
    async def main() -> None:
        async with Client.stdio(*scripted, name="tester", version="9") as client:
            meta = client._server["_meta"]  # pyright: ignore[reportPrivateUsage]
            assert meta["client"] == {"name": "tester", "version": "9"}
            assert meta["caps"] == {}
        async with Client.stdio(
            *scripted,
            sampling_handler=lambda p: {},
            elicitation_handler=lambda p: {},
            elicitation_url=True,
            roots=["file:///a"],
        ) as client:
            caps = client._server["_meta"]["caps"]  # pyright: ignore[reportPrivateUsage]
            assert caps == {
                "sampling": {"tools": {}},
                "elicitation": {"form": {}, "url": {}},
                "roots": {"listChanged": True},
            }

    run(main())


def test_tool_errors(scripted: list[str]) -> None:
    async def main() -> None:
        async with Client.stdio(*scripted) as client:
            failed = await client.call_tool("fail")
            assert failed.is_error and failed.text == "it broke"
            with pytest.raises(ToolError, match="it broke") as info:
                await client.call_tool("fail", raise_on_error=True)
            assert info.value.result == failed  # pyright: ignore[reportAttributeAccessIssue]
            with pytest.raises(InvalidParams) as bad:
                await client.call_tool("bad")
            assert bad.value.code == -32602 and bad.value.data == {"x": 1}
            with pytest.raises(MethodNotFound):
                await client.get_prompt("p")  # no prompts capability: refused before sending

    run(main())


def test_timeout_cancels_with_the_server(scripted: list[str]) -> None:
    async def main() -> None:
        async with Client.stdio(*scripted, timeout=5) as client:
            start = time.monotonic()
            with pytest.raises(RequestTimeout):
                await client.call_tool("hang", timeout=0.2)
            assert time.monotonic() - start < 2
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(client.call_tool("hang"), 0.2)
            cancelled = json.loads((await client.call_tool("cancelled")).text)
            reasons = [reason for _, reason in cancelled]
            assert reasons == ["request timed out", "cancelled by the client"]
        # A default timeout for every call.
        async with Client.stdio(*scripted, timeout=0.2) as client:
            with pytest.raises(RequestTimeout):
                await client.call_tool("hang")

    run(main())


def test_notifications_and_progress(scripted: list[str]) -> None:
    logs: list[Any] = []
    messages: list[tuple[str, Any]] = []
    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append((p, total, message))

    async def main() -> None:
        async with Client.stdio(
            *scripted,
            logging_handler=logs.append,
            message_handler=lambda method, params: messages.append((method, params)),
        ) as client:
            await client.set_logging_level("debug")
            assert (await client.call_tool("notify", {"n": 1})).text == "ok"
            result = await client.call_tool("progress", progress_handler=on_progress)
            assert result.structured_content == {"steps": 3}
            await client.subscribe_resource("file:///x")
            await asyncio.sleep(0.05)

    run(main())
    assert logs == [{"level": "warning", "logger": "scripted", "data": {"n": 1}}]
    assert logs[0].level == "warning"
    assert messages == [
        ("notifications/tools/list_changed", None),
        ("notifications/resources/updated", {"uri": "file:///x"}),
    ]
    assert progress == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


def test_server_requests(scripted: list[str], tmp_path: Path) -> None:
    seen: list[Any] = []
    cancelled: list[bool] = []

    async def sampling(params: Record) -> dict[str, Any]:
        seen.append(params)
        if params.get_field("system_prompt") == "explode":
            raise ValueError("no model here")
        if params.get_field("system_prompt") == "refuse":
            raise McpError(-1, "user refused", {"why": "test"})
        if params.get_field("system_prompt") == "wait":
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                cancelled.append(True)
                raise
        return {"role": "assistant", "content": {"type": "text", "text": "sampled"}, "model": "m"}

    def elicit(params: Record) -> dict[str, Any]:
        return {"action": "accept", "content": {"name": params.message}}

    async def ask(client: Client, method: str, params: Any = None, **kw: Any) -> Any:
        res = await client.call_tool("ask", {"method": method, "params": params, **kw})
        return json.loads(res.text) if res.text.startswith("{") else res.text

    async def main() -> None:
        async with Client.stdio(
            *scripted,
            sampling_handler=sampling,
            elicitation_handler=elicit,
            roots=["file:///work", tmp_path, {"uri": "file:///named", "name": "named"}],
        ) as client:
            msg = {"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5}
            got = await ask(client, "sampling/createMessage", msg)
            assert got["result"]["content"]["text"] == "sampled"
            assert seen[0].messages[0].content.text == "hi"
            got = await ask(client, "sampling/createMessage", {**msg, "systemPrompt": "explode"})
            assert got["error"] == {"code": -32603, "message": "no model here"}
            got = await ask(client, "sampling/createMessage", {**msg, "systemPrompt": "refuse"})
            assert got["error"] == {"code": -1, "message": "user refused", "data": {"why": "test"}}
            assert await ask(client, "sampling/createMessage", {**msg, "systemPrompt": "wait"}, cancel=True) == (
                "cancelled it"
            )
            for _ in range(50):
                if cancelled:
                    break
                await asyncio.sleep(0.02)
            assert cancelled == [True]
            got = await ask(
                client,
                "elicitation/create",
                {"message": "who?", "requestedSchema": {"type": "object", "properties": {}}},
            )
            assert got["result"] == {"action": "accept", "content": {"name": "who?"}}
            got = await ask(client, "roots/list")
            assert got["result"]["roots"] == [
                {"uri": "file:///work"},
                {"uri": tmp_path.resolve().as_uri(), "name": tmp_path.name},
                {"uri": "file:///named", "name": "named"},
            ]
            await client.set_roots(lambda: ["file:///changed"])
            got = await ask(client, "roots/list")
            assert got["result"]["roots"] == [{"uri": "file:///changed"}]

        # Without handlers the requests are refused.
        async with Client.stdio(*scripted) as client:
            got = await ask(client, "roots/list")
            assert got["error"]["code"] == -32601
            with pytest.raises(McpError):
                await client.send_roots_list_changed()

    run(main())


def test_server_exits_mid_call(scripted: list[str]) -> None:
    lines: list[str] = []

    async def main() -> None:
        async with Client.stdio(*scripted, stderr_handler=lines.append) as client:
            with pytest.raises(ConnectionClosed) as info:
                await client.call_tool("exit")
            message = str(info.value)
            assert "exited with code 3" in message
            assert "fatal: the scripted server crashed" in message
            assert "fatal: the scripted server crashed" in client.server_stderr
            assert client.closed
            with pytest.raises(ConnectionClosed, match="exited with code 3"):
                await client.ping()

    run(main())
    assert lines == ["scripted server starting", "fatal: the scripted server crashed"]


def test_server_that_dies_before_the_handshake(tmp_path: Path) -> None:
    script = tmp_path / "dies.py"
    script.write_text("import sys\nsys.stderr.write('no config file\\n')\nsys.exit(2)\n")

    async def main() -> None:
        with pytest.raises(ConnectionClosed, match="no config file"):
            async with Client.stdio(sys.executable, str(script)):
                pass

    run(main())


def test_close_kills_a_stubborn_server(scripted: list[str]) -> None:
    async def main() -> tuple[int, float]:
        client = Client.stdio(*scripted, "stubborn")
        await client.connect()
        pid = client.connection.pid  # pyright: ignore[reportAttributeAccessIssue]
        start = time.monotonic()
        await client.close()  # EOF ignored, SIGTERM ignored: SIGKILL after 2 + 2 s
        return pid, time.monotonic() - start

    pid, took = run(main())
    assert not alive(pid)
    assert 3.5 < took < 8


def test_connection_interface() -> None:
    """A custom in-memory connection that answers synchronously from inside write()."""

    class Loopback(_ClientConnection):
        def __init__(self) -> None:
            self.client: Client | None = None
            self.closed = False
            self.sent: list[dict[str, Any]] = []

        async def start(self, client: Client) -> None:
            self.client = client

        def write(self, data: bytes) -> None:
            assert self.client is not None
            for line in data.splitlines():
                msg = json.loads(line)
                self.sent.append(msg)
                if msg.get("method") == "initialize":
                    result: Any = {
                        "protocolVersion": msg["params"]["protocolVersion"],
                        "capabilities": {"tools": {}},
                        "serverInfo": {"name": "loop", "version": "0"},
                    }
                elif msg.get("method") == "tools/call":
                    result = {"content": [{"type": "text", "text": msg["params"]["arguments"]["text"]}]}
                else:
                    continue
                self.client._feed(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}).encode() + b"\n")

        def close(self) -> None:
            self.closed = True

    async def main() -> Loopback:
        conn = Loopback()
        async with Client(conn, mode="legacy") as client:
            assert client.server_info.name == "loop"
            assert (await client.call_tool("echo", {"text": "mem"})).text == "mem"
            results = await asyncio.gather(*(client.call_tool("echo", {"text": str(i)}) for i in range(10)))
            assert [r.text for r in results] == [str(i) for i in range(10)]
        return conn

    conn = run(main())
    assert conn.closed
    assert [m.get("method") for m in conn.sent[:2]] == ["initialize", "notifications/initialized"]

    class ServerLike:
        def _client_connection(self) -> _ClientConnection:
            return Loopback()

    async def from_object() -> None:
        async with Client(ServerLike()) as client:
            assert client.server_info.name == "loop"

    run(from_object())
    with pytest.raises(TypeError):
        Client(object())


# ---- @modelcontextprotocol/server-everything ------------------------------------------------


def test_everything_server() -> None:
    argv = everything()
    progress: list[tuple[float, float | None]] = []
    logs: list[Any] = []

    def sampling(params: Record) -> dict[str, Any]:
        return {"role": "assistant", "content": {"type": "text", "text": "a sampled answer"}, "model": "test-model"}

    def elicitation(params: Record) -> dict[str, Any]:
        return {"action": "decline"}

    async def main() -> None:
        async with Client.stdio(
            *argv,
            sampling_handler=sampling,
            elicitation_handler=elicitation,
            roots=["file:///everything-root"],
            logging_handler=logs.append,
        ) as client:
            names = {t.name for t in await client.list_tools()}
            assert {"echo", "get-sum", "trigger-long-running-operation", "trigger-sampling-request"} <= names
            assert (await client.call_tool("echo", {"message": "hi there"})).text == "Echo: hi there"
            assert (await client.call_tool("get-sum", {"a": 2, "b": 3})).text == "The sum of 2 and 3 is 5."

            structured = await client.call_tool("get-structured-content", {"location": "New York"})
            assert structured.structured_content is not None and "temperature" in structured.structured_content

            resources = await client.list_resources()
            assert resources, "server-everything lists static resources"
            read = await client.read_resource(resources[0].uri)
            assert read.contents[0].uri == resources[0].uri
            templates = await client.list_resource_templates()
            assert any("{" in t.uri_template for t in templates)
            dynamic = await client.read_resource("demo://resource/dynamic/text/1")
            assert "Resource 1" in dynamic.text

            prompts = {p.name for p in await client.list_prompts()}
            assert "simple-prompt" in prompts
            prompt = await client.get_prompt("simple-prompt")
            assert prompt.messages[0].content.text == "This is a simple prompt without arguments."
            args_prompt = await client.get_prompt("args-prompt", {"city": "Paris"})
            assert "Paris" in args_prompt.messages[0].content.text

            done = await client.call_tool(
                "trigger-long-running-operation",
                {"duration": 0.4, "steps": 4},
                progress_handler=lambda p, total, message: progress.append((p, total)),
            )
            assert "completed" in done.text
            assert progress == [(1, 4), (2, 4), (3, 4), (4, 4)]

            with pytest.raises(RequestTimeout):
                await client.call_tool("trigger-long-running-operation", {"duration": 5, "steps": 5}, timeout=0.3)
            # Progress every 0.25 s keeps a 0.6 s timeout alive.
            slow = await client.call_tool(
                "trigger-long-running-operation",
                {"duration": 1.5, "steps": 6},
                timeout=0.6,
                progress_handler=lambda p, total, message: None,
                reset_timeout_on_progress=True,
            )
            assert "completed" in slow.text

            completion = await client.complete(prompt_ref("completable-prompt"), "department", "E")
            assert "Engineering" in completion.completion.values

            sampled = await client.call_tool("trigger-sampling-request", {"prompt": "hello", "maxTokens": 5})
            assert "a sampled answer" in sampled.text
            declined = await client.call_tool("trigger-elicitation-request", {})
            assert "decline" in declined.text.lower()
            roots = await client.call_tool("get-roots-list", {})
            assert "file:///everything-root" in roots.text

            await client.set_logging_level("debug")
            await client.ping()

    run(main())
    assert any("Roots updated" in str(entry.get("data")) for entry in logs)


def test_everything_server_close() -> None:
    argv = everything()

    async def main() -> int:
        async with Client.stdio(*argv) as client:
            pid: int = client.connection.pid  # pyright: ignore[reportAttributeAccessIssue]
            await client.ping()
        return pid

    pid = run(main())
    assert not alive(pid)
