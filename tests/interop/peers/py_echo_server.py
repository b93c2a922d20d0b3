"""Echo MCP server written with the official Python SDK (mcp 2.3.0), stdio transport.

One tool, `echo(text: str) -> str`, returning its input. Used as a known-good peer to
test the interop clients and the transcript runner. Run it with the peers venv:
    .peers/venv/bin/python tests/interop/peers/py_echo_server.py
"""

from mcp.server.mcpserver import MCPServer

mcp = MCPServer("py-echo-server", version="1.0.0")


@mcp.tool()
def echo(text: str) -> str:
    """Echo the given text back."""
    return text


if __name__ == "__main__":
    mcp.run("stdio")
