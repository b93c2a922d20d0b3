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

Connections
-----------
The client talks to the server through a :class:`_ClientConnection`, a small interface any
transport implements (the subprocess one, :class:`_StdioConnection`, is below; an in-memory
one to a ``Server`` object plugs in the same way)::

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
import inspect
import json
import logging
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, cast

from . import _core
from ._events import (
    CANCELLED_KEY,
    ELICITATION_PARAMS,
    KEY,
    KIND,
    NOTIFICATION_METHOD,
    NOTIFICATION_PARAMS,
    PROGRESS_ID,
    PROGRESS_MESSAGE,
    PROGRESS_TOTAL,
    PROGRESS_VALUE,
    RESPONSE_ID,
    RESPONSE_OK,
    RESPONSE_RESULT,
    SAMPLING_PARAMS,
)
from ._records import CompleteResult, Page, Record, ResourceResult, ToolResult, as_object, wrap
from .errors import INTERNAL_ERROR, ConnectionClosed, InternalError, McpError, ToolError

__all__ = [
    "Client",
    "CompleteResult",
    "ElicitationHandler",
    "LoggingHandler",
    "MessageHandler",
    "Page",
    "ProgressHandler",
    "Record",
    "ResourceResult",
    "Roots",
    "SamplingHandler",
    "StderrHandler",
    "ToolResult",
    "prompt_ref",
    "resource_ref",
]

_log = logging.getLogger("hypermcp.client")

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
#: Roots: URIs (str), paths (as ``file://`` URIs) or ``{"uri", "name"?}`` dicts.
RootList = Sequence[str | os.PathLike[str] | Mapping[str, Any]]
#: A list of roots, or a callable (sync or async) returning the current list.
Roots = RootList | Callable[[], RootList | Awaitable[RootList]]

_STDERR_KEEP = 64 * 1024
_STDERR_IN_MESSAGE = 2000
_DRAIN_ABOVE = 64 * 1024
_CHUNK = 256 * 1024


def prompt_ref(name: str) -> dict[str, Any]:
    """A completion reference to a prompt (for :meth:`Client.complete`)."""
    return {"type": "ref/prompt", "name": name}


def resource_ref(uri: str) -> dict[str, Any]:
    """A completion reference to a resource template (for :meth:`Client.complete`)."""
    return {"type": "ref/resource", "uri": uri}


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


class _ClientConnection:
    """The transport interface of :class:`Client` (see the module docstring)."""

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


