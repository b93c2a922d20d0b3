"""Serving a :class:`~hypermcp.Server` over HTTP.

The engine's HTTP service runs on one native I/O thread (sessions, SSE streams,
resumption, limits, DNS-rebinding checks). Calls reach this loop in batches: the I/O thread
queues them and writes one byte to a socket the loop watches, so everything ready at one
moment costs one wake-up. Each HTTP session gets a :class:`ServerConnection` whose native
session completes straight into the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from . import _core
from ._connection import ServerConnection

if TYPE_CHECKING:
    from .server import Server

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

#: HttpOptions fields accepted as keyword arguments (durations in seconds).
OPTION_NAMES = frozenset(
    {
        "path",
        "stateless",
        "json_response",
        "allowed_hosts",
        "allowed_origins",
        "max_body",
        "session_idle_timeout",
        "max_sessions",
        "keep_alive",
        "retry",
        "json_wait",
        "legacy_sse",
        "sse_path",
        "messages_path",
    }
)


def _options(options: dict[str, Any]) -> dict[str, Any]:
    unknown = set(options) - OPTION_NAMES
    if unknown:
        raise TypeError(f"unknown HTTP option(s): {', '.join(sorted(unknown))} (known: {', '.join(sorted(OPTION_NAMES))})")
    return {k: (list(v) if k in ("allowed_hosts", "allowed_origins") else v) for k, v in options.items() if v is not None}


def _discard(_data: bytes) -> None:
    """HTTP sessions write to their streams natively; nothing goes through here."""


class HttpHost:
    """The native HTTP service of a server, bound to the running loop."""

    def __init__(self, server: Server, options: dict[str, Any]) -> None:
        self.server = server
        self.native = _core.HttpServer(server._native_config(), server._registry, _options(options))
        self.loop = asyncio.get_running_loop()
        self._conns: dict[int, ServerConnection] = {}
        self._responses: dict[int, asyncio.Queue[tuple[Any, ...]]] = {}
        self._stopped: asyncio.Future[None] = self.loop.create_future()
        self._fd = self.native.fileno()
        self.loop.add_reader(self._fd, self._wake)

    def _wake(self) -> None:
        for item in self.native.poll():
            kind = item[0]
            if kind == "events":
                conn = self._conns.get(item[1])
                if conn is None:
                    conn = ServerConnection(self.server, _discard, session=item[2])
                    self._conns[item[1]] = conn
                conn.dispatch(item[3])
            elif kind == "closed":
                conn = self._conns.pop(item[1], None)
                if conn is not None:
                    conn.close()
            elif kind == "stopped":
                if not self._stopped.done():
                    self._stopped.set_result(None)
            else:  # head / chunk / end of a response served for ASGI
                q = self._responses.get(item[1])
                if q is not None:
                    q.put_nowait(item)

    async def stop(self) -> None:
        """Stops listening; calls in progress finish (10 s at most); sessions close."""
        if self.native.stop():
            await self._stopped
        self.close()

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.loop.remove_reader(self._fd)
        for conn in list(self._conns.values()):
            conn.close()
        self._conns.clear()

    # ---- ASGI -----------------------------------------------------------------------------

    async def serve_asgi(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = bytearray()
        while True:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return
            body += msg.get("body", b"")
            if not msg.get("more_body", False):
                break
        target = self._target(scope)
        headers = [(bytes(k), bytes(v)) for k, v in scope.get("headers", ())]
        rid = self.native.handle(scope["method"], target, headers, bytes(body))
        q: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self._responses[rid] = q
        finished = False

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        watcher = asyncio.ensure_future(watch())
        try:
            while True:
                getter = asyncio.ensure_future(q.get())
                done, _ = await asyncio.wait({getter, watcher}, return_when=asyncio.FIRST_COMPLETED)
                if getter not in done:
                    getter.cancel()
                    return  # the client went away
                item = getter.result()
                if item[0] == "head":
                    await send({"type": "http.response.start", "status": item[2], "headers": item[3]})
                elif item[0] == "chunk":
                    await send({"type": "http.response.body", "body": item[2], "more_body": True})
                else:
                    finished = True
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    return
        finally:
            watcher.cancel()
            self._responses.pop(rid, None)
            if not finished:
                self.native.cancel(rid)

    def _target(self, scope: Scope) -> str:
        path: str = scope.get("path", "/")
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        if path in ("", "/"):
            path = self.mount_path
        query: bytes = scope.get("query_string", b"")
        return path + ("?" + query.decode("latin-1") if query else "")

    mount_path = "/mcp"


class HttpServer:
    """A running HTTP server (from :meth:`Server.start_http`)."""

    def __init__(self, host: HttpHost, address: tuple[str, int], path: str) -> None:
        self._host = host
        #: The address it listens on.
        self.host, self.port = address
        #: The Streamable HTTP endpoint's path.
        self.path = path

    @property
    def url(self) -> str:
        """The Streamable HTTP endpoint, e.g. ``http://127.0.0.1:8000/mcp``."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{self.path}"

    @property
    def session_count(self) -> int:
        """Open sessions."""
        return self._host.native.session_count

    async def stop(self) -> None:
        """Stops listening and lets calls in progress finish (10 s at most)."""
        try:
            await self._host.stop()
        finally:
            await self._host.server._exit()

    async def __aenter__(self) -> HttpServer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


async def start(server: Server, host: str, port: int, options: dict[str, Any]) -> HttpServer:
    await server._enter()
    try:
        h = HttpHost(server, options)
        address = h.native.listen(host, port)
    except BaseException:
        await server._exit()
        raise
    return HttpServer(h, address, options.get("path") or "/mcp")


async def run(server: Server, host: str, port: int, options: dict[str, Any], announce: str) -> None:
    """Serves until SIGINT or SIGTERM, then shuts down gracefully."""
    http = await start(server, host, port, options)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    installed = []
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
            installed.append(sig)
    url = http.url
    if announce == "sse":
        url = url[: -len(http.path)] + (options.get("sse_path") or "/sse")
    print(f"hypermcp: {server.name} serving on {url}", file=sys.stderr, flush=True)
    try:
        await stop.wait()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        await http.stop()


class AsgiApp:
    """An ASGI application serving a :class:`Server` (``server.asgi_app()``)."""

    def __init__(self, server: Server, options: dict[str, Any]) -> None:
        self.server = server
        self.options = _options(options)
        self._host: HttpHost | None = None
        self._entered = False

    def _ensure(self) -> HttpHost:
        if self._host is None or self._host.loop is not asyncio.get_running_loop():
            self._host = HttpHost(self.server, self.options)
            self._host.mount_path = self.options.get("path") or "/mcp"
        return self._host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "http":
            await self._ensure().serve_asgi(scope, receive, send)
        # websocket and others are not MCP transports: the server closes them.
        elif kind == "websocket":
            await send({"type": "websocket.close", "code": 1003})

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            msg = await receive()
            if msg["type"] == "lifespan.startup":
                try:
                    await self.startup()
                except Exception as exc:  # noqa: BLE001 - reported to the ASGI server
                    await send({"type": "lifespan.startup.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.startup.complete"})
            elif msg["type"] == "lifespan.shutdown":
                await self.shutdown()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def startup(self) -> None:
        """Runs the server's lifespan (call it from a host app's own lifespan when mounted)."""
        if not self._entered:
            self._entered = True
            await self.server._enter()
        self._ensure()

    async def shutdown(self) -> None:
        """Closes every session and ends the server's lifespan."""
        if self._host is not None:
            self._host.close()
            self._host = None
        if self._entered:
            self._entered = False
            await self.server._exit()
