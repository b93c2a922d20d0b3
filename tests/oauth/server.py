"""An MCP server (hypermcp for Python) that requires OAuth access tokens from the test's
authorization server: for the other languages' clients in the OAuth tests.

    python tests/oauth/server.py --port PORT --issuer URL --ca-file CA.pem [--required-scope S]...

It serves http://127.0.0.1:PORT/mcp (the resource: the tokens' audience), verifies JWTs
against the issuer's JWKS (fetched over HTTPS trusting CA.pem), prints {"url": ...} on stdout
when it listens, then one JSON line per tool call ({"called": "echo", "text": ...}). Stops on
SIGTERM or when stdin closes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
import sys

from hypermcp import Server


def say(obj: object) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--ca-file", required=True)
    parser.add_argument("--required-scope", action="append", default=[])
    args = parser.parse_args()

    server = Server("oauth-python-server", "1.0.0")

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text."""
        say({"called": "echo", "text": text})
        return f"python server: {text}"

    auth = {
        "resource": f"http://127.0.0.1:{args.port}/mcp",
        "authorization_servers": [args.issuer],
        "jwks_uri": f"{args.issuer}/jwks",
        "required_scopes": args.required_scope,
        "scopes_supported": ["mcp:tools", "mcp:admin"],
        "ca_file": args.ca_file,
    }
    loop = asyncio.get_running_loop()
    done = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, done.set)
    loop.add_reader(sys.stdin.fileno(), lambda: sys.stdin.buffer.read1(4096) or done.set())
    async with await server.start_http("127.0.0.1", args.port, auth=auth) as http:
        say({"url": http.url})
        await done.wait()


if __name__ == "__main__":
    asyncio.run(main())
