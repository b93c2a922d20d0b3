"""The MCP conformance-suite client: ``conformance_client.py <server-url>``.

The official harness (``@modelcontextprotocol/conformance client``) starts a mock server per
scenario and runs this with the scenario name in ``MCP_CONFORMANCE_SCENARIO``:

- ``initialize``: connect (Streamable HTTP, protocol 2025-11-25) and list the tools;
- ``tools_call``: call ``add_numbers`` with ``{a, b}``;
- ``elicitation-sep1034-client-defaults``: answer the server's elicitation by accepting with
  every default its schema gives;
- ``sse-retry`` (and anything else): call each tool; the transport resumes broken SSE streams
  with ``Last-Event-ID`` after the server's ``retry`` delay.

Exits 0 on success, 1 with a message otherwise.
"""

from __future__ import annotations

import asyncio
import os
import sys
from typing import Any

from hypermcp import Client


def accept_defaults(params: dict[str, Any]) -> dict[str, Any]:
    """Accepts a form elicitation with the defaults of its schema applied."""
    props = (params.get("requestedSchema") or {}).get("properties") or {}
    content = {name: schema["default"] for name, schema in props.items() if "default" in schema}
    return {"action": "accept", "content": content}


async def play(scenario: str, url: str) -> None:
    handler = accept_defaults if scenario.startswith("elicitation") else None
    async with Client.http(url, name="hypermcp-conformance-client", elicitation_handler=handler) as client:
        tools = await client.list_tools() if "tools" in client.server_capabilities else []
        if scenario == "initialize":
            return
        if scenario == "tools_call":
            result = await client.call_tool("add_numbers", {"a": 5, "b": 3})
            print("add_numbers:", result.text)
            return
        for tool in tools:
            result = await client.call_tool(tool.name, {})
            print(f"{tool.name}: {result.text}")


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: conformance_client.py <server-url> (scenario in MCP_CONFORMANCE_SCENARIO)", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    try:
        asyncio.run(asyncio.wait_for(play(scenario, sys.argv[1]), 25))
    except Exception as exc:  # noqa: BLE001 - reported to the harness
        print(f"scenario {scenario!r} against {sys.argv[1]}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
