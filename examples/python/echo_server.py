"""The shared echo server: one tool ``echo(text)`` answering with that text, over stdio.

Every hypermcp language ships this same server; the benchmarks and interop checks use it.

    python examples/python/echo_server.py                # stdio
    python examples/python/echo_server.py --http 3000    # Streamable HTTP at http://127.0.0.1:3000/mcp

With ``--http PORT`` it serves until SIGINT or SIGTERM (the legacy HTTP+SSE transport too,
at ``/sse``); ``--stateless`` and ``--json`` select those modes, as in the Rust example.
"""

import sys

from hypermcp import Server

server = Server("hypermcp-echo", version="1.0.0")


@server.tool
async def echo(text: str) -> str:
    """Echo the given text back.

    Args:
        text: Text to echo back.
    """
    return text


def main(argv: list[str]) -> None:
    # No argparse: the start-up time of this server is benchmarked.
    if not argv:
        server.run()
    elif argv[0] == "--http" and len(argv) >= 2 and argv[1].isdigit() and set(argv[2:]) <= {"--stateless", "--json"}:
        server.run("http", port=int(argv[1]), stateless="--stateless" in argv, json_response="--json" in argv)
    else:
        sys.exit("usage: echo_server.py [--http PORT [--stateless] [--json]]")


if __name__ == "__main__":
    main(sys.argv[1:])
