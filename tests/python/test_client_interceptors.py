"""Client request interceptors in Python: every request the client sends passes them in
order, in both eras, in memory and over HTTP; one changes the arguments, one answers by itself,
one observes results and the server's errors, and one added later applies to the next call."""

from __future__ import annotations

from typing import Any

import pytest

from _helpers import run, within
from hypermcp import Client, McpError, Server
from hypermcp.client import ClientRequest


def make_server() -> Server:
    server = Server("intercepted")

    @server.tool
    def echo(text: str) -> str:
        return text

    @server.tool
    def fail() -> str:
        raise McpError(-32042, "not today")

    return server


def interceptors(seen: list[str]) -> list[Any]:
    async def observe(request: ClientRequest, call_next: Any) -> Any:
        seen.append(f"-> {request.method}")
        try:
            result = await call_next(request)
        except McpError as e:
            seen.append(f"!! {request.method} {e.code}")
            raise
        seen.append(f"<- {request.method}")
        return result

    async def shout(request: ClientRequest, call_next: Any) -> Any:
        if request.method == "tools/call" and request.params and request.params.get("name") == "echo":
            request.params["arguments"] = {"text": request.params["arguments"]["text"].upper()}
        return await call_next(request)

    async def offline(request: ClientRequest, call_next: Any) -> Any:
        if request.method == "tools/call" and request.params and request.params.get("name") == "local":
            return {"content": [{"type": "text", "text": "answered here"}]}
        return await call_next(request)

    return [observe, shout, offline]


async def exercise(client: Client, seen: list[str]) -> None:
    assert (await within(client.call_tool("echo", {"text": "hi"}))).text == "HI"
    assert (await within(client.call_tool("local"))).text == "answered here"
    with pytest.raises(McpError) as failed:
        await within(client.call_tool("fail", raise_on_error=True))
    assert failed.value.code == -32042
    assert [t.name for t in await within(client.list_tools())] == ["echo", "fail"]
    calls = [s for s in seen if "tools/call" in s]
    assert calls == ["-> tools/call", "<- tools/call"] * 2 + ["-> tools/call", "!! tools/call -32042"], seen
    assert "-> tools/list" in seen
    # One added later applies to the next request.
    later: list[str] = []

    async def last(request: ClientRequest, call_next: Any) -> Any:
        later.append(request.method)
        return await call_next(request)

    client.add_interceptor(last)
    await within(client.ping())
    assert later == ["ping"]
    with pytest.raises(TypeError, match="interceptor"):
        client.add_interceptor("nope")  # type: ignore[arg-type]


@pytest.mark.parametrize("protocol_version", [None, "2025-11-25"], ids=["modern", "legacy"])
def test_interceptors_in_memory(protocol_version: str | None) -> None:
    async def main() -> None:
        seen: list[str] = []
        async with Client(make_server(), protocol_version=protocol_version, interceptors=interceptors(seen)) as c:
            await exercise(c, seen)

    run(main())


@pytest.mark.parametrize("mode", ["modern", "legacy"])
def test_interceptors_over_http(mode: str) -> None:
    async def main() -> None:
        async with await within(make_server().start_http("127.0.0.1", 0)) as http:
            seen: list[str] = []
            async with Client.http(http.url, mode=mode, interceptors=interceptors(seen)) as c:
                await exercise(c, seen)

    run(main())
