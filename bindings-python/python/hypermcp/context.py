"""The per-request :class:`Context` a handler receives when it asks for one::

    @server.tool
    async def slow(n: int, ctx: Context) -> str:
        for i in range(n):
            await ctx.report_progress(i + 1, total=n)
        await ctx.info("done")
        return "ok"

It is found by annotation and hidden from the input schema.

Both eras, one handler. ``ctx.elicit``, ``ctx.sample`` and ``ctx.list_roots`` work the same
for every client. A legacy client (2024-11-05 to 2025-11-25) gets a real request while the
handler waits. A 2026-07-28 client has no channel back while a call runs: the call ends with
an ``input_required`` result, the client answers and retries, and **the handler runs again
from the start**, the awaited call then returning the answer. So code before such an await
runs once per round: put side effects (writes, payments, emails) after the inputs they need.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ._options import visibility_filter

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._connection import ServerConnection
    from ._core import Deferred
    from ._options import Filter
    from ._trace import TraceContext

__all__ = ["AuthInfo", "Context", "ElicitResult", "Headers", "InputRequired"]


_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


class AuthInfo:
    """Who the request's access token speaks for, when the HTTP server verifies tokens (its
    ``auth`` option). The token itself is not kept."""

    __slots__ = ("claims", "client_id", "expires_at", "scopes", "subject")

    def __init__(self, info: dict[str, Any]) -> None:
        #: The subject (``sub``): the user, or the client acting on its own behalf.
        self.subject: str | None = info.get("subject")
        #: The client the token was issued to (``client_id``, else ``azp``).
        self.client_id: str | None = info.get("client_id")
        #: The scopes granted.
        self.scopes: tuple[str, ...] = tuple(info.get("scopes") or ())
        #: When the token expires (seconds since the Unix epoch), if it says.
        self.expires_at: int | None = info.get("expires_at")
        #: Every claim of the token (or of the introspection answer).
        self.claims: dict[str, Any] = info.get("claims") or {}

    def has_scopes(self, *scopes: str) -> bool:
        """Whether every one of ``scopes`` was granted."""
        return all(s in self.scopes for s in scopes)

    def __repr__(self) -> str:
        return f"AuthInfo(subject={self.subject!r}, client_id={self.client_id!r}, scopes={list(self.scopes)!r})"


class Headers(Mapping[str, str]):
    """The request's HTTP headers, read-only, names in any case (``ctx.headers["user-agent"]``).
    A header sent twice reads as its first value; :meth:`get_all` gives every one. A verified
    token's ``Authorization`` and ``DPoP`` headers are left out (see ``ctx.auth``)."""

    __slots__ = ("_items",)

    def __init__(self, items: list[list[str]] | None = None) -> None:
        self._items: list[tuple[str, str]] = [(n, v) for n, v in items or ()]

    def __getitem__(self, name: str) -> str:
        name = name.lower()
        for n, v in self._items:
            if n == name:
                return v
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(dict.fromkeys(n for n, _ in self._items))

    def __len__(self) -> int:
        return len({n for n, _ in self._items})

    def get_all(self, name: str) -> list[str]:
        """Every value of header ``name``, in order."""
        name = name.lower()
        return [v for n, v in self._items if n == name]

    def __repr__(self) -> str:
        return f"Headers({dict(self)!r})"


_NO_HEADERS = Headers()


class ElicitResult:
    """What the user did with an elicitation: ``action`` is "accept", "decline" or
    "cancel"; ``content`` holds the form values when accepted."""

    __slots__ = ("action", "content")

    def __init__(self, action: str, content: dict[str, Any] | None = None) -> None:
        self.action = action
        self.content = content

    @property
    def accepted(self) -> bool:
        """Whether the user submitted the form (or completed the URL flow)."""
        return self.action == "accept"

    def __repr__(self) -> str:
        return f"ElicitResult(action={self.action!r}, content={self.content!r})"


class InputRequired(Exception):
    """Raise (or return) in a tool, prompt or resource handler to end a 2026-07-28 call with
    your own ``input_required`` result: the low-level form of multi round-trip requests.

    ``requests`` maps keys of your choosing to ``{"method": ..., "params": ...}`` (one of
    ``elicitation/create``, ``sampling/createMessage``, ``roots/list``); ``state`` is yours
    and comes back on the retry as ``ctx.request_state`` (sealed by hypermcp: the client can
    neither read nor change it), with the answers in ``ctx.input_responses``. Most handlers
    never need this: ``await ctx.elicit(...)`` does it for them, in both eras."""

    def __init__(self, requests: dict[str, dict[str, Any]] | None = None, state: str | None = None) -> None:
        super().__init__("input required")
        self.requests = requests or {}
        self.state = state


