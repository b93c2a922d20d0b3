"""The built-in middleware from Python (FastMCP's names, run by the engine): the rate limit
(a client's bucket, a tool's own, sessions apart or one for all, the retry hint, buckets shared
by two servers through a real Redis, refusals that never reach Python), the timing histograms
and the request log line in ``logging``; bad options refused with the option named."""

from __future__ import annotations

import asyncio
import logging
import subprocess
from collections.abc import Callable
from typing import Any

import pytest

from _helpers import run, within
from hypermcp import Client, Middleware, MiddlewareContext, OptionError, RateLimited, Server, metrics_text
from hypermcp.middleware import LoggingMiddleware, RateLimitingMiddleware, TimingMiddleware
from test_http_server import start_redis


def tools(*middleware: Middleware) -> Server:
    server = Server("limited", middleware=list(middleware))

    @server.tool()
    def echo(text: str = "") -> str:
        return text or "ok"

    @server.tool()
    def search() -> str:
        return "found"

    return server


class Seen(Middleware):
    """Counts the calls that reach Python."""

    def __init__(self) -> None:
        self.calls = 0

    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
        self.calls += 1
        return await call_next(context)


@pytest.mark.parametrize("protocol_version", [None, "2025-11-25"], ids=["modern", "legacy"])
def test_a_bucket_refuses_past_its_burst_with_a_retry_hint(protocol_version: str | None) -> None:
    seen = Seen()
    # A call refused by the tool's bucket still spent one of the client's.
    limit = RateLimitingMiddleware(0.001, 3, tools={"search": (0.001, 1)})
    server = tools(limit, seen)

    async def main() -> None:
        async with Client(server, protocol_version=protocol_version) as client:
            await within(client.call_tool("search"))
            with pytest.raises(RateLimited) as refused:
                await within(client.call_tool("search"))
            assert "tool search" in str(refused.value)
            await within(client.call_tool("echo"))
            with pytest.raises(RateLimited) as refused:
                await within(client.call_tool("echo"))
            assert refused.value.code == -32029
            assert refused.value.retry_after is not None and 900 < refused.value.retry_after <= 1000
            # Lists are served from the catalogue, never limited.
            assert len(await within(client.list_tools())) == 2
        # Refused calls never reached Python.
        assert seen.calls == 2

    run(main())


def test_sessions_have_buckets_of_their_own_unless_the_limit_is_global() -> None:
    async def main() -> None:
        for global_limit in (False, True):
            server = tools(RateLimitingMiddleware(0.001, 1, global_limit=global_limit))
            async with await within(server.start_http("127.0.0.1", 0)) as http:
                url = f"http://127.0.0.1:{http.port}/mcp"
                async with Client.http(url, protocol_version="2025-11-25") as a:
                    async with Client.http(url, protocol_version="2025-11-25") as b:
                        await within(a.call_tool("echo"))
                        with pytest.raises(RateLimited):
                            await within(a.call_tool("echo"))
                        if global_limit:
                            with pytest.raises(RateLimited):
                                await within(b.call_tool("echo"))
                        else:
                            await within(b.call_tool("echo"))

    run(main())


def test_two_servers_share_buckets_through_redis() -> None:
    started = start_redis()
    if started is None:
        pytest.skip("redis-server is not installed (make peers installs it)")
    proc, port = started
    url = f"redis://127.0.0.1:{port}/0"

    async def main() -> None:
        one = tools(RateLimitingMiddleware(0.001, 3, store=url))
        two = tools(RateLimitingMiddleware(0.001, 3, store=url))
        async with await within(one.start_http("127.0.0.1", 0)) as a_http:
            async with await within(two.start_http("127.0.0.1", 0)) as b_http:
                # 2026-07-28: no session; the client is its address, the same at both.
                async with Client.http(f"http://127.0.0.1:{a_http.port}/mcp") as a:
                    async with Client.http(f"http://127.0.0.1:{b_http.port}/mcp") as b:
                        await within(a.call_tool("echo"))
                        await within(a.call_tool("echo"))
                        await within(b.call_tool("echo"))
                        with pytest.raises(RateLimited):
                            await within(b.call_tool("echo"))
                        with pytest.raises(RateLimited):
                            await within(a.call_tool("echo"))
        # Over stdio-like streams too (admitted on the engine's thread, then run).
        three = tools(RateLimitingMiddleware(0.001, 1, store=url, global_limit=True))
        async with Client(three) as c:
            await within(c.call_tool("echo"))
            with pytest.raises(RateLimited):
                await within(c.call_tool("echo"))

    try:
        run(main())
    finally:
        proc.kill()
        proc.wait()


