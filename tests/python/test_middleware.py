"""MCP middleware in Python (hypermcp.Middleware, FastMCP's API): the order of the hooks of two
links, a guard, rewritten arguments, an answer of the middleware's own, a changed result, state
read by the handler, hooks a link does not define stepped over, sync handlers, resources,
prompts and completion, and a tool that elicits under middleware in both eras (a 2026-07-28
call passes the chain once per round), in memory and over HTTP."""

from __future__ import annotations

from typing import Any

import pytest

from _helpers import run, within
from hypermcp import CallToolResult, Client, Context, McpError, Middleware, MiddlewareContext, Server


class Recorder(Middleware):
    """Records every hook it runs: ``NAME:hook:method[:round]``."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name, self.log = name, log

    def note(self, hook: str, context: MiddlewareContext) -> None:
        suffix = f":{context.round}" if context.round else ""
        self.log.append(f"{self.name}:{hook}:{context.method}{suffix}")

    async def on_message(self, context: MiddlewareContext, call_next: Any) -> Any:
        self.note("message", context)
        return await call_next(context)

    async def on_request(self, context: MiddlewareContext, call_next: Any) -> Any:
        self.note("request", context)
        return await call_next(context)

    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
        self.note("call_tool", context)
        result = await call_next(context)
        self.log.append(f"{self.name}:call_tool:done")
        return result

    async def on_get_prompt(self, context: MiddlewareContext, call_next: Any) -> Any:
        self.note("get_prompt", context)
        return await call_next(context)


class ToolsOnly(Middleware):
    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
        self.log.append(f"inner:call_tool:{context.message.name}")
        result = await call_next(context)
        self.log.append("inner:call_tool:done")
        return result


class Policy(Middleware):
    async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
        name = context.message.name
        if name == "delete":
            raise McpError(-32001, "delete is not allowed here")
        if name == "cached":
            return "from the middleware"
        if name == "shout":
            context.message.arguments["text"] = context.message.arguments["text"].upper()
            context.message.name = "delete"  # not a way round the guard: "shout" still runs
        if name == "who":
            context.set_state("user", "ada")
        result = await call_next(context)
        if name == "add":
            return result * 10  # the handler's return value, before it is sent
        return result

    async def on_read_resource(self, context: MiddlewareContext, call_next: Any) -> Any:
        return f"[{await call_next(context)}]"

    async def on_complete(self, context: MiddlewareContext, call_next: Any) -> Any:
        values = await call_next(context)
        return [v for v in values if v != "hidden"]


def make_server(log: list[str]) -> Server:
    server = Server("mw", middleware=[Recorder("outer", log), ToolsOnly(log)])
    server.add_middleware(Policy())

    @server.tool
    async def echo(text: str) -> str:
        return text

    @server.tool
    async def shout(text: str) -> str:
        return text

    @server.tool
    def add(a: int, b: int) -> int:  # sync: runs in a worker thread, under the chain
        return a + b

    @server.tool
    async def delete() -> str:
        return "deleted (the guard let it through)"

    @server.tool
    async def cached() -> str:
        return "from the handler"

    @server.tool
    async def who(ctx: Context) -> str:
        return f"user: {ctx.get_state('user')}"

    @server.tool
    async def ask(ctx: Context) -> str:
        answer = await ctx.elicit("Your name?", {"type": "object", "properties": {"name": {"type": "string"}}})
        return f"hello {(answer.content or {}).get('name')}"

    @server.resource("notes://{name}")
    def note(name: str) -> str:
        return f"note {name}"

    @server.prompt
    def greet(name: str) -> str:
        return f"Hello {name}"

    @server.completion(prompt="greet", argument="name")
    def names(value: str) -> list[str]:
        return ["ada", "hidden", "alan"]

    return server


def text(result: Any) -> str:
    return result.content[0].text


async def exercise(client: Client, log: list[str], modern: bool) -> None:
    log.clear()
    assert text(await within(client.call_tool("echo", {"text": "hi"}))) == "hi"
    assert log == [
        "outer:message:tools/call",
        "outer:request:tools/call",
        "outer:call_tool:tools/call",
        "inner:call_tool:echo",
        "inner:call_tool:done",
        "outer:call_tool:done",
    ]
    with pytest.raises(McpError) as refused:
        await within(client.call_tool("delete"))
    assert refused.value.code == -32001 and "not allowed" in refused.value.message
    assert text(await within(client.call_tool("shout", {"text": "quiet"}))) == "QUIET"
    assert text(await within(client.call_tool("cached"))) == "from the middleware"
    assert text(await within(client.call_tool("who"))) == "user: ada"
    added = await within(client.call_tool("add", {"a": 2, "b": 3}))
    assert added.structured_content == {"result": 50}

    # Resources, prompts and completion pass the links that hook them (not ToolsOnly).
    log.clear()
    read = await within(client.read_resource("notes://n1"))
    assert read.contents[0].text == "[note n1]"
    prompt = await within(client.get_prompt("greet", {"name": "Ada"}))
    assert "Hello Ada" in str(prompt.messages[0])
    assert log == [
        "outer:message:resources/read",
        "outer:request:resources/read",
        "outer:message:prompts/get",
        "outer:request:prompts/get",
        "outer:get_prompt:prompts/get",
    ]
    done = await within(client.complete({"type": "ref/prompt", "name": "greet"}, "name", ""))
    assert list(done.completion.values) == ["ada", "alan"]

    # A tool that elicits: legacy asks inside the one pass; 2026-07-28 ends the first round
    # with input_required and passes the chain again, as round 1, on the retry.
    log.clear()
    assert text(await within(client.call_tool("ask"))) == "hello Ada"
    messages = [entry for entry in log if entry.startswith("outer:message")]
    assert messages == (
        ["outer:message:tools/call", "outer:message:tools/call:1"] if modern else ["outer:message:tools/call"]
    )


def answer(params: dict[str, Any]) -> dict[str, Any]:
    return {"action": "accept", "content": {"name": "Ada"}}


@pytest.mark.parametrize("protocol_version", [None, "2025-11-25"], ids=["modern", "legacy"])
def test_middleware_in_memory(protocol_version: str | None) -> None:
    log: list[str] = []

    async def main() -> None:
        async with Client(make_server(log), protocol_version=protocol_version, elicitation_handler=answer) as client:
            await exercise(client, log, modern=protocol_version is None)

    run(main())


@pytest.mark.parametrize("protocol_version", [None, "2025-11-25"], ids=["modern", "legacy"])
def test_middleware_over_http(protocol_version: str | None) -> None:
    log: list[str] = []
    server = make_server(log)

    async def main() -> None:
        async with await within(server.start_http("127.0.0.1", 0)) as http:
            async with Client.http(
                f"http://127.0.0.1:{http.port}/mcp", protocol_version=protocol_version, elicitation_handler=answer
            ) as client:
                await exercise(client, log, modern=protocol_version is None)

    run(main())


def test_a_hook_not_overridden_costs_nothing_and_bad_links_are_refused() -> None:
    server = Server("plain")
    assert server._chain is None  # pyright: ignore[reportPrivateUsage]
    server.add_middleware(Middleware())  # overrides nothing: still the direct path
    assert server._chain is None  # pyright: ignore[reportPrivateUsage]
    server.add_middleware(ToolsOnly([]))
    chain = server._chain  # pyright: ignore[reportPrivateUsage]
    assert chain is not None and chain.hooks("tools/call") and chain.hooks("prompts/get") is None
    with pytest.raises(TypeError, match=r"hypermcp\.Middleware"):
        server.add_middleware(object())  # type: ignore[arg-type]
    assert len(server.middleware) == 2


def test_an_exception_in_a_link_is_a_failed_tool_and_the_server_goes_on() -> None:
    class Broken(Middleware):
        async def on_call_tool(self, context: MiddlewareContext, call_next: Any) -> Any:
            if context.message.name == "boom":
                raise RuntimeError("the link broke")
            return await call_next(context)

    server = Server("broken", middleware=[Broken()])

    @server.tool
    def boom() -> str:
        return "never"

    @server.tool
    def fine() -> CallToolResult:
        return CallToolResult(content=[{"type": "text", "text": "fine"}])

    async def main() -> None:
        async with Client(server) as client:
            failed = await within(client.call_tool("boom"))
            assert failed.is_error and "the link broke" in text(failed)
            assert text(await within(client.call_tool("fine"))) == "fine"

    run(main())


class HideInternal(Middleware):
    """Hides the tools whose name starts with ``_`` from every list (FastMCP's on_list_tools)."""

    async def on_list_tools(self, context: MiddlewareContext, call_next: Any) -> Any:
        tools = await call_next(context)
        assert context.method == "tools/list" and context.message.list == "tools"
        return [t for t in tools if not t.name.startswith("_")]

    async def on_list_prompts(self, context: MiddlewareContext, call_next: Any) -> Any:
        raise McpError(-32001, "prompts are not listed here")


@pytest.mark.parametrize("protocol_version", [None, "2025-11-25"], ids=["modern", "legacy"])
def test_a_list_hook_filters_the_list_then_the_engine_pages_it(protocol_version: str | None) -> None:
    server = Server("lists", middleware=[HideInternal()])
    for name in ("a", "_b", "c", "_d", "e"):
        server.add_tool(lambda: "ok", name=name)

    @server.prompt
    def p() -> str:
        return "p"

    server._registry.set_page_size(2)  # pyright: ignore[reportPrivateUsage]

    async def check(client: Client) -> None:
        first = await within(client.request("tools/list"))
        assert [t["name"] for t in first["tools"]] == ["a", "c"] and first["nextCursor"]
        second = await within(client.request("tools/list", {"cursor": first["nextCursor"]}))
        assert [t["name"] for t in second["tools"]] == ["e"] and "nextCursor" not in second
        assert [t.name for t in await within(client.list_tools())] == ["a", "c", "e"]
        with pytest.raises(McpError) as refused:
            await within(client.list_prompts())
        assert refused.value.code == -32001
        # A list hook filters lists only: the hidden tool is still there by name.
        assert text(await within(client.call_tool("_b"))) == "ok"

    async def main() -> None:
        async with Client(server, protocol_version=protocol_version) as client:
            await check(client)
        async with await within(server.start_http("127.0.0.1", 0)) as http:
            async with Client.http(f"http://127.0.0.1:{http.port}/mcp", protocol_version=protocol_version) as client:
                await check(client)

    run(main())