class Context:
    """Progress, logging, elicitation, sampling, roots, the request's identity and
    cancellation, for the request being served."""

    __slots__ = ("_conn", "_key", "_origin", "_request", "_state", "meta", "progress_token", "request_id", "task_id")

    def __init__(
        self,
        conn: ServerConnection,
        key: int,
        request_id: int | str,
        progress_token: int | str | None,
        meta: dict[str, Any] | None,
        request: Mapping[str, Any] | Deferred | None = None,
        origin: Mapping[str, Any] | Deferred | None = None,
    ) -> None:
        self._conn = conn
        self._origin = origin
        self._key = key
        #: The JSON-RPC id of the request.
        self.request_id = request_id
        #: The progress token the client asked progress under, if any.
        self.progress_token = progress_token
        #: The request's ``_meta``.
        self.meta = meta
        self._request = request
        #: The id of the task this call runs as (tasks extension), else None.
        self.task_id: str | None = None
        self._state: dict[str, Any] | None = None

    # ---- state -----------------------------------------------------------------------------

    def set_state(self, key: str, value: Any) -> None:
        """Keeps ``value`` under ``key`` for the rest of this request (middleware hands the
        handler values this way: ``context.set_state`` in a hook, ``ctx.get_state`` here)."""
        if self._state is None:
            self._state = {}
        self._state[key] = value

    def get_state(self, key: str, default: Any = None) -> Any:
        """A value set with :meth:`set_state` for this request, else ``default``."""
        return default if self._state is None else self._state.get(key, default)

    def _round(self) -> int:
        """The round of a 2026-07-28 multi round-trip call (0 on the first, and in legacy)."""
        return 0 if self._request is None else int(self._request.get("round") or 0)

    # ---- identity --------------------------------------------------------------------------

    @property
    def client_info(self) -> dict[str, Any] | None:
        """The client's ``{name, version, ...}`` (sent with each request at 2026-07-28; at
        ``initialize`` before)."""
        if self._request is not None:
            info: dict[str, Any] | None = self._request.get("clientInfo")
            return info
        return self._conn.session.client_info

    @property
    def client_capabilities(self) -> dict[str, Any]:
        """The capabilities the client declared (for this request, at 2026-07-28)."""
        if self._request is not None:
            caps: dict[str, Any] = self._request["clientCapabilities"]
            return caps
        return self._conn.session.client_capabilities

    def client_extension(self, extension_id: str) -> dict[str, Any] | None:
        """The settings of extension ``extension_id`` when the client declared it (with this
        request at 2026-07-28, at ``initialize`` before), else None. A request that cannot be
        served without it answers ``McpError(-32021, ..., {"requiredCapabilities":
        {"extensions": {extension_id: {}}}})``."""
        extensions = self.client_capabilities.get("extensions") or {}
        settings: dict[str, Any] | None = extensions.get(extension_id)
        return settings

    def require_extension(self, extension_id: str) -> dict[str, Any]:
        """The client's settings of extension ``extension_id``; raises
        :class:`~hypermcp.errors.MissingRequiredClientCapability` (-32021, naming it in
        ``data.requiredCapabilities.extensions``) when the client did not declare it."""
        settings = self.client_extension(extension_id)
        if settings is None:
            from .errors import MissingRequiredClientCapability

            raise MissingRequiredClientCapability(
                f"Missing required client capability: extension {extension_id}",
                {"requiredCapabilities": {"extensions": {extension_id: {}}}},
            )
        return settings

    @property
    def protocol_version(self) -> str | None:
        """The revision this request speaks."""
        if self._request is not None:
            version: str = self._request["protocolVersion"]
            return version
        return self._conn.session.protocol_version

    @property
    def input_responses(self) -> dict[str, Any] | None:
        """The client's answers to input requests so far (2026-07-28; None in a legacy
        session or before any). The low-level form: ``ctx.elicit`` reads them for you."""
        if self._request is None:
            return None
        answers: dict[str, Any] | None = self._request.get("inputResponses")
        return answers

    @property
    def request_state(self) -> str | None:
        """The ``state`` your handler raised :class:`InputRequired` with in the previous
        round, now that the client retried (2026-07-28)."""
        if self._request is None:
            return None
        state: str | None = self._request.get("requestState")
        return state

    @property
    def trace_context(self) -> TraceContext | None:
        """The W3C trace context the caller sent in ``_meta`` (``traceparent``,
        ``tracestate``, ``baggage``): ``trace_id``, ``parent_id``, ``sampled``, ``baggage``
        (a dict)... None when it sent no valid one. While this handler runs, the requests
        your clients send carry it on (or, with OpenTelemetry, this request's span)."""
        from ._trace import parse

        return parse(self.meta)

    # ---- the HTTP request ------------------------------------------------------------------

    @property
    def headers(self) -> Headers:
        """The HTTP headers of the request (empty over stdio)."""
        if self._origin is None:
            return _NO_HEADERS
        return Headers(self._origin.get("headers"))

    @property
    def session_id(self) -> str | None:
        """The ``Mcp-Session-Id`` of a legacy HTTP session (None over stdio, in stateless mode
        and at 2026-07-28)."""
        return None if self._origin is None else self._origin.get("sessionId")

    @property
    def auth(self) -> AuthInfo | None:
        """Who the request's access token speaks for (``subject``, ``client_id``, ``scopes``,
        ``claims``) when the HTTP server verifies tokens (its ``auth`` option); else None."""
        info = None if self._origin is None else self._origin.get("auth")
        return None if info is None else AuthInfo(info)

    @property
    def lifespan_context(self) -> Any:
        """What the server's lifespan yielded (None without a lifespan)."""
        return self._conn.server.lifespan_context

    @property
    def server(self) -> Any:
        """The :class:`~hypermcp.Server` serving this request."""
        return self._conn.server

    @property
    def cancelled(self) -> bool:
        """Whether the client cancelled this request, or its task (``tasks/cancel``). (The
        handler also gets ``asyncio.CancelledError`` at its next await.)"""
        return self._conn.is_cancelled(self._key)

    # ---- tasks -------------------------------------------------------------------------------

    async def start_task(self) -> bool:
        """Turns this call into a task (a tool registered with ``task="manual"``): the client
        is answered with the task at once, and this handler goes on, its return value
        becoming the task's result, its progress the task's status message and its
        ``elicit`` / ``sample`` / ``list_roots`` the task's input requests (answered with
        ``tasks/update``). Ask for what you need to decide first: input asked before a
        task exists goes through ordinary multi round-trip requests. Returns False (the call
        goes on as an ordinary one) when the call cannot become a task: its client did not
        declare the tasks extension, or the tool is not in manual mode. True when it
        already is one."""
        if self.task_id is not None:
            return True
        return self._conn.start_task(self)

    # ---- progress and logging ----------------------------------------------------------------

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> bool:
        """Reports progress (values must increase). False when the client asked for none."""
        return self._conn.progress(self._key, progress, total, message)

    def close_sse_stream(self) -> bool:
        """Over HTTP, closes the SSE connection this call answers on after a ``retry`` hint;
        the client reconnects with ``Last-Event-ID`` and gets the rest (SSE polling,
        2025-11-25). Returns False where there is no such stream (stdio, JSON replies)."""
        return self._conn.close_stream(self._key)

    async def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Sends a log message (``notifications/message``), filtered by the client's level."""
        if level not in _LEVELS:
            raise ValueError(f"unknown logging level {level!r} (one of {', '.join(_LEVELS)})")
        self._conn.log(level, data, logger, self._key)

    async def debug(self, data: Any, logger: str | None = None) -> None:
        """Logs at debug level."""
        await self.log("debug", data, logger)

    async def info(self, data: Any, logger: str | None = None) -> None:
        """Logs at info level."""
        await self.log("info", data, logger)

    async def warning(self, data: Any, logger: str | None = None) -> None:
        """Logs at warning level."""
        await self.log("warning", data, logger)

    async def error(self, data: Any, logger: str | None = None) -> None:
        """Logs at error level."""
        await self.log("error", data, logger)

    # ---- requests to the client ----------------------------------------------------------------

    async def request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float | None = None, *, key: str | None = None
    ) -> Any:
        """Sends any request to the client on behalf of this one and returns its result.

        At 2026-07-28 only ``elicitation/create``, ``sampling/createMessage`` and
        ``roots/list`` can be asked, as input requests (see the module docs: the handler runs
        again on the client's retry). ``key`` names the input in ``inputRequests`` (default:
        the method's short name and a call counter, ``elicitation_1``: stable as long as
        the handler asks in the same order). ``timeout`` applies to legacy clients."""
        return await self._conn.request_input(self._key, key, method, params, timeout)

    async def elicit(
        self,
        message: str,
        schema: dict[str, Any] | type | None = None,
        *,
        url: str | None = None,
        elicitation_id: str | None = None,
        timeout: float | None = None,
        key: str | None = None,
    ) -> ElicitResult:
        """Asks the user for input: a form described by ``schema`` (a flat JSON Schema object,
        or a dataclass/TypedDict type), or a ``url`` to open (URL mode, 2025-11-25)."""
        if url is not None:
            if elicitation_id is None:
                import uuid

                elicitation_id = uuid.uuid4().hex
            params: dict[str, Any] = {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}
        else:
            if schema is None:
                schema = {"type": "object", "properties": {}}
            elif not isinstance(schema, dict):
                from ._schema import schema_for

                schema = schema_for(schema)
            params = {"message": message, "requestedSchema": schema}
        result = await self.request("elicitation/create", params, timeout, key=key)
        return ElicitResult(result.get("action", "cancel"), result.get("content"))

    def elicitation_complete(self, elicitation_id: str) -> None:
        """Tells the client a URL-mode elicitation finished."""
        self._conn.elicitation_complete(elicitation_id)

    # ---- what this caller sees ------------------------------------------------------------

    async def enable_components(self, **filter: Unpack[Filter]) -> None:
        """Shows this caller, and no one else, the components that match (the criteria of
        :meth:`Server.enable`), over the server's rules. The caller is the session (its
        rules kept in the session record, so every replica applies them), at 2026-07-28
        over stdio the connection, and over HTTP without a session the subject of the
        request's access token (its rules kept for its next requests, by every replica
        with a store); a request without any of these gets an error. The caller is told of
        each list it now sees differently (``list_changed``)."""
        self._conn.change_visibility({"op": "enable", **visibility_filter("enable_components", filter)})

    async def disable_components(self, **filter: Unpack[Filter]) -> None:
        """Hides from this caller the components that match (see :meth:`enable_components`)."""
        self._conn.change_visibility({"op": "disable", **visibility_filter("disable_components", filter)})

    async def reset_visibility(self) -> None:
        """Drops this caller's own rules: it sees what the server's rules show."""
        self._conn.change_visibility({"op": "reset"})

    async def sample(
        self,
        messages: str | list[dict[str, Any] | str],
        *,
        max_tokens: int = 1024,
        system_prompt: str | None = None,
        temperature: float | None = None,
        model_preferences: dict[str, Any] | None = None,
        tools: list[dict[str, Any]] | None = None,
        tool_choice: dict[str, Any] | None = None,
        timeout: float | None = None,
        key: str | None = None,
        **extra: Any,
    ) -> dict[str, Any]:
        """Asks the client's model for a message; returns the ``CreateMessageResult`` dict
        (``role``, ``content``, ``model``, ``stopReason``)."""
        if isinstance(messages, str):
            messages = [messages]
        wire = [{"role": "user", "content": {"type": "text", "text": m}} if isinstance(m, str) else m for m in messages]
        params: dict[str, Any] = {"messages": wire, "maxTokens": max_tokens, **extra}
        for field, value in (
            ("systemPrompt", system_prompt),
            ("temperature", temperature),
            ("modelPreferences", model_preferences),
            ("tools", tools),
            ("toolChoice", tool_choice),
        ):
            if value is not None:
                params[field] = value
        return await self.request("sampling/createMessage", params, timeout, key=key)

    async def list_roots(self, timeout: float | None = None, key: str | None = None) -> list[dict[str, Any]]:
        """The client's roots (``[{"uri": ..., "name": ...}]``)."""
        result = await self.request("roots/list", None, timeout, key=key)
        return list(result.get("roots", []))

    async def ping(self, timeout: float | None = None) -> None:
        """Pings the client (legacy sessions: 2026-07-28 has no ping)."""
        await self.request("ping", None, timeout)

    def __repr__(self) -> str:
        return f"Context(request_id={self.request_id!r})"
