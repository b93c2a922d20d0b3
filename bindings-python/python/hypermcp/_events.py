"""The fields of the event tuples the native sessions hand out, by name.

An event is a tuple ``(kind, field, ...)``: tuples are the fastest thing to build natively
and to read here. Their layout is the engine's (``_core.EVENT_LAYOUTS``, checked against
``tests/fixtures/events.json`` by every suite); this module gives each field its index
once, so that code reads ``ev[TOOL_NAME]`` rather than ``ev[5]``.
"""

from __future__ import annotations

from . import _core

LAYOUTS: dict[str, tuple[str, ...]] = {kind: tuple(fields) for kind, fields in _core.EVENT_LAYOUTS}


def _at(kind: str, field: str) -> int:
    return LAYOUTS[kind].index(field) + 1


KIND = 0
#: The kinds that run a handler; each starts with key, id, progress token, ``_meta`` and the
#: 2026-07-28 request context (``None`` in a legacy session) and the HTTP request's origin
#: (headers, session id, auth; ``None`` over stdio).
CALLS = frozenset(kind for kind, fields in LAYOUTS.items() if fields[:2] == ("key", "id"))
KEY = _at("tool", "key")
ID = _at("tool", "id")
TOKEN = _at("tool", "progress_token")
META = _at("tool", "meta")
CONTEXT = _at("tool", "context")
ORIGIN = _at("tool", "origin")

TOOL_NAME = _at("tool", "name")
TOOL_ARGUMENTS = _at("tool", "arguments")
TOOL_TASK = _at("tool", "task")
RESOURCE_URI = _at("resource", "uri")
RESOURCE_TEMPLATE = _at("resource", "template")
RESOURCE_VARIABLES = _at("resource", "variables")
PROMPT_NAME = _at("prompt", "name")
PROMPT_ARGUMENTS = _at("prompt", "arguments")
COMPLETE_PARAMS = _at("complete", "params")
LIST_NAME = _at("list", "list")
LIST_ITEMS = _at("list", "items")
METHOD_NAME = _at("method", "method")
METHOD_PARAMS = _at("method", "params")
SAMPLING_PARAMS = _at("sampling", "params")
ELICITATION_PARAMS = _at("elicitation", "params")

CANCELLED_KEY = _at("cancelled", "key")
CANCELLED_REASON = _at("cancelled", "reason")
RESPONSE_ID = _at("response", "id")
RESPONSE_OK = _at("response", "ok")
RESPONSE_RESULT = _at("response", "result")
PROGRESS_ID = _at("progress", "id")
PROGRESS_VALUE = _at("progress", "progress")
PROGRESS_TOTAL = _at("progress", "total")
PROGRESS_MESSAGE = _at("progress", "message")
NOTIFICATION_METHOD = _at("notification", "method")
NOTIFICATION_PARAMS = _at("notification", "params")
NOTIFICATION_SUBSCRIPTION = _at("notification", "subscription")
LOST_REASON = _at("lost", "reason")
