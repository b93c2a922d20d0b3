"""The benchmark server (bench/servers/README.md) written with the official Python SDK (mcp 2.3.0).

    PY=.peers/venv/bin/python; S=bench/servers/official_python.py
    $PY $S                              stdio (MCPServer.run("stdio"))
    $PY $S --http PORT                  Streamable HTTP on 127.0.0.1:PORT at /mcp, sessions, SSE
                                        answers (the SDK's defaults)
    $PY $S --http PORT --stateless-json stateless, plain JSON answers

The server is an `MCPServer`: an async `echo` tool, the 49 catalogue tools added in a loop
with their names and descriptions given explicitly (`add_tool`), argument descriptions as
pydantic `Field`s, and the 1 MiB resource with the `@resource` decorator (its text is built
once, at import). Log level WARNING: nothing is logged while serving.

HTTP is the SDK's own app (`streamable_http_app`, with its DNS rebinding protection for
127.0.0.1) served by uvicorn as `MCPServer.run("streamable-http")` serves it, except that
access logs are off: uvicorn binds the port itself, so its sockets get TCP_NODELAY (a socket
made by hand with protocol 0 does not, and every answer then waits ~44 ms for the client's
delayed ACK). Nothing is printed once listening (uvicorn's log level is warning).
"""

import os
import sys
from typing import Annotated

from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from pydantic import BaseModel, Field

_blob: list[str] = []  # 1,048,576 bytes, built on the first read and kept

mcp = MCPServer("official-python-bench", version="1.0.0", log_level="WARNING")


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
    mcp.add_tool(
        _catalogue_tool(_name),
        name=_name,
        description=f"Catalogue tool {_n:02d}: the forecast for a city over a number of days",
    )


class Name(BaseModel):
    name: str


async def ask_name() -> Elicit[Name]:
    return Elicit("What is your name?", Name)


# The 2026-07-28 MRTR scenario, the SDK's way (a resolver that returns an `Elicit` marker: one
# input_required round trip at 2026-07-28, a real elicitation request before).
async def ask(name: Annotated[Name, Resolve(ask_name)]) -> str:
    return f"hello {name.name}"


# The listen fan-out's trigger, the SDK's way: publish on the server's subscription bus, which
# every subscriptions/listen stream reads (adding or removing a tool does not notify them).
async def touch(ctx: Context) -> str:
    await ctx.notify_tools_changed()
    return "touched"


if os.environ.get("BENCH_MODERN"):  # bench/modern.sh only: elsewhere the catalogue stays 50 tools
    mcp.add_tool(ask, description="Ask for a name, then greet it")
    mcp.add_tool(touch, description="Send tools/list_changed to every listener")


@mcp.resource("bench://blob", name="blob", mime_type="text/plain")
async def blob() -> str:
    if not _blob:
        _blob.append("0123456789abcdef" * 65_536)
    return _blob[0]


def main(argv: list[str]) -> None:
    if not argv:
        mcp.run("stdio")
        return
    if len(argv) < 2 or argv[0] != "--http" or not argv[1].isdigit() or set(argv[2:]) - {"--stateless-json"}:
        sys.exit("usage: official_python.py [--http PORT [--stateless-json]]")
    import anyio
    import uvicorn

    stateless = "--stateless-json" in argv
    app = mcp.streamable_http_app(stateless_http=stateless, json_response=stateless, host="127.0.0.1")
    config = uvicorn.Config(
        app, host="127.0.0.1", port=int(argv[1]), log_level="warning", access_log=False, lifespan="on"
    )
    anyio.run(uvicorn.Server(config).serve)


if __name__ == "__main__":
    main(sys.argv[1:])
