"""A realistic MCP server in Python using every feature hypermcp offers.

Tools with structured output, progress, logging, elicitation and sampling; a static
resource and a resource template (subscribable: ``report`` changes a city's sky and tells
subscribers); a prompt; argument completion; a lifespan holding shared
state; an MCP App (the forecast widget, ``examples/apps/weather-widget.html``). Runs over
stdio, or Streamable HTTP with ``--http PORT``:

    python examples/python/weather_server.py                # stdio
    python examples/python/weather_server.py --http 3000    # http://127.0.0.1:3000/mcp (and legacy SSE at /sse)

examples/python/asgi_app.py mounts this server in a Starlette app.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Annotated, Literal, TypedDict

from hypermcp import Context, Image, McpError, PromptMessage, ResourceLink, Server

CITIES = {
    "paris": {"name": "Paris", "country": "FR", "temp_c": 18.5, "sky": "sunny"},
    "london": {"name": "London", "country": "GB", "temp_c": 12.0, "sky": "rain"},
    "tokyo": {"name": "Tokyo", "country": "JP", "temp_c": 22.3, "sky": "cloudy"},
    "lima": {"name": "Lima", "country": "PE", "temp_c": 16.1, "sky": "fog"},
}

# A 1x1 transparent PNG, so the example carries no binary files.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8ffff3f0005fe02fea7d6a4e10000000049454e44ae426082"
)


class Units(str, Enum):
    """Temperature units."""

    CELSIUS = "celsius"
    FAHRENHEIT = "fahrenheit"


@dataclass
class Forecast:
    """A forecast.

    Attributes:
        city: The city's name.
        days: How many days it covers.
        temperatures: One temperature per day.
        units: The units of the temperatures.
    """

    city: str
    days: int
    temperatures: list[float]
    units: Units


class Alert(TypedDict):
    city: str
    level: Literal["info", "warning", "severe"]
    message: str


@dataclass
class AppState:
    """What the lifespan opens before serving: here, a request counter."""

    lookups: int = 0


@asynccontextmanager
async def lifespan(server: Server) -> AsyncIterator[AppState]:
    state = AppState()
    try:
        yield state
    finally:
        # Close connections, flush caches... Logs go to stderr, never stdout.
        import sys

        print(f"weather server: served {state.lookups} lookups", file=sys.stderr)


server = Server(
    "weather",
    version="1.0.0",
    title="Weather",
    instructions="Ask for forecasts by city; read weather://{city}/now for current conditions.",
    lifespan=lifespan,
)


def _city(name: str) -> dict[str, object]:
    city = CITIES.get(name.lower())
    if city is None:
        raise McpError(-32602, f"unknown city {name!r}", {"known": sorted(CITIES)})
    return city


# MCP Apps: hosts that render apps show forecasts in this widget (the tool's text and
# structured result stay what every other host shows).
WIDGET = Path(__file__).resolve().parent.parent / "apps" / "weather-widget.html"
server.app("ui://weather/forecast", WIDGET.read_text(encoding="utf-8"), prefers_border=True)


@server.tool(annotations={"readOnlyHint": True, "openWorldHint": False}, ui="ui://weather/forecast")
async def forecast(
    city: str,
    days: Annotated[int, "How many days ahead (1-7)"] = 3,
    units: Units = Units.CELSIUS,
    ctx: Context | None = None,
) -> Forecast:
    """Forecast for a city.

    Args:
        city: Which city (paris, london, tokyo, lima).
    """
    base = float(_city(city)["temp_c"])  # type: ignore[arg-type]
    if not 1 <= days <= 7:
        raise ValueError("days must be between 1 and 7")
    temps = []
    for day in range(days):
        if ctx is not None:
            await ctx.report_progress(day + 1, total=days, message=f"day {day + 1}")
            ctx.lifespan_context.lookups += 1
        t = base + day * 0.5
        temps.append(round(t * 9 / 5 + 32, 1) if units is Units.FAHRENHEIT else t)
        await asyncio.sleep(0)
    if ctx is not None:
        await ctx.info(f"forecast for {city} over {days} days")
    return Forecast(city=str(_city(city)["name"]), days=days, temperatures=temps, units=units)


@server.tool
def alerts(country: str | None = None) -> list[Alert]:
    """Active weather alerts, optionally for one country code."""
    found: list[Alert] = [
        {"city": "London", "level": "warning", "message": "Heavy rain"},
        {"city": "Lima", "level": "info", "message": "Morning fog"},
    ]
    codes = {str(c["name"]): str(c["country"]) for c in CITIES.values()}
    return [a for a in found if country is None or codes[a["city"]] == country.upper()]


@server.tool(title="Weather map")
def weather_map(city: str) -> list[Image | ResourceLink]:
    """A (tiny) weather map image and a link to the city's current conditions."""
    _city(city)
    return [Image(PIXEL, "image/png"), ResourceLink(f"weather://{city.lower()}/now", f"{city} now")]


