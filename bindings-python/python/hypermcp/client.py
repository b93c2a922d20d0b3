"""The MCP client: asyncio-native, the event loop owns the I/O (no threads).

::

    async with Client.stdio("python", "server.py") as client:
        tools = await client.list_tools()
        result = await client.call_tool("echo", {"text": "hi"})
        print(result.text)

A :class:`Client` drives a native sans-IO ``_core.ClientSession``: bytes read from the
connection are fed to it, the events it reports are dispatched (answers resolve the futures
callers await, server requests run the handlers as tasks) and what it queues is written back.
One loop timer armed at the session's next deadline expires timed-out requests.

This module holds the public API: :class:`Client` (construction, lifecycle, the request
methods, the session's state), the handler types, :func:`prompt_ref` / :func:`resource_ref`
and the connection interface :class:`_ClientConnection`. The session driver is ``Client``'s
base class, ``ClientDriver`` in ``_client_driver.py``.

Connections
-----------
The client talks to the server through a :class:`_ClientConnection`, a small interface any
transport implements (the subprocess one, :class:`_StdioConnection`, is in ``_stdio_client.py``
and the HTTP one, :class:`_HttpConnection`, in ``_http_client.py``, each beside its server
twin; an in-memory one to a ``Server`` object, in ``_memory.py``, plugs in the same way)::

    class MyConnection(_ClientConnection):
        async def start(self, client: Client) -> None:
            # Open the transport. From now on deliver every chunk of bytes received from the
            # server with ``client._feed(data)`` (newline-delimited JSON-RPC, any chunking) and
            # call ``client._eof()`` once when the server's side ends.
        def write(self, data: bytes) -> None:
            # Send bytes to the server (one or more complete, newline-terminated messages).
            # Must not block; may buffer. Dropped silently once the connection is closed.
        async def drain(self) -> None:              # optional: wait while the buffer is full
        def close(self) -> None:                    # stop sending (EOF to the server)
        async def wait_closed(self) -> None:        # optional: wait until fully shut down
        def failure_detail(self) -> str:            # optional: why it ended (exit code, stderr)
        stderr: str                                 # optional: the server's stderr tail

``client._feed`` may be called from inside ``write`` (a synchronous in-memory peer answering
at once): the client notices and handles the new input after the current batch.

``Client(target)`` accepts a :class:`_ClientConnection`, or any object with a
``_client_connection()`` method returning one (how ``Server`` offers an in-memory session).
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from . import _core
from ._client_driver import ClientDriver, ClientRequest, Interceptor
from ._records import CompleteResult, Page, Record, ResourceResult, ToolResult, as_object, wrap
from .errors import ConnectionClosed, InternalError, SkillVerificationError, ToolError

if TYPE_CHECKING:
    # The transports import this module (they subclass _ClientConnection): they load on first
    # use (see __getattr__ below), and stay importable from here.
    from ._http_client import _HttpConnection as _HttpConnection
    from ._stdio_client import _StdioConnection as _StdioConnection
    from .auth import OAuth

__all__ = [
    "Client",
    "ClientRequest",
    "CompleteResult",
    "ConnectionHandler",
    "ElicitationHandler",
    "Interceptor",
    "LoadedSkill",
    "LoggingHandler",
    "MessageHandler",
    "Page",
    "ProgressHandler",
    "Record",
    "ResourceResult",
    "Roots",
    "SamplingHandler",
    "StderrHandler",
    "TaskHandle",
    "ToolResult",
    "prompt_ref",
    "resource_ref",
]

#: ``(progress, total, message)``; may be async.
ProgressHandler = Callable[[float, float | None, str | None], Awaitable[None] | None]
#: ``sampling/createMessage`` params -> a ``CreateMessageResult`` dict; may be async.
SamplingHandler = Callable[[Record], Awaitable[Mapping[str, Any]] | Mapping[str, Any]]
#: ``elicitation/create`` params -> an ``ElicitResult`` dict (``{"action": "accept", "content": {...}}``).
ElicitationHandler = Callable[[Record], Awaitable[Mapping[str, Any]] | Mapping[str, Any]]
#: ``notifications/message`` params (``level``, ``logger``, ``data``); may be async.
LoggingHandler = Callable[[Record], Awaitable[None] | None]
#: ``(method, params)`` of every other server notification; may be async.
MessageHandler = Callable[[str, Any], Awaitable[None] | None]
#: One line the server wrote to stderr (without its newline); may be async.
StderrHandler = Callable[[str], Awaitable[None] | None]
#: ``(event, info)`` when the connection changes: ``"disconnected"`` (``reason``),
#: ``"reconnecting"`` (``attempt``, ``delay`` in s, ``reason``), ``"reconnected"``
#: (``attempt``), ``"failed"`` (``reason``, ``attempts``: the client is closed); may be async.
ConnectionHandler = Callable[[str, Record], Awaitable[None] | None]
#: Roots: URIs (str), paths (as ``file://`` URIs) or ``{"uri", "name"?}`` dicts.
RootList = Sequence[str | os.PathLike[str] | Mapping[str, Any]]
#: A list of roots, or a callable (sync or async) returning the current list.
Roots = RootList | Callable[[], RootList | Awaitable[RootList]]


def __getattr__(name: str) -> Any:
    # The stdio and HTTP connections, defined beside their server twins, load on first use.
    if name == "_StdioConnection":
        from ._stdio_client import _StdioConnection

        return _StdioConnection
    if name == "_HttpConnection":
        from ._http_client import _HttpConnection

        return _HttpConnection
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def prompt_ref(name: str) -> dict[str, Any]:
    """A completion reference to a prompt (for :meth:`Client.complete`)."""
    return {"type": "ref/prompt", "name": name}


def resource_ref(uri: str) -> dict[str, Any]:
    """A completion reference to a resource template (for :meth:`Client.complete`)."""
    return {"type": "ref/resource", "uri": uri}


class _ClientConnection:
    """The transport interface of :class:`Client` (see the module docstring)."""

    #: ``network.transport`` of the OpenTelemetry conventions (``pipe``: stdio).
    network_transport: str | None = "pipe"
    #: An HTTP connection: the ``server/discover`` probe of the auto mode waits as long as any
    #: request (an HTTP server answers it at once, legacy or not; behind OAuth it holds the
    #: authorization, a user's login included), instead of 10 s.
    _http: bool = False

    async def start(self, client: Client) -> None:
        """Opens the transport; then delivers input with ``client._feed`` / ``client._eof``."""
        raise NotImplementedError

    def write(self, data: bytes) -> None:
        """Sends bytes to the server without blocking."""
        raise NotImplementedError

    async def drain(self) -> None:
        """Waits while the outgoing buffer is too full (default: never)."""
        return None

    def close(self) -> None:
        """Stops sending: the server sees end of input."""
        raise NotImplementedError

    async def wait_closed(self) -> None:
        """Waits until the transport is fully shut down (default: at once)."""
        return None

    def failure_detail(self) -> str:
        """Why the server's side ended, appended to ``ConnectionClosed`` messages."""
        return ""

    @property
    def stderr(self) -> str:
        """The tail of what the server wrote to stderr (if it has one)."""
        return ""


