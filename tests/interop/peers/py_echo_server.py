"""Echo MCP server written with the official Python SDK (mcp 2.3.0).

One tool, `echo(text: str) -> str`, returning its input. Used as a known-good peer to
test the interop clients, the transcript runner and the benchmarks. Run it with the peers venv:

    PY=.peers/venv/bin/python; S=tests/interop/peers/py_echo_server.py
    $PY $S                              stdio
    $PY $S --http PORT                  Streamable HTTP at /mcp, stateful (Mcp-Session-Id, SSE answers)
    $PY $S --http PORT --stateless-json Streamable HTTP at /mcp, stateless with JSON answers (the
                                        fastest official HTTP configuration, for the benchmarks)
    $PY $S --sse PORT                   legacy HTTP+SSE: GET /sse, POST /messages/?session_id=...

HTTP listens on 127.0.0.1 only (the SDK then turns on its DNS rebinding protection: Host and
Origin must be 127.0.0.1, localhost or [::1]), served by uvicorn without access logs. PORT 0
picks a free port. Once listening, one line goes to stderr:
``py_echo_server: listening on http://127.0.0.1:PORT/mcp`` (or ``.../sse``).
"""

import argparse
import socket
import sys

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("py-echo-server", version="1.0.0")


@mcp.tool()
def echo(text: str) -> str:
    """Echo the given text back."""
    return text


def serve_http(app: object, port: int, path: str) -> None:
    import anyio
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", port))
    sock.listen(1024)
    sock.set_inheritable(True)
    url = f"http://127.0.0.1:{sock.getsockname()[1]}{path}"

    class Server(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            print(f"py_echo_server: listening on {url}", file=sys.stderr, flush=True)

    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on")  # type: ignore[arg-type]
    anyio.run(lambda: Server(config).serve(sockets=[sock]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--http", type=int, metavar="PORT", help="serve Streamable HTTP at /mcp")
    group.add_argument("--sse", type=int, metavar="PORT", help="serve the legacy HTTP+SSE transport")
    parser.add_argument(
        "--stateless-json", action="store_true", help="with --http: stateless, JSON responses instead of SSE"
    )
    args = parser.parse_args()
    if args.stateless_json and args.http is None:
        parser.error("--stateless-json needs --http PORT")
    if args.http is not None:
        app = mcp.streamable_http_app(
            stateless_http=args.stateless_json, json_response=args.stateless_json, host="127.0.0.1"
        )
        serve_http(app, args.http, "/mcp")
    elif args.sse is not None:
        serve_http(mcp.sse_app(host="127.0.0.1"), args.sse, "/sse")
    else:
        mcp.run("stdio")


if __name__ == "__main__":
    main()
