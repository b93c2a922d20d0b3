"""W3C trace context and OpenTelemetry spans (OpenTelemetry itself is never imported here:
only used once the app has imported it).

A handler reads the caller's trace as ``ctx.trace_context`` (parsed by the engine). While it
runs, the trace is current: a request this process's clients send meanwhile carries it on in
``_meta``. When the app has imported ``opentelemetry`` (``opentelemetry-api``; never a
dependency of hypermcp), each request a server serves gets a ``SERVER`` span whose parent is
the caller's span from ``_meta``, and each request a client sends a ``CLIENT`` span injected
into ``_meta`` with the app's propagators, named and attributed as the OpenTelemetry
conventions for MCP say (``mcp.method.name``, ``gen_ai.tool.name``, ``jsonrpc.request.id``,
``error.type``...).
"""

from __future__ import annotations

import asyncio
import contextvars
import sys
from typing import Any

from . import _core
from ._events import CONTEXT, ID, KIND, META, ORIGIN, PROMPT_NAME, RESOURCE_URI, TOOL_NAME
from .context import InputRequired
from .errors import McpError

#: The ``_meta`` keys of a trace.
KEYS = ("traceparent", "tracestate", "baggage")

#: The trace of the request being served, as its ``_meta`` keys (None outside a handler or
#: when the caller sent none).
_current: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("hypermcp_trace", default=None)

#: What each kind of call event is on the wire.
_METHODS = {
    "tool": "tools/call",
    "resource": "resources/read",
    "prompt": "prompts/get",
    "complete": "completion/complete",
}


class TraceContext:
    """The W3C trace context a request came with (``ctx.trace_context``).

    ``trace_id`` (32 hex digits), ``parent_id`` (the caller's span, 16 hex digits),
    ``sampled``, ``flags``, ``traceparent`` (at version 00), ``tracestate`` (or None),
    ``baggage`` (the decoded W3C baggage entries). :meth:`to_meta` gives the ``_meta`` keys
    that carry it on."""

    __slots__ = ("baggage", "baggage_header", "flags", "parent_id", "sampled", "trace_id", "traceparent", "tracestate")

    def __init__(self, parsed: dict[str, Any]) -> None:
        self.traceparent: str = parsed["traceparent"]
        self.trace_id: str = parsed["traceId"]
        self.parent_id: str = parsed["parentId"]
        self.flags: int = parsed["flags"]
        self.sampled: bool = parsed["sampled"]
        self.tracestate: str | None = parsed["tracestate"]
        #: The raw ``baggage`` value (None when there was none).
        self.baggage_header: str | None = parsed["baggage"]
        self.baggage: dict[str, str] = parsed["baggageItems"]

    def to_meta(self) -> dict[str, str]:
        """``{"traceparent": ..., "tracestate": ..., "baggage": ...}`` (the keys there are)."""
        meta = {"traceparent": self.traceparent}
        if self.tracestate is not None:
            meta["tracestate"] = self.tracestate
        if self.baggage_header is not None:
            meta["baggage"] = self.baggage_header
        return meta

    def __repr__(self) -> str:
        return (
            f"TraceContext(traceparent={self.traceparent!r}, tracestate={self.tracestate!r}, baggage={self.baggage!r})"
        )


def parse(meta: dict[str, Any] | None) -> TraceContext | None:
    """The trace context of a request's ``_meta`` (None without a valid ``traceparent``)."""
    if not meta or "traceparent" not in meta:
        return None
    parsed = _core.trace_context(meta)
    return None if parsed is None else TraceContext(parsed)


def otel() -> Any:
    """``opentelemetry.trace`` when the app imported it, else None (never imported here)."""
    return sys.modules.get("opentelemetry.trace")


def _attributes(method: str, name: str | None, uri: str | None) -> tuple[str, dict[str, Any]]:
    """The span name and attributes the OpenTelemetry conventions for MCP give a request."""
    attrs: dict[str, Any] = {"mcp.method.name": method}
    span_name = method
    if method == "tools/call" and name:
        attrs["gen_ai.tool.name"] = name
        attrs["gen_ai.operation.name"] = "execute_tool"
        span_name = f"{method} {name}"
    elif method == "prompts/get" and name:
        attrs["gen_ai.prompt.name"] = name
        span_name = f"{method} {name}"
    if uri:
        attrs["mcp.resource.uri"] = uri
    return span_name, attrs


def error_type(exc: BaseException, tool: bool) -> str:
    """``error.type`` of a failed request: the JSON-RPC code, ``tool_error`` for a tool that
    failed, ``timeout``, ``cancelled``, or the exception's type."""
    if isinstance(exc, McpError):
        return "timeout" if isinstance(exc, TimeoutError) else str(exc.code)
    if isinstance(exc, asyncio.CancelledError):
        return "cancelled"
    if isinstance(exc, TimeoutError):
        return "timeout"
    return "tool_error" if tool else type(exc).__qualname__


def _end(span: Any, exc: BaseException | None, tool: bool) -> None:
    if exc is not None:
        from opentelemetry.trace import Status, StatusCode

        kind = error_type(exc, tool)
        span.set_attribute("error.type", kind)
        if isinstance(exc, McpError):
            span.set_attribute("rpc.response.status_code", str(exc.code))
        if not isinstance(exc, asyncio.CancelledError):
            span.record_exception(exc)
        span.set_status(Status(StatusCode.ERROR, str(exc) or kind))
    span.end()


