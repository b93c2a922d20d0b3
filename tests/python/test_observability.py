"""What an operator sees (Python): the engine's log in the ``logging`` module
(``hypermcp.enable_logging``) or on stderr (``HYPERMCP_LOG``), its counters
(``hypermcp.metrics()``) and the Prometheus text an HTTP server serves at ``metrics_path``.
The servers are real processes; the client is killed under and comes back."""

from __future__ import annotations

import asyncio
import http.client
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import hypermcp
from _helpers import free_port, run, until, within
from hypermcp import Client

SERVER = """
import os, sys
from hypermcp import Server

server = Server("observed")

@server.tool()
def pid() -> str:
    return str(os.getpid())

if len(sys.argv) > 1:
    server.run("http", port=int(sys.argv[1]), metrics_path="/metrics", max_body=1024)
else:
    server.run()
"""


class Captured(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)

    def lines(self, logger: str) -> list[str]:
        return [f"{r.levelname} {r.getMessage()}" for r in self.records if r.name == logger]


def test_the_engine_log_reaches_logging_and_the_counters_count(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    captured = Captured()
    root = logging.getLogger("hypermcp")
    root.addHandler(captured)
    root.setLevel(logging.DEBUG)
    hypermcp.enable_logging(logging.INFO)
    before = hypermcp.metrics()

    async def main() -> None:
        policy = {"initial_delay": 0.05, "max_attempts": 50}
        async with Client.stdio(sys.executable, str(script), reconnect=policy, timeout=20) as client:
            first = int((await client.call_tool("pid")).text)
            os.kill(first, signal.SIGKILL)
            await until(lambda: any("again" in line for line in captured.lines("hypermcp.client")), 15)
            assert int((await within(client.call_tool("pid"))).text) != first

    try:
        run(main())
        lines = captured.lines("hypermcp.client")
        assert any(line.startswith("WARNING the server went away") and "SIGKILL" in line for line in lines), lines
        assert any(line.startswith("INFO reconnecting to the server") for line in lines), lines
        assert any(line.startswith("INFO connected to the server again") for line in lines), lines
        after = hypermcp.metrics()
        assert after["client_lost"] >= before["client_lost"] + 1
        assert after["client_reconnects"] >= before["client_reconnects"] + 1
        assert "client_reconnects_total" in hypermcp.metrics_text()
        # Off: nothing more arrives.
        hypermcp.enable_logging(None)
        count = len(captured.records)
        hypermcp.enable_logging(None)
        assert len(captured.records) == count
    finally:
        hypermcp.enable_logging(None)
        root.removeHandler(captured)
    with pytest.raises(ValueError, match="unknown log level"):
        hypermcp.enable_logging("LOUD")


def request(port: int, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request(method, path, body, headers or {})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def test_an_http_server_logs_to_stderr_and_serves_its_counters(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    port = free_port()
    env = {**os.environ, "HYPERMCP_LOG": "info"}
    proc = subprocess.Popen(
        [sys.executable, str(script), str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None and time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
        json_headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        init = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
        status, headers, _ = request(port, "POST", "/mcp", json.dumps(init).encode(), json_headers)
        assert status == 200
        sid = {k.lower(): v for k, v in headers.items()}["mcp-session-id"]
        big = json.dumps({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"x": "y" * 4000}}).encode()
        status, _, _ = request(port, "POST", "/mcp", big, {**json_headers, "Mcp-Session-Id": sid})
        assert status == 413
        status, headers, body = request(port, "GET", "/metrics")
        assert status == 200
        text = body.decode()
        assert "hypermcp_sessions_opened_total 1" in text, text
        assert 'hypermcp_http_refused_total{status="413"} 1' in text, text
        status, _, _ = request(port, "DELETE", "/mcp", None, {"Mcp-Session-Id": sid})
        assert status == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    log = err.decode()
    assert "INFO hypermcp::http: session opened" in log, log
    assert "request refused status=413" in log, log
    assert f'session closed session={sid} reason="deleted by the client"' in log, log


def test_enable_logging_takes_levels_by_number_or_name() -> None:
    captured = Captured()
    root = logging.getLogger("hypermcp")
    root.addHandler(captured)
    root.setLevel(logging.DEBUG)
    try:
        hypermcp.enable_logging("WARNING")

        async def main() -> None:
            # A client whose server is not there: nothing at WARNING from a failed connect.
            with pytest.raises(hypermcp.ConnectionClosed):
                await Client.http(f"http://127.0.0.1:{free_port()}/mcp").connect()

        run(main())
        asyncio.run(asyncio.sleep(0.1))
        assert all(r.levelno >= logging.WARNING for r in captured.records), captured.records
    finally:
        hypermcp.enable_logging(None)
        root.removeHandler(captured)
