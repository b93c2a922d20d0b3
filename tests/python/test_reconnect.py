"""Clients that survive their server (Python): the reconnect policy over stdio (the child is
spawned again) and HTTP (a new session after the server restarts on its port), calls in flight
failing clearly and calls made meanwhile waiting or failing fast, giving up after the tries,
keep-alive pings finding a frozen (SIGSTOP) server, ``close(grace=...)`` and ``supports()``.

The servers are real processes (a hypermcp Python server over stdio or HTTP), killed, frozen
and restarted under the client as an operator or a crash would."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from _helpers import free_port, run, until, within
from hypermcp import Client, Server
from hypermcp.errors import ConnectionClosed, McpError, OptionError

SERVER = """
import asyncio, os, sys
from hypermcp import Server

server = Server("phoenix")

@server.tool()
def pid() -> str:
    return str(os.getpid())

@server.tool()
async def slow(seconds: float) -> str:
    await asyncio.sleep(seconds)
    return "done"

if len(sys.argv) > 1:
    server.run("http", port=int(sys.argv[1]))
else:
    server.run()
"""

FAST = {"initial_delay": 0.05, "max_delay": 0.3, "max_attempts": 100}


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "server.py"
    path.write_text(SERVER)
    return path


class HttpServer:
    """The server script over HTTP on one port, started, killed and started again."""

    def __init__(self, script: Path) -> None:
        self.script = script
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def start(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(self.script), str(self.port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
        )
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                    pytest.fail(f"the server did not start: {err}")
                time.sleep(0.05)

    def kill(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGCONT)
        self.proc.kill()
        self.proc.wait(10)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, sig)


@pytest.fixture
def http_server(script: Path) -> Iterator[HttpServer]:
    server = HttpServer(script)
    server.start()
    try:
        yield server
    finally:
        if server.proc is not None and server.proc.poll() is None:
            server.kill()


async def settled(client: Client) -> None:
    """Lets a legacy session open fully (its standalone GET stream, which tells the client
    at once when the server goes away; a client with nothing open learns it on its next
    request)."""
    await client.ping()
    await asyncio.sleep(0.3)


class Events:
    """A ``connection_handler``: records each step."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []

    def __call__(self, event: str, info: Any) -> None:
        self.seen.append((event, info))

    def names(self) -> list[str]:
        return [e for e, _ in self.seen]


def test_a_stdio_client_spawns_its_server_again(script: Path) -> None:
    events = Events()

    async def main() -> None:
        async with Client.stdio(
            sys.executable, str(script), reconnect=FAST, connection_handler=events, timeout=20
        ) as client:
            first = int((await client.call_tool("pid")).text)
            in_flight = asyncio.ensure_future(client.call_tool("slow", {"seconds": 30}))
            await asyncio.sleep(0.2)
            os.kill(first, signal.SIGKILL)
            # The call in flight fails, saying why; the next one waits for the new server.
            with pytest.raises(ConnectionClosed, match=r"(?s)SIGKILL.*reconnecting"):
                await within(in_flight)
            second = int((await within(client.call_tool("pid"))).text)
            assert second != first
            assert not client.reconnecting and not client.closed
            assert (await client.call_tool("slow", {"seconds": 0})).text == "done"

    run(main())
    assert events.names() == ["disconnected", "reconnecting", "reconnected"]
    assert "SIGKILL" in events.seen[0][1]["reason"]
    assert events.seen[1][1]["attempt"] == 1 and events.seen[1][1]["delay"] <= 0.05
    assert events.seen[2][1]["attempt"] == 1


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_an_http_client_carries_on_after_its_server_restarts(http_server: HttpServer, mode: str) -> None:
    events = Events()

    async def main() -> None:
        async with Client.http(
            http_server.url, mode=mode, reconnect=FAST, connection_handler=events, timeout=20
        ) as client:
            assert client.modern == (mode == "auto")
            first = int((await client.call_tool("pid")).text)
            await settled(client)
            http_server.kill()
            if mode == "legacy":
                # The session's GET stream breaks: the client notices at once, and keeps trying.
                await until(lambda: "reconnecting" in events.names())
            else:
                # Stateless: nothing is open between calls; the next call finds no server.
                with pytest.raises(ConnectionClosed):
                    await within(client.call_tool("pid"))
            await asyncio.sleep(0.3)  # a few tries fail while nothing listens
            http_server.start()
            second = int((await within(client.call_tool("pid"))).text)
            assert second != first
            assert (await client.call_tool("slow", {"seconds": 0})).text == "done"

    run(main())
    names = events.names()
    assert names[0] == "disconnected" and names[-1] == "reconnected", names
    assert names.count("reconnecting") >= 2, names  # tries failed while the server was down


def test_a_legacy_http_client_starts_a_new_session_after_a_404(http_server: HttpServer) -> None:
    """A server restarted between two calls forgets the session: its 404 starts a new one."""
    events = Events()

    async def main() -> None:
        async with Client.http(
            http_server.url,
            mode="legacy",
            open_get_stream=False,
            reconnect=FAST,
            connection_handler=events,
            timeout=20,
        ) as client:
            first = int((await client.call_tool("pid")).text)
            http_server.kill()
            http_server.start()
            with pytest.raises(McpError, match="expired"):
                await within(client.call_tool("pid"))
            second = int((await within(client.call_tool("pid"))).text)
            assert second != first

    run(main())
    assert events.names() == ["disconnected", "reconnecting", "reconnected"]
    assert "404" in events.seen[0][1]["reason"]


