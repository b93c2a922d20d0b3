"""The hypermcp Python client drives the hypermcp Node weather server over stdio (the Node
client drives the Python server in tests/node/interop.test.mjs)."""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from hypermcp import Client, InvalidParams

REPO = Path(__file__).resolve().parents[2]
SERVER = REPO / "examples" / "node" / "weather_server.mjs"
NATIVE = REPO / "bindings-node" / "native" / "index.js"


def _need_node() -> str:
    node = shutil.which("node")
    if node is None or not NATIVE.exists():
        msg = "node or the built Node addon is missing (run make node)"
        if os.environ.get("HYPERMCP_REQUIRE_PEERS") == "1":
            pytest.fail(msg)
        pytest.skip(msg)
    return node


def test_python_client_drives_the_node_weather_server() -> None:
    node = _need_node()

    async def sampling(params: dict[str, Any]) -> dict[str, Any]:
        return {"role": "assistant", "model": "test", "content": {"type": "text", "text": "Bring a coat."}}

    async def elicitation(params: dict[str, Any]) -> dict[str, Any]:
        return {"action": "accept", "content": {"city": "lima", "days": 2}}

    async def main() -> None:
        steps: list[float] = []
        async with Client.stdio(
            node, str(SERVER), sampling_handler=sampling, elicitation_handler=elicitation
        ) as client:
            assert client.server_info.name == "weather"
            tools = {t.name for t in await client.list_tools()}
            assert {"forecast", "alerts", "weather_map", "plan_trip"} <= tools
            result = await client.call_tool(
                "forecast", {"city": "tokyo", "days": 2}, progress_handler=lambda p, t, m: steps.append(p)
            )
            assert result.structured_content["temperatures"] == [22.3, 22.8]
            trip = await client.call_tool("plan_trip")
            assert trip.text == "lima: Bring a coat."
            now = await client.read_resource("weather://paris/now")
            assert '"Paris"' in now.text
            prompt = await client.get_prompt("packing_list", {"city": "london"})
            assert "london" in prompt.messages[0].content.text
            with pytest.raises(InvalidParams):
                await client.call_tool("forecast", {"city": "mars"})
        await asyncio.sleep(0)
        assert steps == [1, 2]

    asyncio.run(asyncio.wait_for(main(), 30))