def test_timing_fills_histograms_per_method_and_tool() -> None:
    server = Server("timed", middleware=[TimingMiddleware()])

    @server.tool()
    def timed_in_python() -> str:
        return "ok"

    async def main() -> None:
        async with Client(server) as client:
            for _ in range(3):
                await within(client.call_tool("timed_in_python"))
        text = metrics_text()
        assert 'hypermcp_tool_duration_seconds_count{tool="timed_in_python"} 3' in text, text
        assert 'hypermcp_tool_duration_seconds_bucket{tool="timed_in_python",le="+Inf"} 3' in text

    run(main())


def test_logging_says_one_line_a_request_in_logging(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="hypermcp.requests")
    server = tools(LoggingMiddleware(include_payloads=True, max_payload_length=40, methods=["tools/call"]))

    async def main() -> None:
        async with Client(server, name="audit-test", version="2.0") as client:
            await within(client.call_tool("echo", {"text": "hello"}))
            await within(client.list_tools())
            for _ in range(200):
                if any(r.name == "hypermcp.requests" for r in caplog.records):
                    break
                await asyncio.sleep(0.01)

    run(main())
    lines = [r for r in caplog.records if r.name == "hypermcp.requests"]
    assert len(lines) == 1, [r.getMessage() for r in lines]
    line = lines[0].getMessage()
    assert lines[0].levelno == logging.INFO
    for part in (
        'method="tools/call"',
        'name="echo"',
        'outcome="ok"',
        "duration_ms=",
        'client="audit-test/2.0"',
        "hello",
    ):
        assert part in line, line


def test_bad_options_are_refused_with_the_option_named() -> None:
    with pytest.raises(OptionError, match="maxRequestsPerSecond must be a number above 0"):
        RateLimitingMiddleware(0)
    with pytest.raises(OptionError, match="unsupported rate limit store"):
        RateLimitingMiddleware(1, store="mysql://db")
    with pytest.raises(OptionError, match="unknown log level"):
        LoggingMiddleware(log_level=5)


@pytest.mark.parametrize("protocol_version", [None, "2025-11-25"], ids=["modern", "legacy"])
def test_mask_error_details_hides_unexpected_exceptions_and_logs_them(
    protocol_version: str | None, caplog: pytest.LogCaptureFixture
) -> None:
    from hypermcp import McpError, ToolError, enable_logging

    enable_logging(logging.INFO)
    caplog.set_level(logging.ERROR, logger="hypermcp.errors")
    server = Server("masked", mask_error_details=True)

    @server.tool()
    def book() -> str:
        raise RuntimeError("db password is hunter2")

    @server.tool()
    def full() -> str:
        raise ToolError("no seats left")

    @server.tool()
    def refused() -> str:
        raise McpError(-32001, "not for you")

    @server.resource("data://secret")
    def secret() -> str:
        raise KeyError("internal key")

    async def main() -> None:
        async with Client(server, protocol_version=protocol_version) as client:
            r = await within(client.call_tool("book"))
            assert r.is_error and r.text == 'Error calling tool "book"', r
            r = await within(client.call_tool("full"))
            assert r.is_error and r.text == "no seats left"
            with pytest.raises(McpError) as e:
                await within(client.call_tool("refused"))
            assert e.value.code == -32001 and e.value.message == "not for you"
            with pytest.raises(McpError) as e:
                await within(client.read_resource("data://secret"))
            assert e.value.message == 'Error reading resource "data://secret"'
            for _ in range(200):
                if len([r for r in caplog.records if r.name == "hypermcp.errors"]) >= 2:
                    break
                await asyncio.sleep(0.01)

    try:
        run(main())
    finally:
        enable_logging(None)
    logged = [r.getMessage() for r in caplog.records if r.name == "hypermcp.errors"]
    assert any("hunter2" in m and "Traceback" in m and 'name="book"' in m for m in logged), logged
    assert any("internal key" in m for m in logged), logged


