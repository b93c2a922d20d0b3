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
``on_get_prompt``, ``on_complete``), and the last ``call_next`` calls the handler. A hook
returns what the handler would: the tool's return value (or a ``CallToolResult``), the
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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .context import Context

__all__ = [
    "CallNext",
    "CompleteMessage",
    "GetPromptMessage",
    "Middleware",
    "MiddlewareContext",
    "ReadResourceMessage",
    "CallToolMessage",
]

#: ``call_next(context)``: the rest of the chain.
CallNext = Callable[["MiddlewareContext"], Awaitable[Any]]


@dataclass
class CallToolMessage:
    """The params of ``tools/call``: change ``arguments`` (a dict) to change the call; the
    tool called is ``name`` as the client asked."""

    name: str
    arguments: dict[str, Any]


@dataclass
class ReadResourceMessage:
    """The params of ``resources/read`` (the URI the client asked, read as asked)."""

    uri: str


@dataclass
class GetPromptMessage:
    """The params of ``prompts/get``."""

    name: str
    arguments: dict[str, str]


@dataclass
class CompleteMessage:
    """The params of ``completion/complete`` (``ref``, ``argument``, ``context``)."""

    params: dict[str, Any]


@dataclass
class MiddlewareContext:
    """What a link sees of a request (FastMCP's ``MiddlewareContext``)."""

    #: The JSON-RPC method (``tools/call``, ...).
    method: str
    #: The request's params, typed (``CallToolMessage`` and its kin).
    message: Any
    #: The handler's context: session, client, era, auth, headers, progress, elicitation...
    ctx: Context
    #: Who sent it (``client``).
    source: str = "client"
    #: ``request``.
    type: str = "request"
    #: When it reached the server (``time.time()``).
    timestamp: float = field(default_factory=time.time)

    @property
    def fastmcp_context(self) -> Context:
        """FastMCP's name for :attr:`ctx`."""
        return self.ctx

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
        """Every message (outermost)."""
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


#: The hook of each method.
HOOKS = {
    "tools/call": "on_call_tool",
    "resources/read": "on_read_resource",
    "prompts/get": "on_get_prompt",
    "completion/complete": "on_complete",
}

Hook = Callable[[MiddlewareContext, CallNext], Awaitable[Any]]


class Chain:
    """The hooks a server's middleware defines, per method, in the order they run."""

    __slots__ = ("by_method",)

    def __init__(self, links: list[Middleware]) -> None:
        self.by_method: dict[str, tuple[Hook, ...]] = {}
        for method, own in HOOKS.items():
            hooks: list[Hook] = []
            for link in links:
                for name in ("on_message", "on_request", own):
                    # A hook the class does not override is stepped over.
                    if getattr(type(link), name) is not getattr(Middleware, name):
                        hooks.append(getattr(link, name))
            if hooks:
                self.by_method[method] = tuple(hooks)

    def hooks(self, method: str) -> tuple[Hook, ...] | None:
        """The hooks ``method`` passes, or None when it passes none."""
        return self.by_method.get(method)


async def run(hooks: tuple[Hook, ...], context: MiddlewareContext, handler: CallNext) -> Any:
    """Runs ``context`` through ``hooks``, then ``handler``."""

    def at(i: int) -> CallNext:
        if i == len(hooks):
            return handler
        hook = hooks[i]
        rest = at(i + 1)

        async def step(c: MiddlewareContext) -> Any:
            return await hook(c, rest)

        return step

    return await at(0)(context)
