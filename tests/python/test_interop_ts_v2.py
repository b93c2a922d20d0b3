"""The hypermcp Python client against a server on the official TypeScript SDK v2
(``@modelcontextprotocol/server`` 2.4.0): tests/interop/peers/ts_v2_server.mjs, over stdio and
Streamable HTTP. The v2 server speaks both eras: an auto or modern client speaks 2026-07-28 with
it (its ``ask_name`` tool answers ``input_required``, which our client serves through its
elicitation handler); a legacy client runs ``initialize`` against the same server. The fallback
to a legacy-only server is checked against server-everything (test_client_stdio.py) and the
official Python SDK 1.x-era transports (test_http_client.py).

Skipped without the peers (``.peers/npm``, made by tests/interop/setup_peers.sh) unless
``HYPERMCP_REQUIRE_PEERS=1``.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from _helpers import listening_url
from hypermcp import Client

ROOT = Path(__file__).resolve().parents[2]
PEERS = Path(os.environ.get("PEERS") or ROOT / ".peers")
SERVER = ROOT / "tests" / "interop" / "peers" / "ts_v2_server.mjs"


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


@pytest.fixture(scope="module")
def node() -> str:
    node = shutil.which("node")
    installed = (PEERS / "npm" / "node_modules" / "@modelcontextprotocol" / "server" / "package.json").is_file()
    if node is None or not installed:
        why = f"node or the TypeScript SDK v2 peer ({PEERS}/npm) is missing"
        if os.environ.get("HYPERMCP_REQUIRE_PEERS") == "1":
            pytest.fail(f"{why} (run tests/interop/setup_peers.sh)")
        pytest.skip(f"{why} (run tests/interop/setup_peers.sh; HYPERMCP_REQUIRE_PEERS=1 makes this fail)")
    return node


def answer(params: Any) -> dict[str, Any]:
    assert params["message"] == "What is your name?"
    return {"action": "accept", "content": {"name": "Ada"}}


@asynccontextmanager
async def http_server(node: str) -> AsyncIterator[str]:
    proc = subprocess.Popen(
        [node, str(SERVER), "--port", "0"],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        env={**os.environ, "PEERS": str(PEERS)},
        text=True,
    )
    try:
        yield await asyncio.to_thread(listening_url, proc)
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.parametrize("mode", ["auto", "modern", "legacy"])
def test_stdio(node: str, mode: str) -> None:
    async def main() -> None:
        async with Client.stdio(
            node, str(SERVER), "--stdio", env={"PEERS": str(PEERS)}, mode=mode, elicitation_handler=answer
        ) as client:
            assert client.server_info.name == "ts-v2-server"
            assert client.modern == (mode != "legacy")
            assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
            assert [t.name for t in await client.list_tools()] == ["echo", "ask_name"]
            assert (await client.call_tool("echo", {"text": "hi"})).text == "echo: hi"
            # 2026-07-28: input_required served by the handler; legacy: the SDK's shim sends a
            # real elicitation/create.
            assert (await client.call_tool("ask_name")).text == "hello Ada"

    run(main())


@pytest.mark.parametrize("mode", ["auto", "modern"])
def test_http(node: str, mode: str) -> None:
    async def main() -> None:
        async with http_server(node) as url:
            async with Client.http(url, mode=mode, elicitation_handler=answer) as client:
                assert client.modern and client.protocol_version == "2026-07-28"
                assert (await client.call_tool("echo", {"text": "over http"})).text == "echo: over http"
                assert (await client.call_tool("ask_name")).text == "hello Ada"
                declined = Client.http(url, mode=mode, elicitation_handler=lambda p: {"action": "decline"})
                async with declined as other:
                    result = await other.call_tool("ask_name")
                    assert result.is_error and "decline" in result.text

    run(main())


def test_a_legacy_only_typescript_server_through_the_fallback(node: str) -> None:
    # The TypeScript SDK 1.32.2 speaks only the legacy revisions: the probe is refused and the
    # auto client runs initialize.
    legacy = ROOT / "tests" / "interop" / "peers" / "ts_echo_server.mjs"

    async def main() -> None:
        async with Client.stdio(node, str(legacy), env={"PEERS": str(PEERS)}) as client:
            assert not client.modern and client.protocol_version == "2025-11-25"
            assert (await client.call_tool("echo", {"text": "x"})).text == "x"

    run(main())


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
