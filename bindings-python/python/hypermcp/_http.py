"""Serving a :class:`~hypermcp.Server` over HTTP.

The engine's HTTP service runs on one native I/O thread (sessions, SSE streams,
resumption, limits, DNS-rebinding checks). Calls reach this loop in batches: the I/O thread
queues them and writes one byte to a socket the loop watches, so everything ready at one
moment costs one wake-up. An HTTP session gets a :class:`ServerConnection` (whose native
session completes straight into the engine) with its first call; an idle session costs the
loop nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import signal
import sys
import urllib.parse
from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from . import _core
from ._connection import ServerConnection
from ._events import CALLS, KIND, NOTIFICATION_METHOD, NOTIFICATION_PARAMS
from .errors import OptionError

if TYPE_CHECKING:
    from .server import Server

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def _options(options: dict[str, Any]) -> dict[str, Any]:
    """The HTTP options as given (TLS file paths as strings), checked by the engine
    (``OptionError`` names the first it cannot take; ``None`` values mean the default). An
    ``auth`` dict's ``verify`` function stays here: the engine is told only that there is one."""
    for key in ("tls_cert", "tls_key"):
        if options.get(key) is not None:
            options = {**options, key: os.fspath(options[key])}
    _core.HttpServer.check_options(_native_options(options)[0])
    return options


def _native_options(options: dict[str, Any]) -> tuple[dict[str, Any], Callable[[str], Any] | None]:
    """The options for the engine, and the app's own token verifier if ``auth`` has one."""
    auth = options.get("auth")
    if not isinstance(auth, dict) or auth.get("verify") is None:
        return options, None
    verify = auth["verify"]
    if not callable(verify):
        raise OptionError(f"HTTP option auth.verify: expected a function, got {verify!r}")
    return {**options, "auth": {**auth, "verify": True}}, verify


