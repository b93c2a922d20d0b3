"""Visibility in Python (FastMCP's API): tags, server.enable/disable (and the allow-list form),
a hidden component called by name is "not found" exactly as an unknown one, a caller's own
rules from a handler (ctx.enable_components) seen by it alone with list_changed to it alone,
in memory and over HTTP sessions, the token subject as the caller of a 2026-07-28 request over
HTTP, and the clear error of one without a caller."""

from __future__ import annotations

from typing import Any

import pytest

from _helpers import run, until, within
from hypermcp import Client, Context, DefinitionError, McpError, Server


def make_server() -> Server:
    server = Server("visible")

    @server.tool
    def status() -> str:
        return "ok"

    @server.tool(tags={"admin", "dangerous"})
    def wipe() -> str:
        return "wiped"

    @server.tool(tags={"admin"})
    def reset() -> str:
        return "reset"

    @server.tool(name="config")
    def config_tool() -> str:
        return "tool config"

    @server.tool(tags={"premium"})
    def report() -> str:
        return "premium report"

    @server.tool
    async def unlock(ctx: Context) -> str:
        await ctx.enable_components(tags={"premium"})
        return "unlocked"

    @server.tool
    async def relock(ctx: Context) -> str:
        await ctx.reset_visibility()
        return "relocked"

    @server.prompt(name="config")
    def config_prompt() -> str:
        return "the config prompt"

    @server.resource("mem://secret", tags={"admin"})
    def secret() -> str:
        return "s3cret"

    @server.resource("mem://users/{id}", tags={"admin"})
    def user(id: str) -> str:
        return f"user {id}"

    return server


def names(items: Any) -> list[str]:
    return [t.name for t in items]


def test_the_server_rules_hide_and_show_for_everyone() -> None:
    server = make_server()
    changes: list[str] = []

    async def main() -> None:
        async with Client(server, protocol_version="2025-11-25", message_handler=lambda m, p: changes.append(m)) as c:
            assert len(await within(c.list_tools())) == 7
            server.disable(tags={"admin"})
            assert names(await within(c.list_tools())) == ["status", "config", "report", "unlock", "relock"]
            assert await within(c.list_resources()) == []
            assert await within(c.list_resource_templates()) == []
            assert "notifications/tools/list_changed" in changes
            assert "notifications/resources/list_changed" in changes
            # A hidden tool is exactly an unknown one.
            with pytest.raises(McpError) as hidden:
                await within(c.call_tool("wipe"))
            with pytest.raises(McpError) as unknown:
                await within(c.call_tool("nothing"))
            assert hidden.value.code == unknown.value.code and "Unknown tool: wipe" in hidden.value.message
            with pytest.raises(McpError) as gone:
                await within(c.read_resource("mem://users/7"))
            assert gone.value.code == -32002

            server.enable(names={"reset"})  # a later rule overrides where they overlap
            assert "reset" in names(await within(c.list_tools()))
            server.disable(names={"config"}, components={"tool"})  # the prompt stays
            assert "config" not in names(await within(c.list_tools()))
            assert names(await within(c.list_prompts())) == ["config"]
            server.enable(tags={"dangerous"}, only=True)  # the allow-list form
            assert names(await within(c.list_tools())) == ["wipe"]
            assert await within(c.list_prompts()) == []
            server.reset_visibility()
            assert len(await within(c.list_tools())) == 7

    run(main())


def test_definitions_and_rules_are_checked() -> None:
    server = make_server()
    with pytest.raises(DefinitionError, match="needs names"):
        server.disable()
    with pytest.raises(DefinitionError, match="not the string"):
        server.disable(tags="admin")
    with pytest.raises(DefinitionError, match="widget"):
        server.disable(components={"widget"})
    with pytest.raises(DefinitionError, match="not the string"):

        @server.tool(tags="admin")  # type: ignore[arg-type]
        def bad() -> str:
            return ""


async def per_caller(a: Client, b: Client, a_changes: list[str]) -> None:
    assert "report" not in names(await within(a.list_tools()))
    assert (await within(a.call_tool("unlock"))).content[0].text == "unlocked"
    # Over HTTP the notification comes on the GET stream, beside the call's answer.
    await until(lambda: "notifications/tools/list_changed" in a_changes)
    assert "notifications/tools/list_changed" in a_changes
    assert "report" in names(await within(a.list_tools()))
    assert (await within(a.call_tool("report"))).content[0].text == "premium report"
    assert "report" not in names(await within(b.list_tools()))
    with pytest.raises(McpError, match="Unknown tool: report"):
        await within(b.call_tool("report"))
    await within(a.call_tool("relock"))
    assert "report" not in names(await within(a.list_tools()))


