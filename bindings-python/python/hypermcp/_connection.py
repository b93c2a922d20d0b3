"""One server connection driven by the asyncio loop: bytes in, native session, handlers,
bytes out. Used by every transport (stdio, in-memory); no threads, no per-call hop.

An async handler is started eagerly: its coroutine runs right away, and only if it really
waits is it handed to an ``asyncio.Task``. A handler that finishes without waiting (the
common case) costs no task, and all answers ready at one moment go out in one write.
"""

from __future__ import annotations

import asyncio
import sys
import types
from collections.abc import Awaitable, Callable, Coroutine, Generator, Mapping
from typing import TYPE_CHECKING, Any

# Imported once here, not in each call that passes middleware (an import statement in a
# function costs a lookup of the package a call).
from . import _core, _trace, middleware
from ._events import (
    COMPLETE_PARAMS,
    CONTEXT,
    ID,
    KEY,
    KIND,
    LIST_ITEMS,
    LIST_NAME,
    META,
    METHOD_NAME,
    METHOD_PARAMS,
    NOTIFICATION_METHOD,
    NOTIFICATION_PARAMS,
    ORIGIN,
    PROMPT_ARGUMENTS,
    PROMPT_NAME,
    RESOURCE_TEMPLATE,
    RESOURCE_URI,
    RESOURCE_VARIABLES,
    RESPONSE_ID,
    RESPONSE_OK,
    RESPONSE_RESULT,
    TOKEN,
    TOOL_ARGUMENTS,
    TOOL_NAME,
    TOOL_TASK,
)
from ._handler import _Handler
from ._records import wrap
from .content import CallToolResult, Content, content_dict
from .context import Context, InputRequired
from .errors import McpError, ToolError
from .middleware import CUSTOM, LIST_METHODS, CallToolMessage, CustomMethodMessage, ListMessage, MiddlewareContext

if TYPE_CHECKING:
    from .server import Server


@types.coroutine
def _continue(coro: Coroutine[Any, Any, Any], first: Any) -> Generator[Any, Any, Any]:
    """Drives a coroutine that already yielded ``first`` (inside a Task from here on)."""
    yielded = first
    while True:
        try:
            sent = yield yielded
        except BaseException as exc:  # noqa: BLE001 - delivered into the coroutine
            try:
                yielded = coro.throw(exc)
            except StopIteration as stop:
                return stop.value
        else:
            try:
                yielded = coro.send(sent)
            except StopIteration as stop:
                return stop.value


async def _resume(coro: Coroutine[Any, Any, Any], first: Any) -> Any:
    return await _continue(coro, first)


#: The JSON-RPC method of each kind of call event but tools.
_METHODS = {"resource": "resources/read", "prompt": "prompts/get", "complete": "completion/complete"}


def _tool_kwargs(handler: _Handler, args: dict[str, Any], ctx: Context | None) -> dict[str, Any]:
    """The keyword arguments of a tool's function for ``args`` (and ``ctx``, when given and
    the function takes it)."""
    if handler.needs_bind:
        assert handler.signature is not None  # tools always have one
        kwargs = handler.signature.bind(args)
    elif args.keys() <= handler.param_names:
        kwargs = args
    else:  # extra arguments the schema allowed but the function does not take
        kwargs = {k: v for k, v in args.items() if k in handler.param_names}
    if ctx is not None and handler.context_param is not None:
        kwargs = dict(kwargs)
        kwargs[handler.context_param] = ctx
    return kwargs


def _call(handler: _Handler, kwargs: dict[str, Any]) -> Awaitable[Any]:
    """Calls a handler's function from inside the middleware chain, as the connection would
    (its coroutine; inline in this thread; or in a worker thread)."""
    if handler.is_async:
        return handler.fn(**kwargs)
    if handler.inline:
        return _ready(handler.fn(**kwargs))
    return asyncio.to_thread(handler.fn, **kwargs)


async def _ready(value: Any) -> Any:
    return value


#: What runs at the end of a list's chain (the entries the engine handed over).
_LISTED = _Handler("list", _ready, inline=True, signature=None)