class HttpHost:
    """The native HTTP service of a server, bound to the running loop."""

    def __init__(self, server: Server, options: dict[str, Any]) -> None:
        self.server = server
        native_options, self._verify = _native_options(options)
        self.native = native = _core.HttpServer(server._native_config(), server._registry, native_options)
        if server._task_runtime is not None:
            server._task_connection()
            native.set_tasks(server._task_runtime)
        if server._builtins is not None:
            native.set_middleware(server._builtins)
        server._http_hosts.add(self)
        self.loop = asyncio.get_running_loop()
        self.max_body: int = native.max_body
        self.sse_path: str | None = native.sse_path
        self.messages_path: str | None = native.messages_path
        self.mount_path: str = native.path
        self._conns: dict[int, ServerConnection] = {}
        self._responses: dict[int, asyncio.Queue[tuple[Any, ...]]] = {}
        self._stopped: asyncio.Future[None] = self.loop.create_future()
        self._fd = native.fileno()
        self.closed = False
        self.loop.add_reader(self._fd, self._wake)

    def _wake(self) -> None:
        for item in self.native.poll():
            try:
                self._item(item)
            except Exception as exc:  # noqa: BLE001 - one failure must not lose the rest of the batch
                self.loop.call_exception_handler(
                    {"message": f"hypermcp: handling an HTTP {item[0]!r} item failed", "exception": exc}
                )

    def _item(self, item: tuple[Any, ...]) -> None:
        kind = item[0]
        if kind == "events":
            _, key, events = item
            conn = self._conns.get(key)
            # A connection is made for the first call: most sessions only initialize, and a
            # connection per session would cost more than the engine's whole session.
            if conn is None and any(ev[KIND] in CALLS for ev in events):
                session = self.native.session(key)
                if session is not None:
                    conn = self._conns[key] = ServerConnection(self.server, session, None)
            if conn is not None:
                conn.dispatch(events)
            else:
                self._without_connection(events)
        elif kind == "closed":
            conn = self._conns.pop(item[1], None)
            if conn is not None:
                conn.close()
        elif kind == "stopped":
            if not self._stopped.done():
                self._stopped.set_result(None)
        elif kind == "verify":
            self.loop.create_task(self._verify_token(item[1], item[2]))
        else:  # head / chunk / end of a response served for ASGI
            q = self._responses.get(item[1])
            if q is not None:
                q.put_nowait(item)

    async def _verify_token(self, id: int, token: str) -> None:
        """The app's ``auth.verify(token)``: the token's claims (a dict) admit the request;
        None, or an exception (its message goes to the client), refuses it."""
        try:
            assert self._verify is not None
            claims = self._verify(token)
            if inspect.isawaitable(claims):
                claims = await claims
        except Exception as exc:  # noqa: BLE001 - the app's refusal, reported to the client
            self.native.answer_verify(id, None, str(exc) or type(exc).__name__)
            return
        if claims is None or claims is False:
            self.native.answer_verify(id, None, "the token was refused")
        elif not isinstance(claims, dict):
            self.native.answer_verify(
                id, None, f"the server's verifier returned {type(claims).__name__}, not the token's claims (a dict)"
            )
        else:
            self.native.answer_verify(id, claims)

    def _without_connection(self, events: list[tuple[Any, ...]]) -> None:
        """The events of a session without a connection, as its connection would handle them:
        client notifications reach the server's callbacks; "response", "cancelled" and
        "progress" concern calls or requests of a connection, and there are none ("initialized"
        never comes: the engine leaves it out)."""
        for ev in events:
            if ev[KIND] == "notification":
                try:
                    self.server._on_notification(ev[NOTIFICATION_METHOD], ev[NOTIFICATION_PARAMS])
                except Exception as exc:  # noqa: BLE001 - one failure must not lose the rest of the batch
                    self.loop.call_exception_handler(
                        {"message": f"hypermcp: handling a {ev[KIND]!r} event failed", "exception": exc}
                    )

    async def stop(self) -> None:
        """Stops listening; calls in progress finish (10 s at most); sessions close."""
        if self.native.stop():
            await self._stopped
        self.close()

    def close(self) -> None:
        """Closes every session now (their calls are cancelled) and detaches from the loop."""
        if self.closed:
            return
        self.closed = True
        self.native.close_all()
        with contextlib.suppress(Exception):
            self.loop.remove_reader(self._fd)
        for conn in list(self._conns.values()):
            conn.close()
        self._conns.clear()
        # ASGI responses still streaming end here (their sessions are gone).
        for rid, q in list(self._responses.items()):
            q.put_nowait(("closed", rid))

    # ---- ASGI -----------------------------------------------------------------------------

    async def serve_asgi(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.closed:
            await _send_plain(send, 503, b"Service Unavailable: the MCP server is shut down")
            return
        body = bytearray()
        while True:
            msg = await receive()
            if msg["type"] == "http.disconnect":
                return
            body += msg.get("body", b"")
            if not msg.get("more_body", False):
                break
            if len(body) > self.max_body:
                break  # the engine answers 413; the rest is not buffered
        target, prefix = self._target(scope)
        headers = [(bytes(k), bytes(v)) for k, v in scope.get("headers", ())]
        try:
            rid = self.native.handle(scope["method"], target, headers, bytes(body))
        except ValueError as exc:  # a method, header or target http cannot carry
            await _send_plain(send, 400, f"Bad Request: {exc}".encode())
            return
        q: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()
        self._responses[rid] = q
        finished = False
        started = False
        # A legacy SSE stream names its message endpoint by absolute path: under a mount
        # point (root_path) the client must be told the mounted path.
        rewrite = prefix and scope["method"] == "GET" and target.split("?", 1)[0] == self.sse_path

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
                    started = True
                    await send({"type": "http.response.start", "status": item[2], "headers": item[3]})
                elif item[0] == "chunk":
                    data = item[2]
                    if rewrite:
                        rewrite = False
                        data = self._endpoint_under(prefix, data)
                    await send({"type": "http.response.body", "body": data, "more_body": True})
                elif item[0] == "end" or started:
                    finished = item[0] == "end"
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    return
                else:  # closed before the engine answered
                    await _send_plain(send, 503, b"Service Unavailable: the MCP server is shut down")
                    return
        finally:
            watcher.cancel()
            self._responses.pop(rid, None)
            if not finished:
                self.native.cancel(rid)

    def _endpoint_under(self, prefix: str, data: bytes) -> bytes:
        """``event: endpoint`` with the message path under the mount point."""
        head = b"event: endpoint\ndata: "
        if self.messages_path is not None and data.startswith(head + self.messages_path.encode()):
            return head + prefix.encode() + data[len(head) :]
        return data

    def _target(self, scope: Scope) -> tuple[str, str]:
        """The request target for the engine (path under the mount point, and query) and the
        mount point's prefix."""
        path: str = scope.get("path", "/")
        root: str = scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        if path in ("", "/"):
            path = self.mount_path
        # ASGI paths are decoded: encode them again for the request line.
        path = urllib.parse.quote(path, safe="/:@!$&'()*+,;=~")
        query: bytes = scope.get("query_string", b"")
        return path + ("?" + query.decode("latin-1") if query else ""), root.rstrip("/")


async def _send_plain(send: Send, status: int, text: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(text)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": text, "more_body": False})


class HttpServer:
    """A running HTTP server (from :meth:`Server.start_http`)."""

    def __init__(self, host: HttpHost, address: tuple[str, int], path: str, tls: bool = False) -> None:
        self._host = host
        self._scheme = "https" if tls else "http"
        self._stopping: asyncio.Future[None] | None = None
        #: The address it listens on.
        self.host, self.port = address
        #: The Streamable HTTP endpoint's path.
        self.path = path

    @property
    def url(self) -> str:
        """The Streamable HTTP endpoint, e.g. ``http://127.0.0.1:8000/mcp`` (``https://`` with TLS)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self._scheme}://{host}:{self.port}{self.path}"

    @property
    def session_count(self) -> int:
        """Open sessions."""
        return self._host.native.session_count

    async def stop(self) -> None:
        """Stops listening and lets calls in progress finish (10 s at most), then closes the
        sessions and exits the server's lifespan. Later calls wait for the first one."""
        if self._stopping is None:
            self._stopping = asyncio.ensure_future(self._stop())
        await asyncio.shield(self._stopping)

    async def _stop(self) -> None:
        try:
            await self._host.stop()
        finally:
            self._host.close()
            await self._host.server._exit()

    async def __aenter__(self) -> HttpServer:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()


async def start(server: Server, host: str, port: int, options: dict[str, Any]) -> HttpServer:
    await server._enter()
    h: HttpHost | None = None
    try:
        h = HttpHost(server, _options(options))
        address = h.native.listen(host, port)
    except BaseException:
        if h is not None:
            h.close()
        await server._exit()
        raise
    return HttpServer(h, address, h.mount_path, tls=options.get("tls_cert") is not None)


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
        sse_path = http._host.sse_path
        if sse_path is None:
            await http.stop()
            raise ValueError("transport 'sse' needs the legacy SSE endpoint (legacy_sse=True, stateless=False)")
        url = url[: -len(http.path)] + sse_path
    print(f"hypermcp: {server.name} serving on {url}", file=sys.stderr, flush=True)
    try:
        await stop.wait()
    finally:
        for sig in installed:
            loop.remove_signal_handler(sig)
        await http.stop()


class AsgiApp:
    """An ASGI application serving a :class:`Server` (``server.asgi_app()``).

    It runs the server's lifespan on the ASGI ``lifespan`` events; mounted in another app
    (which does not pass them on), call :meth:`startup` and :meth:`shutdown` from that app's
    lifespan, or the server starts on the first request."""

    def __init__(self, server: Server, options: dict[str, Any]) -> None:
        self.server = server
        self.options = _options(options)
        self._host: HttpHost | None = None
        self._entered = False
        self._shut_down = False
        self._starting: asyncio.Lock | None = None

    def _ensure(self) -> HttpHost:
        loop = asyncio.get_running_loop()
        if self._host is None or self._host.loop is not loop:
            if self._host is not None:  # served from another loop before: its sessions end
                with contextlib.suppress(Exception):
                    self._host.close()
            self._host = HttpHost(self.server, self.options)
        return self._host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind == "lifespan":
            await self._lifespan(receive, send)
        elif kind == "http":
            if self._shut_down:
                await _send_plain(send, 503, b"Service Unavailable: the MCP server is shut down")
                return
            if not self._entered:
                await self.startup()
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
                try:
                    await self.shutdown()
                except Exception as exc:  # noqa: BLE001 - reported to the ASGI server
                    await send({"type": "lifespan.shutdown.failed", "message": str(exc)})
                    return
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def startup(self) -> None:
        """Enters the server's lifespan (once) and starts serving (call it from a host
        app's own lifespan when mounted)."""
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if not self._entered:
                await self.server._enter()
                self._entered = True
            self._shut_down = False
            self._ensure()

    async def shutdown(self) -> None:
        """Closes every session (calls in progress are cancelled, streams end) and exits the
        server's lifespan. Requests after it get 503 until :meth:`startup`."""
        self._shut_down = True
        if self._host is not None:
            self._host.close()
            self._host = None
        if self._entered:
            self._entered = False
            await self.server._exit()