def test_a_callers_own_rules_in_memory() -> None:
    server = make_server()
    server.disable(tags={"premium"})
    a_changes: list[str] = []
    b_changes: list[str] = []

    async def main() -> None:
        async with (
            Client(server, protocol_version="2025-11-25", message_handler=lambda m, p: a_changes.append(m)) as a,
            Client(server, protocol_version="2025-06-18", message_handler=lambda m, p: b_changes.append(m)) as b,
        ):
            await per_caller(a, b, a_changes)
        assert "notifications/tools/list_changed" not in b_changes

    run(main())


def test_a_callers_own_rules_over_http_and_the_stateless_refusal() -> None:
    server = make_server()
    server.disable(tags={"premium"})
    a_changes: list[str] = []

    async def main() -> None:
        async with await within(server.start_http("127.0.0.1", 0)) as http:
            url = f"http://127.0.0.1:{http.port}/mcp"
            async with (
                Client.http(url, protocol_version="2025-11-25", message_handler=lambda m, p: a_changes.append(m)) as a,
                Client.http(url, protocol_version="2025-11-25") as b,
            ):
                await per_caller(a, b, a_changes)
            # 2026-07-28 over HTTP has no session: refused rather than changed for everyone.
            async with Client.http(url) as m:
                with pytest.raises(McpError, match="per-caller visibility needs a session") as refused:
                    await within(m.call_tool("unlock"))
                assert refused.value.code == -32600
                assert "report" not in names(await within(m.list_tools()))

    run(main())


def test_a_modern_http_caller_is_its_token_subject() -> None:
    async def verify(token: str) -> dict[str, Any] | None:
        return {"sub": token.split("-")[0], "scope": "mcp:tools"}

    server = make_server()
    server.disable(tags={"premium"})
    auth = {"resource": "https://mcp.test/mcp", "authorization_servers": ["https://as.test"], "verify": verify}

    def client(url: str, token: str) -> Client:
        return Client.http(url, headers={"Authorization": f"Bearer {token}"})

    async def main() -> None:
        async with await within(server.start_http("127.0.0.1", 0, auth=auth)) as http:
            async with client(http.url, "alice-1") as a, client(http.url, "bob-1") as b:
                async with a.listen(tools=True) as hears:
                    first = await within(hears.__anext__())
                    assert first[0] == "notifications/subscriptions/acknowledged"
                    assert (await within(a.call_tool("unlock"))).content[0].text == "unlocked"
                    assert (await within(hears.__anext__()))[0] == "notifications/tools/list_changed"
                    assert "report" in names(await within(a.list_tools()))
                    assert "report" not in names(await within(b.list_tools()))
                    # Another connection with a token of alice's is alice too.
                    async with client(http.url, "alice-2") as again:
                        assert (await within(again.call_tool("report"))).content[0].text == "premium report"
                        await within(again.call_tool("relock"))
                    assert (await within(hears.__anext__()))[0] == "notifications/tools/list_changed"
                    assert "report" not in names(await within(a.list_tools()))

    run(main())


def test_a_modern_stdio_connection_is_one_caller() -> None:
    server = make_server()
    server.disable(tags={"premium"})

    async def main() -> None:
        async with Client(server) as a, Client(server) as b:
            await within(a.call_tool("unlock"))
            assert "report" in names(await within(a.list_tools()))
            assert "report" not in names(await within(b.list_tools()))

    run(main())


def test_hide_unauthorized_leaves_out_what_the_token_may_not_use() -> None:
    async def verify(token: str) -> dict[str, Any] | None:
        scopes = {"user": "mcp:tools", "admin": "mcp:tools mcp:admin"}.get(token)
        return None if scopes is None else {"sub": token, "scope": scopes}

    server = Server("scoped")

    @server.tool
    def status() -> str:
        return "ok"

    @server.tool(scopes=["mcp:admin"])
    def wipe() -> str:
        return "wiped"

    @server.prompt(scopes="mcp:admin")
    def audit() -> str:
        return "audit"

    auth = {
        "resource": "https://mcp.test/mcp",
        "authorization_servers": ["https://as.test"],
        "required_scopes": ["mcp:tools"],
        "hide_unauthorized": True,
        "verify": verify,
    }

    async def main() -> None:
        async with await within(server.start_http("127.0.0.1", 0, auth=auth)) as http:
            for mode in ("legacy", "modern"):
                async with Client.http(http.url, headers={"Authorization": "Bearer user"}, mode=mode) as user:
                    assert names(await within(user.list_tools())) == ["status"]
                    assert await within(user.list_prompts()) == []
                    with pytest.raises(McpError, match="Unknown tool: wipe"):
                        await within(user.call_tool("wipe"))
                async with Client.http(http.url, headers={"Authorization": "Bearer admin"}, mode=mode) as admin:
                    assert names(await within(admin.list_tools())) == ["status", "wipe"]
                    assert (await within(admin.call_tool("wipe"))).content[0].text == "wiped"

    run(main())
