"""An in-process connection between a :class:`~hypermcp.Client` and a
:class:`~hypermcp.Server` (``Client(server)``): no pipes, no threads, the same native
sessions and handlers as over stdio. Used by tests and by apps that embed a server."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ._connection import ServerConnection
from .client import _ClientConnection

if TYPE_CHECKING:
    from .client import Client
    from .server import Server


class MemoryConnection(_ClientConnection):
    """Client bytes are fed to the server at once; server bytes reach the client on the
    next loop iteration (in order), so neither side re-enters the other."""

    network_transport = None

    def __init__(self, server: Server) -> None:
        self._server = server
        self._conn: ServerConnection | None = None
        self._client: Client | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._entered = False

    async def start(self, client: Client) -> None:
        self._client = client
        self._loop = asyncio.get_running_loop()
        await self._server._enter()
        self._entered = True
        self._conn = ServerConnection.over_stream(self._server, self._to_client)

    def _to_client(self, data: bytes) -> None:
        if self._loop is not None and self._client is not None:
            self._loop.call_soon(self._deliver, data)

    def _deliver(self, data: bytes) -> None:
        if self._client is not None and not self._closed:
            self._client._feed(data)

    def write(self, data: bytes) -> None:
        if self._conn is not None and not self._closed:
            self._conn.feed(data)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._conn is not None:
            self._conn.input_closed()
        if self._loop is not None and self._client is not None:
            self._loop.call_soon(self._client._eof)

    async def wait_closed(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.drain(10.0)
            conn.close()
        if self._entered:
            self._entered = False
            await self._server._exit()

    def failure_detail(self) -> str:
        return ""

    def __repr__(self) -> str:
        return f"MemoryConnection({self._server!r})"


def connect(server: Server, **options: Any) -> Client:
    """``Client(server)``."""
    from .client import Client

    return Client(MemoryConnection(server), **options)