class TaskHandle:
    """A task (tasks extension), by ``id``: :meth:`status` (``tasks/get``), :meth:`result`
    (waits for its end, serving its input requests through the client's handlers),
    :meth:`cancel`."""

    __slots__ = ("_client", "id")

    def __init__(self, client: Client, task_id: str) -> None:
        self._client = client
        self.id = task_id

    async def status(self, *, timeout: float | None = None) -> Record:
        """The task as it is now: ``status``, ``status_message``, ``input_requests``,
        ``result`` or ``error``..."""
        return wrap(await self._client._request("tasks/get", {"taskId": self.id}, timeout=timeout))

    async def result(self, *, timeout: float | None = None) -> ToolResult:
        """Waits for the task's end: its result. A failed task raises its error; a cancelled
        one :class:`~hypermcp.errors.McpError` with code ``REQUEST_CANCELLED`` (-32800);
        ``timeout`` cancels the task when it passes (:class:`~hypermcp.errors.RequestTimeout`)."""
        return ToolResult(as_object(await self._client._follow_task(self.id, timeout)))

    async def cancel(self, *, timeout: float | None = None) -> None:
        """Asks the server to cancel the task (cooperatively: its handler is told)."""
        await self._client._request("tasks/cancel", {"taskId": self.id}, timeout=timeout)

    def __repr__(self) -> str:
        return f"TaskHandle({self.id!r})"


class LoadedSkill:
    """A skill whose ``SKILL.md`` was read and verified (:meth:`Client.load_skill`):
    ``entry``, ``uri``, ``name``, ``description``, ``text`` (the ``SKILL.md``); :meth:`read`
    fetches and verifies its other files."""

    __slots__ = ("_client", "entry", "text")

    def __init__(self, client: Client, entry: Record, text: str) -> None:
        self._client = client
        self.entry = entry
        self.text = text

    @property
    def uri(self) -> str:
        return str(self.entry["uri"])

    @property
    def name(self) -> str:
        return str(self.entry["frontmatter"]["name"])

    @property
    def description(self) -> str:
        return str(self.entry["frontmatter"]["description"])

    @property
    def files(self) -> list[str]:
        """The URIs of the skill's files (empty for a ``"dynamic"`` skill)."""
        resources = self.entry.get("resources")
        return [str(f["uri"]) for f in resources] if isinstance(resources, list) else []

    async def read(self, path: str, *, timeout: float | None = None) -> bytes:
        """One of the skill's files, by URI or relative path, verified."""
        return await self._client.read_skill_file(self.entry, path, timeout=timeout)

    async def read_text(self, path: str, *, timeout: float | None = None) -> str:
        """:meth:`read` as UTF-8 text."""
        return (await self.read(path, timeout=timeout)).decode()

    def __repr__(self) -> str:
        return f"LoadedSkill({self.uri!r})"


