#!/usr/bin/env python3
"""Drive an MCP server with the official Python SDK client (mcp 2.3.0).

    py_sdk_client.py [--timeout SECONDS] -- CMD [ARGS...]      stdio: starts CMD
    py_sdk_client.py [--timeout SECONDS] --url URL              Streamable HTTP (e.g. http://127.0.0.1:N/mcp)
    py_sdk_client.py [--timeout SECONDS] --sse-url URL          legacy HTTP+SSE (the GET stream, e.g. .../sse)

Connects, initializes, checks that tools/list has a tool `echo`, calls
`echo {"text": "hello interop"}` and checks the result is exactly one text content equal
to "hello interop" and not isError, sends a ping, and exits 0. On any failure it prints a
message to stderr and exits 1. The whole run is bounded (30 s by default).

When ${PEERS:-<repo>/.peers}/venv exists (see setup_peers.sh), the script re-executes
itself with that venv's python, so the pinned SDK is used whatever python started it.
"""

from __future__ import annotations

import sys

from sdk_harness import Target, check, open_transport, run_main, sdk_missing, use_peers_python

use_peers_python(__file__)

try:
    from mcp import ClientSession
except ImportError as exc:
    sdk_missing("py_sdk_client", exc)


ECHO_TEXT = "hello interop"
PREFIX = "py_sdk_client"


async def run(target: Target) -> Target:
    async with open_transport(target) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            info = init.server_info
            print(
                f"{PREFIX}: initialized: protocolVersion={init.protocol_version} server={info.name} {info.version}",
                file=sys.stderr,
            )

            tools = await session.list_tools()
            names = [t.name for t in tools.tools]
            check("echo" in names, f"tools/list has no tool 'echo' (tools: {names})")

            res = await session.call_tool("echo", {"text": ECHO_TEXT})
            wire = res.model_dump(by_alias=True, mode="json", exclude_none=True)
            check(not res.is_error, f"echo returned isError=true: {wire}")
            check(len(res.content) == 1, f"echo returned {len(res.content)} content items, want 1: {wire}")
            item = res.content[0]
            check(getattr(item, "type", None) == "text", f"echo content[0] is not text: {wire}")
            check(item.text == ECHO_TEXT, f"echo content[0].text is {item.text!r}, want {ECHO_TEXT!r}")

            await session.send_ping()
    return target


def main() -> int:
    return run_main(
        __file__,
        PREFIX,
        run,
        lambda target: print(
            f"{PREFIX}: ok (initialize, tools/list, tools/call echo, ping; {target.kind})", file=sys.stderr
        ),
    )


if __name__ == "__main__":
    sys.exit(main())