def test_the_client_gives_up_after_its_tries(http_server: HttpServer) -> None:
    events = Events()

    async def main() -> None:
        policy = {"initial_delay": 0.02, "max_attempts": 3}
        client = await Client.http(
            http_server.url, mode="legacy", reconnect=policy, connection_handler=events
        ).connect()
        await settled(client)
        http_server.kill()
        await until(lambda: client.closed)
        with pytest.raises(ConnectionClosed, match="3 tries to reconnect failed"):
            await client.call_tool("pid")
        await client.close()

    run(main())
    assert events.names() == ["disconnected", "reconnecting", "reconnecting", "reconnecting", "failed"]
    assert events.seen[-1][1]["attempts"] == 3


def test_calls_fail_fast_while_reconnecting_when_the_policy_says_so(http_server: HttpServer) -> None:
    events = Events()

    async def main() -> None:
        policy = {"initial_delay": 5, "wait": False}
        async with Client.http(http_server.url, mode="legacy", reconnect=policy, connection_handler=events) as client:
            await settled(client)
            http_server.kill()
            await until(lambda: client.reconnecting)
            started = time.monotonic()
            with pytest.raises(ConnectionClosed, match="reconnecting"):
                await client.call_tool("pid")
            assert time.monotonic() - started < 1

    run(main())


def test_a_call_waiting_for_the_reconnection_times_out(http_server: HttpServer) -> None:
    async def main() -> None:
        async with Client.http(http_server.url, mode="legacy", reconnect={"initial_delay": 5}) as client:
            await settled(client)
            http_server.kill()
            await until(lambda: client.reconnecting)
            with pytest.raises(TimeoutError, match="still reconnecting"):
                await client.call_tool("pid", timeout=0.3)

    run(main())


def test_pings_find_a_frozen_http_server(http_server: HttpServer) -> None:
    async def main() -> None:
        client = await Client.http(http_server.url, mode="legacy", ping_interval=0.3).connect()
        await client.ping()
        http_server.signal(signal.SIGSTOP)
        try:
            in_flight = asyncio.ensure_future(client.call_tool("pid"))
            with pytest.raises(ConnectionClosed, match="did not answer a ping within 300 ms"):
                await within(in_flight, 5)
            assert client.closed
        finally:
            http_server.signal(signal.SIGCONT)
            await client.close()

    run(main())


def test_pings_find_a_frozen_stdio_server_and_a_new_one_is_spawned(script: Path) -> None:
    events = Events()

    async def main() -> None:
        async with Client.stdio(
            sys.executable,
            str(script),
            mode="legacy",
            ping_interval=0.3,
            reconnect=FAST,
            connection_handler=events,
            timeout=30,
        ) as client:
            first = int((await client.call_tool("pid")).text)
            os.kill(first, signal.SIGSTOP)
            try:
                await until(lambda: "disconnected" in events.names(), 5)
                second = int((await within(client.call_tool("pid"), 20)).text)
                assert second != first
            finally:
                try:
                    os.kill(first, signal.SIGCONT)
                except ProcessLookupError:
                    pass

    run(main(), 60)
    assert "did not answer a ping" in events.seen[0][1]["reason"]
    assert events.names()[-1] == "reconnected"


def test_close_with_grace_lets_calls_in_flight_finish() -> None:
    server = Server("graceful")

    @server.tool()
    async def slow(seconds: float) -> str:
        await asyncio.sleep(seconds)
        return "done"

    async def main() -> None:
        async with Client(server) as client:
            call = asyncio.ensure_future(client.call_tool("slow", {"seconds": 0.3}))
            await asyncio.sleep(0.05)
            closing = asyncio.ensure_future(client.close(grace=5))
            await asyncio.sleep(0.05)
            with pytest.raises(ConnectionClosed, match="closing"):
                await client.call_tool("slow", {"seconds": 0})
            assert (await within(call)).text == "done"
            await within(closing)
            assert client.closed

        async with Client(server) as client:
            call = asyncio.ensure_future(client.call_tool("slow", {"seconds": 5}))
            await asyncio.sleep(0.05)
            # Past the grace period the call fails (the in-memory server's own shutdown then
            # waits for its handler).
            closing = asyncio.ensure_future(client.close(grace=0.2))
            with pytest.raises(ConnectionClosed):
                await within(call, 1.5)
            await within(closing)

    run(main())


def test_supports_reads_the_servers_capabilities() -> None:
    server = Server("capable", extensions={"io.example/lights": {}})

    @server.tool()
    def echo(text: str) -> str:
        return text

    @server.resource("note://a")
    def note() -> str:
        return "a"

    async def main() -> None:
        for mode in ("legacy", "modern"):
            async with Client(server, mode=mode) as client:
                assert client.supports("tools")
                assert client.supports("resources")
                assert client.supports("tools.list_changed") == client.supports("tools.listChanged")
                assert not client.supports("prompts")
                assert not client.supports("no.such.thing")
                assert not client.supports("")
                assert client.supports("io.example/lights")
                assert not client.supports("io.example/none")

    run(main())


def test_bad_policies_and_intervals_are_refused() -> None:
    with pytest.raises(OptionError, match="unknown reconnect option `tries`"):
        Client.stdio("true", reconnect={"tries": 3})
    with pytest.raises(OptionError, match="jitter"):
        Client.stdio("true", reconnect={"jitter": 2})
    with pytest.raises(OptionError, match="ping_interval"):
        Client.stdio("true", ping_interval=0)
