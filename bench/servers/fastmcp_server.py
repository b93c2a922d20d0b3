"""The benchmark server (bench/servers/README.md) written with FastMCP 4.x (PyPI `fastmcp`).

    PY=.peers/bench/fastmcp-venv/bin/python; S=bench/servers/fastmcp_server.py
    $PY $S                              stdio
    $PY $S --http PORT                  Streamable HTTP on 127.0.0.1:PORT at /mcp, sessions, SSE
                                        answers (FastMCP's defaults)
    $PY $S --http PORT --stateless-json stateless, plain JSON answers

A `FastMCP` server: an async `echo` tool, the 49 catalogue tools added in a loop with their
names and descriptions given explicitly (`mcp.tool(fn, name=..., description=...)`), argument
descriptions as pydantic `Field`s, and the 1 MiB resource with the `@resource` decorator (its
text is built once, at import). Served with FastMCP's own `run` (its uvicorn for HTTP, which
binds the port itself, so accepted sockets get TCP_NODELAY; host 127.0.0.1 turns on its
Host/Origin protection), without the banner (nothing but protocol messages on stdout), at log
level WARNING (nothing logged while serving) and without uvicorn's access log.
"""

import os
import sys
from typing import Annotated

from fastmcp import FastMCP
from pydantic import Field

_blob: list[str] = []  # 1,048,576 bytes, built on the first read and kept

mcp = FastMCP("fastmcp-bench", version="1.0.0")

if os.environ.get("BENCH_MIDDLEWARE"):
    # One pass-through middleware (bench/servers/README.md): what a link costs a call.
    from fastmcp.server.middleware import Middleware

    class PassThrough(Middleware):
        async def on_call_tool(self, context, call_next):
            return await call_next(context)

    mcp.add_middleware(PassThrough())

if os.environ.get("BENCH_BUILTINS"):
    # FastMCP's logging and timing middleware, their lines read by nobody (level above them).
    import logging

    from fastmcp.server.middleware.logging import LoggingMiddleware
    from fastmcp.server.middleware.timing import TimingMiddleware

    quiet = logging.getLogger("bench.quiet")
    quiet.setLevel(logging.WARNING)
    mcp.add_middleware(LoggingMiddleware(logger=quiet))
    mcp.add_middleware(TimingMiddleware(logger=quiet))


@mcp.tool(description="Echo the text back")
async def echo(text: Annotated[str, Field(description="Text to echo back")]) -> str:
    return text


def _catalogue_tool(name: str):
    async def forecast(
        city: Annotated[str, Field(description="City name")],
        days: Annotated[int, Field(description="Days ahead, 1 to 7")] = 1,
    ) -> str:
        return f"{name}: {city} {days}"

    return forecast


for _n in range(1, 50):
    _name = f"tool_{_n:02d}"
    mcp.tool(
        _catalogue_tool(_name),
        name=_name,
        description=f"Catalogue tool {_n:02d}: the forecast for a city over a number of days",
    )


@mcp.resource("bench://blob", name="blob", mime_type="text/plain")
async def blob() -> str:
    if not _blob:
        _blob.append("0123456789abcdef" * 65_536)
    return _blob[0]


def main(argv: list[str]) -> None:
    if not argv:
        mcp.run(transport="stdio", show_banner=False, log_level="WARNING")
        return
    if len(argv) < 2 or argv[0] != "--http" or not argv[1].isdigit() or set(argv[2:]) - {"--stateless-json"}:
        sys.exit("usage: fastmcp_server.py [--http PORT [--stateless-json]]")
    stateless = "--stateless-json" in argv
    mcp.run(
        transport="http",
        show_banner=False,
        log_level="WARNING",
        host="127.0.0.1",
        port=int(argv[1]),
        path="/mcp",
        stateless_http=stateless,
        json_response=stateless,
        uvicorn_config={"access_log": False},
    )


if __name__ == "__main__":
    main(sys.argv[1:])