def test_without_masking_the_exception_text_reaches_the_client() -> None:
    server = Server("plain")

    @server.tool()
    def book() -> str:
        raise RuntimeError("db is down")

    async def main() -> None:
        async with Client(server) as client:
            r = await within(client.call_tool("book"))
            assert r.is_error and r.text == "db is down"

    run(main())


@pytest.mark.parametrize("protocol_version", [None, "2025-11-25"], ids=["modern", "legacy"])
def test_the_cache_answers_again_until_a_change_and_never_reaches_python(protocol_version: str | None) -> None:
    from hypermcp.middleware import ResponseCachingMiddleware

    calls: list[str] = []
    server = Server("cached", middleware=[ResponseCachingMiddleware(ttl=60, excluded_tools=["fresh"])])

    @server.tool()
    def count(a: int) -> str:
        calls.append("count")
        return str(len(calls))

    @server.tool()
    def fresh() -> str:
        calls.append("fresh")
        return "fresh"

    @server.resource("data://n")
    def n() -> str:
        calls.append("n")
        return str(len(calls))

    async def main() -> None:
        async with Client(server, protocol_version=protocol_version) as client:
            first = (await within(client.call_tool("count", {"a": 1}))).text
            assert (await within(client.call_tool("count", {"a": 1}))).text == first
            assert (await within(client.call_tool("count", {"a": 2}))).text != first
            await within(client.call_tool("fresh"))
            await within(client.call_tool("fresh"))
            assert calls.count("fresh") == 2 and calls.count("count") == 2
            # A change of the tool list forgets tool results.
            server.add_tool(lambda: "x", name="new")
            assert (await within(client.call_tool("count", {"a": 1}))).text != first
            r1 = await within(client.read_resource("data://n"))
            assert await within(client.read_resource("data://n")) == r1
            server.notify_resource_updated("data://n")
            assert await within(client.read_resource("data://n")) != r1

    run(main())


def test_two_servers_share_answers_through_redis() -> None:
    from hypermcp.middleware import ResponseCachingMiddleware

    started = start_redis()
    if started is None:
        pytest.skip("redis-server is not installed (make peers installs it)")
    proc, port = started
    url = f"redis://127.0.0.1:{port}/0"

    def redis(*command: str) -> str:
        return subprocess.run(["redis-cli", "-p", str(port), "--raw", *command], capture_output=True, text=True).stdout

    async def held(what: str, until: Callable[[], bool]) -> None:
        # The servers write in the background: wait until Redis has it.
        for _ in range(1000):
            if until():
                return
            await asyncio.sleep(0.002)
        raise AssertionError(f"Redis never held {what}")

    def replica(name: str) -> Server:
        server = Server("cached", middleware=[ResponseCachingMiddleware(ttl=60, store=url)])

        @server.tool()
        def who(q: int) -> str:
            return name

        return server

    async def main() -> None:
        one, two = replica("one"), replica("two")
        async with await within(one.start_http("127.0.0.1", 0)) as a_http, Client(two) as b:
            async with Client.http(a_http.url) as a:
                # Each server's tool, defined after the cache, moved the generation on once.
                await held("the servers' start", lambda: redis("GET", "hypermcp:rcg:t").strip() == "2")
                assert (await within(a.call_tool("who", {"q": 1}))).text == "one"
                await held("A's answer", lambda: bool(redis("KEYS", "hypermcp:rc:*").strip()))
                assert (await within(b.call_tool("who", {"q": 1}))).text == "one", "answered from Redis"
                one.add_tool(lambda: "x", name="new")
                await held("the next generation", lambda: redis("GET", "hypermcp:rcg:t").strip() == "3")
                assert (await within(b.call_tool("who", {"q": 1}))).text == "two", "forgotten for both"

    try:
        run(main())
    finally:
        proc.kill()
        proc.wait()


def test_the_cache_forgets_after_its_ttl() -> None:
    from hypermcp.middleware import ResponseCachingMiddleware

    calls: list[int] = []
    server = Server("ttl", middleware=[ResponseCachingMiddleware(ttl=0.05)])

    @server.tool()
    def count() -> str:
        calls.append(1)
        return str(len(calls))

    async def main() -> None:
        async with Client(server) as client:
            await within(client.call_tool("count"))
            await within(client.call_tool("count"))
            assert len(calls) == 1
            await asyncio.sleep(0.08)
            await within(client.call_tool("count"))
            assert len(calls) == 2

    run(main())
