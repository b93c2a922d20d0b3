"""Methods of a server's own in Python (server.method, on_notification): served in both eras,
in memory and over HTTP, with the params checked against the function's type hints, ``_meta``
in ctx.meta, middleware's on_custom_method around them (and on_message/on_notification around
notifications, which may change or drop them); a name the spec owns is refused; an unknown
method is still -32601."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from _helpers import run, until, within
from hypermcp import Client, Context, DefinitionError, McpError, Middleware, MiddlewareContext, Server


class Stamp(Middleware):
    async def on_custom_method(self, context: MiddlewareContext, call_next: Any) -> Any:
        context.message.params["q"] = context.message.params.get("q", "").strip()
        result = await call_next(context)
        return {**result, "via": context.method} if isinstance(result, dict) else result


#: What Notes saw.
notes: list[str] = []


class Notes(Middleware):
    """Marks the notifications it passes on, and drops those that ask for it."""

    async def on_message(self, context: MiddlewareContext, call_next: Any) -> Any:
        if context.type == "notification":
            assert context.fastmcp_context is None
            notes.append(f"message {context.method}")
        return await call_next(context)

    async def on_notification(self, context: MiddlewareContext, call_next: Any) -> Any:
        notes.append(f"{context.type} {context.method}")
        if context.message.params.get("drop"):
            return None
        context.message.params["seen"] = True
        return await call_next(context)


def make_server(pings: asyncio.Queue[Any]) -> Server:
    server = Server("own", middleware=[Stamp(), Notes()])

    @server.method("acme/search")
    async def search(q: str, ctx: Context, limit: int = 2) -> dict[str, Any]:
        trace = (ctx.meta or {}).get("acme/trace")
        return {"hits": [f"{q}-{i}" for i in range(1, limit + 1)], "trace": trace}

    @server.method("acme/fail")
    def fail() -> dict[str, Any]:
        raise McpError(-32042, "no index today")

    @server.method("acme/bad")
    def bad() -> Any:
        return ["not", "an", "object"]

    @server.on_notification("notifications/acme/indexed")
    def indexed(params: Any) -> None:
        pings.put_nowait(params)

    return server


async def exercise(client: Client, pings: asyncio.Queue[Any]) -> None:
    r = await within(client.request("acme/search", {"q": " mcp ", "limit": 3, "_meta": {"acme/trace": "t-1"}}))
    assert r["hits"] == ["mcp-1", "mcp-2", "mcp-3"]
    assert r["trace"] == "t-1" and r["via"] == "acme/search"
    with pytest.raises(McpError) as failed:
        await within(client.request("acme/fail"))
    assert failed.value.code == -32042
    with pytest.raises(McpError) as wrong:
        await within(client.request("acme/search", {"q": "x", "limit": "many"}))
    assert wrong.value.code == -32602 and "limit" in wrong.value.message
    with pytest.raises(McpError, match="a method's result is a dict"):
        await within(client.request("acme/bad"))
    with pytest.raises(McpError) as unknown:
        await within(client.request("acme/unknown"))
    assert unknown.value.code == -32601
    notes.clear()
    await within(client.notify("notifications/acme/indexed", {"drop": True}))
    await within(client.notify("notifications/acme/indexed", {"docs": 3}))
    assert await within(pings.get()) == {"docs": 3, "seen": True}, "the dropped one never arrives"
    await until(lambda: len(notes) == 4)
    assert notes == ["message notifications/acme/indexed", "notification notifications/acme/indexed"] * 2


@pytest.mark.parametrize("protocol_version", [None, "2025-11-25"], ids=["modern", "legacy"])
def test_own_methods_in_memory(protocol_version: str | None) -> None:
    async def main() -> None:
        pings: asyncio.Queue[Any] = asyncio.Queue()
        async with Client(make_server(pings), protocol_version=protocol_version) as client:
            await exercise(client, pings)

    run(main())


@pytest.mark.parametrize("protocol_version", [None, "2025-11-25"], ids=["modern", "legacy"])
def test_own_methods_over_http(protocol_version: str | None) -> None:
    async def main() -> None:
        pings: asyncio.Queue[Any] = asyncio.Queue()
        server = make_server(pings)
        async with await within(server.start_http("127.0.0.1", 0)) as http:
            async with Client.http(f"http://127.0.0.1:{http.port}/mcp", protocol_version=protocol_version) as client:
                await exercise(client, pings)

    run(main())


def test_names_the_spec_owns_are_refused() -> None:
    server = Server("s")
    for name in ("tools/call", "tools/search", "notifications/progress", "rpc.x", "two words"):
        with pytest.raises(DefinitionError):
            server.method(name)(lambda: {})
    server.method("acme/ok")(lambda: {})
    assert server.remove_method("acme/ok") and not server.remove_method("acme/ok")
