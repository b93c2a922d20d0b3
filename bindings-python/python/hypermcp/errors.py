"""The exception tree of hypermcp, rooted at :class:`McpError`.

Raising :class:`McpError` (or a subclass) in a handler answers the request with that
JSON-RPC error; any other exception in a tool handler becomes a tool result with
``isError: true`` carrying its message. Errors the peer answers with, and errors of the
connection, are raised to callers as the same classes.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "PARSE_ERROR",
    "INVALID_REQUEST",
    "METHOD_NOT_FOUND",
    "INVALID_PARAMS",
    "INTERNAL_ERROR",
    "RESOURCE_NOT_FOUND",
    "URL_ELICITATION_REQUIRED",
    "REQUEST_TIMEOUT",
    "CONNECTION_CLOSED",
    "REQUEST_CANCELLED",
    "HEADER_MISMATCH",
    "MISSING_REQUIRED_CLIENT_CAPABILITY",
    "UNSUPPORTED_PROTOCOL_VERSION",
    "RATE_LIMITED",
    "McpError",
    "ParseError",
    "InvalidRequest",
    "MethodNotFound",
    "InvalidParams",
    "InternalError",
    "ResourceNotFound",
    "UrlElicitationRequired",
    "RequestTimeout",
    "ConnectionClosed",
    "HeaderMismatch",
    "MissingRequiredClientCapability",
    "UnsupportedProtocolVersion",
    "RateLimited",
    "ToolError",
    "Unauthorized",
    "DefinitionError",
    "OptionError",
    "SkillVerificationError",
    "error_for_code",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
RESOURCE_NOT_FOUND = -32002
URL_ELICITATION_REQUIRED = -32042
#: hypermcp's code for a request that timed out (never sent on the wire).
REQUEST_TIMEOUT = -32001
#: hypermcp's code for a connection that closed before an answer (never sent on the wire).
CONNECTION_CLOSED = -32000
#: hypermcp's code for a request its caller cancelled (never sent on the wire; Python code
#: sees ``asyncio.CancelledError`` instead).
REQUEST_CANCELLED = -32800
#: 2026-07-28: an HTTP header does not match the body (or a required one is missing).
HEADER_MISMATCH = -32020
#: 2026-07-28: the request needs a client capability it did not declare.
MISSING_REQUIRED_CLIENT_CAPABILITY = -32021
#: 2026-07-28: the server does not speak the requested protocol version.
UNSUPPORTED_PROTOCOL_VERSION = -32022
#: hypermcp: the rate limiting middleware refused the request (``data["retryAfterMs"]``).
RATE_LIMITED = -32029
#: hypermcp's code for a request the server refused for want of an authorization the client
#: could not get (OAuth failed, or no ``auth`` option); never sent on the wire.
UNAUTHORIZED = -32011


class McpError(Exception):
    """A JSON-RPC error: ``code``, ``message`` and optional ``data``."""

    code: int
    message: str
    data: Any

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def __str__(self) -> str:
        return f"{self.message} (code {self.code})"

    def __repr__(self) -> str:
        return f"{type(self).__name__}(code={self.code!r}, message={self.message!r}, data={self.data!r})"

    def to_dict(self) -> dict[str, Any]:
        """The JSON-RPC error object."""
        out: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            out["data"] = self.data
        return out


class _Coded(McpError):
    default_code: int = INTERNAL_ERROR

    def __init__(self, message: str, data: Any = None, *, code: int | None = None) -> None:
        super().__init__(self.default_code if code is None else code, message, data)


class ParseError(_Coded):
    """-32700: the peer could not parse what it was sent as JSON."""

    default_code = PARSE_ERROR


class InvalidRequest(_Coded):
    """-32600: the message is not a valid request (or not valid now)."""

    default_code = INVALID_REQUEST


class MethodNotFound(_Coded):
    """-32601: the peer does not offer that method or capability."""

    default_code = METHOD_NOT_FOUND


class InvalidParams(_Coded):
    """-32602: bad parameters (also an unknown tool or prompt, a bad cursor)."""

    default_code = INVALID_PARAMS


class InternalError(_Coded):
    """-32603: the peer failed internally."""

    default_code = INTERNAL_ERROR


class ResourceNotFound(_Coded):
    """-32002: no resource has that URI."""

    default_code = RESOURCE_NOT_FOUND


class UrlElicitationRequired(_Coded):
    """-32042: the user must complete a URL-mode elicitation first (2025-11-25)."""

    default_code = URL_ELICITATION_REQUIRED


class RequestTimeout(_Coded, TimeoutError):
    """The request got no answer in time (it was cancelled with the peer)."""

    default_code = REQUEST_TIMEOUT


class ConnectionClosed(_Coded, ConnectionError):
    """The connection closed before the answer arrived."""

    default_code = CONNECTION_CLOSED


class HeaderMismatch(_Coded):
    """-32020 (2026-07-28): an HTTP header (``MCP-Protocol-Version``, ``Mcp-Method``,
    ``Mcp-Name``, ``Mcp-Param-*``) does not match the request body, or is missing."""

    default_code = HEADER_MISMATCH


class MissingRequiredClientCapability(_Coded):
    """-32021 (2026-07-28): the request needs a capability the client did not declare;
    ``data["requiredCapabilities"]`` names it (e.g. ``{"sampling": {}}``). Raised by
    ``ctx.sample`` / ``ctx.elicit`` / ``ctx.list_roots`` when the client cannot answer, and
    sent as the call's error unless the handler catches it."""

    default_code = MISSING_REQUIRED_CLIENT_CAPABILITY