# ---- the server side --------------------------------------------------------------------------


class ServerScope:
    """One request being served (its call event ``ev``): its trace made current around the
    handler's first step (asyncio tasks and threads started there inherit it), its span when
    OpenTelemetry is in use, ended when the handler is."""

    __slots__ = ("_otel_token", "_token", "ended_round", "span", "tool")

    def __init__(self, ev: tuple[Any, ...], session: Any) -> None:
        kind, meta = ev[KIND], ev[META]
        self.tool = kind == "tool"
        #: Set when a 2026-07-28 round ended the handler (input_required: not a failure).
        self.ended_round = False
        self.span: Any = None
        self._otel_token: Any = None
        carried = None
        if meta is not None and "traceparent" in meta:
            carried = {k: meta[k] for k in KEYS if isinstance(meta.get(k), str)}
        self._token = _current.set(carried) if carried else None
        trace = otel()
        if trace is None:
            return
        from opentelemetry import context, propagate

        name = ev[TOOL_NAME] if kind == "tool" else ev[PROMPT_NAME] if kind == "prompt" else None
        span_name, attributes = _attributes(_METHODS[kind], name, ev[RESOURCE_URI] if kind == "resource" else None)
        origin, request = ev[ORIGIN], ev[CONTEXT]
        attributes["jsonrpc.request.id"] = str(ev[ID])
        attributes["network.transport"] = "pipe" if origin is None else "tcp"
        version = request["protocolVersion"] if request is not None else session.protocol_version
        if version:
            attributes["mcp.protocol.version"] = version
        if origin is not None and origin.get("sessionId"):
            attributes["mcp.session.id"] = origin["sessionId"]
        parent = propagate.extract(meta or {})
        self.span = trace.get_tracer("hypermcp").start_span(
            span_name, context=parent, kind=trace.SpanKind.SERVER, attributes=attributes
        )
        self._otel_token = context.attach(trace.set_span_in_context(self.span, parent))

    def exit(self) -> None:
        """Leaves the handler's first step (what it started keeps the context)."""
        if self._otel_token is not None:
            from opentelemetry import context

            context.detach(self._otel_token)
            self._otel_token = None
        if self._token is not None:
            _current.reset(self._token)
            self._token = None

    def finish(self, exc: BaseException | None) -> None:
        span, self.span = self.span, None
        if span is None:
            return
        if isinstance(exc, InputRequired):  # the low-level form of the same
            self.ended_round = True
        if self.ended_round or exc is None:
            if self.ended_round:
                span.set_attribute("mcp.result.type", "input_required")
            span.end()
        else:
            _end(span, exc, self.tool)

    def task_done(self, task: asyncio.Future[Any]) -> None:
        self.finish(asyncio.CancelledError() if task.cancelled() else task.exception())


# ---- the client side --------------------------------------------------------------------------


def client_begin(
    method: str, params: dict[str, Any] | None, transport: str | None, protocol_version: str | None
) -> tuple[dict[str, Any] | None, Any]:
    """Adds the current trace to ``params["_meta"]`` (keys already there are kept) and, when
    OpenTelemetry is in use, starts the request's ``CLIENT`` span (returned, to end)."""
    carrier: dict[str, str] = {}
    span = None
    trace = otel()
    if trace is not None:
        from opentelemetry import propagate

        name = uri = None
        if params is not None:
            name = params.get("name") if isinstance(params.get("name"), str) else None
            uri = params.get("uri") if isinstance(params.get("uri"), str) else None
        span_name, attributes = _attributes(method, name, uri)
        if transport is not None:
            attributes["network.transport"] = transport
        if protocol_version:
            attributes["mcp.protocol.version"] = protocol_version
        span = trace.get_tracer("hypermcp").start_span(span_name, kind=trace.SpanKind.CLIENT, attributes=attributes)
        propagate.inject(carrier, context=trace.set_span_in_context(span))
    if not carrier.get("traceparent"):
        carried = _current.get()
        if carried:
            carrier.update(carried)
    if not carrier:
        return params, span
    params = {} if params is None else dict(params)
    meta = params.get("_meta")
    meta = {} if not isinstance(meta, dict) else dict(meta)
    for key, value in carrier.items():
        meta.setdefault(key, value)
    params["_meta"] = meta
    return params, span


def client_end(span: Any, request_id: int | None, exc: BaseException | None, tool_failed: bool) -> None:
    """Ends a ``CLIENT`` span: with the error, or ``tool_error`` for a tool result that says
    it failed (``isError``)."""
    if request_id is not None:
        span.set_attribute("jsonrpc.request.id", str(request_id))
    if exc is None and tool_failed:
        from opentelemetry.trace import Status, StatusCode

        span.set_attribute("error.type", "tool_error")
        span.set_status(Status(StatusCode.ERROR, "the tool reported an error"))
    _end(span, exc, False)


def current() -> dict[str, str] | None:
    """The trace of the request being served here, as ``_meta`` keys (None outside one)."""
    return _current.get()
