"""hypermcp: a fast, complete Model Context Protocol SDK on a Rust engine.

Servers::

    from hypermcp import Server

    server = Server("demo")

    @server.tool
    def add(a: int, b: int) -> int:
        \"\"\"Add two numbers.\"\"\"
        return a + b

    server.run()

Clients::

    async with Client.stdio("python", "server.py") as client:
        result = await client.call_tool("add", {"a": 1, "b": 2})

Importing this package loads only the standard library and the native module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import _core
from .content import Audio, CallToolResult, Content, EmbeddedResource, Image, PromptMessage, ResourceLink, Text
from .context import AuthInfo, Context, ElicitResult, Headers, InputRequired
from .errors import (
    ConnectionClosed,
    DefinitionError,
    HeaderMismatch,
    InternalError,
    InvalidParams,
    InvalidRequest,
    McpError,
    MethodNotFound,
    MissingRequiredClientCapability,
    OptionError,
    ParseError,
    RateLimited,
    RequestTimeout,
    ResourceNotFound,
    SkillVerificationError,
    ToolError,
    Unauthorized,
    UnsupportedProtocolVersion,
    UrlElicitationRequired,
)
from .server import Server

if TYPE_CHECKING:
    from ._ops import enable_logging, metrics, metrics_text
    from ._trace import TraceContext
    from .auth import OAuth, TokenStore
    from .client import Client
    from .middleware import Middleware, MiddlewareContext

__version__: str = _core.__version__
#: Protocol revisions this release speaks.
PROTOCOL_VERSIONS: list[str] = list(_core.PROTOCOL_VERSIONS)

__all__ = [
    "Audio",
    "AuthInfo",
    "CallToolResult",
    "Client",
    "ConnectionClosed",
    "Content",
    "Context",
    "DefinitionError",
    "ElicitResult",
    "EmbeddedResource",
    "HeaderMismatch",
    "Headers",
    "Image",
    "InputRequired",
    "InternalError",
    "InvalidParams",
    "InvalidRequest",
    "McpError",
    "Middleware",
    "MiddlewareContext",
    "OAuth",
    "MethodNotFound",
    "MissingRequiredClientCapability",
    "OptionError",
    "PROTOCOL_VERSIONS",
    "ParseError",
    "PromptMessage",
    "RequestTimeout",
    "ResourceLink",
    "ResourceNotFound",
    "Server",
    "SkillVerificationError",
    "Text",
    "TokenStore",
    "ToolError",
    "TraceContext",
    "Unauthorized",
    "UnsupportedProtocolVersion",
    "RateLimited",
    "UrlElicitationRequired",
    "__version__",
    "enable_logging",
    "metrics",
    "metrics_text",
]


def __getattr__(name: str) -> Any:
    # The client (and asyncio's subprocess machinery it needs) loads on first use only.
    if name == "Client":
        from .client import Client

        return Client
    if name in ("Middleware", "MiddlewareContext"):
        from . import middleware

        return getattr(middleware, name)
    if name == "OAuth":
        from .auth import OAuth

        return OAuth
    if name == "TokenStore":
        from .auth import TokenStore

        return TokenStore
    if name == "TraceContext":
        from ._trace import TraceContext

        return TraceContext
    if name in ("enable_logging", "metrics", "metrics_text"):
        from . import _ops

        return getattr(_ops, name)
    raise AttributeError(f"module 'hypermcp' has no attribute {name!r}")
