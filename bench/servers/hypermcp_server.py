"""The hypermcp (Python) benchmark server: the contract of ``bench/servers/README.md`` (an
``echo`` tool, the catalogue ``tool_01`` ... ``tool_49``, the 1 MiB resource ``bench://blob``; with
``BENCH_MODERN=1`` the 2026-07-28 tools ``ask`` and ``touch``),
written the way a user of the package writes a server.

    python bench/servers/hypermcp_server.py                               # stdio
    python bench/servers/hypermcp_server.py --http PORT                   # Streamable HTTP, sessions
    python bench/servers/hypermcp_server.py --http PORT --stateless-json  # stateless, JSON answers

HTTP serves ``http://127.0.0.1:PORT/mcp`` until SIGINT or SIGTERM. After ``--http PORT
[--stateless-json]``, the serving options of ``bench/run.py``'s auth and TLS rows
(``bench/servers/README.md``): ``--tls-cert PEM --tls-key PEM`` serve HTTPS; ``--auth-issuer URL
--auth-jwks URL --auth-resource URI`` make the server an OAuth resource server that takes JWTs of
that issuer for that resource with the scope ``mcp``.
"""

import os
import sys

from hypermcp import Context, Server

server = Server("hypermcp-bench", version="1.0.0")

if os.environ.get("BENCH_MIDDLEWARE"):
    # One pass-through middleware (bench/servers/README.md): what a link costs a call.
    from hypermcp import Middleware

    class PassThrough(Middleware):
        async def on_call_tool(self, context, call_next):
            return await call_next(context)

    server.add_middleware(PassThrough())

if os.environ.get("BENCH_BUILTINS"):
    # The logging and timing built-ins (their lines read by nobody: the level is above them).
    from hypermcp import enable_logging
    from hypermcp.middleware import LoggingMiddleware, TimingMiddleware

    server.add_middleware(LoggingMiddleware())
    server.add_middleware(TimingMiddleware())
    enable_logging("WARNING")


@server.tool(description="Echo the text back")
async def echo(text: str) -> str:
    """Echo the text back.

    Args:
        text: Text to echo back
    """
    return text


def catalogue_tool(n: int) -> None:
    name = f"tool_{n:02d}"

    async def forecast(city: str, days: int = 1) -> str:
        """The forecast for a city over a number of days.

        Args:
            city: City name
            days: Days ahead, 1 to 7
        """
        return f"{name}: {city} {days}"

    server.add_tool(
        forecast, name=name, description=f"Catalogue tool {n:02d}: the forecast for a city over a number of days"
    )


for n in range(1, 50):
    catalogue_tool(n)

# The 2026-07-28 scenarios, with BENCH_MODERN=1 only (the catalogue the other scenarios list
# stays 50 tools): ``ask`` elicits a name (one ``input_required`` round trip at 2026-07-28),
# ``touch`` changes the tool list so every listen stream gets ``list_changed``.
NAME_FORM = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


async def ask(ctx: Context) -> str:
    answer = await ctx.elicit("What is your name?", NAME_FORM)
    if answer.action != "accept" or not answer.content:
        raise ValueError(f"no name given ({answer.action})")
    return f"hello {answer.content['name']}"


async def touched() -> str:
    """Added by touch"""
    return "touched"


async def touch() -> str:
    if not server.remove_tool("touched"):
        server.add_tool(touched)
    return "touched"


if os.environ.get("BENCH_MODERN"):
    server.add_tool(ask, description="Ask for a name, then greet it")
    server.add_tool(touch, description="Change the tool list (add or remove `touched`)")

# Built on the first read and kept (bench/servers/README.md).
_blob: list[str] = []


@server.resource("bench://blob", name="blob", mime_type="text/plain")
async def blob() -> str:
    if not _blob:
        _blob.append("0123456789abcdef" * 65_536)
    return _blob[0]


USAGE = (
    "usage: hypermcp_server.py [--http PORT [--stateless-json] [--tls-cert PEM --tls-key PEM]"
    " [--auth-issuer URL --auth-jwks URL --auth-resource URI]]"
)
SERVING_FLAGS = ("--tls-cert", "--tls-key", "--auth-issuer", "--auth-jwks", "--auth-resource")


def http_options(argv: list[str]) -> dict | None:
    """The keyword arguments of ``server.run("http", ...)`` for the flags after the port, or
    None if they are not the flags above."""
    options: dict = {}
    given: dict[str, str] = {}
    i = 0
    while i < len(argv):
        if argv[i] == "--stateless-json":
            options["stateless"] = options["json_response"] = True
            i += 1
        elif argv[i] in SERVING_FLAGS and i + 1 < len(argv):
            given[argv[i]] = argv[i + 1]
            i += 2
        else:
            return None
    if ("--tls-cert" in given) != ("--tls-key" in given):
        return None
    if "--tls-cert" in given:
        options["tls_cert"], options["tls_key"] = given["--tls-cert"], given["--tls-key"]
    auth = [given.get(f) for f in SERVING_FLAGS[2:]]
    if any(auth) and not all(auth):
        return None
    if all(auth):
        issuer, jwks, resource = auth
        options["auth"] = {
            "resource": resource,
            "authorization_servers": [issuer],
            "jwks_uri": jwks,
            "required_scopes": ["mcp"],
        }
    return options


def main(argv: list[str]) -> None:
    # No argparse: the start-up time of this server is benchmarked.
    if not argv:
        server.run()
        return
    options = http_options(argv[2:]) if argv[0] == "--http" and len(argv) >= 2 and argv[1].isdigit() else None
    if options is None:
        sys.exit(USAGE)
    server.run("http", port=int(argv[1]), **options)


if __name__ == "__main__":
    main(sys.argv[1:])
