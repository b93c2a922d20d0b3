"""MCP middleware: links around every request that reaches a handler, FastMCP's way.

::

    from hypermcp import Middleware, Server

    class Audit(Middleware):
        async def on_call_tool(self, context, call_next):
            print("calling", context.message.name)
            return await call_next(context)

    server = Server("audited")
    server.add_middleware(Audit())

For each request the links run in the order they were added; each runs its ``on_message``,
then its ``on_request``, then the method's own hook (``on_call_tool``, ``on_read_resource``,
``on_get_prompt``, ``on_complete``, the list hooks ``on_list_tools`` and its kin,
``on_custom_method`` for the methods of the server's own), and the last ``call_next`` calls
the handler. A notification the client sends passes ``on_message`` and
``on_notification`` (``context.type == "notification"``), then the server's handlers of it.
A hook returns what the handler would: the tool's return value (or a ``CallToolResult``), the
resource's, the prompt's, the completion's. It may change the arguments in
``context.message`` before it calls ``call_next`` (the name or URI stays what the client
asked: the handler that runs is that one's), return something of its own without calling it, change the result, or
raise (``McpError`` for a JSON-RPC error, ``ToolError`` or any other exception for a failed
tool). ``context.set_state(key, value)`` hands a value to the handler (``ctx.get_state``).

A hook a class does not override costs nothing; a server with no middleware calls its
handlers directly. The links of all the middleware run together in Python: a call crosses
from the engine into Python once, whatever their number.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .context import Context

__all__ = [
    "LoggingMiddleware",
    "RateLimitingMiddleware",
    "ResponseCachingMiddleware",
    "TimingMiddleware",
    "CallNext",
    "CompleteMessage",
    "CustomMethodMessage",
    "NotificationMessage",
    "GetPromptMessage",
    "ListMessage",
    "Middleware",
    "MiddlewareContext",
    "ReadResourceMessage",
    "CallToolMessage",
]

#: ``call_next(context)``: the rest of the chain.
CallNext = Callable[["MiddlewareContext"], Awaitable[Any]]


@dataclass(slots=True)
class ListMessage:
    """A list request (``tools/list``...): ``call_next`` returns every entry the caller may
    see, as dicts with attribute access (``tool.name``, ``tool["inputSchema"]``); a hook
    returns the list to send, filtered or edited. The engine pages it after the chain."""

    #: ``"tools"``, ``"resources"``, ``"resource_templates"`` or ``"prompts"``.
    list: str


@dataclass(slots=True)
class CustomMethodMessage:
    """The params of a request method of the server's own (without ``_meta``): change
    ``params`` (a dict) to change what the handler gets."""

    params: dict[str, Any]


@dataclass(slots=True)
class NotificationMessage:
    """The params of a notification the client sent (without ``_meta``): change ``params``
    (a dict) to change what the server's handler gets."""

    params: dict[str, Any]


@dataclass(slots=True)
class CallToolMessage:
    """The params of ``tools/call``: change ``arguments`` (a dict) to change the call; the
    tool called is ``name`` as the client asked."""

    name: str
    arguments: dict[str, Any]


@dataclass(slots=True)
class ReadResourceMessage:
    """The params of ``resources/read`` (the URI the client asked, read as asked)."""

    uri: str


@dataclass(slots=True)
class GetPromptMessage:
    """The params of ``prompts/get``."""

    name: str
    arguments: dict[str, str]


@dataclass(slots=True)
class CompleteMessage:
    """The params of ``completion/complete`` (``ref``, ``argument``, ``context``)."""

    params: dict[str, Any]