class UnsupportedProtocolVersion(_Coded):
    """-32022 (2026-07-28): the server does not speak the requested revision;
    ``data["supported"]`` lists those it does."""

    default_code = UNSUPPORTED_PROTOCOL_VERSION


class RateLimited(_Coded):
    """hypermcp's -32029: the server's rate limit refused the request; :attr:`retry_after`
    says in how many seconds a token comes back (``data["retryAfterMs"]``)."""

    default_code = RATE_LIMITED

    @property
    def retry_after(self) -> float | None:
        """Seconds until the request may be made again, when the server said."""
        ms = self.data.get("retryAfterMs") if isinstance(self.data, dict) else None
        return ms / 1000 if isinstance(ms, (int, float)) else None


class Unauthorized(_Coded, PermissionError):
    """The server refused the request for want of authorization (HTTP 401, or 403 with
    ``insufficient_scope``) and the client could not get it: OAuth failed (the message says
    why), or ``Client.http`` was given no ``auth``."""

    default_code = UNAUTHORIZED


class ToolError(Exception):
    """Raise in a tool to fail it with ``isError: true`` and exactly this message.

    (Any exception does that; this one documents the intent.)
    """


class SkillVerificationError(Exception):
    """A skill file whose content is not what the skill's entry describes, so it must not be
    used (``shared/spec/extensions/skills``): ``reason`` is ``"unlisted"`` (not one of the
    skill's files), ``"size"``, ``"digest"``, ``"frontmatter"`` (the ``SKILL.md`` frontmatter
    differs from the entry's) or ``"invalid"`` (a malformed entry or read); ``uri`` names the
    file. Refresh the entry with ``client.get_skill(uri)`` and load the skill again."""

    reason: str
    uri: str

    def __init__(self, message: str, reason: str = "invalid", uri: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.uri = uri


class DefinitionError(ValueError):
    """A tool, resource, template or prompt definition the engine refuses (a bad name, an
    input schema that is not an object schema, an invalid URI template...)."""


class OptionError(TypeError, ValueError):
    """An option hypermcp does not know, or a value it cannot take (the message names it).
    Both a ``TypeError`` (an unexpected keyword) and a ``ValueError`` (a value out of range)."""


_BY_CODE: dict[int, type[_Coded]] = {
    PARSE_ERROR: ParseError,
    INVALID_REQUEST: InvalidRequest,
    METHOD_NOT_FOUND: MethodNotFound,
    INVALID_PARAMS: InvalidParams,
    INTERNAL_ERROR: InternalError,
    RESOURCE_NOT_FOUND: ResourceNotFound,
    URL_ELICITATION_REQUIRED: UrlElicitationRequired,
    REQUEST_TIMEOUT: RequestTimeout,
    CONNECTION_CLOSED: ConnectionClosed,
    HEADER_MISMATCH: HeaderMismatch,
    MISSING_REQUIRED_CLIENT_CAPABILITY: MissingRequiredClientCapability,
    UNSUPPORTED_PROTOCOL_VERSION: UnsupportedProtocolVersion,
    RATE_LIMITED: RateLimited,
    UNAUTHORIZED: Unauthorized,
}


def error_for_code(code: int, message: str, data: Any = None) -> McpError:
    """The most specific exception for a JSON-RPC error code."""
    cls = _BY_CODE.get(code)
    if cls is None:
        return McpError(code, message, data)
    return cls(message, data, code=code)
