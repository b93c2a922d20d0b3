"""MCP Apps (``io.modelcontextprotocol/ui``) from Python: ``server.app(uri, html, csp=...)``
served and listed from memory, ``@server.tool(ui=...)`` linking it, the extension declared,
and ``client.read_app`` giving the HTML with the CSP and ``allow`` list to render it with."""

from __future__ import annotations

import pytest

from _helpers import run, within
from hypermcp import Client, DefinitionError, Server

HTML = "<!doctype html><html><head><title>Forecast</title></head><body>forecast</body></html>"
UI = "io.modelcontextprotocol/ui"
MIME = "text/html;profile=mcp-app"


def make_server() -> Server:
    server = Server("apps")
    server.app(
        "ui://weather/forecast",
        HTML,
        csp={"connectDomains": ["https://api.weather.example"]},
        permissions=["geolocation"],
        prefers_border=True,
        description="The forecast, drawn",
    )

    @server.tool(ui="ui://weather/forecast")
    def forecast(city: str) -> str:
        """Forecast for a city."""
        return f"Sunny in {city}"

    @server.tool(ui={"resourceUri": "ui://weather/forecast", "visibility": ["app"]})
    def refresh() -> str:
        """Refreshes the view."""
        return "refreshed"

    return server


@pytest.mark.parametrize("mode", ["legacy", "modern"])
def test_apps_are_served_linked_and_read(mode: str) -> None:
    async def main() -> None:
        async with Client(make_server(), mode=mode, extensions={UI: {"mimeTypes": [MIME]}}) as client:
            assert client.server_capabilities["extensions"][UI] == {}
            tools = {t.name: t for t in await within(client.list_tools())}
            assert tools["forecast"]["_meta"]["ui"] == {"resourceUri": "ui://weather/forecast"}
            assert tools["refresh"]["_meta"]["ui"]["visibility"] == ["app"]
            listed = {r.uri: r for r in await within(client.list_resources())}["ui://weather/forecast"]
            assert listed.mime_type == MIME and listed.description == "The forecast, drawn"
            app = await within(client.read_app("ui://weather/forecast"))
            assert app.html == HTML
            assert app.meta == {
                "csp": {"connectDomains": ["https://api.weather.example"]},
                "permissions": {"geolocation": {}},
                "prefersBorder": True,
            }
            assert app.csp.startswith("default-src 'none'")
            assert "connect-src 'self' https://api.weather.example" in app.csp
            assert app.allow == "geolocation"
            assert (await within(client.call_tool("forecast", {"city": "Paris"}))).text == "Sunny in Paris"
            with pytest.raises(ValueError, match="ui://"):
                await within(client.read_app("weather://paris"))

    run(main())


def test_app_definitions_are_checked() -> None:
    server = Server("apps")
    with pytest.raises(DefinitionError, match="ui://"):
        server.app("https://example.com/app", HTML)
    with pytest.raises(DefinitionError, match="not an origin"):
        server.app("ui://x/y", HTML, csp={"resourceDomains": ["'unsafe-eval'"]})
    with pytest.raises(DefinitionError, match="unknown"):
        server.app("ui://x/y", HTML, permissions=["telepathy"])
    with pytest.raises(DefinitionError, match="ui://"):

        @server.tool(ui="https://example.com")
        def bad() -> str:
            return ""
