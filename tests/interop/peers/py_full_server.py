"""An MCP server written with the official Python SDK (mcp 2.3.0, ``MCPServer``), stdio.

A known-good peer for the hypermcp client (tests/python/test_interop_official_servers.py):
- tool ``forecast(city, days=2) -> Forecast``: structured output (a pydantic model);
- tool ``count(steps)``: reports progress ``1..steps`` of ``steps`` and logs at info;
- tool ``plan``: elicits a city, then samples a model, and answers with both;
- tool ``fail``: raises, so the SDK answers ``isError: true``;
- resource ``data://config`` (JSON), template ``data://users/{user_id}`` (JSON);
- prompt ``review(code, language="python")``;
- completion of the template's ``user_id`` and the prompt's ``language``.

Run it with the peers venv: ``.peers/venv/bin/python tests/interop/peers/py_full_server.py``
"""

from __future__ import annotations

import json

import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

USERS = {"u1": {"id": "u1", "name": "Ada"}, "u2": {"id": "u2", "name": "Grace"}, "x9": {"id": "x9", "name": "Bob"}}
LANGUAGES = ["go", "javascript", "python", "rust"]

mcp = MCPServer("py-full-server", version="2.3.0-peer", instructions="An official-SDK peer for interop tests.")


class Forecast(BaseModel):
    city: str
    days: int
    temperatures: list[float] = Field(description="One per day")


class Trip(BaseModel):
    city: str


@mcp.tool()
def forecast(city: str, days: int = 2) -> Forecast:
    """Forecast for a city."""
    return Forecast(city=city, days=days, temperatures=[20.0 + d for d in range(days)])


@mcp.tool()
async def count(steps: int, ctx: Context) -> str:
    """Counts to `steps`, reporting progress at each step."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, total=steps, message=f"step {i}")
    await ctx.info(f"counted to {steps}")
    return f"counted to {steps}"


@mcp.tool()
async def plan(ctx: Context) -> str:
    """Asks where to go (elicitation), then a model for advice (sampling)."""
    answer = await ctx.elicit("Where to?", schema=Trip)
    if answer.action != "accept":
        return f"plan: {answer.action}"
    city = answer.data.city
    sampled = await ctx.session.create_message(
        [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=f"Advice for {city}?"))],
        max_tokens=30,
        related_request_id=ctx.request_id,
    )
    text = sampled.content.text if isinstance(sampled.content, types.TextContent) else "?"
    return f"{city}: {text}"


@mcp.tool()
def fail() -> str:
    """Always fails."""
    raise ValueError("this tool always fails")


@mcp.resource("data://config", mime_type="application/json")
def config() -> str:
    """The configuration."""
    return json.dumps({"debug": False, "retries": 3})


@mcp.resource("data://users/{user_id}", mime_type="application/json")
def user(user_id: str) -> str:
    """One user."""
    return json.dumps(USERS[user_id])


@mcp.prompt()
def review(code: str, language: str = "python") -> str:
    """Review some code."""
    return f"Please review this {language} code:\n{code}"


@mcp.completion()
async def complete(
    ref: types.PromptReference | types.ResourceTemplateReference,
    argument: types.CompletionArgument,
    context: types.CompletionContext | None,
) -> types.Completion | None:
    if isinstance(ref, types.ResourceTemplateReference) and argument.name == "user_id":
        return types.Completion(values=[u for u in sorted(USERS) if u.startswith(argument.value)])
    if isinstance(ref, types.PromptReference) and argument.name == "language":
        return types.Completion(values=[lang for lang in LANGUAGES if lang.startswith(argument.value)])
    return None


if __name__ == "__main__":
    mcp.run("stdio")
