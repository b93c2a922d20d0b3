"""A client that spawns a stdio MCP server (or connects to one over HTTP) and uses what it
offers.

    python examples/python/client.py                      # the weather example server
    python examples/python/client.py -- node server.js    # any stdio server
    python examples/python/client.py --url http://127.0.0.1:8000/mcp   # any HTTP server

It lists tools, resources and prompts, calls a tool (with progress), reads a resource and
gets a prompt, answering the server's elicitation and sampling requests on the way.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from hypermcp import Client


async def sampling(params: dict[str, Any]) -> dict[str, Any]:
    # A real client would ask its model; this one answers from a script.
    question = params["messages"][-1]["content"].get("text", "")
    return {
        "role": "assistant",
        "model": "scripted",
        "content": {"type": "text", "text": f"(re: {question[:40]}...) Pack layers."},
    }


async def elicitation(params: dict[str, Any]) -> dict[str, Any]:
    print(f"  server asks: {params['message']}")
    return {"action": "accept", "content": {"city": "paris", "days": 2}}


def progress(value: float, total: float | None, message: str | None) -> None:
    print(f"  progress {value:g}/{total:g} {message or ''}")


async def main(command: list[str]) -> None:
    if command[0] == "--url":  # an HTTP server
        client = Client.http(command[1], sampling_handler=sampling, elicitation_handler=elicitation)
    else:
        client = Client.stdio(command[0], *command[1:], sampling_handler=sampling, elicitation_handler=elicitation)
    async with client:
        info = client.server_info
        print(f"connected to {info.name} {info.version} (protocol {client.protocol_version})")
        tools = await client.list_tools()
        print("tools:", ", ".join(t.name for t in tools))
        names = {t.name for t in tools}
        if "forecast" in names:
            result = await client.call_tool("forecast", {"city": "paris", "days": 3}, progress_handler=progress)
            print("forecast ->", json.dumps(result.structured_content))
            trip = await client.call_tool("plan_trip")
            print("plan_trip ->", trip.text)
        elif "echo" in names:
            result = await client.call_tool("echo", {"text": "hello from the hypermcp Python client"})
            print("echo ->", result.text)
        if client.server_capabilities.get("resources"):
            resources = await client.list_resources()
            print("resources:", ", ".join(r.uri for r in resources) or "(none)")
            if resources:
                print(f"{resources[0].uri} ->", (await client.read_resource(resources[0].uri)).text)
        if client.server_capabilities.get("prompts"):
            prompts = await client.list_prompts()
            print("prompts:", ", ".join(p.name for p in prompts) or "(none)")
            if any(p.name == "packing_list" for p in prompts):
                prompt = await client.get_prompt("packing_list", {"city": "tokyo"})
                print("packing_list ->", " / ".join(m.content.text for m in prompt.messages))


if __name__ == "__main__":
    argv = sys.argv[1:]
    if argv and argv[0] == "--url" and len(argv) != 2:
        sys.exit("usage: client.py --url http://HOST:PORT/mcp")
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        here = os.path.dirname(os.path.abspath(__file__))
        argv = [sys.executable, os.path.join(here, "weather_server.py")]
    asyncio.run(main(argv))