class Subscription:
    """An open ``subscriptions/listen`` stream (:meth:`Client.listen`): an async iterator of
    ``(method, params)`` notifications and an async context manager closing it on exit."""

    def __init__(self, client: Client, notifications: dict[str, Any]) -> None:
        self._client = client
        self._filter = notifications
        self._queue: asyncio.Queue[tuple[str, Any] | None] = asyncio.Queue()
        self._id: int | None = None
        self._ended = False

    def _open(self) -> None:
        if self._id is not None or self._ended:
            return
        client = self._client
        client._check_open()  # pyright: ignore[reportPrivateUsage]
        self._id = client._session.listen(self._filter)  # pyright: ignore[reportPrivateUsage]
        client._listeners[self._id] = self._queue  # pyright: ignore[reportPrivateUsage]
        client._pump()  # pyright: ignore[reportPrivateUsage]

    @property
    def id(self) -> int | None:
        """The stream's id (its notifications carry it in ``_meta``); None until opened."""
        return self._id

    def close(self) -> None:
        """Closes the stream (the server is told); iteration ends. Idempotent."""
        if self._ended:
            return
        self._ended = True
        client = self._client
        if self._id is not None and client._listeners.pop(self._id, None) is not None:  # pyright: ignore[reportPrivateUsage]
            if not client._closed:  # pyright: ignore[reportPrivateUsage]
                client._session.cancel_request(self._id, "the subscription was closed")  # pyright: ignore[reportPrivateUsage]
                client._pump()  # pyright: ignore[reportPrivateUsage]
        self._queue.put_nowait(None)

    async def __aenter__(self) -> Subscription:
        self._open()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __aiter__(self) -> Subscription:
        self._open()
        return self

    async def __anext__(self) -> tuple[str, Any]:
        item = await self._queue.get()
        if item is None:
            self._ended = True
            self._queue.put_nowait(None)  # later calls end too
            raise StopAsyncIteration
        return item


