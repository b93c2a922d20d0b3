"""The :class:`Server`: decorate functions to make them MCP tools, resources and prompts,
then ``server.run()``::

    from hypermcp import Server, Context

    server = Server("weather", version="1.0.0")

    @server.tool
    async def forecast(city: str, days: int = 3, ctx: Context | None = None) -> str:
        \"\"\"Forecast for a city.

        Args:
            city: Which city.
            days: How many days ahead.
        \"\"\"
        return f"Sunny in {city} for {days} days"

    if __name__ == "__main__":
        server.run()
"""

from __future__ import annotations

import asyncio
import inspect
import os
import weakref
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, TypeVar, overload

from . import _core
from ._handler import _Handler, _string_converters
from ._options import clean, scope_list, tag_list, task_mode, visibility_filter
from ._running import Running
from ._schema import ToolSignature
from .context import Context
from .errors import DefinitionError

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ._options import Filter
    from .middleware import Builtin, Chain, Middleware

__all__ = ["Server"]

F = TypeVar("F", bound=Callable[..., Any])


# How many times Server.run was called in this process: the runner of `hypermcp run`
# (_runner.py) runs the file's server only when the file did not.


class Server(Running):
    """An MCP server: tools, resources, resource templates, prompts and completions served
    over stdio (``run()``), HTTP, or to an in-process :class:`~hypermcp.Client`.

    One server speaks every revision: legacy clients (``initialize``, 2024-11-05 to
    2025-11-25) get a session, 2026-07-28 clients are served request by request, on the same
    stdio process or HTTP URL. Handlers are written once for both (see :class:`Context`).
    The options only 2026-07-28 uses:

    - ``cache``: caching hints of cacheable results, ``{"default": {"ttl_ms": 60000,
      "cache_scope": "public"}, "tools": {...}}`` (also ``prompts``, ``resources``,
      ``resource_templates``, ``resource_reads``, ``discover``). Default: stale at once, private.
    - ``request_state_keys``: base64 keys of 32 bytes sealing ``requestState`` (multi
      round-trip requests); the first seals, all open, so keys rotate and replicas share them.
      Default: ``$HYPERMCP_REQUEST_STATE_KEYS``, else a random key per process.
    - ``request_state_ttl`` (seconds, default 600) and ``request_state_audience`` (default:
      the server's name): how long a sealed state lives, and which server it belongs to.
    - ``max_listeners``: most ``subscriptions/listen`` streams open at once (default 1,000).
    - ``identify_in_results``: the server's name and version in each result's ``_meta``
      (``io.modelcontextprotocol/serverInfo``; default ``True``).

    ``extensions`` declares the extensions the server supports, ``{"com.example/widgets":
    {...settings}}`` (``{}`` for none), in ``capabilities.extensions`` of ``server/discover``
    and ``initialize`` (both eras). Every extension is off until named here; a handler sees
    what the client declared with ``ctx.client_extension(id)``.

    ``mask_error_details=True`` (FastMCP's option) hides what unexpected exceptions of
    handlers say: the client reads ``Error calling tool "name"`` (and the like for resources,
    prompts, completions, methods), the exception and its traceback go to the logger
    ``hypermcp.errors`` (see :func:`hypermcp.enable_logging`). ``ToolError`` and ``McpError``
    pass unchanged.
    """

    def __init__(
        self,
        name: str,
        version: str = "0.1.0",
        *,
        instructions: str | None = None,
        title: str | None = None,
        description: str | None = None,
        website_url: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        lifespan: Callable[[Server], AbstractAsyncContextManager[Any]] | None = None,
        page_size: int | None = None,
        request_timeout: float | None = 60.0,
        max_message_size: int | None = None,
        cache: dict[str, Any] | None = None,
        request_state_keys: list[str] | None = None,
        request_state_ttl: float | None = None,
        request_state_audience: str | None = None,
        max_listeners: int | None = None,
        identify_in_results: bool = True,
        extensions: dict[str, dict[str, Any]] | None = None,
        tasks: bool | Mapping[str, Any] | None = None,
        middleware: Iterable[Middleware] | None = None,
        mask_error_details: bool = False,
    ) -> None:
        self.name = name
        self.version = version
        self.instructions = instructions
        self._info = clean({"title": title, "description": description, "website_url": website_url, "icons": icons})
        self._lifespan = lifespan
        self._lifespan_cm: AbstractAsyncContextManager[Any] | None = None
        self._lifespan_users = 0
        #: What the lifespan context manager yielded, while the server runs.
        self.lifespan_context: Any = None
        self._request_timeout = request_timeout
        self._max_message_size = max_message_size
        #: Hide what unexpected exceptions of handlers say (FastMCP's ``mask_error_details``).
        self.mask_error_details = bool(mask_error_details)
        self._modern = clean(
            {
                "cache": cache,
                "request_state_keys": request_state_keys,
                "request_state_ttl": request_state_ttl,
                "request_state_audience": request_state_audience,
                "max_listeners": max_listeners,
                "identify_in_results": None if identify_in_results else False,
                "extensions": dict(extensions) if extensions else None,
            }
        )
        self._registry = _core.Registry()
        if page_size is not None:
            self._registry.set_page_size(page_size)
        self._tools: dict[str, _Handler] = {}
        self._resources: dict[str, _Handler] = {}
        self._prompts: dict[str, _Handler] = {}
        self._methods: dict[str, _Handler] = {}
        self._completions: list[tuple[str | None, str | None, str | None, _Handler]] = []
        self._notification_handlers: dict[str, list[Callable[[Any], Any]]] = {}
        self._connections: set[Any] = set()
        self._background: set[asyncio.Future[Any]] = set()
        self._skills_dir: str | None = None
        self._task_runtime: _core.TaskRuntime | None = None
        self._task_conn: Any = None
        self._middleware: list[Middleware] = []
        #: The built-in middleware the engine runs (None: none).
        self._builtins: _core.BuiltinMiddleware | None = None
        #: The HTTP hosts serving this server (they take the built-ins when added later).
        self._http_hosts: weakref.WeakSet[Any] = weakref.WeakSet()
        #: The hooks of the middleware by method (None: no middleware, the direct path).
        self._chain: Chain | None = None
        if tasks:
            self.enable_tasks(**(dict(tasks) if isinstance(tasks, Mapping) else {}))
        for m in middleware or ():
            self.add_middleware(m)

    # ---- middleware ----------------------------------------------------------------------------

    def add_middleware(self, middleware: Middleware) -> None:
        """Adds a :class:`~hypermcp.middleware.Middleware` at the end of the chain: it runs
        inside the ones added before, around every tool call, resource read, prompt and
        completion, on every transport and in both eras. Connections already open see it.
        A built-in (:mod:`hypermcp.middleware`'s ``RateLimitingMiddleware``,
        ``ResponseCachingMiddleware``, ``TimingMiddleware``, ``LoggingMiddleware``) runs in
        the engine, at the edge of the server's code: before the Python links, whatever the
        order."""
        from .middleware import Builtin, Chain, LoggingMiddleware, Middleware

        if not isinstance(middleware, Middleware):
            raise TypeError(f"add_middleware takes a hypermcp.Middleware, not {type(middleware).__name__}")
        if isinstance(middleware, Builtin):
            self._add_builtin(middleware)
            if isinstance(middleware, LoggingMiddleware):
                from ._ops import ensure_logging

                ensure_logging(middleware.log_level)
        self._middleware.append(middleware)
        chain = Chain(self._middleware)
        self._chain = chain if chain.by_method else None
        # Lists are served from the engine's cached pages unless a hook wants to see them.
        self._registry.set_list_hooks(chain.lists())

    def _add_builtin(self, middleware: Builtin) -> None:
        # The engine runs these around every session's calls: set once on each session and
        # HTTP server, open or to come.
        first = self._builtins is None
        if self._builtins is None:
            self._builtins = _core.BuiltinMiddleware(self._registry)
        self._builtins.add(middleware._kind, middleware._options)  # pyright: ignore[reportPrivateUsage]
        if first:
            for conn in list(self._connections):
                conn.session.set_middleware(self._builtins)
            for host in list(self._http_hosts):
                host.native.set_middleware(self._builtins)

    @property
    def middleware(self) -> list[Middleware]:
        """The middleware, in the order it runs (a copy)."""
        return list(self._middleware)

    # ---- visibility ----------------------------------------------------------------------------

    def enable(self, *, only: bool = False, **filter: Unpack[Filter]) -> None:
        """Shows every client the components that match all the criteria given: ``names``
        (names of tools and prompts, URIs of resources, URI templates), ``tags`` (any of
        them), ``components`` (``"tool"``, ``"resource"``, ``"template"``, ``"prompt"``), or
        ``match_all``. Later rules override earlier ones where they overlap. ``only=True``
        is the allow-list form: nothing else is visible (earlier enables are dropped).
        Connected clients whose lists changed get ``list_changed``."""
        for kind in self._registry.enable(visibility_filter("enable", filter), only):
            self._changed(kind)

    def disable(self, **filter: Unpack[Filter]) -> None:
        """Hides from every client the components that match (the criteria of
        :meth:`enable`): they are left out of the lists, and called by name they are "not
        found", exactly as if they did not exist."""
        for kind in self._registry.disable(visibility_filter("disable", filter)):
            self._changed(kind)

    def reset_visibility(self) -> None:
        """Drops the rules of :meth:`enable` and :meth:`disable`: every component visible."""
        for kind in self._registry.reset_visibility():
            self._changed(kind)

    def _native_config(self) -> dict[str, Any]:
        cfg: dict[str, Any] = {
            "name": self.name,
            "version": self.version,
            "instructions": self.instructions,
            "tools": bool(self._tools),
            "resources": bool(self._resources),
            "prompts": bool(self._prompts),
            "completions": bool(self._completions),
            "request_timeout": self._request_timeout,
            "tasks": self._task_runtime is not None,
            "mask_error_details": self.mask_error_details,
            **self._info,
            **self._modern,
        }
        if self._max_message_size is not None:
            cfg["max_message_size"] = self._max_message_size
        return clean(cfg)

    # ---- tasks (io.modelcontextprotocol/tasks) -----------------------------------------------

    def enable_tasks(
        self,
        *,
        ttl: float | None = None,
        poll_interval: float | None = None,
        max_tasks: int | None = None,
        cancel_grace: float | None = None,
    ) -> None:
        """Runs tool calls as tasks (the ``io.modelcontextprotocol/tasks`` extension of
        2026-07-28, and the experimental tasks of 2025-11-25 sessions, served by the same
        handlers): declares the extension, and keeps tasks in memory for ``ttl`` seconds
        (default 3600), at most ``max_tasks`` (10,000); clients poll every ``poll_interval``
        (1 s). ``Server(..., tasks=True)`` (or a dict of these options) does the same, and
        so does the first ``@server.tool(task=...)``. Call it before serving."""
        if self._task_runtime is not None:
            if (ttl, poll_interval, max_tasks, cancel_grace) != (None, None, None, None):
                raise DefinitionError("tasks are already enabled: pass their options once, before any task tool")
            return
        options = {
            "ttl": ttl,
            "poll_interval": poll_interval,
            "max_tasks": max_tasks,
            "cancel_grace": cancel_grace,
            "mask_error_details": self.mask_error_details,
        }
        self._task_runtime = _core.TaskRuntime(options, self._registry)

    def _task_connection(self) -> Any:
        """The connection the handlers of tasks run on, in the running loop (None without
        tasks). Tasks belong to the server: they outlive the connection that started them."""
        rt = self._task_runtime
        if rt is None:
            return None
        loop = asyncio.get_running_loop()
        conn = self._task_conn
        if conn is None or conn._loop is not loop:
            from ._connection import ServerConnection

            if conn is not None and not conn._loop.is_closed():
                conn._loop.remove_reader(rt.fileno())
            conn = self._task_conn = ServerConnection(self, rt.session(), None)

            def wake() -> None:
                rt.clear()
                conn.pump()

            loop.add_reader(rt.fileno(), wake)
            # Events queued before this loop watched (a task started, then the loop changed).
            loop.call_soon(wake)
        return conn

    def _changed(self, kind: str) -> None:
        for conn in list(self._connections):
            conn.notify_list_changed(kind)

    # ---- tools ----------------------------------------------------------------------------------

    @overload
    def tool(self, fn: F, /) -> F: ...

    @overload
    def tool(
        self,
        fn: None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        inline: bool = False,
        headers: dict[str, str] | None = None,
        scopes: str | Sequence[str] | None = None,
        tags: Collection[str] | None = None,
        ui: str | Mapping[str, Any] | None = None,
        task: bool | str | None = None,
    ) -> Callable[[F], F]: ...

    def tool(
        self,
        fn: F | None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        inline: bool = False,
        headers: dict[str, str] | None = None,
        scopes: str | Sequence[str] | None = None,
        tags: Collection[str] | None = None,
        ui: str | Mapping[str, Any] | None = None,
        task: bool | str | None = None,
    ) -> F | Callable[[F], F]:
        """Registers a function as a tool: ``@server.tool`` or ``@server.tool(name=...)``.

        The input schema comes from the type hints, the description from the docstring
        (its Args section describes the parameters). A structured return annotation (dict,
        dataclass, TypedDict, pydantic model...) also gives an ``outputSchema`` and
        ``structuredContent``; ``structured_output=False`` turns that off. Sync functions run
        in a worker thread unless ``inline=True``. ``headers`` maps parameters (string,
        integer or boolean) to HTTP header names: 2026-07-28 clients mirror them as
        ``Mcp-Param-{name}`` (``x-mcp-header``), for gateways to route on; the server checks
        they match the arguments. ``scopes``: what an access token needs to call it, besides
        the HTTP ``auth`` option's ``required_scopes`` (403 ``insufficient_scope`` naming
        them otherwise; clients step up). ``tags``: names the visibility rules select by
        (:meth:`enable`, :meth:`disable`; clients do not see them). ``ui``: the view of an
        MCP App showing its results
        (``"ui://..."``, served with :meth:`app`), or ``{"resourceUri": ..., "visibility":
        ["app"]}`` (a tool only the view calls). ``task``: run calls as tasks (2026-07-28,
        ``io.modelcontextprotocol/tasks``) when the client declared the extension, or (at
        2025-11-25) sent ``params.task``: ``True`` (or "optional"), "required" (other calls
        are refused), or "manual" (the handler decides with ``await ctx.start_task()``); the
        call is answered with the task at once and the handler goes on, outliving the
        request."""

        def register(f: F) -> F:
            self.add_tool(
                f,
                name=name,
                title=title,
                description=description,
                annotations=annotations,
                icons=icons,
                meta=meta,
                structured_output=structured_output,
                inline=inline,
                headers=headers,
                scopes=scopes,
                tags=tags,
                ui=ui,
                task=task,
            )
            return f

        return register(fn) if fn is not None else register

    def add_tool(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        annotations: dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        structured_output: bool | None = None,
        inline: bool = False,
        headers: dict[str, str] | None = None,
        scopes: str | Sequence[str] | None = None,
        tags: Collection[str] | None = None,
        ui: str | Mapping[str, Any] | None = None,
        task: bool | str | None = None,
    ) -> None:
        """Adds (or replaces) a tool at any time; connected clients get ``list_changed``.
        The options are those of :meth:`tool`."""
        sig = ToolSignature.from_function(fn, context_type=Context)
        tool_name = name or sig.name
        definition: dict[str, Any] = {"name": tool_name, "inputSchema": sig.input_schema}
        for param, header in (headers or {}).items():
            props = sig.input_schema.get("properties", {})
            if param not in props:
                raise DefinitionError(
                    f"tool {tool_name!r}: headers names {param!r}, which is not one of its parameters"
                )
            props[param] = {**props[param], "x-mcp-header": header}
        if description or sig.description:
            definition["description"] = description or sig.description
        if title:
            definition["title"] = title
        if structured_output is not False and sig.output_schema is not None:
            definition["outputSchema"] = sig.output_schema
        elif structured_output is False:
            sig.output_schema = None
        if annotations:
            definition["annotations"] = annotations
        if icons:
            definition["icons"] = icons
        if meta:
            definition["_meta"] = meta
        if ui is not None:
            link = {"resourceUri": ui} if isinstance(ui, str) else dict(ui)
            if not str(link.get("resourceUri", "")).startswith("ui://"):
                raise DefinitionError(f"tool {tool_name!r}: ui names no ui:// resource ({ui!r})")
            definition["_meta"] = {**definition.get("_meta", {}), "ui": link}
        required = scope_list(scopes)
        mode = task_mode(tool_name, task)
        if mode is not None:
            self.enable_tasks()
        self._registry.set_tags("tool", tool_name, tag_list(tags))
        self._registry.add_tool(definition)
        self._registry.set_task_mode(tool_name, mode)
        self._registry.set_required_scopes("tool", tool_name, required)
        self._tools[tool_name] = _Handler(tool_name, fn, inline=inline, signature=sig)
        self._changed("tools")

    def remove_tool(self, name: str) -> bool:
        """Removes a tool; returns whether it existed."""
        self._tools.pop(name, None)
        self._registry.set_task_mode(name, None)
        removed = self._registry.remove_tool(name)
        if removed:
            self._changed("tools")
        return removed

    # ---- resources ------------------------------------------------------------------------------

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        annotations: dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        size: int | None = None,
        inline: bool = False,
        scopes: str | Sequence[str] | None = None,
        tags: Collection[str] | None = None,
    ) -> Callable[[F], F]:
        """Registers a function as a resource (``"file:///notes.txt"``) or, when the URI
        has ``{variables}``, a resource template (RFC 6570) whose variables become the
        function's arguments. Return ``str`` (text), ``bytes`` (blob), JSON-able values
        (JSON text) or :class:`EmbeddedResource` parts. ``scopes``: what an access token
        needs to read it; ``tags``: for the visibility rules (see :meth:`tool`)."""

        def register(f: F) -> F:
            self.add_resource(
                f,
                uri,
                name=name,
                title=title,
                description=description,
                mime_type=mime_type,
                annotations=annotations,
                icons=icons,
                meta=meta,
                size=size,
                inline=inline,
                scopes=scopes,
                tags=tags,
            )
            return f

        return register

    def add_resource(
        self,
        fn: Callable[..., Any],
        uri: str,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        mime_type: str | None = None,
        annotations: dict[str, Any] | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        size: int | None = None,
        inline: bool = False,
        scopes: str | Sequence[str] | None = None,
        tags: Collection[str] | None = None,
    ) -> None:
        """Adds (or replaces) a resource or resource template at any time."""
        sig = ToolSignature.from_function(fn, context_type=Context)
        is_template = "{" in uri
        definition = clean(
            {
                ("uriTemplate" if is_template else "uri"): uri,
                "name": name or sig.name,
                "title": title,
                "description": description or sig.description,
                "mimeType": mime_type,
                "annotations": annotations,
                "icons": icons,
                "_meta": meta,
                "size": None if is_template else size,
            }
        )
        required = scope_list(scopes)
        self._registry.set_tags("template" if is_template else "resource", uri, tag_list(tags))
        if is_template:
            self._registry.add_template(definition)
        else:
            self._registry.add_resource(definition)
        self._registry.set_required_scopes("resource", uri, required)
        handler = _Handler(uri, fn, inline=inline, signature=None, context_param=sig.context_param)
        handler.mime_type = mime_type
        handler.converters = _string_converters(fn, handler.param_names)
        self._resources[uri] = handler
        self._changed("resource_templates" if is_template else "resources")

    def remove_resource(self, uri: str) -> bool:
        """Removes a resource or resource template."""
        self._resources.pop(uri, None)
        if "{" in uri:
            removed = self._registry.remove_template(uri)
            kind = "resource_templates"
        else:
            removed = self._registry.remove_resource(uri)
            kind = "resources"
        if removed:
            self._changed(kind)
        return removed

    def notify_resource_updated(self, uri: str) -> None:
        """Tells subscribed clients that a resource changed."""
        # HTTP sessions hear it from the registry (connection or not, whichever host serves
        # them); the connections a host drives itself are told one by one.
        self._registry.notify_resource_updated(uri)
        for conn in list(self._connections):
            conn.notify_resource_updated(uri)

    # ---- apps -----------------------------------------------------------------------------------

    def app(
        self,
        uri: str,
        html: str,
        *,
        csp: Mapping[str, Sequence[str]] | None = None,
        permissions: Sequence[str] | Mapping[str, Any] | None = None,
        domain: str | None = None,
        prefers_border: bool | None = None,
        name: str | None = None,
        description: str | None = None,
    ) -> None:
        """Serves the view of an MCP App (``io.modelcontextprotocol/ui``) at ``uri``
        (``ui://...``): ``html``, a whole HTML document, as ``text/html;profile=mcp-app``,
        listed and read from memory. ``csp``: the origins it needs (``{"connectDomains":
        [...], "resourceDomains": [...], "frameDomains": [...], "baseUriDomains": [...]}``;
        none: the hosts' restrictive default, no network); ``permissions``: browser features
        (``["camera", "microphone", "geolocation", "clipboardWrite"]``); ``domain`` and
        ``prefers_border`` as the spec says. Link it to tools with ``@server.tool(ui=uri)``.
        Raises :class:`~hypermcp.errors.DefinitionError` for another scheme, or origins that
        are not origins."""
        meta: dict[str, Any] = {}
        if csp is not None:
            meta["csp"] = {k: list(v) for k, v in csp.items()}
        if permissions is not None:
            meta["permissions"] = (
                {p: {} for p in permissions} if not isinstance(permissions, Mapping) else dict(permissions)
            )
        if domain is not None:
            meta["domain"] = domain
        if prefers_border is not None:
            meta["prefersBorder"] = prefers_border
        self._registry.add_app(str(uri), html, meta, name, description)
        # A replaced view: its subscribers hear of it (HTTP sessions from the registry).
        self._resources_changed([str(uri)])

    # ---- skills ---------------------------------------------------------------------------------

    def skills(
        self,
        directory: str | os.PathLike[str] | None = None,
        *,
        files: Mapping[str, bytes | str] | None = None,
    ) -> None:
        """Serves skills (the ``io.modelcontextprotocol/skills`` extension): every directory
        under ``directory`` holding a ``SKILL.md``, or ``files`` made in code (``{"pdf/SKILL.md":
        "---\\nname: pdf\\n...", "pdf/references/FORMS.md": b"..."}``), as ``skill://``
        resources. The engine answers ``skills/list``, ``skills/get``,
        ``resources/directory/read`` and the reads of their files from memory, with each file's
        digest and size, and declares the extension (``{"directoryRead": true}``).

        Each skill's ``SKILL.md`` starts with YAML frontmatter whose ``name`` is its directory's
        name (lowercase letters, digits and hyphens) and which has a ``description``; a skill
        holds at most 512 files and 16 MiB. A skill breaking a rule raises
        :class:`~hypermcp.errors.DefinitionError` naming the file. Calling it again (or
        :meth:`reload_skills`) replaces what is served; clients are told the resource list
        changed, and subscribers of a changed file that it was updated.
        """
        if (directory is None) == (files is None):
            raise TypeError("skills() takes one of a directory or files=")
        if directory is not None:
            path = os.fspath(directory)
            changed = self._registry.set_skills_dir(path)
            self._skills_dir = path
        else:
            assert files is not None
            self._skills_dir = None
            items = [(str(k), v.encode() if isinstance(v, str) else bytes(v)) for k, v in files.items()]
            changed = self._registry.set_skill_files(items)
        self._resources_changed(changed)

    def reload_skills(self) -> None:
        """Reads the directory given to :meth:`skills` again (after files changed on disk)."""
        directory = self._skills_dir
        if directory is None:
            raise RuntimeError("reload_skills() needs a directory given to skills() first")
        self._resources_changed(self._registry.set_skills_dir(directory))

    def clear_skills(self) -> None:
        """Stops serving skills."""
        self._skills_dir = None
        self._resources_changed(self._registry.clear_skills())

    def _resources_changed(self, changed: list[str]) -> None:
        # Skills or apps changed. HTTP sessions hear of it from the registry; the connections
        # a host drives itself are told one by one.
        self._changed("resources")
        for conn in list(self._connections):
            for uri in changed:
                conn.notify_resource_updated(uri)

    # ---- prompts --------------------------------------------------------------------------------

    @overload
    def prompt(self, fn: F, /) -> F: ...

    @overload
    def prompt(
        self,
        fn: None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        inline: bool = False,
        scopes: str | Sequence[str] | None = None,
        tags: Collection[str] | None = None,
    ) -> Callable[[F], F]: ...

    def prompt(
        self,
        fn: F | None = None,
        /,
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        inline: bool = False,
        scopes: str | Sequence[str] | None = None,
        tags: Collection[str] | None = None,
    ) -> F | Callable[[F], F]:
        """Registers a function as a prompt. Its parameters are the prompt's arguments
        (required unless they have a default); it returns ``str``, a
        :class:`PromptMessage` or a list of them. ``scopes``: what an access token needs to
        get it; ``tags``: for the visibility rules (see :meth:`tool`)."""

        def register(f: F) -> F:
            self.add_prompt(
                f,
                name=name,
                title=title,
                description=description,
                icons=icons,
                meta=meta,
                inline=inline,
                scopes=scopes,
                tags=tags,
            )
            return f

        return register(fn) if fn is not None else register

    def add_prompt(
        self,
        fn: Callable[..., Any],
        *,
        name: str | None = None,
        title: str | None = None,
        description: str | None = None,
        icons: list[dict[str, Any]] | None = None,
        meta: dict[str, Any] | None = None,
        inline: bool = False,
        scopes: str | Sequence[str] | None = None,
        tags: Collection[str] | None = None,
    ) -> None:
        """Adds (or replaces) a prompt at any time."""
        sig = ToolSignature.from_function(fn, context_type=Context)
        prompt_name = name or sig.name
        props = sig.input_schema.get("properties", {})
        required = set(sig.input_schema.get("required", []))
        arguments = [
            clean({"name": arg, "description": spec.get("description"), "required": arg in required})
            for arg, spec in props.items()
        ]
        definition = clean(
            {
                "name": prompt_name,
                "title": title,
                "description": description or sig.description,
                "arguments": arguments or None,
                "icons": icons,
                "_meta": meta,
            }
        )
        required = scope_list(scopes)
        self._registry.set_tags("prompt", prompt_name, tag_list(tags))
        self._registry.add_prompt(definition)
        self._registry.set_required_scopes("prompt", prompt_name, required)
        handler = _Handler(prompt_name, fn, inline=inline, signature=sig)
        handler.description = description or sig.description
        handler.converters = _string_converters(fn, handler.param_names)
        self._prompts[prompt_name] = handler
        self._changed("prompts")

    def remove_prompt(self, name: str) -> bool:
        """Removes a prompt."""
        self._prompts.pop(name, None)
        removed = self._registry.remove_prompt(name)
        if removed:
            self._changed("prompts")
        return removed

    # ---- completion -----------------------------------------------------------------------------

    def completion(
        self,
        fn: Callable[..., Any] | None = None,
        /,
        *,
        prompt: str | None = None,
        resource: str | None = None,
        argument: str | None = None,
    ) -> Any:
        """Registers a completion handler for ``completion/complete``.

        ``@server.completion(prompt="review", argument="language")`` (or
        ``resource="weather://{city}/now"``) handles one argument; bare ``@server.completion``
        handles every request. The function may take ``value`` (typed so far), ``argument``
        (its name), ``context`` (other arguments already given) and ``ref``; it returns a
        list of strings."""

        def register(f: Callable[..., Any]) -> Callable[..., Any]:
            handler = _Handler(f.__name__, f, inline=True, signature=None)
            handler.completion_params = frozenset(inspect.signature(f).parameters)
            self._completions.append((prompt, resource, argument, handler))
            return f

        return register(fn) if fn is not None else register

    def _completion_for(self, params: dict[str, Any]) -> _Handler | None:
        ref = params.get("ref", {})
        arg = params.get("argument", {}).get("name")
        for prompt, resource, argument, handler in self._completions:
            if prompt is not None and (ref.get("type") != "ref/prompt" or ref.get("name") != prompt):
                continue
            if resource is not None and (ref.get("type") != "ref/resource" or ref.get("uri") != resource):
                continue
            if argument is not None and argument != arg:
                continue
            return handler
        return None

    # ---- methods of the server's own ------------------------------------------------------------

    def method(self, name: str, *, inline: bool = False) -> Callable[[F], F]:
        """Serves a request method the spec does not define (``"acme/search"``), in both eras:
        the function gets the request's params as keyword arguments (checked by the engine
        against the JSON Schema of its type hints, as a tool's are; ``_meta`` is
        ``ctx.meta``) and a :class:`Context` if it takes one, and returns the result, a dict
        (``None``: ``{}``). Clients call it with ``client.request(name, params)``. Names the
        spec or an extension owns (``tools/...``, ``notifications/progress``, ``rpc.``...)
        raise :class:`DefinitionError`."""

        def register(f: F) -> F:
            self.add_method(f, name, inline=inline)
            return f

        return register

    def add_method(self, fn: Callable[..., Any], name: str, *, inline: bool = False) -> None:
        """Adds (or replaces) a method of the server's own at any time (see :meth:`method`)."""
        sig = ToolSignature.from_function(fn, context_type=Context)
        self._registry.add_method(name, sig.input_schema)
        self._methods[name] = _Handler(name, fn, inline=inline, signature=sig)

    def remove_method(self, name: str) -> bool:
        """Stops serving a method of the server's own; returns whether it was served."""
        self._methods.pop(name, None)
        return self._registry.remove_method(name)

    # ---- notifications from clients -------------------------------------------------------------

    def on_notification(self, method: str) -> Callable[[F], F]:
        """Registers a callback for a client notification, the spec's
        (``"notifications/roots/list_changed"``) or one of the server's own
        (``"notifications/acme/indexed"``, in both eras); it gets the params dict."""

        def register(f: F) -> F:
            self._notification_handlers.setdefault(method, []).append(f)
            return f

        return register

    def _on_notification(self, method: str, params: Any) -> None:
        chain = self._chain
        entry = chain.hooks("!") if chain is not None else None
        if entry is None:
            for f in self._notification_handlers.get(method, ()):
                result = f(params)
                if inspect.isawaitable(result):
                    self._keep(asyncio.ensure_future(result))
            return
        # Through the middleware's on_message and on_notification, then the handlers.
        from .middleware import MiddlewareContext, NotificationMessage

        async def handlers(c: MiddlewareContext) -> None:
            for f in self._notification_handlers.get(c.method, ()):
                result = f(c.message.params)
                if inspect.isawaitable(result):
                    await result

        message = NotificationMessage(dict(params) if isinstance(params, Mapping) else {})
        self._keep(asyncio.ensure_future(entry(MiddlewareContext(method, message, None, handlers, "notification"))))

    def _keep(self, task: asyncio.Future[Any]) -> None:
        """Keeps a background task until it ends."""
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _client_connection(self) -> Any:
        """An in-memory connection for ``Client(server)``."""
        from ._memory import MemoryConnection

        return MemoryConnection(self)

    def __repr__(self) -> str:
        return (
            f"Server({self.name!r}, tools={len(self._tools)}, resources={len(self._resources)},"
            f" prompts={len(self._prompts)})"
        )
