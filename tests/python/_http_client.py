"""A small raw HTTP/1.1 client on ``asyncio.open_connection`` for the HTTP server tests:
keep-alive connections, Content-Length and chunked bodies, SSE streams read event by event,
and an MCP session over Streamable HTTP (initialize, then requests and notifications).

Standard library only. Every read is bounded (``LIMIT`` seconds) so a hang fails the test.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

#: Seconds any single read may take.
LIMIT = 10.0

ACCEPT_BOTH = "application/json, text/event-stream"
LATEST = "2025-11-25"


@dataclass
class SseEvent:
    """One SSE event: ``data`` joined, ``id`` / ``event`` / ``retry`` when given."""

    data: str
    id: str | None = None
    event: str | None = None
    retry: int | None = None

    def json(self) -> Any:
        return json.loads(self.data)


class Response:
    """Status, headers (lower-case names) and a body: read whole with :meth:`read`, or
    event by event with :meth:`events` when it is an SSE stream."""

    def __init__(self, conn: Conn, status: int, headers: dict[str, str]) -> None:
        self.conn = conn
        self.status = status
        self.headers = headers
        self.body = b""
        self._buffer = b""
        self._done = False
        self._replayed = False

    @property
    def content_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip()

    @property
    def is_sse(self) -> bool:
        return self.content_type == "text/event-stream"

    def json(self) -> Any:
        return json.loads(self.body)

    async def _chunk(self) -> bytes | None:
        """The next piece of the body, None at its end."""
        if self._done:
            return None
        reader = self.conn.reader
        if "content-length" in self.headers:
            self._done = True
            n = int(self.headers["content-length"])
            return await asyncio.wait_for(reader.readexactly(n), LIMIT) if n else None
        if self.headers.get("transfer-encoding", "").lower() == "chunked":
            size_line = await asyncio.wait_for(reader.readline(), LIMIT)
            if not size_line:
                raise ConnectionError("connection closed inside a chunked body")
            size = int(size_line.split(b";")[0].strip(), 16)
            if size == 0:
                await asyncio.wait_for(reader.readline(), LIMIT)  # the CRLF ending the trailers
                self._done = True
                return None
            data = await asyncio.wait_for(reader.readexactly(size + 2), LIMIT)
            return data[:-2]
        # Neither: the body ends with the connection.
        data = await asyncio.wait_for(reader.read(65536), LIMIT)
        if not data:
            self._done = True
            return None
        return data

    async def read(self) -> bytes:
        """The rest of the body."""
        parts = [self._buffer]
        self._buffer = b""
        while (chunk := await self._chunk()) is not None:
            parts.append(chunk)
        self.body += b"".join(parts)
        return self.body

    async def events(self) -> AsyncIterator[SseEvent]:
        """The SSE events of the body as they arrive (comments skipped); after
        :meth:`read`, those of the body read."""
        if self._done and self.body and not self._replayed:
            self._replayed = True
            self._buffer = self.body.replace(b"\r\n", b"\n")
        while True:
            while b"\n\n" not in self._buffer:
                chunk = await self._chunk()
                if chunk is None:
                    return
                self._buffer += chunk.replace(b"\r\n", b"\n")
            raw, self._buffer = self._buffer.split(b"\n\n", 1)
            ev = SseEvent(data="")
            data: list[str] = []
            has_field = False
            for line in raw.decode().split("\n"):
                if not line or line.startswith(":"):
                    continue
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                has_field = True
                if name == "data":
                    data.append(value)
                elif name == "id":
                    ev.id = value
                elif name == "event":
                    ev.event = value
                elif name == "retry":
                    ev.retry = int(value)
            if has_field:
                ev.data = "\n".join(data)
                yield ev

    async def messages(self) -> list[Any]:
        """Every JSON-RPC message of the response: the JSON body (an array is a batch) or
        the data of each SSE event that has some."""
        if self.is_sse:
            return [ev.json() async for ev in self.events() if ev.data]
        await self.read()
        if not self.body:
            return []
        body = self.json()
        return body if isinstance(body, list) else [body]


class Conn:
    """One keep-alive HTTP/1.1 connection to 127.0.0.1."""

    def __init__(self, port: int, host_header: str | None = None) -> None:
        self.port = port
        self.host_header = host_header or f"127.0.0.1:{port}"
        self.reader: asyncio.StreamReader
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> Conn:
        self.reader, self.writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", self.port), LIMIT)
        return self

    async def request(
        self,
        method: str,
        target: str,
        headers: dict[str, str] | None = None,
        body: bytes | str | dict[str, Any] | list[Any] = b"",
        *,
        read: bool | None = None,
    ) -> Response:
        """Sends one request and reads the head of its response. The body is read whole
        unless it is an SSE stream (``read`` overrides)."""
        if self.writer is None:
            await self.open()
        assert self.writer is not None
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        lines = [f"{method} {target} HTTP/1.1", f"Host: {self.host_header}"]
        given = {k.lower() for k in headers or {}}
        if "host" in given:
            lines = lines[:1]
        for k, v in (headers or {}).items():
            lines.append(f"{k}: {v}")
        if "content-length" not in given and (body or method in ("POST", "PUT")):
            lines.append(f"Content-Length: {len(body)}")
        self.writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
        await self.writer.drain()
        status_line = await asyncio.wait_for(self.reader.readline(), LIMIT)
        if not status_line:
            raise ConnectionError("the server closed the connection")
        status = int(status_line.split()[1])
        resp_headers: dict[str, str] = {}
        while True:
            line = await asyncio.wait_for(self.reader.readline(), LIMIT)
            if line in (b"\r\n", b"\n", b""):
                break
            k, _, v = line.decode("latin-1").partition(":")
            resp_headers[k.strip().lower()] = v.strip()
        resp = Response(self, status, resp_headers)
        if read if read is not None else not resp.is_sse:
            await resp.read()
        return resp

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
            self.writer = None

    async def __aenter__(self) -> Conn:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        self.close()


async def request(
    port: int, method: str, target: str, headers: dict[str, str] | None = None, body: Any = b""
) -> Response:
    """One request on a fresh connection; the body is read whole (even an SSE stream)."""
    conn = await Conn(port).open()
    try:
        return await conn.request(method, target, headers, body, read=True)
    finally:
        conn.close()


def post_headers(session_id: str | None = None, version: str | None = None, **extra: str) -> dict[str, str]:
    h = {"Content-Type": "application/json", "Accept": ACCEPT_BOTH}
    if session_id:
        h["Mcp-Session-Id"] = session_id
    if version:
        h["MCP-Protocol-Version"] = version
    h.update(extra)
    return h


def init_message(version: str = LATEST, capabilities: dict[str, Any] | None = None, rid: int = 0) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": capabilities or {},
            "clientInfo": {"name": "raw-http-test", "version": "1.0"},
        },
    }


class McpSession:
    """An MCP session over raw Streamable HTTP requests."""

    def __init__(self, port: int, path: str = "/mcp") -> None:
        self.port = port
        self.path = path
        self.session_id: str | None = None
        self.version: str | None = None
        self.init_result: dict[str, Any] = {}
        self._ids = itertools.count(1)

    async def initialize(self, version: str = LATEST, capabilities: dict[str, Any] | None = None) -> McpSession:
        resp = await request(self.port, "POST", self.path, post_headers(), init_message(version, capabilities))
        assert resp.status == 200, (resp.status, resp.body)
        msgs = await resp.messages()
        self.init_result = msgs[-1]["result"]
        self.session_id = resp.headers["mcp-session-id"]
        self.version = self.init_result["protocolVersion"]
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        resp = await request(self.port, "POST", self.path, self.headers(), note)
        assert resp.status == 202, (resp.status, resp.body)
        return self

    def headers(self, **extra: str) -> dict[str, str]:
        return post_headers(self.session_id, self.version, **extra)

    def next_id(self) -> int:
        return next(self._ids)

    async def post(self, message: Any, conn: Conn | None = None) -> Response:
        """POSTs ``message``; the response's head is read (and its body unless SSE)."""
        if conn is None:
            conn = await Conn(self.port).open()
        return await conn.request("POST", self.path, self.headers(), message)

    async def call(self, method: str, params: dict[str, Any] | None = None, conn: Conn | None = None) -> dict[str, Any]:
        """Sends a request and returns its JSON-RPC answer (``result`` or ``error``)."""
        rid = self.next_id()
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            msg["params"] = params
        own = conn is None
        conn = conn or await Conn(self.port).open()
        try:
            resp = await conn.request("POST", self.path, self.headers(), msg)
            assert resp.status == 200, (resp.status, resp.body)
            answers = [m for m in await resp.messages() if m.get("id") == rid and "method" not in m]
            assert len(answers) == 1, answers
            return answers[0]
        finally:
            if own:
                conn.close()

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, conn: Conn | None = None) -> Any:
        return await self.call("tools/call", {"name": name, "arguments": arguments or {}}, conn)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> Response:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        return await request(self.port, "POST", self.path, self.headers(), msg)

    async def delete(self) -> Response:
        return await request(self.port, "DELETE", self.path, self.headers())
