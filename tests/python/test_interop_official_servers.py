"""The hypermcp Python client against a server written with the official Python SDK
(``mcp`` 2.3.0, ``MCPServer``): tests/interop/peers/py_full_server.py, run over stdio with
the peers venv's python (``.peers/venv``, made by tests/interop/setup_peers.sh).

Plain ``asyncio.run`` in each test: no pytest plugin needed. Without the peers venv the tests
are skipped, unless ``HYPERMCP_REQUIRE_PEERS=1`` (then they fail). ``PEERS`` points at another
peers folder. ``@modelcontextprotocol/server-everything`` is covered by test_client_stdio.py.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest

from hypermcp.client import Client, Record, prompt_ref, resource_ref
from hypermcp.errors import MethodNotFound, ToolError

ROOT = Path(__file__).resolve().parents[2]
PEERS = Path(os.environ.get("PEERS") or ROOT / ".peers")
PEER_PYTHON = PEERS / "venv" / "bin" / "python"
SERVER = ROOT / "tests" / "interop" / "peers" / "py_full_server.py"


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


@pytest.fixture(scope="module")
def official_server() -> list[str]:
    if not PEER_PYTHON.is_file():
        why = f"the official Python SDK peer venv is missing at {PEER_PYTHON}"
        if os.environ.get("HYPERMCP_REQUIRE_PEERS") == "1":
            pytest.fail(f"{why} (run tests/interop/setup_peers.sh)")
        pytest.skip(f"{why} (run tests/interop/setup_peers.sh; HYPERMCP_REQUIRE_PEERS=1 makes this fail)")
    return [str(PEER_PYTHON), str(SERVER)]


@pytest.mark.parametrize(("mode", "era"), [("auto", "2026-07-28"), ("modern", "2026-07-28"), ("legacy", "2025-11-25")])
def test_handshake_and_tools(official_server: list[str], mode: str, era: str) -> None:
    # The official SDK 2.3.0 speaks both eras: an auto client finds 2026-07-28 by its probe.
    async def main() -> None:
        async with Client.stdio(*official_server, mode=mode) as client:
            assert client.server_info.name == "py-full-server"
            assert client.server_info.version == "2.3.0-peer"
            assert client.instructions == "An official-SDK peer for interop tests."
            assert client.protocol_version == era
            assert client.modern == (era == "2026-07-28")
            caps = client.server_capabilities
            assert {"tools", "resources", "prompts", "completions"} <= set(caps)
            await client.ping()

            tools = {t.name: t for t in await client.list_tools()}
            assert set(tools) == {"forecast", "count", "plan", "fail"}
            fc = tools["forecast"]
            assert fc.description == "Forecast for a city."
            assert fc.input_schema["required"] == ["city"]
            assert fc.input_schema["properties"]["days"]["default"] == 2
            assert fc.output_schema["required"] == ["city", "days", "temperatures"]
            assert "ctx" not in tools["count"].input_schema["properties"]

    run(main())


def test_structured_output_and_errors(official_server: list[str]) -> None:
    async def main() -> None:
        async with Client.stdio(*official_server) as client:
            res = await client.call_tool("forecast", {"city": "Oslo", "days": 3})
            assert res.is_error is False
            assert res.structured_content == {"city": "Oslo", "days": 3, "temperatures": [20.0, 21.0, 22.0]}
            assert json.loads(res.text) == res.structured_content
            assert res.content[0].type == "text"

            # The official SDK turns an exception into an isError result ...
            failed = await client.call_tool("fail")
            assert failed.is_error is True
            assert "fail" in failed.text
            # ... and bad arguments too (validation happens inside the tool call).
            bad = await client.call_tool("forecast", {"days": 1})
            assert bad.is_error is True
            # An unknown tool as well (hypermcp servers answer with a JSON-RPC error).
            unknown = await client.call_tool("no-such-tool")
            assert unknown.is_error is True
            assert "no-such-tool" in unknown.text
            # raise_on_error turns isError into ToolError, carrying the result.
            with pytest.raises(ToolError) as info:
                await client.call_tool("fail", raise_on_error=True)
            assert info.value.result.is_error is True  # pyright: ignore[reportAttributeAccessIssue]
            # A method the server does not have is a JSON-RPC error.
            with pytest.raises(MethodNotFound):
                await client.set_logging_level("debug")
            # The client is still usable after errors.
            assert (await client.call_tool("forecast", {"city": "Rome", "days": 1})).structured_content == {
                "city": "Rome",
                "days": 1,
                "temperatures": [20.0],
            }

    run(main())


def test_progress_and_logging(official_server: list[str]) -> None:
    progress: list[tuple[float, float | None, str | None]] = []
    logs: list[Any] = []

    async def main() -> None:
        async with Client.stdio(*official_server, logging_handler=logs.append) as client:
            res = await client.call_tool(
                "count",
                {"steps": 4},
                progress_handler=lambda p, total, message: progress.append((p, total, message)),
            )
            assert res.is_error is False
            assert res.text == "counted to 4"
            assert res.structured_content == {"result": "counted to 4"}
            for _ in range(100):  # the log notification may be handled just after the result
                if logs:
                    break
                await asyncio.sleep(0.01)

    run(main())
    assert progress == [(1, 4, "step 1"), (2, 4, "step 2"), (3, 4, "step 3"), (4, 4, "step 4")]
    assert [(entry["level"], entry["data"]) for entry in logs] == [("info", "counted to 4")]


def test_elicitation_and_sampling(official_server: list[str]) -> None:
    elicited: list[Record] = []
    sampled: list[Record] = []

    def elicit(params: Record) -> dict[str, Any]:
        elicited.append(params)
        return {"action": "accept", "content": {"city": "Oslo"}}

    def sample(params: Record) -> dict[str, Any]:
        sampled.append(params)
        return {"role": "assistant", "content": {"type": "text", "text": "bring wool"}, "model": "test-model"}

    async def main() -> None:
        # The official MCPServer sends ctx.elicit / ctx.sample only on a legacy session (on a
        # 2026-07-28 request it refuses: "no back-channel for server-initiated requests").
        async with Client.stdio(
            *official_server, mode="legacy", elicitation_handler=elicit, sampling_handler=sample
        ) as client:
            res = await client.call_tool("plan")
            assert res.is_error is False
            assert res.text == "Oslo: bring wool"

        # Declining is reported back to the tool.
        async with Client.stdio(
            *official_server, mode="legacy", elicitation_handler=lambda p: {"action": "decline"}
        ) as client:
            assert (await client.call_tool("plan")).text == "plan: decline"

    run(main())
    assert len(elicited) == 1 and elicited[0].message == "Where to?"
    assert elicited[0].requested_schema["properties"]["city"]["type"] == "string"
    assert len(sampled) == 1 and sampled[0].max_tokens == 30
    assert sampled[0].messages[0].content.text == "Advice for Oslo?"


def test_resources_templates_prompts_completion(official_server: list[str]) -> None:
    async def main() -> None:
        async with Client.stdio(*official_server) as client:
            resources = await client.list_resources()
            assert [(r.uri, r.mime_type) for r in resources] == [("data://config", "application/json")]
            read = await client.read_resource("data://config")
            assert read.contents[0].uri == "data://config"
            assert read.contents[0].mime_type == "application/json"
            assert json.loads(read.text) == {"debug": False, "retries": 3}

            templates = await client.list_resource_templates()
            assert [t.uri_template for t in templates] == ["data://users/{user_id}"]
            user = await client.read_resource("data://users/u2")
            assert user.contents[0].uri == "data://users/u2"
            assert json.loads(user.text) == {"id": "u2", "name": "Grace"}

            prompts = await client.list_prompts()
            assert [p.name for p in prompts] == ["review"]
            assert [(a.name, a.required) for a in prompts[0].arguments] == [("code", True), ("language", False)]
            prompt = await client.get_prompt("review", {"code": "x = 1", "language": "rust"})
            assert prompt.description == "Review some code."
            assert len(prompt.messages) == 1
            assert prompt.messages[0].role == "user"
            assert prompt.messages[0].content.text == "Please review this rust code:\nx = 1"
            default = await client.get_prompt("review", {"code": "y"})
            assert default.messages[0].content.text == "Please review this python code:\ny"

            done = await client.complete(resource_ref("data://users/{user_id}"), "user_id", "u")
            assert done.completion.values == ["u1", "u2"]
            done = await client.complete(prompt_ref("review"), "language", "r")
            assert done.completion.values == ["rust"]

    run(main())