class Client(ClientDriver):
    """An MCP client session over one connection.

    Use :meth:`Client.stdio` to spawn a server, or pass a connection (or an object offering
    one, such as an in-memory ``Server``). ``async with`` performs the handshake on enter and
    closes on exit; :meth:`connect` / :meth:`close` do the same by hand.

    Options (keyword-only): ``name`` / ``version`` of this client; ``mode``: ``"auto"`` (the
    default: probe with ``server/discover`` and speak 2026-07-28 when the server does, else
    fall back to the ``initialize`` handshake), ``"modern"`` (2026-07-28 only) or ``"legacy"``
    (``initialize`` only); ``protocol_version``, the legacy revision ``initialize`` asks
    for (naming one, without a ``mode``, means ``"legacy"``); ``timeout`` in seconds for
    every request (default 60; ``None``: no limit; each method also takes its own);
    handlers for server requests: ``sampling_handler(params)``,
    ``elicitation_handler(params)`` (form mode; ``elicitation_url=True`` also declares URL
    mode), ``roots`` (a list or a callable returning it); ``logging_handler(params)`` for log
    messages, ``message_handler(method, params)`` for every other notification,
    ``progress_handler(progress, total, message)`` for calls that do not pass their own.
    Capabilities are declared after the handlers given, plus ``extensions``
    (``{"io.modelcontextprotocol/ui": {...settings}}``): the extensions this client supports
    (the server's are in ``server_capabilities["extensions"]``); ``tasks=True`` declares the
    tasks extension (calls the server runs as tasks are followed to their end, see
    :meth:`call_tool_task`), ``apps=True`` MCP Apps (``mimeTypes``: the app profile of
    HTML). Handlers may be sync or async.

    At 2026-07-28 nothing changes for callers: the server's ``input_required`` answers are
    served by the same sampling, elicitation and roots handlers (then the request is sent
    again, up to 16 rounds); subscriptions and list changes arrive as before (the client
    keeps a ``subscriptions/listen`` stream); results the server marks with ``ttlMs`` are
    reused until they expire or a change notification arrives; a logging handler asks for
    every level. See :attr:`modern`.

    Surviving the server: ``reconnect=True`` (or a dict of ``initial_delay`` (0.5 s),
    ``max_delay`` (30 s), ``multiplier`` (2), ``jitter`` (0.5, the share of each wait drawn
    at random), ``max_attempts`` (10; 0: forever) and ``wait`` (True)) brings the client back
    when its server goes away after the handshake: a subprocess is started again, an HTTP
    client opens a new session (after a restart, or a ``404`` for an expired session). Calls
    in flight then fail with :class:`~hypermcp.errors.ConnectionClosed` saying the server went
    away; calls made while reconnecting wait for the new session within their timeout
    (``wait=False``: they fail at once); backoff grows exponentially with jitter up to the
    cap; once the tries are spent the client closes. Listen streams end and resource
    subscriptions are the server's to forget: re-open them on ``"reconnected"``.
    ``connection_handler(event, info)`` is told of each step (see :data:`ConnectionHandler`).
    ``ping_interval`` (seconds; legacy sessions) sends a ``ping`` that long after the last was
    answered: one unanswered for as long again takes the server for gone (a frozen process or
    a silently dead network path), ending the connection or reconnecting.

    Request interceptors: ``interceptors=[f, ...]`` (or :meth:`add_interceptor`), each
    ``async def f(request, call_next)`` around every request this client sends, in order:
    ``request`` is a :class:`ClientRequest` (``method``, ``params``, which it may change),
    ``await call_next(request)`` sends it and returns the result as the server sent it (a
    dict), and the interceptor returns the result to use (changed, or its own without
    sending) or raises (the server's errors arrive as :class:`~hypermcp.errors.McpError`).
    """

    def __init__(
        self,
        target: _ClientConnection | Any,
        *,
        name: str = "hypermcp-client",
        version: str | None = None,
        protocol_version: str | None = None,
        mode: str | None = None,
        timeout: float | None = 60.0,
        sampling_handler: SamplingHandler | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        elicitation_url: bool = False,
        roots: Roots | None = None,
        logging_handler: LoggingHandler | None = None,
        message_handler: MessageHandler | None = None,
        progress_handler: ProgressHandler | None = None,
        extensions: Mapping[str, Mapping[str, Any]] | None = None,
        tasks: bool = False,
        apps: bool = False,
        ping_interval: float | None = None,
        reconnect: bool | Mapping[str, Any] | None = None,
        connection_handler: ConnectionHandler | None = None,
        interceptors: Sequence[Interceptor] | None = None,
    ) -> None:
        if isinstance(target, _ClientConnection):
            conn = target
        else:
            factory = getattr(target, "_client_connection", None)
            if not callable(factory):
                raise TypeError(f"Client() needs a connection or a server object, not {type(target).__name__}")
            conn = factory()
            if not isinstance(conn, _ClientConnection):
                raise TypeError(f"{type(target).__name__}._client_connection() did not return a connection")
        if elicitation_url and elicitation_handler is None:
            raise ValueError("elicitation_url=True needs an elicitation_handler")
        # What this client answers and names; the engine makes its capabilities of them.
        features: dict[str, Any] = {
            "sampling": sampling_handler is not None,
            "elicitation": elicitation_handler is not None,
            "elicitation_url": bool(elicitation_url),
            "roots": roots is not None,
            "tasks": bool(tasks),
            "apps": bool(apps),
            "extensions": {str(k): dict(v) for k, v in (extensions or {}).items()},
        }
        client_version = _core.__version__ if version is None else version
        # A 2026-07-28 server logs only for requests naming a level; a legacy one logs
        # unasked: a client with a logging handler asks for every level.
        log_level = "debug" if logging_handler is not None else None

        def new_session() -> _core.ClientSession:
            return _core.ClientSession(
                name,
                client_version,
                features,
                protocol_version,
                timeout,
                mode,
                log_level,
                ping_interval,
                http=conn._http,
            )

        session = new_session()
        policy = None if reconnect is None or reconnect is False else _core.ReconnectPolicy(reconnect)
        super().__init__(
            conn,
            session,
            new_session=new_session,
            reconnect=policy,
            connection_handler=connection_handler,
            interceptors=interceptors,
            timeout=timeout,
            sampling_handler=sampling_handler,
            elicitation_handler=elicitation_handler,
            roots=roots,
            logging_handler=logging_handler,
            message_handler=message_handler,
            progress_handler=progress_handler,
        )

    @classmethod
    def stdio(
        cls,
        command: str | os.PathLike[str],
        *args: str | os.PathLike[str],
        env: Mapping[str, str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        stderr_handler: StderrHandler | None = None,
        name: str = "hypermcp-client",
        version: str | None = None,
        protocol_version: str | None = None,
        mode: str | None = None,
        timeout: float | None = 60.0,
        sampling_handler: SamplingHandler | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        elicitation_url: bool = False,
        roots: Roots | None = None,
        logging_handler: LoggingHandler | None = None,
        message_handler: MessageHandler | None = None,
        progress_handler: ProgressHandler | None = None,
        extensions: Mapping[str, Mapping[str, Any]] | None = None,
        tasks: bool = False,
        apps: bool = False,
        ping_interval: float | None = None,
        reconnect: bool | Mapping[str, Any] | None = None,
        connection_handler: ConnectionHandler | None = None,
        interceptors: Sequence[Interceptor] | None = None,
    ) -> Client:
        """A client of a server subprocess (``command *args``) speaking over its stdin/stdout.

        ``env`` adds variables to the current environment; ``cwd`` is its working directory.
        Its stderr is captured: the last 64 KiB are kept (:attr:`server_stderr`, and quoted
        in :class:`~hypermcp.errors.ConnectionClosed` when it dies) and each line goes to
        ``stderr_handler`` when given. The process is spawned by :meth:`connect` (or
        ``async with``) and stopped by :meth:`close`. Other options: see :class:`Client`.
        """
        from ._stdio_client import _StdioConnection

        return cls(
            _StdioConnection(command, args, env, cwd, stderr_handler),
            name=name,
            version=version,
            protocol_version=protocol_version,
            mode=mode,
            timeout=timeout,
            sampling_handler=sampling_handler,
            elicitation_handler=elicitation_handler,
            elicitation_url=elicitation_url,
            roots=roots,
            logging_handler=logging_handler,
            message_handler=message_handler,
            progress_handler=progress_handler,
            extensions=extensions,
            tasks=tasks,
            apps=apps,
            ping_interval=ping_interval,
            reconnect=reconnect,
            connection_handler=connection_handler,
            interceptors=interceptors,
        )

    @classmethod
    def http(
        cls,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        transport: str = "auto",
        connect_timeout: float = 10.0,
        open_get_stream: bool = True,
        ca_file: str | os.PathLike[str] | None = None,
        auth: OAuth | Mapping[str, Any] | None = None,
        name: str = "hypermcp-client",
        version: str | None = None,
        protocol_version: str | None = None,
        mode: str | None = None,
        timeout: float | None = 60.0,
        sampling_handler: SamplingHandler | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        elicitation_url: bool = False,
        roots: Roots | None = None,
        logging_handler: LoggingHandler | None = None,
        message_handler: MessageHandler | None = None,
        progress_handler: ProgressHandler | None = None,
        extensions: Mapping[str, Mapping[str, Any]] | None = None,
        tasks: bool = False,
        apps: bool = False,
        ping_interval: float | None = None,
        reconnect: bool | Mapping[str, Any] | None = None,
        connection_handler: ConnectionHandler | None = None,
        interceptors: Sequence[Interceptor] | None = None,
    ) -> Client:
        """A client of a server over HTTP at ``url`` (``http://host:port/mcp`` or ``https://...``).

        ``transport``: ``"auto"`` (Streamable HTTP, falling back to the legacy HTTP+SSE
        transport when the server refuses the ``initialize`` POST with 400, 404 or 405, as the
        spec's backwards-compatibility section describes), ``"http"`` (Streamable HTTP only) or
        ``"sse"`` (``url`` is a legacy SSE endpoint). ``headers`` go with every request
        (``{"Authorization": "Bearer ..."}``). Server messages arrive on the POST streams and
        the GET stream; broken SSE streams resume with ``Last-Event-ID`` after the server's
        ``retry``; ``open_get_stream=False`` leaves out the standalone ``GET`` stream (for
        messages unrelated to any call). :meth:`close` ends the session with ``DELETE``.
        ``connect_timeout`` (s) bounds opening each TCP connection. A server that cannot be
        reached fails :meth:`connect` with :class:`~hypermcp.errors.ConnectionClosed` naming
        the URL; once nothing listens at its address any more, pending and later calls fail
        with ``ConnectionClosed`` too. ``https://`` trusts the system's certificate store (which
        honours ``SSL_CERT_FILE`` and ``SSL_CERT_DIR``) and, with ``ca_file``, the CA certificates
        of that PEM file; host names are always verified. ``auth`` (an :class:`~hypermcp.OAuth`,
        or a dict of its options) authorizes with OAuth 2.1 when the server answers ``401``
        (or ``403`` with ``insufficient_scope``): discovery, registration, the user's
        authorization, tokens and their refresh run in the engine; a request the client cannot
        get authorized fails with :class:`~hypermcp.errors.Unauthorized`. Other options: see
        :class:`Client`."""
        from ._http_client import _HttpConnection

        options = {"transport": transport, "connect_timeout": connect_timeout, "open_get_stream": open_get_stream}
        if ca_file is not None:
            options["ca_file"] = os.fspath(ca_file)
        on_authorize = store = None
        if auth is not None:
            from .auth import OAuth as _OAuth

            options["auth"] = dict(auth.options) if isinstance(auth, _OAuth) else dict(auth)
            on_authorize = auth.on_authorize if isinstance(auth, _OAuth) else None
            store = auth.store if isinstance(auth, _OAuth) else None
        return cls(
            _HttpConnection(url, headers, options, on_authorize, store),
            name=name,
            version=version,
            protocol_version=protocol_version,
            mode=mode,
            timeout=timeout,
            sampling_handler=sampling_handler,
            elicitation_handler=elicitation_handler,
            elicitation_url=elicitation_url,
            roots=roots,
            logging_handler=logging_handler,
            message_handler=message_handler,
            progress_handler=progress_handler,
            extensions=extensions,
            tasks=tasks,
            apps=apps,
            ping_interval=ping_interval,
            reconnect=reconnect,
            connection_handler=connection_handler,
            interceptors=interceptors,
        )

    # ---- lifecycle ---------------------------------------------------------------------------

    async def connect(self) -> Client:
        """Opens the connection and performs the handshake; returns the client."""
        if self._loop is not None:
            raise RuntimeError("this client is already connected")
        if self._closed:
            raise ConnectionClosed(self._close_message or "the client is closed")
        self._loop = asyncio.get_running_loop()
        try:
            await self._conn.start(self)
            await self._handshake()
        except BaseException:
            await self.close()
            raise
        return self

    async def close(self, *, grace: float = 0.0) -> None:
        """Closes the session and the connection (for a subprocess: close stdin, wait 2 s,
        SIGTERM, wait 2 s, SIGKILL). With ``grace`` (seconds), the calls in flight get up to
        that long to be answered first (new calls are refused meanwhile); those still
        pending then fail with ``ConnectionClosed``. A reconnection under way stops."""
        if grace > 0 and not self._closed and self._loop is not None:
            waiting = [f for f in self._pending.values() if not f.done()]
            if waiting:
                self._closing = True
                await asyncio.wait(waiting, timeout=grace)
        self._end("the client closed the connection")
        if self._shutdown is None:
            self._shutdown = asyncio.get_running_loop().create_task(self._conn.wait_closed())
        # Shielded: a cancelled close() still finishes stopping the server.
        await asyncio.shield(self._shutdown)

    async def aclose(self) -> None:
        """Same as :meth:`close`."""
        await self.close()

    async def __aenter__(self) -> Client:
        return await self.connect()

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    # ---- requests ----------------------------------------------------------------------------

    async def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        *,
        progress_handler: ProgressHandler | None = None,
    ) -> Any:
        """Sends any request and returns its result (dicts as :class:`Record`)."""
        return wrap(
            await self._request(
                method,
                None if params is None else dict(params),
                timeout=timeout,
                progress_handler=progress_handler or self._progress_handler,
            )
        )

    async def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        """Sends any notification."""
        self._check_open()
        self._session.notify(method, None if params is None else dict(params))
        self._pump()
        await self._conn.drain()

    async def ping(self, *, timeout: float | None = None) -> None:
        """Checks the server answers."""
        await self._request("ping", timeout=timeout)

    async def _list(
        self,
        method: str,
        key: str,
        cursor: str | None,
        timeout: float | None,
        params: dict[str, Any] | None = None,
    ) -> Page:
        base = params or {}
        if cursor is not None:
            result = await self._request(method, {**base, "cursor": cursor}, timeout=timeout)
            return Page(wrap(result.get(key) or []), result.get("nextCursor") or None)
        items: list[Any] = []
        seen: set[str] = set()
        request: dict[str, Any] | None = params
        while True:
            result = await self._request(method, request, timeout=timeout)
            items.extend(result.get(key) or [])
            cursor = result.get("nextCursor")
            if not cursor:
                return Page(wrap(items))
            if cursor in seen:
                raise InternalError(f"the server repeated the cursor {cursor!r} of {method}")
            seen.add(cursor)
            request = {**base, "cursor": cursor}

    async def list_tools(self, cursor: str | None = None, *, timeout: float | None = None) -> Page:
        """The server's tools. Without a cursor every page is fetched; with one, that page
        (its ``next_cursor`` leads to the next)."""
        return await self._list("tools/list", "tools", cursor, timeout)

    async def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        *,
        timeout: float | None = None,
        progress_handler: ProgressHandler | None = None,
        reset_timeout_on_progress: bool = False,
        raise_on_error: bool = False,
        meta: Mapping[str, Any] | None = None,
    ) -> ToolResult:
        """Calls a tool. The result has ``content``, ``structured_content``, ``is_error`` and
        ``text`` (the joined text blocks). A tool that failed gives ``is_error`` true, or
        raises :class:`~hypermcp.errors.ToolError` (with the result as ``.result``) when
        ``raise_on_error``. ``progress_handler(progress, total, message)`` receives the
        server's progress; ``reset_timeout_on_progress`` restarts the timeout on each."""
        params: dict[str, Any] = {"name": name, "arguments": {} if arguments is None else dict(arguments)}
        if meta is not None:
            params["_meta"] = dict(meta)
        value = await self._request(
            "tools/call",
            params,
            timeout=timeout,
            progress_handler=progress_handler or self._progress_handler,
            reset_timeout_on_progress=reset_timeout_on_progress,
            # A server running the call as a task (tasks extension): its result, when it ends.
            follow_task=True,
        )
        result = ToolResult(as_object(value))
        if raise_on_error and result.is_error:
            err = ToolError(result.text or f"tool {name!r} failed")
            err.result = result  # pyright: ignore[reportAttributeAccessIssue]
            raise err
        return result

    async def list_resources(self, cursor: str | None = None, *, timeout: float | None = None) -> Page:
        """The server's resources (every page without a cursor)."""
        return await self._list("resources/list", "resources", cursor, timeout)

    async def list_resource_templates(self, cursor: str | None = None, *, timeout: float | None = None) -> Page:
        """The server's resource templates (every page without a cursor)."""
        return await self._list("resources/templates/list", "resourceTemplates", cursor, timeout)

    async def read_resource(self, uri: str, *, timeout: float | None = None) -> ResourceResult:
        """Reads a resource: ``contents`` (and ``text``, the joined text contents)."""
        value = await self._request("resources/read", {"uri": str(uri)}, timeout=timeout)
        return ResourceResult(as_object(value))

    # ---- tasks (io.modelcontextprotocol/tasks) ---------------------------------------------------

    async def call_tool_task(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> ToolResult | TaskHandle:
        """Calls a tool and returns at once what the server answered: its result, or (when
        this client declares ``io.modelcontextprotocol/tasks``) a :class:`TaskHandle` of the
        task running it, to wait for, poll or cancel later, from this client or another."""
        params = {"name": name, "arguments": {} if arguments is None else dict(arguments)}
        value = as_object(await self._request("tools/call", params, timeout=timeout))
        # The task: 2026-07-28 answers it in place, 2025-11-25 as ``{"task": {...}}``.
        if value.get("resultType") == "task":
            return self.task(str(value["taskId"]))
        task = value.get("task")
        if isinstance(task, dict) and isinstance(task.get("taskId"), str):
            return self.task(task["taskId"])
        return ToolResult(value)

    def task(self, task_id: str) -> TaskHandle:
        """The task ``task_id`` (tasks extension): one this client started, or another did."""
        return TaskHandle(self, task_id)

    # ---- apps (io.modelcontextprotocol/ui) ---------------------------------------------------------

    async def read_app(self, uri: str, *, timeout: float | None = None) -> Record:
        """Reads the view of an MCP App (``ui://...``): ``html``, ``meta`` (its ``_meta.ui``:
        ``csp``, ``permissions``, ``domain``, ``prefersBorder``), and what to render it with:
        ``csp`` (the Content-Security-Policy) and ``allow`` (the iframe ``allow`` list).
        Raises ``ValueError`` for a URI that is not ``ui://`` or contents that are not
        ``text/html;profile=mcp-app``. (Declare ``apps=True`` so servers know you render
        apps.)"""
        if not str(uri).startswith("ui://"):
            raise ValueError(f"{uri} is not an app: app resources are ui:// URIs")
        result = await self._request("resources/read", {"uri": str(uri)}, timeout=timeout)
        return wrap(_core.read_app(str(uri), as_object(result)))

    # ---- skills (io.modelcontextprotocol/skills) -------------------------------------------------

    async def list_skills(self, cursor: str | None = None, *, timeout: float | None = None) -> Page:
        """The server's skills: entries with ``uri`` (of the ``SKILL.md``), ``frontmatter`` and
        ``resources`` (every file with its digest and size). Nothing is fetched:
        :meth:`load_skill` reads a skill when it is needed."""
        return await self._list("skills/list", "skills", cursor, timeout)

    async def get_skill(self, uri: str, *, timeout: float | None = None) -> Record:
        """The entry of the skill whose ``SKILL.md`` is ``uri`` (listed or not)."""
        result = await self._request("skills/get", {"uri": str(uri)}, timeout=timeout)
        return wrap(as_object(result).get("skill") or {})

    async def read_directory(self, uri: str, cursor: str | None = None, *, timeout: float | None = None) -> Page:
        """The children of a directory resource (``resources/directory/read``, when the server
        declares ``directoryRead``): files, and subdirectories with ``mime_type``
        ``"inode/directory"``."""
        return await self._list("resources/directory/read", "resources", cursor, timeout, {"uri": str(uri)})

    async def read_skill_file(self, skill: Mapping[str, Any], path: str, *, timeout: float | None = None) -> bytes:
        """Reads one file of a skill (by URI, or by path relative to the skill's directory) and
        verifies it against the skill's entry. Raises
        :class:`~hypermcp.errors.SkillVerificationError` for a file the entry does not list
        (before reading it), or whose size, digest or (``SKILL.md``) frontmatter differ."""
        entry = dict(skill)
        _core.check_skill_entry(entry)
        skill_uri = str(entry["uri"])
        uri = path if "://" in path else f"{skill_uri.removesuffix('/SKILL.md')}/{path}"
        files = entry.get("resources")
        if isinstance(files, list) and not any(isinstance(f, dict) and f.get("uri") == uri for f in files):
            raise SkillVerificationError(f"{uri} is not one of the files of {skill_uri}", "unlisted", uri)
        result = await self._request("resources/read", {"uri": uri}, timeout=timeout)
        return _core.verify_skill_read(entry, uri, result)

    async def load_skill(self, skill: Mapping[str, Any], *, timeout: float | None = None) -> LoadedSkill:
        """Loads a skill: reads its ``SKILL.md`` and verifies it against the entry (size,
        digest, frontmatter). Its other files are read when needed, through
        :meth:`LoadedSkill.read`, each verified too."""
        data = await self.read_skill_file(skill, str(skill["uri"]), timeout=timeout)
        return LoadedSkill(self, wrap(dict(skill)), data.decode())

    def listen(
        self,
        *,
        tools: bool = False,
        prompts: bool = False,
        resources: bool = False,
        resource_uris: Sequence[str] = (),
    ) -> Subscription:
        """A ``subscriptions/listen`` stream (2026-07-28) of the changes asked for: tool,
        prompt or resource list changes, updates of the resources named. Use it as ``async
        with client.listen(tools=True) as sub: async for method, params in sub: ...``; the
        first item is ``notifications/subscriptions/acknowledged`` (``params["notifications"]``:
        what the server agreed to). The stream ends when the server or the client closes, or
        on leaving the ``async with``. On a legacy session it raises ``MethodNotFound``:
        change notifications reach ``message_handler`` there (``subscribe_resource`` for
        resource updates)."""
        flt: dict[str, Any] = {}
        if tools:
            flt["toolsListChanged"] = True
        if prompts:
            flt["promptsListChanged"] = True
        if resources:
            flt["resourcesListChanged"] = True
        if resource_uris:
            flt["resourceSubscriptions"] = [str(u) for u in resource_uris]
        return Subscription(self, flt)

    async def subscribe_resource(self, uri: str, *, timeout: float | None = None) -> None:
        """Asks for ``notifications/resources/updated`` about ``uri`` (to ``message_handler``)."""
        await self._request("resources/subscribe", {"uri": str(uri)}, timeout=timeout)

    async def unsubscribe_resource(self, uri: str, *, timeout: float | None = None) -> None:
        """Stops the updates about ``uri``."""
        await self._request("resources/unsubscribe", {"uri": str(uri)}, timeout=timeout)

    async def list_prompts(self, cursor: str | None = None, *, timeout: float | None = None) -> Page:
        """The server's prompts (every page without a cursor)."""
        return await self._list("prompts/list", "prompts", cursor, timeout)

    async def get_prompt(
        self, name: str, arguments: Mapping[str, Any] | None = None, *, timeout: float | None = None
    ) -> Record:
        """Gets a prompt: ``description`` and ``messages``. Argument values that are not
        strings are sent as JSON text (prompt arguments are strings on the wire)."""
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = {k: v if isinstance(v, str) else json.dumps(v) for k, v in arguments.items()}
        value = await self._request("prompts/get", params, timeout=timeout)
        return Record(as_object(value))

    async def complete(
        self,
        ref: Mapping[str, Any],
        argument_name: str,
        value: str,
        context_arguments: Mapping[str, str] | None = None,
        *,
        timeout: float | None = None,
    ) -> CompleteResult:
        """Completion suggestions for an argument of a prompt or resource template
        (``ref``: :func:`prompt_ref` / :func:`resource_ref`); read ``result.completion.values``."""
        params: dict[str, Any] = {"ref": dict(ref), "argument": {"name": argument_name, "value": value}}
        if context_arguments:
            params["context"] = {"arguments": dict(context_arguments)}
        result = await self._request("completion/complete", params, timeout=timeout)
        return CompleteResult(as_object(result))

    async def set_logging_level(self, level: str, *, timeout: float | None = None) -> None:
        """Sets the least severe level of the log messages the server sends (``debug``,
        ``info``, ``notice``, ``warning``, ``error``, ``critical``, ``alert``, ``emergency``)."""
        await self._request("logging/setLevel", {"level": level}, timeout=timeout)

    async def send_roots_list_changed(self) -> None:
        """Tells the server the roots changed (it will ask for them again)."""
        await self.notify("notifications/roots/list_changed")

    async def set_roots(self, roots: Roots) -> None:
        """Replaces the roots and tells the server (the client must have been created with
        ``roots``)."""
        if self._roots is None:
            raise ValueError("this client did not declare roots: pass roots=... when creating it")
        self._roots = roots
        await self.send_roots_list_changed()

    # ---- state -------------------------------------------------------------------------------

    @property
    def server_info(self) -> Record:
        """The server's ``serverInfo`` (``name``, ``version``, ...); empty before the handshake."""
        info = self._server.get_field("serverInfo")
        return info if isinstance(info, Record) else Record()

    @property
    def server_capabilities(self) -> Record:
        """The capabilities the server declared; empty before the handshake."""
        caps = self._server.get_field("capabilities")
        return caps if isinstance(caps, Record) else Record()

    @property
    def instructions(self) -> str | None:
        """The server's instructions, if it gave any."""
        return self._server.get("instructions")

    def supports(self, feature: str) -> bool:
        """Whether the server declared ``feature``: a capability (``"tools"``,
        ``"logging"``, ``"completions"``), one of its flags by a dotted path
        (``"resources.subscribe"``, ``"tools.list_changed"`` or ``"tools.listChanged"``), or an
        extension by its id (``"io.modelcontextprotocol/ui"``; ``"io.modelcontextprotocol/tasks"``
        also for a 2025-11-25 server declaring ``tasks``). False before the handshake."""
        return self._session.supports(feature)

    @property
    def reconnecting(self) -> bool:
        """Whether the client is reconnecting to a server that went away (``reconnect``)."""
        return self._reconnecting is not None

    @property
    def modern(self) -> bool:
        """Whether this session speaks 2026-07-28 (stateless, per-request metadata). Nothing
        changes for callers: an ``input_required`` answer is served by the same sampling,
        elicitation and roots handlers, subscriptions and list changes arrive as before."""
        return self._session.modern

    @property
    def protocol_version(self) -> str | None:
        """The negotiated protocol revision (``None`` before the handshake)."""
        return self._session.protocol_version

    @property
    def server_stderr(self) -> str:
        """The last 64 KiB the server process wrote to stderr (stdio only)."""
        return self._conn.stderr

    @property
    def state(self) -> str:
        """The session state (``uninitialized``, ``initializing``, ``operating``, ``closed``)."""
        return self._session.state

    @property
    def closed(self) -> bool:
        """Whether the session ended (closed by either side)."""
        return self._closed

    @property
    def connection(self) -> _ClientConnection:
        """The transport (for a stdio client, ``connection.pid`` is the server process)."""
        return self._conn
