"""Tasks from a Python client (``io.modelcontextprotocol/tasks``): against the Rust
conformance server over stdio (2026-07-28), ``call_tool`` reads the same whether the server
ran the call as a task or not: the client follows the task (``tasks/get``), serves its input
requests through ``elicitation_handler`` (answered with ``tasks/update``) and returns its
result; its error and a timeout (the task cancelled) raise; a raw ``request`` gets the task.

Environment: ``HYPERMCP_CONFORMANCE_SERVER`` points at the Rust conformance server (default:
``target/release/examples/conformance_server``, built by ``make rust``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from _helpers import run, within
from hypermcp import Client
from hypermcp.client import TaskHandle, ToolResult
from hypermcp.errors import REQUEST_CANCELLED, InternalError, McpError, MissingRequiredClientCapability, RequestTimeout

ROOT = Path(__file__).resolve().parents[2]
TASKS = "io.modelcontextprotocol/tasks"


def server() -> str:
    path = Path(
        os.environ.get("HYPERMCP_CONFORMANCE_SERVER")
        or Path(os.environ.get("HYPERMCP_BUILD") or ROOT / "target/release") / "examples/conformance_server"
    )
    if not path.exists():
        pytest.fail(
            f"{path} is missing: `cargo build --release -p hypermcp-examples --examples`"
            " or set HYPERMCP_CONFORMANCE_SERVER"
        )
    return str(path)


def confirm(params: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"confirm": True}}


def test_call_tool_follows_a_task_to_its_result() -> None:
    async def main() -> None:
        async with Client.stdio(
            server(), "--stdio", mode="modern", extensions={TASKS: {}}, elicitation_handler=confirm
        ) as client:
            assert TASKS in client.server_capabilities["extensions"]
            r = await within(client.call_tool("slow_compute", {"seconds": 0.3, "label": "py"}))
            assert r.text == "py: done after 0.3 s" and not r.is_error
            # The task's input request goes to the elicitation handler.
            r = await within(client.call_tool("confirm_delete", {"filename": "a.txt"}))
            assert r.text == "Deleted a.txt"
            r = await within(client.call_tool("failing_job", {}))
            assert r.is_error and "disk full" in r.text
            with pytest.raises(InternalError, match="internal error"):
                await within(client.call_tool("protocol_error_job", {}))
            with pytest.raises(RequestTimeout):
                await within(client.call_tool("slow_compute", {"seconds": 30}, timeout=0.3))
            # A raw request gets the task itself.
            raw = await within(client.request("tools/call", {"name": "slow_compute", "arguments": {"seconds": 0}}))
            assert raw["resultType"] == "task" and raw["taskId"]
            done = await within(client.request("tasks/get", {"taskId": raw["taskId"]}))
            assert done["taskId"] == raw["taskId"]

    run(main())


def test_a_client_without_the_extension_gets_plain_calls() -> None:
    async def main() -> None:
        async with Client.stdio(server(), "--stdio", mode="modern") as client:
            r = await within(client.call_tool("slow_compute", {"seconds": 0, "label": "sync"}))
            assert r.text == "sync: done after 0 s"
            with pytest.raises(MissingRequiredClientCapability):
                await within(client.call_tool("failing_job", {}))

    run(main())


def test_task_handles() -> None:
    async def main() -> None:
        async with Client.stdio(server(), "--stdio", mode="modern", extensions={TASKS: {}}) as client:
            handle = await within(client.call_tool_task("slow_compute", {"seconds": 0.3, "label": "h"}))
            assert isinstance(handle, TaskHandle) and handle.id
            assert (await within(handle.status())).status in ("working", "completed")
            # Any handle of the id waits for the same task.
            result = await within(client.task(handle.id).result())
            assert result.text == "h: done after 0.3 s"
            slow = await within(client.call_tool_task("slow_compute", {"seconds": 30}))
            assert isinstance(slow, TaskHandle)
            with pytest.raises(RequestTimeout):
                await within(slow.result(timeout=0.2))
            assert (await within(slow.status())).status == "cancelled"
            slow = await within(client.call_tool_task("slow_compute", {"seconds": 30}))
            assert isinstance(slow, TaskHandle)
            await within(slow.cancel())
            with pytest.raises(McpError) as info:
                await within(slow.result())
            assert info.value.code == REQUEST_CANCELLED
        async with Client.stdio(server(), "--stdio", mode="modern") as client:
            done = await within(client.call_tool_task("slow_compute", {"seconds": 0, "label": "now"}))
            assert isinstance(done, ToolResult) and done.text == "now: done after 0 s"

    run(main())