@server.tool
async def plan_trip(ctx: Context) -> str:
    """Asks the user where to go (elicitation), then a model for advice (sampling)."""
    answer = await ctx.elicit(
        "Where would you like to go?",
        {
            "type": "object",
            "properties": {
                "city": {"type": "string", "enum": sorted(CITIES)},
                "days": {"type": "integer", "minimum": 1, "maximum": 7, "default": 3},
            },
            "required": ["city"],
        },
    )
    if not answer.accepted or not answer.content:
        return "Trip planning declined." if answer.action == "decline" else "Trip planning cancelled."
    city = str(answer.content["city"])
    advice = await ctx.sample(
        f"One sentence of packing advice for {city}, weather: {_city(city)['sky']}.", max_tokens=60
    )
    text = advice.get("content", {}).get("text", "")
    return f"{city}: {text}"


@server.tool(task=True)
async def outlook(city: str, days: int = 3, ctx: Context | None = None) -> str:
    """A long-range outlook, half a second a day: it runs as a task when the client asks
    (polled with tasks/get, cancelled with tasks/cancel, its result taken with tasks/result)."""
    place = _city(city)
    for day in range(1, days + 1):
        await asyncio.sleep(0.5)
        if ctx is not None:
            await ctx.report_progress(day, total=days, message=f"day {day}")
    return f"{place['name']}: {place['sky']} for {days} days"


@server.tool
def report(city: str, sky: str) -> str:
    """Reports a city's sky; clients subscribed to its conditions are told."""
    _city(city)["sky"] = sky
    server.notify_resource_updated(f"weather://{city.lower()}/now")
    return f"{city.lower()}: {sky}"


@server.resource("weather://cities", mime_type="application/json")
def cities() -> list[str]:
    """Every city this server knows."""
    return sorted(CITIES)


@server.resource("weather://{city}/now", mime_type="application/json")
async def now(city: str) -> dict[str, object]:
    """Current conditions in a city."""
    return _city(city)


@server.prompt
def packing_list(city: str, days: int = 3) -> list[PromptMessage]:
    """A packing list for a trip.

    Args:
        city: Destination.
        days: Length of the trip.
    """
    sky = _city(city)["sky"]
    return [
        PromptMessage(f"I am going to {city} for {days} days; the sky is {sky}."),
        PromptMessage("What should I pack?"),
    ]


@server.completion(prompt="packing_list", argument="city")
@server.completion(resource="weather://{city}/now", argument="city")
def complete_city(value: str) -> list[str]:
    return [c for c in sorted(CITIES) if c.startswith(value.lower())]


if __name__ == "__main__":
    import sys

    args = sys.argv[1:]
    if not args:
        server.run()
    elif len(args) == 2 and args[0] == "--http" and args[1].isdigit():
        server.run("http", port=int(args[1]))
    else:
        sys.exit("usage: weather_server.py [--http PORT]")