class MiddlewareContext:
    """What a link sees of a request (FastMCP's ``MiddlewareContext``)."""

    __slots__ = ("_call", "_ctx", "_make_ctx", "message", "method", "timestamp", "type")

    #: Who sent it (``client``).
    source = "client"

    def __init__(
        self,
        method: str,
        message: Any,
        ctx: Context | Callable[[], Context] | None,
        call: CallNext | None = None,
        type: str = "request",
    ) -> None:
        #: The JSON-RPC method (``tools/call``, ...).
        self.method = method
        #: ``request``, or ``notification``.
        self.type = type
        #: The request's params, typed (``CallToolMessage`` and its kin).
        self.message = message
        # The handler's context, or what makes it when it is first read (a chain whose links
        # and handler never read it makes none).
        self._ctx: Context | None = None
        self._make_ctx: Callable[[], Context] | None = None
        if callable(ctx):
            self._make_ctx = ctx
        elif ctx is not None:
            self._ctx = ctx
        #: When it reached the server (``time.time()``).
        self.timestamp = time.time()
        self._call = call

    @property
    def ctx(self) -> Context:
        """The handler's context: session, client, era, auth, headers, progress,
        elicitation... (the same object the handler gets)."""
        ctx = self._ctx
        if ctx is None:
            if self._make_ctx is None:
                raise RuntimeError(f"{self.method}: a notification has no handler context")
            ctx = self._ctx = self._make_ctx()
        return ctx

    def __repr__(self) -> str:
        return f"MiddlewareContext(method={self.method!r}, message={self.message!r})"

    @property
    def fastmcp_context(self) -> Context | None:
        """FastMCP's name for :attr:`ctx` (None for a notification, as in FastMCP)."""
        return None if self.type == "notification" else self.ctx

    @property
    def round(self) -> int:
        """The round of a 2026-07-28 multi round-trip call (0 on the first; legacy: 0)."""
        return self.ctx._round()  # pyright: ignore[reportPrivateUsage]

    def set_state(self, key: str, value: Any) -> None:
        """A value for the handler (``ctx.get_state(key)``) and later links, this request only."""
        self.ctx.set_state(key, value)

    def get_state(self, key: str, default: Any = None) -> Any:
        """A value set with :meth:`set_state` for this request."""
        return self.ctx.get_state(key, default)