class ServerConnection:
    """A native :class:`_core.ServerSession` plus the handlers of a :class:`Server`.

    ``write`` takes what the session queues for the peer; None when the engine writes and
    times the session itself (HTTP, the task session): nothing to take, no timer to arm, so
    flushing costs no native call."""

    def __init__(self, server: Server, session: _core.ServerSession, write: Callable[[bytes], None] | None) -> None:
        self.server = server
        self.session = session
        self._write = write
        self._loop = asyncio.get_running_loop()
        self._tasks: dict[int, asyncio.Future[Any]] = {}
        self._cancelled: set[int] = set()
        self._waiters: dict[int, asyncio.Future[Any]] = {}
        #: 2026-07-28 calls whose round ends once the loop has run what is ready (so inputs
        #: asked together, e.g. under asyncio.gather, go out together).
        self._rounds: set[int] = set()
        #: The OpenTelemetry spans of handlers running (only when the app uses it).
        self._spans: dict[int, Any] = {}
        self._timer: asyncio.TimerHandle | None = None
        self._idle: asyncio.Event = asyncio.Event()
        self._idle.set()
        #: Calls whose handler became a task's (``ctx.start_task()``): key -> (the task
        #: connection, the handler's key there).
        self._moved: dict[int, tuple[ServerConnection, int]] = {}
        #: The descriptor of a stream session's waker (servers that run tasks).
        self._wake_fd: int | None = None
        self.closed = False

    @classmethod
    def over_stream(cls, server: Server, write: Callable[[bytes], None]) -> ServerConnection:
        """A connection whose bytes this loop carries (stdio, in memory): the server tells it
        of its registry changes (the engine tells HTTP sessions itself)."""
        session = _core.ServerSession(server._native_config(), server._registry)
        tasks = server._task_runtime is not None
        if tasks:
            server._task_connection()
            session.set_tasks(server._task_runtime)
        if server._builtins is not None:
            session.set_middleware(server._builtins)
        conn = cls(server, session, write)
        # Limits kept in Redis admit calls on the engine's thread: they come back through it.
        fd = session.wake_fileno() if tasks or server._builtins is not None else None
        if fd is not None:
            # What the task runtime answers late (tasks/result) or tells (task status).
            conn._wake_fd = fd
            conn._loop.add_reader(fd, conn._woken)
        server._connections.add(conn)
        return conn

    def _woken(self) -> None:
        self.session.clear_wake()
        if not self.closed:
            self.pump()

    # ---- input ------------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Bytes from the client (newline-delimited)."""
        self.session.feed(data)
        self.pump()

    def handle_message(self, data: bytes) -> None:
        """One complete message from the client."""
        self.session.handle_message(data)
        self.pump()

    def pump(self) -> None:
        """Handles every pending event, then writes what is queued."""
        session = self.session
        while True:
            events = session.poll_events()
            if not events:
                break
            self._handle(events)
        self.flush()

    def dispatch(self, events: list[tuple[Any, ...]]) -> None:
        """Handles events delivered from elsewhere (HTTP), then flushes. One event failing
        (a client-notification callback raising) does not lose the others of the batch."""
        for ev in events:
            try:
                self._handle([ev])
            except Exception as exc:  # noqa: BLE001 - reported, the session keeps serving
                self._loop.call_exception_handler(
                    {"message": f"hypermcp: handling a {ev[KIND]!r} event failed", "exception": exc}
                )
        self.flush()

    def _handle(self, events: list[tuple[Any, ...]]) -> None:
        for ev in events:
            kind = ev[KIND]
            if kind == "tool":
                self._tool(ev)
            elif kind == "response":
                fut = self._waiters.pop(ev[RESPONSE_ID], None)
                if fut is not None and not fut.done():
                    if ev[RESPONSE_OK]:
                        fut.set_result(ev[RESPONSE_RESULT])
                    else:
                        fut.set_exception(ev[RESPONSE_RESULT])
            elif kind == "cancelled":
                self._cancel(ev[KEY])
            elif kind in ("resource", "prompt", "complete"):
                self._other(ev)
            elif kind == "notification":
                self.server._on_notification(ev[NOTIFICATION_METHOD], ev[NOTIFICATION_PARAMS])
            elif kind == "method":
                self._method(ev)
            elif kind == "list":
                self._list(ev)

    def flush(self) -> None:
        if self._write is None:
            return
        out = self.session.take_output()
        if out:
            self._write(out)
        self._arm_timer()

    # ---- handlers ---------------------------------------------------------------------------

    def _context(self, ev: tuple[Any, ...]) -> Context:
        ctx = Context(self, ev[KEY], ev[ID], ev[TOKEN], ev[META], ev[CONTEXT], ev[ORIGIN])
        if ev[KIND] == "tool" and ev[TOOL_TASK] is not None:
            ctx.task_id = ev[TOOL_TASK]
        return ctx

    def _tool(self, ev: tuple[Any, ...]) -> None:
        key, name = ev[KEY], ev[TOOL_NAME]
        handler = self.server._tools.get(name)
        if handler is None:
            self.session.complete_missing(key, "tool", name)
            return
        chain = self.server._chain
        entry = chain.hooks("tools/call") if chain is not None else None
        if entry is not None:

            def call(c: MiddlewareContext) -> Awaitable[Any]:
                ctx = c.ctx if handler.context_param is not None else None
                return _call(handler, _tool_kwargs(handler, c.message.arguments, ctx))

            # The arguments are the event's own (nothing else holds them); the handler's
            # context is made when a link or the handler first needs it.
            message = CallToolMessage(name, ev[TOOL_ARGUMENTS])
            context = MiddlewareContext("tools/call", message, lambda: self._context(ev), call)
            self._chained(key, handler, entry, context, self._tool_done, ev)
            return
        try:
            kwargs = _tool_kwargs(handler, ev[TOOL_ARGUMENTS], None)
            if handler.context_param is not None:
                kwargs[handler.context_param] = self._context(ev)
        except Exception as exc:  # noqa: BLE001 - bad arguments are the caller's error
            self._tool_failed(key, exc)
            return
        self._start(key, handler, kwargs, self._tool_done, ev)

    def _chained(
        self,
        key: int,
        handler: _Handler,
        entry: middleware.CallNext,
        context: middleware.MiddlewareContext,
        done: Callable[..., None],
        ev: tuple[Any, ...],
    ) -> None:
        """Runs the call through the server's middleware (``entry``), then the context's
        handler, as one async handler: started eagerly like any other (the first hook's
        coroutine is the handler's), and done as the handler would be."""
        self._start(key, handler, {}, done, ev, lambda: entry(context))

    def _start(
        self,
        key: int,
        handler: _Handler,
        kwargs: dict[str, Any],
        done: Callable[..., None],
        ev: tuple[Any, ...],
        chain: Callable[[], Any] | None = None,
    ) -> None:
        """Runs ``handler`` with ``kwargs`` (or, through middleware, ``chain``: the coroutine
        of the first hook, whose last ``call_next`` calls the handler) and answers with
        ``done``."""
        # A trace from the caller, or OpenTelemetry in the app: the handler runs under it.
        meta = ev[META]
        traced = (meta is not None and "traceparent" in meta) or "opentelemetry.trace" in sys.modules
        scope = _trace.ServerScope(ev, self.session) if traced else None
        try:
            task = self._run(key, handler, kwargs, done, scope, chain)
        finally:
            if scope is not None:
                scope.exit()
        if task is None:
            return
        if scope is not None and scope.span is not None:
            self._spans[key] = scope
            task.add_done_callback(lambda t: self._span_done(key, t))
        # A handler that became a task before it first waited runs on the task connection.
        owner, owner_key = self._moved.get(key, (self, key))
        owner._tasks[owner_key] = task
        owner._idle.clear()
        task.add_done_callback(lambda t: self._task_done(key, handler, t, done))

    def _run(
        self,
        key: int,
        handler: _Handler,
        kwargs: dict[str, Any],
        done: Callable[..., None],
        scope: Any,
        chain: Callable[[], Any] | None = None,
    ) -> asyncio.Future[Any] | None:
        """Runs the handler (or its middleware chain) up to its first wait: its task then, or
        None when it is done."""
        fn = handler.fn
        if chain is not None or handler.is_async:
            try:
                coro = fn(**kwargs) if chain is None else chain()
                first = coro.send(None)
            except StopIteration as stop:
                if scope is not None:
                    scope.finish(None)
                done(key, handler, stop.value, None)
                return None
            except BaseException as exc:
                if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                    raise
                if scope is not None:
                    scope.finish(exc)
                done(key, handler, None, exc)
                return None
            return self._loop.create_task(_resume(coro, first))
        if handler.inline:
            try:
                result = fn(**kwargs)
            except Exception as exc:  # noqa: BLE001 - reported to the client
                if scope is not None:
                    scope.finish(exc)
                done(key, handler, None, exc)
                return None
            if scope is not None:
                scope.finish(None)
            done(key, handler, result, None)
            return None
        return asyncio.ensure_future(asyncio.to_thread(fn, **kwargs))

    def _span_done(self, key: int, task: asyncio.Future[Any]) -> None:
        scope = self._spans.pop(key, None)
        if scope is not None:
            scope.task_done(task)

    def _task_done(self, key: int, handler: _Handler, task: asyncio.Future[Any], done: Callable[..., None]) -> None:
        moved = self._moved.pop(key, None)
        if moved is not None:
            conn, task_key = moved
            conn._task_done(task_key, handler, task, conn._tool_done)
            return
        self._tasks.pop(key, None)
        if not self._tasks:
            self._idle.set()
        if key in self._cancelled:
            self._cancelled.discard(key)
            return
        if task.cancelled():
            exc: BaseException | None = asyncio.CancelledError()
            result = None
        else:
            exc = task.exception()
            result = None if exc is not None else task.result()
        done(key, handler, result, exc)
        self.flush()

    def _tool_failed(self, key: int, exc: BaseException, name: str | None = None) -> None:
        """A tool's failure; ``name`` given: an exception of its handler's, which the engine
        masks when the server says so (``ToolError`` and ``McpError`` pass)."""
        if isinstance(exc, InputRequired):
            self.session.complete_input_required(key, exc.requests, exc.state)
        elif isinstance(exc, McpError):
            self.session.complete_error(key, exc.code, exc.message, exc.data)
        elif name is None or isinstance(exc, ToolError):
            message = str(exc) or type(exc).__name__
            self.session.complete_tool_text(key, message, True)
        else:
            self._failed(key, "tool", name, exc)

    def _failed(self, key: int, kind: str, name: str, exc: BaseException) -> None:
        """Completes a call whose handler raised ``exc`` unexpectedly: the engine says what the
        client reads (the message, or a generic one under ``mask_error_details``, the
        exception and its traceback then logged)."""
        message = str(exc) or type(exc).__name__
        detail = None
        if self.server.mask_error_details:
            import traceback  # only when the traceback goes to the log

            detail = "".join(traceback.format_exception(exc))
        self.session.complete_failure(key, kind, name, message, detail)

    def _tool_done(self, key: int, handler: _Handler, result: Any, exc: BaseException | None) -> None:
        moved = self._moved.pop(key, None)
        if moved is not None:  # it became a task's: its outcome is the task's result
            conn, task_key = moved
            conn._tool_done(task_key, handler, result, exc)
            return
        if exc is not None:
            self._tool_failed(key, exc, handler.name)
            return
        if type(result) is str:
            self.session.complete_tool_text(key, result, False)
            return
        if isinstance(result, InputRequired):
            self.session.complete_input_required(key, result.requests, result.state)
            return
        try:
            self.session.complete_tool(key, self._tool_result(handler, result))
        except Exception as err:  # noqa: BLE001 - a return value we cannot send
            self.session.complete_tool_text(key, f"tool {handler.name!r} returned an invalid result: {err}", True)

    @staticmethod
    def _tool_result(handler: _Handler, result: Any) -> dict[str, Any]:
        sig = handler.signature
        assert sig is not None  # tools always have one
        if isinstance(result, CallToolResult):
            return result.to_dict()
        if isinstance(result, Content):
            return {"content": [result.to_dict()]}
        if result is None and sig.output_schema is None:
            return {"content": []}
        if isinstance(result, (list, tuple)) and result and any(isinstance(c, Content) for c in result):
            return {"content": [content_dict(c) for c in result]}
        structured, text = sig.dump_result(result)
        out: dict[str, Any] = {"content": [{"type": "text", "text": text}]}
        if structured is not None:
            out["structuredContent"] = structured
        return out

    def _other(self, ev: tuple[Any, ...]) -> None:
        kind, key = ev[KIND], ev[KEY]
        if kind == "resource":
            uri = ev[RESOURCE_URI]
            handler = self.server._resources.get(ev[RESOURCE_TEMPLATE] or uri)
            missing = uri
            raw: dict[str, Any] = ev[RESOURCE_VARIABLES]
        elif kind == "prompt":
            name = ev[PROMPT_NAME]
            handler = self.server._prompts.get(name)
            missing = name
            raw = ev[PROMPT_ARGUMENTS]
        else:
            handler = self.server._completion_for(ev[COMPLETE_PARAMS])
            if handler is None:
                self.session.complete_result(key, "complete", {"completion": {"values": []}})
                return
            missing = None
            raw = {}
        if handler is None:
            assert missing is not None
            self.session.complete_missing(key, kind, missing)
            return
        try:
            # Template variables and prompt arguments arrive as strings.
            conv = handler.converters
            kwargs = {k: (conv[k](v) if k in conv else v) for k, v in raw.items() if k in handler.param_names}
        except (TypeError, ValueError) as exc:
            self.session.complete_error(key, -32602, f"Invalid arguments for {kind} {handler.name!r}: {exc}")
            return
        done = lambda k, h, r, e: self._other_done(k, h, r, e, kind=kind, ev=ev)  # noqa: E731
        chain = self.server._chain
        entry = chain.hooks(_METHODS[kind]) if chain is not None else None
        if entry is not None:
            self._other_chained(key, handler, entry, kind, kwargs, ev, done)
            return
        if handler.context_param is not None:
            kwargs[handler.context_param] = self._context(ev)
        if kind == "complete":
            kwargs.update(handler.completion_args(ev[COMPLETE_PARAMS]))
        self._start(key, handler, kwargs, done, ev)

    def _list(self, ev: tuple[Any, ...]) -> None:
        key, which, items = ev[KEY], ev[LIST_NAME], ev[LIST_ITEMS]
        chain = self.server._chain

        method = LIST_METHODS[which]
        entry = chain.hooks(method) if chain is not None else None
        if entry is None:  # the hooks went away meanwhile
            self.session.complete_list(key, items)
            return
        entries = wrap(items)
        context = MiddlewareContext(method, ListMessage(which), lambda: self._context(ev), lambda c: _ready(entries))
        self._chained(key, _LISTED, entry, context, self._list_done, ev)

    def _list_done(self, key: int, handler: _Handler, result: Any, exc: BaseException | None) -> None:
        if exc is not None:
            if isinstance(exc, McpError):
                self.session.complete_error(key, exc.code, exc.message, exc.data)
            else:
                self._failed(key, "list", "", exc)
            return
        if not isinstance(result, (list, tuple)):
            msg = f"a list hook returned {type(result).__name__}: return the list of entries"
            self.session.complete_error(key, -32603, msg)
            return
        try:
            self.session.complete_list(key, list(result))
        except Exception as err:  # noqa: BLE001 - entries we cannot send
            self.session.complete_error(key, -32603, f"a list hook returned invalid entries: {err}")

    def _method(self, ev: tuple[Any, ...]) -> None:
        key, method, params = ev[KEY], ev[METHOD_NAME], ev[METHOD_PARAMS]
        handler = self.server._methods.get(method)
        if handler is None:
            self.session.complete_error(key, -32601, f"Method not found: {method}")
            return

        def args_of(p: dict[str, Any], ctx: Context | None) -> dict[str, Any]:
            try:
                return _tool_kwargs(handler, p, ctx)
            except Exception as exc:  # noqa: BLE001 - the client's params, not ours
                raise McpError(-32602, f"Invalid params for {method}: {exc}") from None

        chain = self.server._chain
        entry = None
        if chain is not None:
            entry = chain.hooks(CUSTOM)
        if entry is not None:

            def call(c: MiddlewareContext) -> Awaitable[Any]:
                return _call(handler, args_of(c.message.params, c.ctx if handler.context_param else None))

            context = MiddlewareContext(method, CustomMethodMessage(dict(params)), lambda: self._context(ev), call)
            self._chained(key, handler, entry, context, self._method_done, ev)
            return
        try:
            kwargs = args_of(params, self._context(ev) if handler.context_param else None)
        except McpError as exc:
            self.session.complete_error(key, exc.code, exc.message)
            return
        self._start(key, handler, kwargs, self._method_done, ev)

    def _method_done(self, key: int, handler: _Handler, result: Any, exc: BaseException | None) -> None:
        if isinstance(result, InputRequired):
            exc = result
        if exc is not None:
            if isinstance(exc, McpError):
                self.session.complete_error(key, exc.code, exc.message, exc.data)
            else:
                self._failed(key, "method", handler.name, exc)
            return
        if result is None:
            result = {}
        if not isinstance(result, Mapping):
            msg = f"{handler.name} returned {type(result).__name__}: a method's result is a dict"
            self.session.complete_error(key, -32603, msg)
            return
        try:
            self.session.complete_result(key, "method", dict(result))
        except Exception as err:  # noqa: BLE001 - a return value we cannot send
            self.session.complete_error(key, -32603, f"{handler.name} returned an invalid result: {err}")

    def _other_chained(
        self,
        key: int,
        handler: _Handler,
        entry: middleware.CallNext,
        kind: str,
        kwargs: dict[str, Any],
        ev: tuple[Any, ...],
        done: Callable[..., None],
    ) -> None:
        message: Any
        if kind == "resource":
            message = middleware.ReadResourceMessage(ev[RESOURCE_URI])
        elif kind == "prompt":
            message = middleware.GetPromptMessage(ev[PROMPT_NAME], dict(ev[PROMPT_ARGUMENTS]))
        else:
            message = middleware.CompleteMessage(dict(ev[COMPLETE_PARAMS]))

        def call(c: middleware.MiddlewareContext) -> Awaitable[Any]:
            args = dict(kwargs)
            if kind == "prompt":  # the arguments as the links left them
                conv = handler.converters
                args = {
                    k: (conv[k](v) if k in conv else v)
                    for k, v in c.message.arguments.items()
                    if k in handler.param_names
                }
            if handler.context_param is not None:
                args[handler.context_param] = c.ctx
            if kind == "complete":
                args.update(handler.completion_args(c.message.params))
            return _call(handler, args)

        context = middleware.MiddlewareContext(_METHODS[kind], message, lambda: self._context(ev), call)
        self._chained(key, handler, entry, context, done, ev)

    def _other_done(
        self, key: int, handler: _Handler, result: Any, exc: BaseException | None, *, kind: str, ev: tuple[Any, ...]
    ) -> None:
        if isinstance(result, InputRequired):
            exc = result
        if exc is not None:
            if isinstance(exc, InputRequired):
                self.session.complete_input_required(key, exc.requests, exc.state)
            elif isinstance(exc, McpError):
                self.session.complete_error(key, exc.code, exc.message, exc.data)
            else:
                name = ev[RESOURCE_URI] if kind == "resource" else handler.name
                self._failed(key, kind, name, exc)
            return
        try:
            if kind == "resource":
                payload = handler.resource_result(ev[RESOURCE_URI], result)
            elif kind == "prompt":
                payload = handler.prompt_result(result)
            else:
                payload = handler.completion_result(result)
            self.session.complete_result(key, kind, payload)
        except Exception as err:  # noqa: BLE001 - a return value we cannot send
            self.session.complete_error(key, -32603, f"{kind} handler returned an invalid result: {err}")

    def _cancel(self, key: int) -> None:
        task = self._tasks.get(key)
        if task is not None:
            self._cancelled.add(key)
            task.cancel()

    def is_cancelled(self, key: int) -> bool:
        return key in self._cancelled

    def start_task(self, ctx: Context) -> bool:
        """Turns the call of ``ctx`` into a task (``ctx.start_task()``): the client is answered
        with the task, and the handler goes on as the task's, on the server's task connection."""
        key = ctx._key
        started = self.session.start_task(key)
        if started is None:
            return False
        task_id, task_key = started
        conn = self.server._task_connection()
        self._moved[key] = (conn, task_key)
        running = self._tasks.pop(key, None)
        if running is not None:
            conn._tasks[task_key] = running
            conn._idle.clear()
            if not self._tasks:
                self._idle.set()
        ctx._conn, ctx._key, ctx.task_id = conn, task_key, task_id
        self.flush()
        return True

    # ---- what Context does ------------------------------------------------------------------

    def progress(self, key: int, progress: float, total: float | None, message: str | None) -> bool:
        sent = self.session.progress(key, progress, total, message)
        self.flush()
        return sent

    def log(self, level: str, data: Any, logger: str | None, related: int | None) -> None:
        if self.session.log(level, data, logger, related):
            self.flush()

    def elicitation_complete(self, elicitation_id: str) -> None:
        self.session.elicitation_complete(elicitation_id)
        self.flush()

    def change_visibility(self, change: dict[str, Any]) -> None:
        self.session.change_visibility(change)
        self.flush()

    async def request_input(
        self, key: int, input_key: str | None, method: str, params: dict[str, Any] | None, timeout: float | None
    ) -> Any:
        """A request to the client for the call ``key``, in either era (see ``Context``)."""
        kind, value = self.session.request_input(key, input_key, method, params, timeout)
        if kind == "answered":
            return value
        if kind == "sent":
            return await self._response(value)
        # 2026-07-28, not answered yet: the call ends with input_required once what is ready
        # to run has run; this handler never resumes (its task is cancelled then).
        if key not in self._rounds:
            self._rounds.add(key)
            self._loop.call_soon(self._end_round, key)
        await self._loop.create_future()
        raise AssertionError("unreachable: the round ended")  # pragma: no cover

    def _end_round(self, key: int) -> None:
        self._rounds.discard(key)
        scope = self._spans.get(key)
        if scope is not None:
            scope.ended_round = True  # input_required: the call goes on in the next round
        task = self._tasks.get(key)
        if task is not None:
            self._cancelled.add(key)  # its outcome is the input_required result
            task.cancel()
        self.session.complete_input_required(key)
        self.flush()

    async def _response(self, rid: int) -> Any:
        fut: asyncio.Future[Any] = self._loop.create_future()
        self._waiters[rid] = fut
        self.flush()
        try:
            return await fut
        except asyncio.CancelledError:
            if self._waiters.pop(rid, None) is not None:
                self.session.cancel_request(rid, "cancelled")
                self.flush()
            raise

    def close_stream(self, key: int) -> bool:
        """Closes the HTTP SSE connection a call answers on (False on other transports)."""
        return self.session.close_stream(key)

    def notify_list_changed(self, kind: str) -> None:
        self.session.list_changed(kind)
        self.flush()

    def notify_resource_updated(self, uri: str) -> None:
        self.session.resource_updated(uri)
        self.flush()

    # ---- time and shutdown ------------------------------------------------------------------

    def _arm_timer(self) -> None:
        delay = self.session.next_timeout()
        if delay is None:
            return
        when = self._loop.time() + delay
        if self._timer is not None:
            if self._timer.when() <= when:
                return
            self._timer.cancel()
        self._timer = self._loop.call_at(when, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        self.session.handle_timeout()
        self.pump()

    def input_closed(self) -> None:
        """The client's input ended: requests to it fail; in-flight calls may still answer."""
        self.session.input_closed()
        self.pump()

    async def drain(self, grace: float) -> None:
        """Waits (at most ``grace`` seconds) for in-flight calls to answer."""
        if self._tasks:
            try:
                await asyncio.wait_for(self._idle.wait(), grace)
            except asyncio.TimeoutError:
                pass

    def close(self) -> None:
        """Ends the connection: in-flight calls are cancelled."""
        if self.closed:
            return
        self.closed = True
        for task in list(self._tasks.values()):
            task.cancel()
        self._tasks.clear()
        for fut in self._waiters.values():
            if not fut.done():
                fut.cancel()
        self._waiters.clear()
        if self._timer is not None:
            self._timer.cancel()
        self.session.close()
        if self._wake_fd is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._wake_fd)
            self._wake_fd = None
        self.server._connections.discard(self)
