"""The stdout guard of stdio servers: while a Python server runs over stdio, ``print()``,
writes to fd 1 and child processes' output go to stderr (one warning line the first time),
so user code cannot corrupt the protocol stream. Plain ``asyncio.run``: no plugin needed."""

from __future__ import annotations

import asyncio
import sys
import textwrap
from pathlib import Path

from hypermcp.client import Client

SERVER = textwrap.dedent(
    """
    import os, subprocess, sys
    from hypermcp import Server

    server = Server("printer")

    @server.tool()
    def chatty() -> str:
        print("print() from a handler")
        sys.stdout.write("sys.stdout.write from a handler\\n")
        os.write(1, b"os.write(1) from a handler\\n")
        subprocess.run([sys.executable, "-c", "print('a child process prints')"], check=True)
        return "printed"

    @server.tool()
    def echo(text: str) -> str:
        return text

    server.run()
    print("stdout is the process's own again", file=sys.stderr if sys.stdout is None else sys.stdout)
    """
)


def test_a_handler_that_prints_does_not_break_the_session(tmp_path: Path) -> None:
    script = tmp_path / "printer.py"
    script.write_text(SERVER)
    lines: list[str] = []

    async def main() -> None:
        async with Client.stdio(sys.executable, str(script), stderr_handler=lines.append) as client:
            for _ in range(2):
                result = await client.call_tool("chatty")
                assert result.text == "printed"
                assert (await client.call_tool("echo", {"text": "after"})).text == "after"

    asyncio.run(main())
    warnings = [line for line in lines if line.startswith("hypermcp: print()")]
    assert len(warnings) == 1, lines
    for what in ("print() from a handler", "sys.stdout.write from a handler", "os.write(1) from a handler"):
        assert lines.count(what) == 2, (what, lines)
    assert lines.count("a child process prints") == 2, lines


BIG = textwrap.dedent(
    """
    from hypermcp import Context, Server

    server = Server("big")

    @server.tool()
    def big() -> str:
        return "x" * (1 << 18)

    @server.tool()
    async def flood(ctx: Context) -> str:
        for i in range(500):
            await ctx.report_progress(i, 500, "p" * 65536)
        return "flooded"

    server.run()
    """
)


class _Server:
    """The BIG server on pipes, its stdout never read, with HYPERMCP_STDIO_BUFFER at 4 MiB."""

    def __init__(self, tmp_path: Path) -> None:
        import os
        import subprocess

        script = tmp_path / "big.py"
        script.write_text(BIG)
        env = dict(os.environ, HYPERMCP_STDIO_BUFFER=str(4 << 20))
        self.proc = subprocess.Popen(
            [sys.executable, str(script)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.send(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            },
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
        )

    def send(self, *msgs: object) -> None:
        import json

        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in msgs))
        self.proc.stdin.flush()

    def rss(self) -> int:
        try:
            for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        except OSError:
            pass
        return 0

    def close(self) -> str:
        self.proc.kill()
        self.proc.wait()
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode()


def test_a_client_that_stops_reading_stdout_gets_backpressure(tmp_path: Path) -> None:
    """Past half the limit the server stops reading requests: 40 calls for 256 KiB answers
    (2.5 times the limit), never read, leave it alive with its memory bounded. The calls are
    paced (25 ms), and a server slowed by a busy machine may find several in one read and start
    them all (started calls answer, whatever the backpressure; past the limit the session
    ends, as the next test shows): eight of them fit between half the limit and the limit."""
    import time

    server = _Server(tmp_path)
    try:
        time.sleep(0.5)
        base = server.rss()
        peak = 0
        for i in range(1, 41):
            server.send({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {"name": "big"}})
            time.sleep(0.025)
            peak = max(peak, server.rss())
        for _ in range(50):
            time.sleep(0.02)
            peak = max(peak, server.rss())
        assert server.proc.poll() is None, "the server waits for its client"
        assert peak - base < 40 << 20, f"the server's RSS grew by {(peak - base) / 1048576:.0f} MiB"
    finally:
        err = server.close()
    assert "ending the session" not in err, err


def test_a_handler_that_floods_a_client_that_does_not_read_ends_the_session(tmp_path: Path) -> None:
    """A handler that keeps writing (32 MiB of progress) to a client that does not read: the
    session ends, saying why, and the server exits; its memory stays bounded."""
    import time

    server = _Server(tmp_path)
    try:
        server.send(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "flood", "_meta": {"progressToken": 1}},
            }
        )
        peak = 0
        deadline = time.monotonic() + 30
        while server.proc.poll() is None and time.monotonic() < deadline:
            peak = max(peak, server.rss())
            time.sleep(0.02)
        assert server.proc.poll() is not None, "the server still holds the session"
        assert peak < 120 << 20, f"the server's RSS reached {peak / 1048576:.0f} MiB"
    finally:
        err = server.close()
    assert "the client has not read" in err and "ending the session" in err, err
