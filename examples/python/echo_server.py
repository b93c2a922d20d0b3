"""The shared echo server: one tool ``echo(text)`` answering with that text, over stdio.

Every hypermcp language ships this same server; the benchmarks and interop checks use it.

    python examples/python/echo_server.py
"""

from hypermcp import Server

server = Server("hypermcp-echo", version="1.0.0")


@server.tool
async def echo(text: str) -> str:
    """Echo the given text back.

    Args:
        text: Text to echo back.
    """
    return text


if __name__ == "__main__":
    server.run()
