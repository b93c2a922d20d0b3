"""How a :class:`~hypermcp.Server` is run: over stdio, over HTTP (its own listener, in the
background, or as an ASGI app), with its lifespan entered once for all the ways it runs at
the same time. ``Server`` takes these methods from :class:`Running`."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, cast

from ._options import keep_freed_memory

if TYPE_CHECKING:
    from .server import Server

#: Servers run with :meth:`Running.run` in this process (``hypermcp run`` tells a file that
#: runs its own server from one that only defines it).
_runs = 0


class Running:
    """The running of a server (see the module docs)."""

    _lifespan: Callable[[Any], AbstractAsyncContextManager[Any]] | None
    _lifespan_cm: AbstractAsyncContextManager[Any] | None
    _lifespan_users: int
    lifespan_context: Any

    async def _enter(self) -> None:
        self._lifespan_users += 1
        if self._lifespan is not None and self._lifespan_users == 1:
            try:
                cm = self._lifespan(self)
                self.lifespan_context = await cm.__aenter__()
            except BaseException:
                # Not entered: the next run must try again.
                self._lifespan_users -= 1
                raise
            self._lifespan_cm = cm

    async def _exit(self) -> None:
        self._lifespan_users -= 1
        if self._lifespan_cm is not None and self._lifespan_users == 0:
            cm, self._lifespan_cm = self._lifespan_cm, None
            try:
                await cm.__aexit__(None, None, None)
            finally:
                self.lifespan_context = None

    async def run_stdio_async(self) -> None:
        """Serves one client over stdin/stdout until stdin closes (in-flight calls finish,
        within 10 s). stdout carries only protocol: while the server runs, ``print()`` and
        anything else written to stdout (by C libraries or child processes too) goes to
        stderr instead, with one warning line the first time."""
        from ._connection import ServerConnection
        from ._stdio import FdWriter, StdoutGuard, read_fd

        loop = asyncio.get_running_loop()
        fd_in, fd_out = sys.stdin.fileno(), sys.stdout.fileno()
        guard = StdoutGuard(fd_out)
        writer = FdWriter(loop, guard.protocol_fd)
        try:
            await self._enter()
            conn = ServerConnection.over_stream(cast("Server", self), writer.write)
            try:
                await read_fd(loop, fd_in, conn.feed, conn.input_closed, writer)
                await conn.drain(10.0)
                conn.flush()
                await writer.flush()
            finally:
                conn.close()
                await self._exit()
        finally:
            writer.restore()
            guard.restore()

    def run(
        self,
        transport: str | None = None,
        *,
        host: str | None = None,
        port: int | None = None,
        path: str = "/mcp",
        **http_options: Any,
    ) -> None:
        """Runs the server: ``server.run()`` serves stdio until stdin closes;
        ``server.run("http", port=8000)`` serves Streamable HTTP at ``path`` (and the legacy
        HTTP+SSE transport at ``/sse``) until SIGINT or SIGTERM; ``"sse"`` is the same server,
        announced by its legacy SSE URL. ``http_options`` are those of
        :meth:`run_http_async`.

        Without a ``transport`` the environment chooses (what ``hypermcp run`` sets):
        ``HYPERMCP_TRANSPORT`` (``stdio``, ``http``), with ``HYPERMCP_HOST`` and
        ``HYPERMCP_PORT`` for the ``host`` and ``port`` left out (defaults: stdio,
        127.0.0.1, 8000)."""
        global _runs
        _runs += 1
        if transport is None:
            transport = os.environ.get("HYPERMCP_TRANSPORT") or "stdio"
            if host is None:
                host = os.environ.get("HYPERMCP_HOST") or None
            if port is None and os.environ.get("HYPERMCP_PORT"):
                text = os.environ["HYPERMCP_PORT"]
                if not text.isdigit() or int(text) > 65535:
                    raise ValueError(f"HYPERMCP_PORT={text} is not a port number")
                port = int(text)
        host = "127.0.0.1" if host is None else host
        port = 8000 if port is None else port
        keep_freed_memory()
        try:
            if transport == "stdio":
                if http_options:
                    raise TypeError(f"HTTP options given for the stdio transport: {', '.join(http_options)}")
                asyncio.run(self.run_stdio_async())
            elif transport in ("http", "streamable-http", "sse"):
                asyncio.run(self.run_http_async(host, port, path=path, _announce=transport, **http_options))
            else:
                raise ValueError(f"unknown transport {transport!r}: use 'stdio', 'http' or 'sse'")
        except KeyboardInterrupt:
            pass

    async def run_http_async(
        self,
        host: str = "127.0.0.1",
        port: int = 8000,
        *,
        path: str = "/mcp",
        _announce: str = "http",
        **options: Any,
    ) -> None:
        """Serves HTTP until SIGINT or SIGTERM, then lets calls in progress finish.

        Options (all optional): ``stateless`` (no sessions), ``json_response`` (JSON bodies,
        never SSE), ``allowed_hosts`` / ``allowed_origins`` (DNS-rebinding allow-lists;
        default localhost), ``max_body`` (bytes, 4 MiB), ``session_idle_timeout`` (s, 600),
        ``max_sessions`` (10,000), ``keep_alive`` (s, 15), ``retry`` (s, 1),
        ``json_wait`` (s, 0.1), ``legacy_sse`` (True), ``sse_path``, ``messages_path``,
        limits against clients that misbehave: ``stream_buffer`` (bytes an SSE stream may hold
        for a client that does not read, 8 MiB: past it a resumable stream drops its
        connection and the client resumes with ``Last-Event-ID``, a legacy stream ends with
        its session, and a legacy POST gets 429 once its stream holds half of it),
        ``listener_buffer`` (the same for ``subscriptions/listen`` streams, 256 KiB),
        ``header_read_timeout`` / ``body_read_timeout`` (s, 30: a request slower than that is
        cut off, 408 for a stalled body), ``max_connections`` (10,000: more wait in the listen
        queue), ``max_sessions_per_client`` (1,000 per client address, loopback exempt: its
        own idlest session makes room, 429 when all are busy; at ``max_sessions`` the address
        holding the most sessions gives one up first) and ``client_address_header``
        (``"x-forwarded-for"`` behind a trusted proxy: what that quota counts by),
        ``metrics_path`` (``"/metrics"``: the engine's counters, :func:`hypermcp.metrics`, as
        Prometheus text to ``GET``, before any authorization; default none),
        ``tls_cert`` / ``tls_key`` (PEM files: serve HTTPS, for deployments without a
        TLS-terminating proxy), ``cors`` (False: answer preflights and add the CORS headers for
        the origins ``allowed_origins`` admits, exposing ``Mcp-Session-Id``,
        ``Mcp-Protocol-Version``, ``WWW-Authenticate`` and ``DPoP-Nonce``), ``auth`` (a dict:
        the server as an OAuth 2.1 resource server: ``resource`` (its canonical URI),
        ``authorization_servers``, ``jwks_uri`` (JWT access tokens) or
        ``introspection_endpoint`` / ``introspection_client_id`` /
        ``introspection_client_secret``, ``required_scopes``, ``scopes_supported``,
        ``issuer``, ``audience``, ``hide_unauthorized``; the metadata is served at its
        well-known URLs, a request without a valid token gets 401 with ``WWW-Authenticate``,
        one without the required scopes 403), ``store`` (``"redis://host:6379/0"``: share sessions, SSE events, tasks
        and catalogue changes with the other replicas of this server, so that any replica
        serves any request behind a load balancer without sticky sessions; default: the
        ``HYPERMCP_STORE`` environment variable, else sessions live in this process; a store
        that cannot be reached is an error at start)."""
        from . import _http

        await _http.run(cast("Server", self), host, port, {"path": path, **options}, _announce)

    async def start_http(self, host: str = "127.0.0.1", port: int = 8000, *, path: str = "/mcp", **options: Any) -> Any:
        """Starts serving HTTP in the background and returns the running server (``.url``,
        ``.port``, ``await .stop()``; also an async context manager). ``port=0`` picks a free
        port. Options as for :meth:`run_http_async`."""
        from . import _http

        return await _http.start(cast("Server", self), host, port, {"path": path, **options})

    def asgi_app(self, *, path: str = "/mcp", **options: Any) -> Any:
        """An ASGI application serving this server, to run with any ASGI server or mount in
        Starlette / FastAPI. The engine does the protocol work; requests to the mount point
        itself or to ``path`` reach the MCP endpoint (the legacy transport's ``/sse`` and
        ``/messages`` sit under the mount point too). Options as for :meth:`run_http_async`
        (mind ``allowed_hosts`` when served under another host name).

        The ASGI lifespan events run the server's lifespan. Mounted in an app that does not
        pass them on (Starlette's ``Mount``), call ``await app.startup()`` and
        ``await app.shutdown()`` from that app's lifespan; otherwise the server's lifespan is
        entered on the first request. See examples/python/asgi_app.py."""
        from . import _http

        return _http.AsgiApp(cast("Server", self), {"path": path, **options})