class _StdioConnection(_ClientConnection):
    """A server subprocess: JSON-RPC over its stdin/stdout, stderr captured."""

    def __init__(
        self,
        command: str | os.PathLike[str],
        args: Sequence[str | os.PathLike[str]],
        env: Mapping[str, str] | None,
        cwd: str | os.PathLike[str] | None,
        stderr_handler: StderrHandler | None,
    ) -> None:
        self._argv = [os.fspath(command), *(os.fspath(a) for a in args)]
        self._env = env
        self._cwd = cwd
        self._stderr_handler = stderr_handler
        self._proc: asyncio.subprocess.Process | None = None
        self._stdin: asyncio.StreamWriter | None = None
        self._stdout_task: asyncio.Task[None] | None = None
        self._stderr_task: asyncio.Task[None] | None = None
        self._tail = bytearray()
        self._new_group = sys.platform != "win32"

    @property
    def pid(self) -> int | None:
        """The server process id (``None`` before start)."""
        return None if self._proc is None else self._proc.pid

    @property
    def returncode(self) -> int | None:
        """The server's exit status once it exited."""
        return None if self._proc is None else self._proc.returncode

    async def start(self, client: Client) -> None:
        env = None if self._env is None else {**os.environ, **self._env}
        proc = await asyncio.create_subprocess_exec(
            *self._argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=self._cwd,
            # Its own process group, so closing can stop what it spawned (npx -> node) too.
            start_new_session=self._new_group,
        )
        self._proc = proc
        self._stdin = proc.stdin
        loop = asyncio.get_running_loop()
        self._stderr_task = loop.create_task(self._read_stderr())
        self._stdout_task = loop.create_task(self._read_stdout(client))

    async def _read_stdout(self, client: Client) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        stdout = proc.stdout
        try:
            while True:
                data = await stdout.read(_CHUNK)
                if not data:
                    break
                client._feed(data)  # pyright: ignore[reportPrivateUsage]
        except (ConnectionError, OSError) as exc:
            _log.debug("reading the server's stdout failed: %s", exc)
        # The server's output ended: give its stderr and exit status a moment to arrive so
        # the error reported to callers can name them.
        if self._stderr_task is not None:
            await asyncio.wait([self._stderr_task], timeout=0.5)
        if proc.returncode is None:
            waiter = asyncio.ensure_future(proc.wait())
            done, _ = await asyncio.wait([waiter], timeout=0.5)
            if not done:
                waiter.cancel()
        client._eof()  # pyright: ignore[reportPrivateUsage]

    async def _read_stderr(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        stderr = proc.stderr
        handler = self._stderr_handler
        partial = b""
        try:
            while True:
                chunk = await stderr.read(65536)
                if not chunk:
                    break
                self._tail += chunk
                if len(self._tail) > _STDERR_KEEP:
                    del self._tail[: len(self._tail) - _STDERR_KEEP]
                if handler is None:
                    continue
                partial += chunk
                *lines, partial = partial.split(b"\n")
                if len(partial) > _STDERR_KEEP:
                    lines.append(partial)
                    partial = b""
                for line in lines:
                    await self._emit(handler, line)
        except (ConnectionError, OSError) as exc:
            _log.debug("reading the server's stderr failed: %s", exc)
        if handler is not None and partial:
            await self._emit(handler, partial)

    @staticmethod
    async def _emit(handler: StderrHandler, line: bytes) -> None:
        try:
            out = handler(line.rstrip(b"\r").decode("utf-8", "replace"))
            if inspect.isawaitable(out):
                await out
        except Exception:  # noqa: BLE001 - a user callback must not stop the reader
            _log.exception("stderr_handler failed")

    def write(self, data: bytes) -> None:
        stdin = self._stdin
        if stdin is None or stdin.is_closing():
            return
        try:
            stdin.write(data)
        except (ConnectionError, OSError, RuntimeError) as exc:
            _log.debug("writing to the server failed: %s", exc)

    async def drain(self) -> None:
        stdin = self._stdin
        if stdin is None or stdin.is_closing() or stdin.transport.get_write_buffer_size() <= _DRAIN_ABOVE:
            return
        try:
            await stdin.drain()
        except (ConnectionError, OSError) as exc:
            _log.debug("writing to the server failed: %s", exc)

    def close(self) -> None:
        stdin = self._stdin
        if stdin is not None and not stdin.is_closing():
            try:
                stdin.close()
            except (ConnectionError, OSError, RuntimeError):
                pass

    def _signal(self, kill: bool) -> None:
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return  # reaped: the pid (and group id) may belong to someone else now
        try:
            if sys.platform != "win32" and self._new_group:
                os.killpg(proc.pid, signal.SIGKILL if kill else signal.SIGTERM)
            elif kill:
                proc.kill()
            else:
                proc.terminate()
        except (ProcessLookupError, PermissionError):
            pass

    async def _exited_within(self, seconds: float) -> bool:
        proc = self._proc
        assert proc is not None
        if proc.returncode is not None:
            return True
        waiter = asyncio.ensure_future(proc.wait())
        done, _ = await asyncio.wait([waiter], timeout=seconds)
        if not done:
            waiter.cancel()
        return proc.returncode is not None

    async def wait_closed(self) -> None:
        """Closes stdin, waits up to 2 s for the server to exit, then SIGTERM (2 s more),
        then SIGKILL; the process is always reaped."""
        proc = self._proc
        if proc is None:
            return
        self.close()
        try:
            if not await self._exited_within(2.0):
                self._signal(kill=False)
                if not await self._exited_within(2.0):
                    self._signal(kill=True)
                    await proc.wait()
        except BaseException:
            # Cancelled while waiting: never leave the server running (the loop reaps it).
            self._signal(kill=True)
            raise
        finally:
            for task in (self._stdout_task, self._stderr_task):
                if task is not None and not task.done():
                    done, _ = await asyncio.wait([task], timeout=0.5)
                    if not done:
                        task.cancel()
            if self._stdin is not None:
                try:
                    await self._stdin.wait_closed()
                except (ConnectionError, OSError):
                    pass

    @property
    def stderr(self) -> str:
        return self._tail.decode("utf-8", "replace")

    def failure_detail(self) -> str:
        parts: list[str] = []
        code = self.returncode
        if code is not None:
            if code < 0:
                try:
                    name = signal.Signals(-code).name
                except ValueError:
                    name = f"signal {-code}"
                parts.append(f"the server process was killed by {name}")
            else:
                parts.append(f"the server process exited with code {code}")
        tail = self.stderr.strip()
        if tail:
            if len(tail) > _STDERR_IN_MESSAGE:
                tail = "..." + tail[-_STDERR_IN_MESSAGE:]
            parts.append(f"its stderr ended with:\n{tail}")
        return "; ".join(parts)


class _HttpConnection(_ClientConnection):
    """An MCP server over HTTP: Streamable HTTP (or the legacy HTTP+SSE transport), run by the
    engine on its I/O thread as a byte stream this loop drives."""

    def __init__(self, url: str, headers: Mapping[str, str] | None, options: dict[str, Any]) -> None:
        self.url = url
        pairs = [(str(k), str(v)) for k, v in (headers or {}).items()]
        # The engine checks the options now (OptionError), and connects on start().
        self._native = _core.HttpClientStream(url, {"headers": pairs, **options})
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ended: asyncio.Future[None] | None = None
        self._error: str | None = None

    async def start(self, client: Client) -> None:
        """Connects (the TCP connection, and for ``transport="sse"`` the event stream and its
        ``endpoint`` event); raises :class:`~hypermcp.errors.ConnectionClosed` naming the URL
        and the cause when that fails."""
        native = self._native
        self._loop = loop = asyncio.get_running_loop()
        self._ended = ended = loop.create_future()
        opened: asyncio.Future[None] = loop.create_future()
        fd = native.fileno()

        def readable() -> None:
            data, end, error = native.take()
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


class Client:
    """An MCP client session over one connection.

    Use :meth:`Client.stdio` to spawn a server, or pass a connection (or an object offering
    one, such as an in-memory ``Server``). ``async with`` performs the handshake on enter and
    closes on exit; :meth:`connect` / :meth:`close` do the same by hand.

    Options (keyword-only): ``name`` / ``version`` of this client; ``protocol_version`` to ask
    for; ``timeout`` in seconds for every request (default 60; ``None``: no limit; each method
    also takes its own); handlers for server requests: ``sampling_handler(params)``,
    ``elicitation_handler(params)`` (form mode; ``elicitation_url=True`` also declares URL
    mode), ``roots`` (a list or a callable returning it); ``logging_handler(params)`` for log
    messages, ``message_handler(method, params)`` for every other notification,
    ``progress_handler(progress, total, message)`` for calls that do not pass their own.
    Capabilities are declared after the handlers given. Handlers may be sync or async.
    """

    def __init__(
        self,
        target: _ClientConnection | Any,
        *,
        name: str = "hypermcp-client",
        version: str | None = None,
        protocol_version: str | None = None,
        timeout: float | None = 60.0,
        sampling_handler: SamplingHandler | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        elicitation_url: bool = False,
        roots: Roots | None = None,
        logging_handler: LoggingHandler | None = None,
        message_handler: MessageHandler | None = None,
        progress_handler: ProgressHandler | None = None,
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
        caps: dict[str, Any] = {}
        if sampling_handler is not None:
            caps["sampling"] = {}
        if elicitation_handler is not None:
            caps["elicitation"] = {"form": {}, "url": {}} if elicitation_url else {"form": {}}
        if roots is not None:
            caps["roots"] = {"listChanged": True}
        self._session = _core.ClientSession(
            name, _core.__version__ if version is None else version, caps or None, protocol_version, timeout
        )
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
        self._timer: asyncio.TimerHandle | None = None
        self._init_id: int | None = None
        self._server: Record = Record()
        self._pumping = False
        self._repump = False
        self._closed = False
        self._close_message: str | None = None
        self._shutdown: asyncio.Task[None] | None = None

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
        timeout: float | None = 60.0,
        sampling_handler: SamplingHandler | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        elicitation_url: bool = False,
        roots: Roots | None = None,
        logging_handler: LoggingHandler | None = None,
        message_handler: MessageHandler | None = None,
        progress_handler: ProgressHandler | None = None,
    ) -> Client:
        """A client of a server subprocess (``command *args``) speaking over its stdin/stdout.

        ``env`` adds variables to the current environment; ``cwd`` is its working directory.
        Its stderr is captured: the last 64 KiB are kept (:attr:`server_stderr`, and quoted
        in :class:`~hypermcp.errors.ConnectionClosed` when it dies) and each line goes to
        ``stderr_handler`` when given. The process is spawned by :meth:`connect` (or
        ``async with``) and stopped by :meth:`close`. Other options: see :class:`Client`.
        """
        return cls(
            _StdioConnection(command, args, env, cwd, stderr_handler),
            name=name,
            version=version,
            protocol_version=protocol_version,
            timeout=timeout,
            sampling_handler=sampling_handler,
            elicitation_handler=elicitation_handler,
            elicitation_url=elicitation_url,
            roots=roots,
            logging_handler=logging_handler,
            message_handler=message_handler,
            progress_handler=progress_handler,
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
        name: str = "hypermcp-client",
        version: str | None = None,
        protocol_version: str | None = None,
        timeout: float | None = 60.0,
        sampling_handler: SamplingHandler | None = None,
        elicitation_handler: ElicitationHandler | None = None,
        elicitation_url: bool = False,
        roots: Roots | None = None,
        logging_handler: LoggingHandler | None = None,
        message_handler: MessageHandler | None = None,
        progress_handler: ProgressHandler | None = None,
    ) -> Client:
        """A client of a server over HTTP at ``url`` (``http://host:port/mcp``).

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
        with ``ConnectionClosed`` too. Other options: see :class:`Client`."""
        options = {"transport": transport, "connect_timeout": connect_timeout, "open_get_stream": open_get_stream}
        return cls(
            _HttpConnection(url, headers, options),
            name=name,
            version=version,
            protocol_version=protocol_version,
            timeout=timeout,
            sampling_handler=sampling_handler,
            elicitation_handler=elicitation_handler,
            elicitation_url=elicitation_url,
            roots=roots,
            logging_handler=logging_handler,
            message_handler=message_handler,
            progress_handler=progress_handler,
        )

    # ---- lifecycle ---------------------------------------------------------------------------

    async def connect(self) -> Client:
        """Opens the connection and performs the handshake; returns the client."""
        if self._loop is not None:
            raise RuntimeError("this client is already connected")
        if self._closed:
            raise ConnectionClosed(self._close_message or "the client is closed")
        self._loop = loop = asyncio.get_running_loop()
        try:
            await self._conn.start(self)
            if self._closed:  # the connection ended while it opened
                raise ConnectionClosed(self._close_message or "the connection closed while it opened")
            init_id = self._session.initialize()
            self._init_id = init_id
            fut: asyncio.Future[Any] = loop.create_future()
            self._pending[init_id] = fut
            self._pump()
            await self._conn.drain()
            await fut
        except BaseException:
            await self.close()
            raise
        return self

    async def close(self) -> None:
        """Closes the session (pending calls fail with ``ConnectionClosed``) and the
        connection (for a subprocess: close stdin, wait 2 s, SIGTERM, wait 2 s, SIGKILL)."""
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

    def _end(self, message: str) -> None:
        if self._closed:
            return
        self._closed = True
        self._close_message = message
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._session.close()  # pending requests fail, the server's requests are cancelled
        self._pump()
        self._conn.close()

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
        self._end("the server closed the connection" + (f" ({detail})" if detail else ""))

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
            if fut is None or fut.done():
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

    async def _request(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        *,
        timeout: float | None = None,
        progress_handler: ProgressHandler | None = None,
        reset_timeout_on_progress: bool = False,
    ) -> Any:
        self._check_open()
        loop = self._loop
        assert loop is not None
        # Progress is asked for when someone listens, and to let it extend the timeout.
        progress = progress_handler is not None or reset_timeout_on_progress
        rid = self._session.request(method, params, timeout, progress, reset_timeout_on_progress)
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

    async def _list(self, method: str, key: str, cursor: str | None, timeout: float | None) -> Page:
        if cursor is not None:
            result = await self._request(method, {"cursor": cursor}, timeout=timeout)
            return Page(wrap(result.get(key) or []), result.get("nextCursor") or None)
        items: list[Any] = []
        seen: set[str] = set()
        params: dict[str, Any] | None = None
        while True:
            result = await self._request(method, params, timeout=timeout)
            items.extend(result.get(key) or [])
            cursor = result.get("nextCursor")
            if not cursor:
                return Page(wrap(items))
            if cursor in seen:
                raise InternalError(f"the server repeated the cursor {cursor!r} of {method}")
            seen.add(cursor)
            params = {"cursor": cursor}

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
