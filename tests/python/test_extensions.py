"""Extension negotiation (2026-07-28 ``basic/versioning.mdx``): the server's extensions in
``capabilities.extensions`` of ``server/discover`` and ``initialize``, the client's with each
modern request and at ``initialize``, ``ctx.client_extension`` / ``ctx.require_extension``
in handlers, and -32021 naming the extension a request needs."""

from __future__ import annotations

import pytest

from _helpers import run, within
from hypermcp import Client, Context, Server
from hypermcp.errors import MissingRequiredClientCapability, OptionError


def make_server() -> Server:
    server = Server("ext", extensions={"com.example/widgets": {"maxWidgets": 3}, "io.modelcontextprotocol/ui": {}})

    @server.tool
    def widget(ctx: Context) -> str:
        settings = ctx.require_extension("com.example/widgets")
        return f"widgets: {settings}"

    @server.tool
    def optional(ctx: Context) -> str:
        return "with widgets" if ctx.client_extension("com.example/widgets") is not None else "plain"

    return server


@pytest.mark.parametrize("mode", ["legacy", "modern"])
def test_extensions_are_negotiated_in_both_eras(mode: str) -> None:
    async def main() -> None:
        server = make_server()
        async with Client(server, mode=mode) as client:
            ext = client.server_capabilities["extensions"]
            assert ext["com.example/widgets"] == {"maxWidgets": 3} and ext["io.modelcontextprotocol/ui"] == {}, ext
            with pytest.raises(MissingRequiredClientCapability) as info:
                await within(client.call_tool("widget", {}))
            assert info.value.code == -32021
            assert info.value.data == {"requiredCapabilities": {"extensions": {"com.example/widgets": {}}}}
            assert "extension com.example/widgets" in info.value.message
            assert (await within(client.call_tool("optional", {}))).text == "plain"
        async with Client(server, mode=mode, extensions={"com.example/widgets": {"theme": "dark"}}) as client:
            assert (await within(client.call_tool("widget", {}))).text == "widgets: {'theme': 'dark'}"
            assert (await within(client.call_tool("optional", {}))).text == "with widgets"

    run(main())


def test_extension_ids_and_settings_are_checked() -> None:
    async def main() -> None:
        for bad in ({"tasks": {}}, {"com.example/x": []}):
            server = Server("bad", extensions=bad)  # type: ignore[arg-type]
            with pytest.raises(OptionError, match="extension"):
                async with Client(server) as client:
                    await client.list_tools()

    run(main())