class Middleware:
    """A link of a server's chain: override the hooks you need (each defaults to passing the
    request on). ``server.add_middleware(m)`` adds one."""

    async def on_message(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """Every message (outermost): each request, and each notification that reaches the
        server's code (see :meth:`on_notification`; ``context.type`` says which)."""
        return await call_next(context)

    async def on_request(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """Every request (inside ``on_message``)."""
        return await call_next(context)

    async def on_call_tool(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """``tools/call``: ``context.message`` is a :class:`CallToolMessage`."""
        return await call_next(context)

    async def on_read_resource(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """``resources/read``: ``context.message`` is a :class:`ReadResourceMessage`."""
        return await call_next(context)

    async def on_get_prompt(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """``prompts/get``: ``context.message`` is a :class:`GetPromptMessage`."""
        return await call_next(context)

    async def on_complete(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """``completion/complete``: ``context.message`` is a :class:`CompleteMessage`."""
        return await call_next(context)

    async def on_list_tools(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """``tools/list``: ``call_next`` returns the tools (a list of dicts with attribute
        access); return the list to send."""
        return await call_next(context)

    async def on_list_resources(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """``resources/list``: as :meth:`on_list_tools`, with the resources."""
        return await call_next(context)

    async def on_list_resource_templates(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """``resources/templates/list``: as :meth:`on_list_tools`, with the templates."""
        return await call_next(context)

    async def on_list_prompts(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """``prompts/list``: as :meth:`on_list_tools`, with the prompts."""
        return await call_next(context)

    async def on_custom_method(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """A request method of the server's own (:meth:`Server.method`), whichever:
        ``context.method`` names it, ``context.message`` is a :class:`CustomMethodMessage`."""
        return await call_next(context)

    async def on_notification(self, context: MiddlewareContext, call_next: CallNext) -> Any:
        """A notification the client sent that reaches the server's code (inside
        ``on_message``): those of its own (:meth:`Server.on_notification`),
        ``notifications/roots/list_changed`` and any other the engine does not act on itself
        (``initialized``, ``cancelled`` and ``progress`` are the engine's).
        ``context.message`` is a :class:`NotificationMessage`; ``call_next`` runs the
        server's handlers of it (a hook that does not call it drops the notification); what
        it returns is ignored."""
        return await call_next(context)


class Builtin(Middleware):
    """A middleware the engine runs (the built-ins below): it passes no call through Python,
    so it costs a few atomics a call, whatever the number of them. Added with
    ``server.add_middleware`` like any other; they run around the Python middleware (first,
    in the order they were added), on every transport and in both eras."""

    #: The engine's name of it.
    _kind: str = ""

    def __init__(self, options: dict[str, Any]) -> None:
        from . import _core

        self._options = {k: v for k, v in options.items() if v is not None}
        # Checked now, with the message naming the option, rather than when a server runs it.
        _core.BuiltinMiddleware().add(self._kind, self._options)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._options!r})"


class RateLimitingMiddleware(Builtin):
    """A token bucket per client (FastMCP's ``RateLimitingMiddleware``): ``burst_capacity``
    calls at once (twice ``max_requests_per_second`` by default), refilled at
    ``max_requests_per_second``. The client is its access token's subject, else its legacy
    session, else its address (over stdio, the connection's one client); with
    ``global_limit=True`` every client shares one bucket. ``tools`` gives tools a bucket of
    their own on top (``{"search": 1.0}`` or ``{"search": (1.0, 2)}``: per second, burst).
    ``store="redis://host:6379/0"`` keeps the buckets in Redis, shared by every replica.

    A refused request gets :class:`~hypermcp.errors.RateLimited` (-32029) with
    ``data["retryAfterMs"]``. Counted: tool calls, reads, prompts, completions and methods
    of your own (lists are served from the catalogue unless a list hook asks for them)."""

    _kind = "rate_limiting"

    def __init__(
        self,
        max_requests_per_second: float = 10.0,
        burst_capacity: float | None = None,
        *,
        global_limit: bool = False,
        tools: dict[str, float | tuple[float, float]] | None = None,
        store: str | None = None,
    ) -> None:
        per_tool: dict[str, dict[str, float]] | None = None
        if tools is not None:
            per_tool = {}
            for name, limit in tools.items():
                if isinstance(limit, tuple):
                    rate, burst = limit
                    per_tool[name] = {"maxRequestsPerSecond": rate, "burstCapacity": burst}
                else:
                    per_tool[name] = {"maxRequestsPerSecond": limit}
        super().__init__(
            {
                "maxRequestsPerSecond": max_requests_per_second,
                "burstCapacity": burst_capacity,
                "globalLimit": global_limit,
                "tools": per_tool,
                "store": store,
            }
        )


class ResponseCachingMiddleware(Builtin):
    """Keeps successful tool results and resource contents for ``ttl`` seconds (FastMCP's
    ``ResponseCachingMiddleware``), keyed by the tool's name and arguments (or the URI) and
    the caller's token subject: a call met again within ``ttl`` is answered from the cache
    and never reaches Python. ``tools`` limits it to those tools, ``excluded_tools`` leaves
    those out, ``resources=False`` keeps no resource contents. Results with ``isError``,
    errors and calls run as tasks are never kept. A tool's results are forgotten when the
    tool list changes, a resource's contents when it is updated
    (``server.notify_resource_updated``) or the resource list changes; at most
    ``max_entries`` are kept, the oldest going first. ``store="redis://host:6379/0"`` keeps
    the answers in Redis, shared by every replica (one replica's change forgets for all;
    give each server a database of its own)."""

    _kind = "response_caching"

    def __init__(
        self,
        ttl: float = 60.0,
        *,
        tools: list[str] | None = None,
        excluded_tools: list[str] | None = None,
        resources: bool = True,
        max_entries: int = 10_000,
        store: str | None = None,
    ) -> None:
        super().__init__(
            {
                "ttl": ttl * 1000,
                "tools": tools,
                "excludedTools": excluded_tools,
                "resources": resources,
                "maxEntries": max_entries,
                "store": store,
            }
        )


class TimingMiddleware(Builtin):
    """Duration histograms per method and per tool (``hypermcp_request_duration_seconds``,
    ``hypermcp_tool_duration_seconds``) in :func:`hypermcp.metrics_text` and on an HTTP
    server's ``metrics_path``."""

    _kind = "timing"

    def __init__(self) -> None:
        super().__init__({})


class LoggingMiddleware(Builtin):
    """One line a request (FastMCP's ``LoggingMiddleware``) to the logger
    ``hypermcp.requests``: ``request method="tools/call" name="echo" outcome="ok"
    duration_ms=0.21 session="…" client="app/1.0"``, formatted by the engine and handed to
    ``logging`` in batches from a thread of its own. ``include_payloads`` adds the
    arguments, cut at ``max_payload_length`` bytes; ``methods`` limits it to those methods.
    Adding it sends the engine's log to ``logging`` (:func:`hypermcp.enable_logging`) at
    ``log_level`` if it was not already."""

    _kind = "logging"

    def __init__(
        self,
        log_level: int = 20,
        include_payloads: bool = False,
        max_payload_length: int = 1000,
        methods: list[str] | None = None,
    ) -> None:
        import logging

        self.log_level = log_level
        super().__init__(
            {
                "level": logging.getLevelName(log_level)
                .lower()
                .replace("warning", "warn")
                .replace("critical", "error"),
                "includePayloads": include_payloads,
                "maxPayloadLength": max_payload_length,
                "methods": methods,
            }
        )


#: The key of the chain's entry for the methods of the server's own.
CUSTOM = "*"
#: The key of the chain's entry for notifications.
NOTIFICATION = "!"

#: The hook of each method.
HOOKS = {
    "tools/call": "on_call_tool",
    "resources/read": "on_read_resource",
    "prompts/get": "on_get_prompt",
    "completion/complete": "on_complete",
    "tools/list": "on_list_tools",
    "resources/list": "on_list_resources",
    "resources/templates/list": "on_list_resource_templates",
    "prompts/list": "on_list_prompts",
    CUSTOM: "on_custom_method",
}

#: The method of each list, by the engine's name of it.
LIST_METHODS = {
    "tools": "tools/list",
    "resources": "resources/list",
    "resource_templates": "resources/templates/list",
    "prompts": "prompts/list",
}

Hook = Callable[[MiddlewareContext, CallNext], Awaitable[Any]]


class Chain:
    """The hooks a server's middleware defines, per method, composed once: calling a
    method's entry with a context runs the hooks in order, then the context's handler."""

    __slots__ = ("by_method",)

    def __init__(self, links: list[Middleware]) -> None:
        self.by_method: dict[str, CallNext] = {}
        for method, own in HOOKS.items():
            hooks: list[Hook] = []
            for link in links:
                for name in ("on_message", "on_request", own):
                    # A hook the class does not override is stepped over.
                    if getattr(type(link), name) is not getattr(Middleware, name):
                        hooks.append(getattr(link, name))
            if hooks:
                self.by_method[method] = _compose(hooks)
        notified = [
            getattr(link, name)
            for link in links
            for name in ("on_message", "on_notification")
            if getattr(type(link), name) is not getattr(Middleware, name)
        ]
        if notified:
            self.by_method[NOTIFICATION] = _compose(notified)

    def hooks(self, method: str) -> CallNext | None:
        """The entry of the hooks ``method`` passes, or None when it passes none."""
        return self.by_method.get(method)

    def lists(self) -> list[str]:
        """The lists (engine names) some hook sees: the engine hands those to the chain."""
        return [name for name, method in LIST_METHODS.items() if method in self.by_method]


def _compose(hooks: list[Hook]) -> CallNext:
    entry: CallNext = _handler
    for hook in reversed(hooks):
        entry = _step(hook, entry)
    return entry


def _step(hook: Hook, rest: CallNext) -> CallNext:
    # A plain function: `await call_next(c)` awaits the next hook's own coroutine, no frame
    # of the chain's between them.
    def step(context: MiddlewareContext) -> Awaitable[Any]:
        return hook(context, rest)

    return step


def _handler(context: MiddlewareContext) -> Awaitable[Any]:
    """The end of the chain: the handler the connection set for this request."""
    call = context._call  # pyright: ignore[reportPrivateUsage]
    assert call is not None, "a context made by the server has its handler"
    return call(context)
