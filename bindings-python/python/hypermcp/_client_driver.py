"""The session driver of :class:`~hypermcp.client.Client`, its base class: the machinery
between the native sans-IO ``_core.ClientSession`` and the connection. Bytes read from the
connection are fed to the session, the events it reports are dispatched (answers resolve the
futures callers await, server requests run the handlers as tasks) and what it queues is
written back; one loop timer armed at the session's next deadline expires timed-out requests.

``Client`` (in ``client.py``) adds the public API on top: construction, the lifecycle, the
request methods and the session's state."""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from . import _core, _trace
from ._events import (
    CANCELLED_KEY,
    ELICITATION_PARAMS,
    KEY,
    KIND,
    LOST_REASON,
    NOTIFICATION_METHOD,
    NOTIFICATION_PARAMS,
    NOTIFICATION_SUBSCRIPTION,
    PROGRESS_ID,
    PROGRESS_MESSAGE,
    PROGRESS_TOTAL,
    PROGRESS_VALUE,
    RESPONSE_ID,
    RESPONSE_OK,
    RESPONSE_RESULT,
    SAMPLING_PARAMS,
)
from ._records import Record, wrap
from .errors import INTERNAL_ERROR, ConnectionClosed, McpError, RequestTimeout

if TYPE_CHECKING:
    from .client import (
        ConnectionHandler,
        ElicitationHandler,
        LoggingHandler,
        MessageHandler,
        ProgressHandler,
        Roots,
        SamplingHandler,
        _ClientConnection,
    )

_log = logging.getLogger("hypermcp.client")

#: Notifications a listen stream holds unread before it is closed.
LISTEN_BACKLOG = 10_000


def _spawn(coro: Awaitable[Any], tasks: set[asyncio.Future[Any]]) -> None:
    """Runs a callback's awaitable as a task, keeping a reference and logging failures."""
    fut = asyncio.ensure_future(coro)
    tasks.add(fut)

    def done(f: asyncio.Future[Any]) -> None:
        tasks.discard(f)
        if not f.cancelled() and f.exception() is not None:
            _log.error("client callback failed", exc_info=f.exception())

    fut.add_done_callback(done)


