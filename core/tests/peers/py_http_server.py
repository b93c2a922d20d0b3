"""An MCP server on the official Python SDK (`mcp`), over HTTP, for core/tests/suite/http_client.rs.

Usage: python py_http_server.py streamable|json|sse PORT [SESSION_IDLE_TIMEOUT_SECONDS]

- streamable: Streamable HTTP at /mcp, with an in-memory event store (resumable streams)
  and a 200 ms `retry:` hint;
- json: Streamable HTTP at /mcp answering requests with `application/json` bodies;
- sse: the legacy HTTP+SSE transport (GET /sse, POST /messages/).

Tools: echo, headers (the request headers it saw), progress (reports progress, then
answers), ask (an elicitation), resume (closes its own SSE stream, then answers: the client
must resume with GET + Last-Event-ID), announce (a notification for the standalone GET
stream).
"""

import sys

import anyio
from pydantic import BaseModel

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

server = MCPServer("py-http-test")


class MemoryEventStore(EventStore):
    """Every event, in order; replays the events of the stream after a given id."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, object]] = []

    async def store_event(self, stream_id, message):
        event_id = str(len(self.events) + 1)
        self.events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id, send_callback: EventCallback):
        index = next((i for i, e in enumerate(self.events) if e[0] == last_event_id), None)
        if index is None:
            return None
        stream_id = self.events[index][1]
        for event_id, sid, message in self.events[index + 1 :]:
            if sid == stream_id and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream_id


@server.tool()
def echo(text: str) -> str:
    """Echoes the text."""
    return f"echo: {text}"


@server.tool()
def headers(ctx: Context) -> dict:
    """The HTTP request headers of this call."""
    return {k.lower(): v for k, v in (ctx.headers or {}).items()}


@server.tool()
async def progress(steps: int, ctx: Context) -> str:
    """Reports `steps` progress notifications, then answers."""
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}")
        await anyio.sleep(0.02)
    return f"done after {steps} steps"


class Person(BaseModel):
    name: str
    age: int


@server.tool()
async def ask(ctx: Context) -> str:
    """Asks the client for a name and an age (elicitation)."""
    result = await ctx.elicit("Who are you?", Person)
    if result.action == "accept" and result.data is not None:
        return f"hello {result.data.name}, {result.data.age}"
    return f"no answer: {result.action}"


@server.tool()
async def announce(ctx: Context) -> str:
    """Sends notifications/tools/list_changed, unrelated to this call (the GET stream)."""
    await ctx.session.send_tool_list_changed()
    return "announced"


@server.tool()
async def resume(ctx: Context) -> str:
    """Closes the SSE stream of this call, then answers (after a pause)."""
    await ctx.report_progress(1, 2, "before the break")
    await ctx.close_sse_stream()
    await anyio.sleep(0.3)
    await ctx.report_progress(2, 2, "after the break")
    return "answered after the stream was resumed"


def main() -> None:
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "sse":
        server.run("sse", host="127.0.0.1", port=port)
    else:
        idle = float(sys.argv[3]) if len(sys.argv) > 3 else 1800.0
        server.run(
            "streamable-http",
            host="127.0.0.1",
            port=port,
            json_response=mode == "json",
            event_store=None if mode == "json" else MemoryEventStore(),
            retry_interval=None if mode == "json" else 200,
            session_idle_timeout=idle,
        )


if __name__ == "__main__":
    main()
