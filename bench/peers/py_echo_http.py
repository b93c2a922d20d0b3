"""The official Python SDK's echo server over Streamable HTTP, served the SDK's own way.

Same server as tests/interop/peers/py_echo_server.py (it is imported from there: the
`MCPServer` with its one `echo` tool) and the same app (`streamable_http_app`, DNS-rebinding
protection for 127.0.0.1), but uvicorn binds the port itself, as `MCPServer.run("streamable-http")`
does. The difference matters for latency: the interop script hands uvicorn a socket made with
`socket.socket(AF_INET, SOCK_STREAM)` (protocol 0), and asyncio only sets TCP_NODELAY on
sockets whose protocol is IPPROTO_TCP, so there every response (headers and body are two
`send` calls) waits for the client's delayed ACK: ~44 ms per call on one connection. Bound by
uvicorn (getaddrinfo gives IPPROTO_TCP) the accepted sockets get TCP_NODELAY.

    .peers/venv/bin/python bench/peers/py_echo_http.py --http PORT [--stateless-json]

Without --stateless-json: stateful (Mcp-Session-Id, SSE answers), the SDK's defaults.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "interop" / "peers"))

import anyio
import uvicorn
from py_echo_server import mcp  # pyright: ignore[reportMissingImports]


def main(argv: list[str]) -> None:
    if len(argv) < 2 or argv[0] != "--http" or not argv[1].isdigit() or set(argv[2:]) - {"--stateless-json"}:
        sys.exit("usage: py_echo_http.py --http PORT [--stateless-json]")
    stateless = "--stateless-json" in argv
    app = mcp.streamable_http_app(stateless_http=stateless, json_response=stateless, host="127.0.0.1")
    config = uvicorn.Config(
        app, host="127.0.0.1", port=int(argv[1]), log_level="warning", access_log=False, lifespan="on"
    )
    anyio.run(uvicorn.Server(config).serve)


if __name__ == "__main__":
    main(sys.argv[1:])