def _root(item: str | os.PathLike[str] | Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(item, str):
        return {"uri": item}
    if isinstance(item, os.PathLike):
        path = Path(os.fspath(item)).resolve()
        return {"uri": path.as_uri(), "name": path.name or str(path)}
    if isinstance(item, Mapping):  # pyright: ignore[reportUnnecessaryIsInstance]
        return dict(item)
    raise TypeError(f"a root is a URI string, a path or a dict, not {type(item).__name__}")


def _as_result(value: Any, what: str) -> Any:
    """A handler's return value as a JSON-able dict."""
    if isinstance(value, Mapping):
        mapping = cast("Mapping[str, Any]", value)
        return mapping if isinstance(mapping, dict) else dict(mapping)
    for name in ("to_dict", "model_dump"):
        method = getattr(value, name, None)
        if callable(method):
            out = method(by_alias=True, exclude_none=True) if name == "model_dump" else method()
            if isinstance(out, dict):
                return out  # pyright: ignore[reportUnknownVariableType]
    raise TypeError(f"the {what} handler returned {type(value).__name__}, expected a dict")


class ClientRequest:
    """A request this client is about to send, as an interceptor sees it: change ``params``
    (a dict, or None) before calling ``call_next`` to change what is sent."""

    __slots__ = ("method", "params")

    def __init__(self, method: str, params: dict[str, Any] | None) -> None:
        #: The JSON-RPC method (``tools/call``, ...).
        self.method = method
        #: Its params (``None``: none).
        self.params = params

    def __repr__(self) -> str:
        return f"ClientRequest(method={self.method!r}, params={self.params!r})"


#: ``call_next(request)``: the rest of the interceptors, then the send; returns the result.
ClientCallNext = Callable[[ClientRequest], Awaitable[Any]]
#: ``async def f(request, call_next)``: may change ``request.params``, return a result of its
#: own without calling ``call_next``, change or observe the result, or catch and raise errors.
Interceptor = Callable[[ClientRequest, ClientCallNext], Awaitable[Any]]


def _compose(interceptors: list[Interceptor], send: ClientCallNext) -> ClientCallNext:
    entry = send
    for f in reversed(interceptors):
        entry = _link(f, entry)
    return entry


def _link(f: Interceptor, rest: ClientCallNext) -> ClientCallNext:
    def step(request: ClientRequest) -> Awaitable[Any]:
        return f(request, rest)

    return step


class ClientDriver:
    """Drives one client session over one connection (the base of :class:`Client`)."""

    def __init__(
        self,
        conn: _ClientConnection,
        session: _core.ClientSession,
        *,
        sampling_handler: SamplingHandler | None,
        elicitation_handler: ElicitationHandler | None,
        roots: Roots | None,
        logging_handler: LoggingHandler | None,
        message_handler: MessageHandler | None,
        progress_handler: ProgressHandler | None,
        new_session: Callable[[], _core.ClientSession] | None = None,
        reconnect: _core.ReconnectPolicy | None = None,
        connection_handler: ConnectionHandler | None = None,
        timeout: float | None = None,
        interceptors: Sequence[Interceptor] | None = None,
    ) -> None:
        self._interceptors: list[Interceptor] = []
        for f in interceptors or ():
            self.add_interceptor(f)
        self._session = session
        self._new_session = new_session
        self._reconnect = reconnect
        self._connection_handler = connection_handler
        self._timeout = timeout
        # While reconnecting: resolved once a new session is ready, failed when the tries
        # are spent (requests made meanwhile wait on it, under the policy).
        self._reconnecting: asyncio.Future[None] | None = None
        self._reconnect_task: asyncio.Task[None] | None = None
        self._attempt = 0
        self._ready = False  # the handshake completed (once at least)
        self._closing = False  # close(grace=...) waits for the calls in flight
        self._conn: _ClientConnection = conn
        self._sampling_handler = sampling_handler
        self._elicitation_handler = elicitation_handler
        self._roots = roots
        self._logging_handler = logging_handler
        self._message_handler = message_handler
        self._progress_handler = progress_handler
        self._loop: asyncio.AbstractEventLoop | None = None
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._progress: dict[int, ProgressHandler] = {}
        self._handlers: dict[int, asyncio.Task[None]] = {}
        self._callbacks: set[asyncio.Future[Any]] = set()
        # Open listen streams: their tagged notifications, then None when they end.
        self._listeners: dict[int, asyncio.Queue[tuple[str, Any] | None]] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._init_id: int | None = None
        self._server: Record = Record()
        self._pumping = False
        self._repump = False
        self._closed = False
        self._close_message: str | None = None
        self._shutdown: asyncio.Task[None] | None = None

    # ---- closing -----------------------------------------------------------------------------

    def _end(self, message: str) -> None:
        if self._closed:
            return
        self._closed = True
        self._drop(message)
        task = self._reconnect_task
        if task is not None and task is not asyncio.current_task():
            task.cancel()
        self._settle_reconnecting(ConnectionClosed(message))

    def _drop(self, message: str) -> None:
        """Ends the current session and connection: pending requests fail with ``message``
        (listen streams end with them), the server's requests are cancelled."""
        self._close_message = message
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._session.close()
        self._pump()
        self._conn.close()

    def _settle_reconnecting(self, error: BaseException | None) -> None:
        waiter, self._reconnecting = self._reconnecting, None
        if waiter is None or waiter.done():
            return
        if error is None:
            waiter.set_result(None)
        else:
            waiter.set_exception(error)
            waiter.exception()  # retrieved: nobody may be waiting

    def _connection_event(self, event: str, **info: Any) -> None:
        # Counted and said in the engine's log (hypermcp.enable_logging, HYPERMCP_LOG).
        _core.client_event(event, str(info.get("reason", "")))
        if self._connection_handler is not None:
            self._callback(self._connection_handler, event, wrap(info))

    # ---- losing the server, and reconnecting -------------------------------------------------

    def _lost(self, message: str) -> None:
        """The server went away (its connection ended, or it stopped answering pings)."""
        if self._closed:
            return
        if self._reconnecting is not None:
            # A try's connection ended during its handshake: that try fails.
            self._session.close()
            self._pump()
            return
        if self._reconnect is None or not self._ready or self._closing or self._new_session is None:
            if self._ready and not self._closing:
                _core.client_event("disconnected", message)
            self._end(message)
            return
        # Calls in flight fail, saying why; new ones wait for the new session (or fail fast).
        self._drop(f"{message}; reconnecting")
        self._close_message = None
        loop = self._loop
        assert loop is not None
        self._reconnecting = loop.create_future()
        self._attempt = 0
        self._connection_event("disconnected", reason=message)
        self._reconnect_task = loop.create_task(self._reconnect_loop(message))

    async def _reconnect_loop(self, reason: str) -> None:
        policy = self._reconnect
        make = self._new_session
        assert policy is not None and make is not None
        last = reason
        await self._conn.wait_closed()
        while not self._closed:
            self._attempt += 1
            delay = policy.delay(self._attempt)
            if delay is None:
                tries = self._attempt - 1
                message = f"the server went away and {tries} tries to reconnect failed; the last: {last}"
                self._connection_event("failed", reason=message, attempts=tries)
                self._end(message)
                return
            self._connection_event("reconnecting", attempt=self._attempt, delay=delay, reason=last)
            await asyncio.sleep(delay)
            if self._closed:
                return
            self._session = make()
            self._server = Record()
            try:
                await self._conn.start(self)  # pyright: ignore[reportArgumentType]
                await self._handshake()
            except (ConnectionClosed, McpError, OSError) as exc:
                last = str(exc) or type(exc).__name__
                self._session.close()
                self._pump()
                self._conn.close()
                await self._conn.wait_closed()
                continue
            self._connection_event("reconnected", attempt=self._attempt)
            self._settle_reconnecting(None)
            return

    async def _handshake(self) -> None:
        """Opens the session on the connection just started: ``server/discover`` or
        ``initialize``; returns once the server is known."""
        loop = self._loop
        assert loop is not None
        if self._closed:  # the connection ended while it opened
            raise ConnectionClosed(self._close_message or "the connection closed while it opened")
        init_id = self._session.initialize()
        self._init_id = init_id
        fut: asyncio.Future[Any] = loop.create_future()
        self._pending[init_id] = fut
        self._pump()
        await self._conn.drain()
        await fut
        self._ready = True

    # ---- input from the connection -----------------------------------------------------------

    def _feed(self, data: bytes) -> None:
        """Bytes from the server (called by the connection)."""
        if self._closed:
            return
        self._session.feed(data)
        self._pump()

    def _eof(self) -> None:
        """The server's side ended (called by the connection)."""
        if self._closed:
            return
        detail = self._conn.failure_detail()
        self._lost("the server closed the connection" + (f" ({detail})" if detail else ""))

    def _pump(self) -> None:
        """Dispatches every pending event, writes what is queued, re-arms the timer."""
        if self._pumping:
            self._repump = True  # re-entered from write(): the outer pass loops again
            return
        session = self._session
        self._pumping = True
        try:
            while True:
                self._repump = False
                while True:
                    events = session.poll_events()
                    if not events:
                        break
                    for ev in events:
                        self._dispatch(ev)
                if session.has_output():
                    self._conn.write(session.take_output())
                if not self._repump:
                    break
        finally:
            self._pumping = False
        if not self._closed:
            self._arm_timer()

    def _arm_timer(self) -> None:
        delay = self._session.next_timeout()
        timer = self._timer
        if delay is None:
            if timer is not None:
                timer.cancel()
                self._timer = None
            return
        loop = self._loop
        assert loop is not None
        when = loop.time() + delay + 0.001
        if timer is not None:
            if timer.when() <= when:
                return  # fires first; it re-arms for the rest
            timer.cancel()
        self._timer = loop.call_at(when, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self._closed:
            return
        self._session.handle_timeout()
        self._pump()

    def _dispatch(self, ev: tuple[Any, ...]) -> None:
        kind = ev[KIND]
        if kind == "response":
            rid = ev[RESPONSE_ID]
            self._progress.pop(rid, None)
            fut = self._pending.pop(rid, None)
            if fut is None:
                listener = self._listeners.pop(rid, None)
                if listener is not None:
                    listener.put_nowait(None)  # the server ended the stream
                return
            if fut.done():
                return
            if ev[RESPONSE_OK]:
                fut.set_result(ev[RESPONSE_RESULT])
                return
            err = ev[RESPONSE_RESULT]
            if isinstance(err, ConnectionClosed) and self._close_message is not None:
                err = ConnectionClosed(self._close_message, err.data)
            fut.set_exception(err)
        elif kind == "progress":
            handler = self._progress.get(ev[PROGRESS_ID])
            if handler is not None:
                self._callback(handler, ev[PROGRESS_VALUE], ev[PROGRESS_TOTAL], ev[PROGRESS_MESSAGE])
        elif kind == "notification":
            method: str = ev[NOTIFICATION_METHOD]
            params = wrap(ev[NOTIFICATION_PARAMS])
            tag: int | None = ev[NOTIFICATION_SUBSCRIPTION]
            if tag is not None:
                listener = self._listeners.get(tag)
                if listener is not None:
                    if listener.qsize() >= LISTEN_BACKLOG:
                        # Never buffered without limit: a stream nobody reads is closed.
                        _log.warning("listen stream %s: %d notifications unread; closing it", tag, LISTEN_BACKLOG)
                        del self._listeners[tag]
                        self._session.cancel_request(tag, "the application did not read the stream")
                        listener.put_nowait(None)
                        return
                    listener.put_nowait((method, params))
                    return
            if method == "notifications/message" and self._logging_handler is not None:
                self._callback(self._logging_handler, params if params is not None else Record())
            elif self._message_handler is not None:
                self._callback(self._message_handler, method, params)
        elif kind == "initialized":
            self._server = wrap(self._session.server) or Record()
            if self._init_id is not None:
                fut = self._pending.pop(self._init_id, None)
                self._init_id = None
                if fut is not None and not fut.done():
                    fut.set_result(None)
        elif kind == "lost":
            # The server stopped answering pings (the session closed itself): handled once
            # this pass is over, like the end of the connection.
            loop = self._loop
            assert loop is not None
            loop.call_soon(self._lost, str(ev[LOST_REASON]))
        elif kind == "cancelled":
            task = self._handlers.pop(ev[CANCELLED_KEY], None)
            if task is not None:
                task.cancel()
        elif kind in ("sampling", "elicitation", "roots"):
            loop = self._loop
            assert loop is not None
            key: int = ev[KEY]
            params = (
                ev[SAMPLING_PARAMS] if kind == "sampling" else ev[ELICITATION_PARAMS] if kind == "elicitation" else None
            )
            self._handlers[key] = loop.create_task(self._serve(kind, key, params))

    def _callback(self, fn: Callable[..., Any], *args: Any) -> None:
        try:
            out = fn(*args)
        except Exception:  # noqa: BLE001 - a user callback must not stop the session
            _log.exception("client callback %r failed", fn)
            return
        if inspect.isawaitable(out):
            _spawn(out, self._callbacks)

    # ---- the server's requests ---------------------------------------------------------------

    async def _serve(self, kind: str, key: int, params: Any) -> None:
        try:
            if kind == "roots":
                result: Any = {"roots": await self._list_roots()}
            else:
                handler = self._sampling_handler if kind == "sampling" else self._elicitation_handler
                if handler is None:
                    raise McpError(-32601, f"this client does not handle {kind}")
                out: Any = handler(wrap(params))
                if inspect.isawaitable(out):
                    out = await out
                result = _as_result(out, kind)
        except asyncio.CancelledError:
            self._handlers.pop(key, None)
            raise  # the server cancelled it (or the session closed): no answer
        except McpError as exc:
            self._handlers.pop(key, None)
            self._session.respond_error(key, exc.code, exc.message, exc.data)
        except Exception as exc:  # noqa: BLE001 - answered to the server as -32603
            self._handlers.pop(key, None)
            _log.debug("the %s handler failed", kind, exc_info=True)
            self._session.respond_error(key, INTERNAL_ERROR, str(exc) or type(exc).__name__)
        else:
            self._handlers.pop(key, None)
            try:
                self._session.respond(key, result)
            except (TypeError, ValueError) as exc:
                self._session.respond_error(key, INTERNAL_ERROR, f"the {kind} handler returned {exc}")
        if not self._closed:
            self._pump()

    async def _list_roots(self) -> list[dict[str, Any]]:
        roots = self._roots
        if roots is None:
            return []
        if callable(roots):
            got: Any = roots()
            if inspect.isawaitable(got):
                got = await got
            roots = got
        return [_root(r) for r in roots]  # pyright: ignore[reportGeneralTypeIssues, reportUnknownVariableType]

    # ---- requests ----------------------------------------------------------------------------

    def _check_open(self) -> None:
        if self._loop is None:
            raise RuntimeError("the client is not connected: use `async with` or `await client.connect()`")
        if self._closed:
            raise ConnectionClosed(self._close_message or "the connection is closed")
        if self._closing:
            raise ConnectionClosed("the client is closing")
        if self._reconnecting is not None:
            raise ConnectionClosed(f"the connection to the server was lost; reconnecting (try {self._attempt})")

    async def _until_connected(self, timeout: float | None) -> None:
        """While reconnecting: waits for the new session (within ``timeout``, else the
        client's) when the policy says so; otherwise :meth:`_check_open` fails at once."""
        waiter = self._reconnecting
        policy = self._reconnect
        if waiter is None or policy is None or not policy.wait or self._closing:
            return
        limit = timeout if timeout is not None else self._timeout
        try:
            await asyncio.wait_for(asyncio.shield(waiter), limit)
        except asyncio.TimeoutError:
            raise RequestTimeout(f"still reconnecting to the server after {limit} s") from None

    def add_interceptor(self, interceptor: Interceptor) -> None:
        """Adds a request interceptor, ``async def f(request, call_next)``, inside the ones
        added before: every request this client sends (its calls, reads, lists, ``request``)
        passes it; it may change ``request.params``, answer by itself, change or observe the
        result, or catch and raise errors."""
        if not callable(interceptor):
            raise TypeError(
                f"an interceptor is an async function (request, call_next), not {type(interceptor).__name__}"
            )
        self._interceptors.append(interceptor)

    async def _request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        progress_handler: ProgressHandler | None = None,
        reset_timeout_on_progress: bool = False,
        follow_task: bool = False,
    ) -> Any:
        if self._interceptors:

            def send(r: ClientRequest) -> Awaitable[Any]:
                return self._send(r.method, r.params, timeout, progress_handler, reset_timeout_on_progress, follow_task)

            return await _compose(self._interceptors, send)(ClientRequest(method, params))
        return await self._send(method, params, timeout, progress_handler, reset_timeout_on_progress, follow_task)

    async def _send(
        self,
        method: str,
        params: dict[str, Any] | None,
        timeout: float | None,
        progress_handler: ProgressHandler | None,
        reset_timeout_on_progress: bool,
        follow_task: bool,
    ) -> Any:
        if self._reconnecting is not None:
            await self._until_connected(timeout)
        self._check_open()
        # Progress is asked for when someone listens, and to let it extend the timeout.
        progress = progress_handler is not None or reset_timeout_on_progress
        if "opentelemetry.trace" not in sys.modules and _trace.current() is None:
            rid = self._session.request(method, params, timeout, progress, reset_timeout_on_progress, follow_task)
            return await self._answer(rid, progress_handler)
        # A trace to carry on in _meta (the handler's being served, or OpenTelemetry's).
        params, span = _trace.client_begin(method, params, self._conn.network_transport, self._session.protocol_version)
        rid = None
        try:
            rid = self._session.request(method, params, timeout, progress, reset_timeout_on_progress, follow_task)
            result = await self._answer(rid, progress_handler)
        except BaseException as exc:
            if span is not None:
                _trace.client_end(span, rid, exc, False)
            raise
        if span is not None:
            failed = method == "tools/call" and isinstance(result, dict) and result.get("isError") is True
            _trace.client_end(span, rid, None, failed)
        return result

    async def _follow_task(self, task_id: str, timeout: float | None = None) -> Any:
        """Waits for task ``task_id`` (tasks extension) to end: its result, as the engine
        follows it (its input requests through this client's handlers)."""
        if self._reconnecting is not None:
            await self._until_connected(timeout)
        self._check_open()
        return await self._answer(self._session.follow_task(task_id, timeout), None)

    async def _answer(self, rid: int, progress_handler: ProgressHandler | None) -> Any:
        """The answer to our request ``rid`` (the server is told when the caller gives up)."""
        loop = self._loop
        assert loop is not None
        fut: asyncio.Future[Any] = loop.create_future()
        self._pending[rid] = fut
        if progress_handler is not None:
            self._progress[rid] = progress_handler
        self._pump()
        try:
            await self._conn.drain()
            return await fut
        except asyncio.CancelledError:
            # The caller gave up (task cancelled, wait_for expired): tell the server.
            if self._pending.pop(rid, None) is not None:
                self._progress.pop(rid, None)
                if not self._closed:
                    self._session.cancel_request(rid, "cancelled by the client")
                    self._pump()
            raise
