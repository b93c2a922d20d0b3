"""Tasks served by a Python server (``io.modelcontextprotocol/tasks``, 2026-07-28):
``@server.tool(task=...)`` runs calls as tasks when the client declared the extension. The
call is answered with the task at once; the handler goes on, owned by the server (it
outlives the connection that started it), its progress the task's status message, its
``ctx.elicit`` the task's input requests, its return value or error the task's end, its
cancellation ``tasks/cancel``. ``task="manual"`` lets the handler decide
(``await ctx.start_task()``). Over the in-memory connection (the stdio code path) and over
HTTP, against the Python client."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from _helpers import run, until, within
from hypermcp import CallToolResult, Client, Context, Server, Text
from hypermcp.client import TaskHandle, ToolResult
from hypermcp.errors import (
    REQUEST_CANCELLED,
    DefinitionError,
    InternalError,
    McpError,
    MethodNotFound,
    MissingRequiredClientCapability,
)

TASKS = "io.modelcontextprotocol/tasks"


def make_server() -> tuple[Server, dict[str, Any]]:
    """A server of task tools, and what its handlers saw."""
    server = Server("tasks-py", tasks={"poll_interval": 0.02})
    seen: dict[str, Any] = {"cancelled": asyncio.Event(), "task_ids": []}

    @server.tool(task=True)
    async def slow(ctx: Context, seconds: float = 0.1, label: str = "slow") -> str:
        """Works for a while."""
        seen["task_ids"].append(ctx.task_id)
        await ctx.report_progress(1, 2, f"{label}: half way")
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            seen["cancelled"].set()
            raise
        return f"{label}: done"

    @server.tool(task="required")
    async def only_task() -> CallToolResult:
        """Only as a task; ends with isError."""
        return CallToolResult([Text("no disk")], is_error=True)

    @server.tool(task=True)
    async def broken() -> str:
        """Ends with a JSON-RPC error."""
        await asyncio.sleep(0.01)
        raise McpError(-32603, "broken on purpose")

    @server.tool(task=True)
    async def confirm(ctx: Context, name: str) -> str:
        """Asks for confirmation: an input request of the task."""
        answer = await ctx.elicit(f"Delete {name}?", {"type": "object", "properties": {"ok": {"type": "boolean"}}})
        return f"deleted {name}" if answer.accepted and (answer.content or {}).get("ok") else f"kept {name}"

    @server.tool(task="manual")
    async def decide(ctx: Context, big: bool) -> str:
        """Becomes a task only for big jobs (when the client can follow one)."""
        if big and await ctx.start_task():
            assert ctx.task_id is not None and await ctx.start_task()
            await asyncio.sleep(0.05)
            return "big job done as a task"
        return "done at once"

    @server.tool
    def plain() -> str:
        """Never a task."""
        return "plain"

    return server, seen


def accept(params: Any) -> dict[str, Any]:
    return {"action": "accept", "content": {"ok": True}}


def test_a_task_tool_answers_with_a_task_and_its_handler_goes_on() -> None:
    async def main() -> None:
        server, seen = make_server()
        async with Client(server, mode="modern", extensions={TASKS: {}}, elicitation_handler=accept) as client:
            assert TASKS in client.server_capabilities["extensions"]
            # The raw answer is the created task; the handler knows its id.
            raw = await within(client.request("tools/call", {"name": "slow", "arguments": {"seconds": 0.05}}))
            assert raw["resultType"] == "task" and raw["status"] == "working" and raw["taskId"]
            done = await within(client.task(raw["taskId"]).result())
            assert done.text == "slow: done" and seen["task_ids"] == [raw["taskId"]]
            # call_tool follows the task to its end; input goes to the elicitation handler.
            r = await within(client.call_tool("slow", {"label": "follow"}))
            assert r.text == "follow: done"
            r = await within(client.call_tool("confirm", {"name": "a.txt"}))
            assert r.text == "deleted a.txt"
            r = await within(client.call_tool("only_task", {}))
            assert r.is_error and r.text == "no disk"
            with pytest.raises(InternalError, match="broken on purpose"):
                await within(client.call_tool("broken", {}))
            # A failed task says why in its status message too.
            failed = await within(client.call_tool_task("broken", {}))
            assert isinstance(failed, TaskHandle)
            with pytest.raises(InternalError):
                await within(failed.result())
            status = await within(failed.status())
            assert status.status == "failed" and status["statusMessage"] == "the task failed: broken on purpose"
            # The status message is the handler's progress.
            handle = await within(client.call_tool_task("slow", {"seconds": 5, "label": "watch"}))
            assert isinstance(handle, TaskHandle)
            for _ in range(100):
                status = await within(handle.status())
                if status.get("statusMessage"):
                    break
                await asyncio.sleep(0.01)
            assert status["statusMessage"] == "watch: half way"
            # Cancelling reaches the handler (asyncio.CancelledError).
            await within(handle.cancel())
            await within(seen["cancelled"].wait())
            with pytest.raises(McpError) as info:
                await within(handle.result())
            assert info.value.code == REQUEST_CANCELLED
            assert (await within(handle.status())).status == "cancelled"
            assert (await within(client.call_tool("plain", {}))).text == "plain"
            # Nothing is kept for handlers that ended, the cancelled one included.
            runtime = server._task_runtime
            assert runtime is not None
            await until(lambda: runtime.running == 0)

    run(main())


def test_manual_mode_lets_the_handler_decide() -> None:
    async def main() -> None:
        server, _ = make_server()
        async with Client(server, mode="modern", tasks=True) as client:
            small = await within(client.call_tool_task("decide", {"big": False}))
            assert isinstance(small, ToolResult) and small.text == "done at once"
            big = await within(client.call_tool_task("decide", {"big": True}))
            assert isinstance(big, TaskHandle)
            assert (await within(big.result())).text == "big job done as a task"
        # Without the extension, start_task() says no: the call goes on as an ordinary one.
        for mode in ("modern", "legacy"):
            async with Client(server, mode=mode) as client:
                assert (await within(client.call_tool("decide", {"big": True}))).text == "done at once"

    run(main())


def test_clients_without_tasks_get_plain_calls() -> None:
    async def main() -> None:
        server, _ = make_server()
        async with Client(server, mode="modern") as client:
            assert (await within(client.call_tool("slow", {"seconds": 0, "label": "sync"}))).text == "sync: done"
            with pytest.raises(MissingRequiredClientCapability):
                await within(client.call_tool("only_task", {}))
            with pytest.raises(MissingRequiredClientCapability):
                await within(client.request("tasks/get", {"taskId": "nope"}))
        # A legacy session runs optional task tools synchronously; a required one is -32601.
        async with Client(server, mode="legacy") as client:
            assert (await within(client.call_tool("slow", {"seconds": 0, "label": "legacy"}))).text == "legacy: done"
            with pytest.raises(MethodNotFound):
                await within(client.call_tool("only_task", {}))

    run(main())


def test_legacy_sessions_serve_the_same_tasks() -> None:
    """At 2025-11-25 the same handlers serve that revision's task methods: ``params.task``
    runs a task, ``tasks/result`` waits for its end and meanwhile sends its input requests to
    the client (tagged with the task), ``tasks/get``, ``tasks/cancel`` and ``tasks/list``; a
    modern client's task is the legacy client's too (no auth: one owner)."""
    related = "io.modelcontextprotocol/related-task"

    async def main() -> None:
        server, seen = make_server()
        asked: list[Any] = []

        def on_elicit(params: Any) -> dict[str, Any]:
            asked.append(params)
            return {"action": "accept", "content": {"ok": True}}

        async with Client(server, mode="legacy", elicitation_handler=on_elicit) as legacy:
            assert legacy.protocol_version == "2025-11-25"
            tasks = legacy.server_capabilities["tasks"]
            assert "call" in tasks["requests"]["tools"] and "list" in tasks and "cancel" in tasks
            support = {
                t["name"]: (t.get("execution") or {}).get("taskSupport") for t in await within(legacy.list_tools())
            }
            assert support["slow"] == "optional" and support["only_task"] == "required" and support["plain"] is None
            # A task that asks for input: tasks/result carries the question to the client.
            created = await within(
                legacy.request("tools/call", {"name": "confirm", "arguments": {"name": "c.txt"}, "task": {}})
            )
            task = created["task"]
            assert task["status"] == "working" and task["taskId"]
            result = await within(legacy.request("tasks/result", {"taskId": task["taskId"]}))
            assert result["content"][0]["text"] == "deleted c.txt"
            assert result["_meta"][related] == {"taskId": task["taskId"]}
            assert len(asked) == 1 and asked[0]["_meta"][related] == {"taskId": task["taskId"]}
            assert (await within(legacy.request("tasks/get", {"taskId": task["taskId"]})))["status"] == "completed"
            with pytest.raises(MethodNotFound):
                await within(legacy.request("tools/call", {"name": "plain", "arguments": {}, "task": {}}))
            # A modern client's task, followed and cancelled by the legacy client while a
            # tasks/result waits for it.
            async with Client(server, mode="modern", tasks=True) as modern:
                handle = await within(modern.call_tool_task("slow", {"seconds": 5, "label": "shared"}))
                assert isinstance(handle, TaskHandle)
                got = await within(legacy.request("tasks/get", {"taskId": handle.id}))
                assert got["taskId"] == handle.id and got["status"] == "working"
                waiting = asyncio.ensure_future(legacy.request("tasks/result", {"taskId": handle.id}))
                await asyncio.sleep(0.05)
                assert not waiting.done()
                cancelled = await within(legacy.request("tasks/cancel", {"taskId": handle.id}))
                assert cancelled["status"] == "cancelled"
                with pytest.raises(McpError) as info:
                    await within(waiting)
                assert info.value.code == REQUEST_CANCELLED
                await within(seen["cancelled"].wait())
                assert (await within(handle.status())).status == "cancelled"
                with pytest.raises(McpError) as info:
                    await within(legacy.request("tasks/cancel", {"taskId": handle.id}))
                assert info.value.code == -32602
            listed = await within(legacy.request("tasks/list", {}))
            ids = {t["taskId"] for t in listed["tasks"]}
            assert {task["taskId"], handle.id} <= ids
            # A tasks/result the client stops waiting for leaves the session serving.
            long = await within(legacy.request("tools/call", {"name": "slow", "arguments": {"seconds": 5}, "task": {}}))
            with pytest.raises(TimeoutError):
                await legacy.request("tasks/result", {"taskId": long["task"]["taskId"]}, timeout=0.1)
            assert (await within(legacy.call_tool("plain", {}))).text == "plain"
            await within(legacy.request("tasks/cancel", {"taskId": long["task"]["taskId"]}))

    run(main())


def test_legacy_clients_follow_tasks() -> None:
    """A 2025-11-25 client runs a tool as a task when the server's ``tools/list`` says so
    (``execution.taskSupport``: "required", or "optional" when the client declares tasks):
    ``call_tool`` sends ``params.task`` and follows the task with ``tasks/result`` (its
    input requests through the client's handlers); ``call_tool_task`` returns the handle."""

    async def main() -> None:
        server, seen = make_server()
        async with Client(server, mode="legacy", tasks=True, elicitation_handler=accept) as client:
            await within(client.list_tools())
            r = await within(client.call_tool("only_task", {}))
            assert r.is_error and r.text == "no disk"
            assert (await within(client.call_tool("confirm", {"name": "d.txt"}))).text == "deleted d.txt"
            assert (await within(client.call_tool("slow", {"label": "legacy"}))).text == "legacy: done"
            assert len(seen["task_ids"]) == 1 and seen["task_ids"][0] is not None
            with pytest.raises(InternalError, match="broken on purpose"):
                await within(client.call_tool("broken", {}))
            # A handle: status, result, cancel.
            handle = await within(client.call_tool_task("slow", {"seconds": 0.05, "label": "handle"}))
            assert isinstance(handle, TaskHandle)
            assert (await within(handle.result())).text == "handle: done"
            assert (await within(client.task(handle.id).status())).status == "completed"
            long = await within(client.call_tool_task("slow", {"seconds": 5}))
            assert isinstance(long, TaskHandle)
            assert (await within(long.status())).status == "working"
            await within(long.cancel())
            await within(seen["cancelled"].wait())
            with pytest.raises(McpError) as info:
                await within(long.result())
            assert info.value.code == REQUEST_CANCELLED
            # A call's own timeout cancels its task.
            with pytest.raises(TimeoutError):
                await client.call_tool("slow", {"seconds": 5, "label": "late"}, timeout=0.2)
            runtime = server._task_runtime
            assert runtime is not None
            await until(lambda: runtime.running == 0)
            assert (await within(client.call_tool("plain", {}))).text == "plain"
        # Without tasks declared, an optional task tool is a plain call.
        async with Client(server, mode="legacy") as client:
            await within(client.list_tools())
            assert (await within(client.call_tool("slow", {"seconds": 0, "label": "plain"}))).text == "plain: done"
            assert seen["task_ids"][-1] is None

    run(main())


def test_a_task_outlives_the_connection_that_started_it() -> None:
    async def main() -> None:
        server, _ = make_server()
        async with Client(server, mode="modern", extensions={TASKS: {}}) as client:
            handle = await within(client.call_tool_task("slow", {"seconds": 0.2, "label": "orphan"}))
            assert isinstance(handle, TaskHandle)
        async with Client(server, mode="modern", extensions={TASKS: {}}) as other:
            assert (await within(other.task(handle.id).result())).text == "orphan: done"
            with pytest.raises(McpError) as info:
                await within(other.task("not-a-task").status())
            assert info.value.code == -32602

    run(main())


def test_tasks_over_http() -> None:
    async def main() -> None:
        server, seen = make_server()
        http = await server.start_http(port=0)
        try:
            async with Client.http(
                http.url, mode="modern", extensions={TASKS: {}}, elicitation_handler=accept
            ) as client:
                assert (await within(client.call_tool("slow", {"label": "http"}))).text == "http: done"
                assert (await within(client.call_tool("confirm", {"name": "b"}))).text == "deleted b"
                big = await within(client.call_tool_task("decide", {"big": True}))
                assert isinstance(big, TaskHandle)
                assert (await within(big.result())).text == "big job done as a task"
                handle = await within(client.call_tool_task("slow", {"seconds": 5}))
                assert isinstance(handle, TaskHandle)
                await within(handle.cancel())
                await within(seen["cancelled"].wait())
        finally:
            await http.stop()

    run(main())


def test_client_sugar_declares_tasks_and_apps() -> None:
    async def main() -> None:
        server = Server("sugar")

        @server.tool
        def extensions(ctx: Context) -> dict[str, Any]:
            """The extensions the client declared."""
            return dict(ctx.client_capabilities.get("extensions") or {})

        for mode in ("modern", "legacy"):
            async with Client(server, mode=mode, tasks=True, apps=True) as client:
                declared = (await within(client.call_tool("extensions", {}))).structured_content
                assert declared == {
                    TASKS: {},
                    "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]},
                }
            # Explicit settings win over the sugar's.
            ui = {"mimeTypes": ["text/html;profile=mcp-app"], "features": ["x"]}
            async with Client(server, mode=mode, apps=True, extensions={"io.modelcontextprotocol/ui": ui}) as client:
                declared = (await within(client.call_tool("extensions", {}))).structured_content
                assert declared == {"io.modelcontextprotocol/ui": ui}

    run(main())


def test_bad_task_options_are_refused() -> None:
    server = Server("x")
    with pytest.raises(DefinitionError, match="task must be"):
        server.add_tool(lambda: "x", name="x", task="sometimes")
    server.enable_tasks(ttl=60)
    with pytest.raises(DefinitionError, match="already enabled"):
        server.enable_tasks(ttl=10)
