"""The HTTP client transport of :class:`~hypermcp.client.Client` (``Client.http``): Streamable
HTTP, or the legacy HTTP+SSE transport, run by the engine's HTTP client on its I/O thread as a
byte stream the asyncio loop drives.

The client side of HTTP, beside its server side (the host) in ``_http.py``; a module of its own
so that a server run over HTTP never loads the client. Loaded on first use by ``client.py``."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import _core
from .client import _ClientConnection
from .errors import ConnectionClosed

if TYPE_CHECKING:
    from .auth import AuthorizeHandler, TokenStore
    from .client import Client


class _HttpConnection(_ClientConnection):
    """An MCP server over HTTP: Streamable HTTP (or the legacy HTTP+SSE transport), run by the
    engine on its I/O thread as a byte stream this loop drives."""

    network_transport = "tcp"
    _http = True

    def __init__(
        self,
        url: str,
        headers: Mapping[str, str] | None,
        options: dict[str, Any],
        on_authorize: AuthorizeHandler | None = None,
        store: TokenStore | None = None,
    ) -> None:
        self.url = url
        self._on_authorize = on_authorize
        self._store = store
        self._authorizing: set[asyncio.Task[None]] = set()
        pairs = [(str(k), str(v)) for k, v in (headers or {}).items()]
        self._options: dict[str, Any] = {"headers": pairs, **options}
        # The engine checks the options now (OptionError), and connects on start().
        self._native = _core.HttpClientStream(url, self._options)
        self._started = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ended: asyncio.Future[None] | None = None
        self._error: str | None = None

    async def start(self, client: Client) -> None:
        """Connects (the TCP connection, and for ``transport="sse"`` the event stream and its
        ``endpoint`` event); raises :class:`~hypermcp.errors.ConnectionClosed` naming the URL
        and the cause when that fails."""
        if self._started:
            # Started again (the client reconnects): a new transport, so a new HTTP session.
            self._native = _core.HttpClientStream(self.url, self._options)
            self._error = None
        self._started = True
        native = self._native
        self._loop = loop = asyncio.get_running_loop()
        self._ended = ended = loop.create_future()
        opened: asyncio.Future[None] = loop.create_future()
        fd = native.fileno()

        def readable() -> None:
            data, end, error, authorizations, store_ops = native.take()
            for request in authorizations:
                task = loop.create_task(self._authorize(*request))
                self._authorizing.add(task)
                task.add_done_callback(self._authorizing.discard)
            for op in store_ops:
                task = loop.create_task(self._store_call(*op))
                self._authorizing.add(task)
                task.add_done_callback(self._authorizing.discard)
            if not opened.done():
                if native.connected:
                    opened.set_result(None)
                elif end:
                    # Never connected: start() raises; the client is not told of an end.
                    loop.remove_reader(fd)
                    self._error = error
                    ended.set_result(None)
                    opened.set_exception(ConnectionClosed(error or f"cannot connect to {self.url}"))
                    return
            if data:
                client._feed(data)  # pyright: ignore[reportPrivateUsage]
            if end:
                loop.remove_reader(fd)
                self._error = error
                if not ended.done():
                    ended.set_result(None)
                client._eof()  # pyright: ignore[reportPrivateUsage]

        loop.add_reader(fd, readable)
        native.start()
        await opened
        if ended.done():
            # It ended as soon as it opened (Client.connect would wait for the handshake).
            raise ConnectionClosed(self._error or f"{self.url}: the connection closed as it opened")

    async def _authorize(self, request_id: int, url: str, redirect_uri: str) -> None:
        """Has the app's ``on_authorize`` complete an authorization, and answers the engine."""
        handler = self._on_authorize
        if handler is None:
            self._native.answer_authorization(request_id, None, "no on_authorize handler is set")
            return
        try:
            outcome = handler(url, redirect_uri)
            if inspect.isawaitable(outcome):
                outcome = await outcome
            self._native.answer_authorization(request_id, str(outcome))
        except Exception as exc:  # noqa: BLE001 - the reason goes to the engine, then the caller
            self._native.answer_authorization(request_id, None, f"on_authorize failed: {type(exc).__name__}: {exc}")

    async def _store_call(self, request_id: int, op: str, issuer: str, resource: str | None, value: Any) -> None:
        """Calls the app's token store (``load_client(issuer)``, ``save_client(issuer, client)``,
        ``load_tokens(issuer, resource)``, ``save_tokens(issuer, resource, tokens_or_None)``),
        and answers the engine."""
        store = self._store
        try:
            if store is None:
                raise RuntimeError("no token store is set")
            if op == "load_client":
                result = store.load_client(issuer)
            elif op == "save_client":
                result = store.save_client(issuer, value)
            elif op == "load_tokens":
                result = store.load_tokens(issuer, resource or "")
            elif op == "save_tokens":
                result = store.save_tokens(issuer, resource or "", value)
            else:
                raise RuntimeError(f"unknown token store call {op!r}")
            if inspect.isawaitable(result):
                result = await result
            self._native.answer_store(request_id, result if op.startswith("load") else None)
        except Exception as exc:  # noqa: BLE001 - the reason goes to the engine, then the caller
            self._native.answer_store(request_id, None, f"{type(exc).__name__}: {exc}")

    def write(self, data: bytes) -> None:
        self._native.write(data)

    def close(self) -> None:
        self._native.close()

    async def wait_closed(self) -> None:
        """Ends the session (DELETE) and waits up to 5 s for the transport to finish."""
        self.close()
        if self._ended is not None and not self._ended.done():
            done, _ = await asyncio.wait([self._ended], timeout=5.0)
            if not done and self._loop is not None:
                self._loop.remove_reader(self._native.fileno())

    def failure_detail(self) -> str:
        return self._error or ""
