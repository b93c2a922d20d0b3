"""The weather server (weather_server.py) inside a Starlette app, next to an ordinary route,
served by uvicorn:

    pip install starlette uvicorn       # this app's dependencies, not hypermcp's
    python examples/python/asgi_app.py [--port 8000]

- ``GET /``: an ordinary Starlette route.
- ``/mcp``: the MCP server over Streamable HTTP (and the legacy HTTP+SSE transport at
  ``/sse`` + ``/messages``). ``server.asgi_app()`` is a plain ASGI app: the hypermcp engine
  does the protocol work (sessions, SSE streams, resumption, limits, the DNS-rebinding
  guard); it is mounted at the root, after the app's own routes, so ``/mcp`` is reached
  without a redirect. (``Mount("/mcp", app=mcp)`` works too, with clients using ``/mcp/``.)
- Starlette does not pass lifespan events to mounted apps, so the app's lifespan runs the
  MCP server's (``mcp.startup()`` / ``mcp.shutdown()``; without them it starts on the first
  request and is never exited).
- The DNS-rebinding allow-list defaults to localhost; behind a real host name pass
  ``server.asgi_app(allowed_hosts=["mcp.example.com"], allowed_origins=[...])``.

Starlette and uvicorn are only needed for this example: hypermcp itself depends on nothing.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

try:
    import uvicorn  # pyright: ignore[reportMissingImports]
    from starlette.applications import Starlette  # pyright: ignore[reportMissingImports]
    from starlette.responses import PlainTextResponse  # pyright: ignore[reportMissingImports]
    from starlette.routing import Mount, Route  # pyright: ignore[reportMissingImports]
except ImportError as exc:  # pragma: no cover - depends on the environment
    sys.exit(f"asgi_app.py needs starlette and uvicorn (pip install starlette uvicorn): {exc}")

from weather_server import server

mcp = server.asgi_app()


async def homepage(request: Any) -> Any:
    return PlainTextResponse(f"{server.name}: MCP at /mcp\n")


@asynccontextmanager
async def lifespan(app: Any) -> AsyncIterator[None]:
    await mcp.startup()  # enters the weather server's lifespan
    try:
        yield
    finally:
        await mcp.shutdown()  # closes every MCP session, exits the lifespan


app = Starlette(routes=[Route("/", homepage), Mount("/", app=mcp)], lifespan=lifespan)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="The weather MCP server inside a Starlette app.")
    parser.add_argument("--port", type=int, default=8000, help="port on 127.0.0.1 (default 8000)")
    args = parser.parse_args()
    print(f"asgi_app: serving on http://127.0.0.1:{args.port}/mcp", file=sys.stderr, flush=True)
    uvicorn.run(app, host="127.0.0.1", port=args.port, log_level="warning")
