"""The Python client at 2026-07-28 against our server: the era it finds, the listen streams it
opens for the application, the cache of results the server marks with ``ttlMs``, the
``input_required`` rounds it serves through its handlers. (The same client against the
official SDKs' servers: test_interop_official_servers.py and test_interop_ts_v2.py.)"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

from hypermcp import Client, Context, MethodNotFound, Server


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 30))


def server() -> Server:
    s = Server("modern", cache={"tools": {"ttl_ms": 60000, "cache_scope": "public"}})

    @s.tool
    def echo(text: str) -> str:
        """Echoes."""
        return text

    @s.tool
    async def greet(ctx: Context) -> str:
        """Asks two questions (two rounds at 2026-07-28)."""
        name = await ctx.elicit("Name?", {"type": "object", "properties": {"v": {"type": "string"}}})
        mood = await ctx.elicit("Mood?", {"type": "object", "properties": {"v": {"type": "string"}}})
        return f"{(name.content or {}).get('v')} is {(mood.content or {}).get('v')}"

    s.add_resource(lambda: "v1", "file:///watched.txt", name="watched")
    return s


def test_the_era_and_input_rounds() -> None:
    asked: list[str] = []

    def answer(params: Any) -> dict[str, Any]:
        asked.append(params["message"])
        return {"action": "accept", "content": {"v": "Ada" if params["message"] == "Name?" else "calm"}}

    async def main() -> None:
        s = server()
        async with Client(s, elicitation_handler=answer) as client:
            assert client.modern and client.protocol_version == "2026-07-28"
            assert (await client.call_tool("greet")).text == "Ada is calm"
            assert asked == ["Name?", "Mood?"], "each question once: the client answers each round"
        async with Client(s, mode="legacy", elicitation_handler=answer) as old:
            assert not old.modern and old.protocol_version == "2025-11-25"
            assert (await old.call_tool("greet")).text == "Ada is calm"

    run(main())


def test_listen_streams() -> None:
    async def main() -> None:
        s = server()
        async with Client(s) as client:
            async with client.listen(resources=True, resource_uris=["file:///watched.txt"]) as sub:
                assert isinstance(sub.id, int)
                items = aiter(sub)
                method, ack = await anext(items)
                assert method == "notifications/subscriptions/acknowledged"
                assert ack["notifications"] == {
                    "resourcesListChanged": True,
                    "resourceSubscriptions": ["file:///watched.txt"],
                }
                s.notify_resource_updated("file:///watched.txt")
                method, params = await anext(items)
                assert method == "notifications/resources/updated"
                assert params["uri"] == "file:///watched.txt"
                assert params["_meta"]["io.modelcontextprotocol/subscriptionId"] == sub.id
                s.add_resource(lambda: "new", "file:///new.txt", name="new")
                method, _ = await anext(items)
                assert method == "notifications/resources/list_changed"
            # Closed on leaving: iteration ends, the session goes on.
            assert [item async for item in sub] == []
            assert (await client.call_tool("echo", {"text": "after"})).text == "after"
        async with Client(s, mode="legacy") as old:
            with pytest.raises(MethodNotFound, match="2026-07-28"):
                async with old.listen(tools=True):
                    pass

    run(main())


def test_lists_are_cached_for_their_ttl() -> None:
    async def main() -> None:
        s = server()
        seen: list[str] = []
        async with Client(s, message_handler=lambda m, p: seen.append(m)) as client:
            first = [t.name for t in await client.list_tools()]

            # Cached (ttlMs 60 s): a new tool shows once its list_changed arrives.
            @s.tool
            def added() -> str:
                """Added later."""
                return "added"

            for _ in range(100):
                if "notifications/tools/list_changed" in seen:
                    break
                await asyncio.sleep(0.02)
            assert "notifications/tools/list_changed" in seen
            after = [t.name for t in await client.list_tools()]
            assert after == [*first, "added"]

    run(main())


def test_an_unread_listen_stream_is_closed_not_buffered(monkeypatch: pytest.MonkeyPatch) -> None:
    from hypermcp import _client_driver

    monkeypatch.setattr(_client_driver, "LISTEN_BACKLOG", 3)

    async def main() -> None:
        s = server()
        async with Client(s) as client:
            async with client.listen(resource_uris=["file:///watched.txt"]) as sub:
                for _ in range(10):
                    s.notify_resource_updated("file:///watched.txt")
                await asyncio.sleep(0.2)  # the notifications arrive, nobody reads
                items = [m async for m, _ in sub]
                # The acknowledgement and two updates were kept; then the stream was closed.
                assert len(items) == 3, items
                assert items[0] == "notifications/subscriptions/acknowledged"
            assert (await client.call_tool("echo", {"text": "alive"})).text == "alive"

    run(main())
