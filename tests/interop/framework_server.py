#!/usr/bin/env python3
"""A hypermcp Python server using the framework layer, for the official SDKs' clients
(tests/interop/py_sdk_framework.py, ts_sdk_framework.mjs):

- middleware: a guard refusing the tool ``delete`` (-32001), a list hook hiding the tools
  whose name starts with ``_``, a hook rewriting ``shout``'s text to upper case;
- visibility: the tools tagged ``premium`` hidden from everyone, and ``unlock`` showing them
  to the session that calls it (``ctx.enable_components``), with ``list_changed`` to it.

    framework_server.py                 stdio
    framework_server.py --http          Streamable HTTP on a free port (prints ``listening on URL``)
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from hypermcp import Context, McpError, Middleware, MiddlewareContext, Server


class Guard(Middleware):
    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
        if context.message.name == "delete":
            raise McpError(-32001, "delete is not allowed here")
        if context.message.name == "shout":
            context.message.arguments["text"] = str(context.message.arguments.get("text", "")).upper()
        return await call_next(context)

    async def on_list_tools(self, context: MiddlewareContext, call_next: Any) -> Any:
        return [t for t in await call_next(context) if not t.name.startswith("_")]


server = Server("framework-py", middleware=[Guard()])


@server.tool
def shout(text: str) -> str:
    return text


@server.tool
def delete(path: str) -> str:
    return f"deleted {path}"


@server.tool
def _debug() -> str:
    return "internal"


@server.tool(tags={"premium"})
def report() -> str:
    return "the premium report"


@server.tool
async def unlock(ctx: Context) -> str:
    await ctx.enable_components(tags={"premium"})
    return "unlocked"


server.disable(tags={"premium"})


async def serve_http() -> None:
    async with await server.start_http("127.0.0.1", 0) as http:
        print(f"framework server listening on http://127.0.0.1:{http.port}/mcp", file=sys.stderr, flush=True)
        await asyncio.Event().wait()


if __name__ == "__main__":
    if sys.argv[1:] == ["--http"]:
        asyncio.run(serve_http())
    else:
        server.run()
