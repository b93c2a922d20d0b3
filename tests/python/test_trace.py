"""W3C trace context (Python): a handler reads the caller's ``traceparent`` / ``tracestate``
/ ``baggage`` from ``_meta`` as ``ctx.trace_context`` in both eras; requests a handler's
clients send carry the trace on; with OpenTelemetry in the app (opentelemetry-sdk, in a
process of its own so no other test runs under it), every request gets a span, parented
across processes through ``_meta``, named and attributed as the conventions for MCP say."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import hypermcp
from _helpers import free_port, run
from hypermcp import Client, Context, Server

TP = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"


def leaf() -> Server:
    s = Server("leaf")

    @s.tool
    def whoami(ctx: Context) -> dict[str, Any]:
        """The trace context this call came with."""
        tc = ctx.trace_context
        if tc is None:
            return {"trace": None}
        return {
            "trace": {
                "traceparent": tc.traceparent,
                "trace_id": tc.trace_id,
                "parent_id": tc.parent_id,
                "sampled": tc.sampled,
                "tracestate": tc.tracestate,
                "baggage": tc.baggage,
                "meta": tc.to_meta(),
            }
        }

    return s


@pytest.mark.parametrize("mode", ["modern", "legacy"])
def test_a_handler_reads_the_trace_context(mode: str) -> None:
    async def main() -> None:
        async with Client(leaf(), mode=mode) as client:
            meta = {"traceparent": TP, "tracestate": "rojo=00f067aa0ba902b7", "baggage": "user=alice%20b;p=1,bad key=1"}
            r = await client.call_tool("whoami", meta=meta)
            tc = r.structured_content["trace"]
            assert tc["traceparent"] == TP
            assert tc["trace_id"] == TRACE_ID and tc["parent_id"] == "00f067aa0ba902b7" and tc["sampled"] is True
            assert tc["tracestate"] == "rojo=00f067aa0ba902b7"
            assert tc["baggage"] == {"user": "alice b"}
            assert tc["meta"] == meta
            # None sent, an invalid one, or not text: none read, and the call goes on.
            for bad in (None, {"traceparent": "00-zz-00f067aa0ba902b7-01"}, {"traceparent": 7}):
                r = await client.call_tool("whoami", meta=bad)
                assert r.structured_content == {"trace": None}, bad

    run(main())


def test_the_type_is_exported() -> None:
    assert hypermcp.TraceContext.__name__ == "TraceContext"


@pytest.mark.parametrize("mode", ["modern", "legacy"])
def test_a_server_that_calls_another_carries_the_trace_on(mode: str) -> None:
    """No OpenTelemetry here: the trace is passed on as it came (the same parent)."""
    downstream = leaf()
    proxy = Server("proxy")

    @proxy.tool
    async def relay() -> dict[str, Any]:
        """Asks the leaf who it is."""
        async with Client(downstream, mode=mode) as c:
            return (await c.call_tool("whoami")).structured_content

    async def main() -> None:
        async with Client(proxy, mode=mode) as client:
            r = await client.call_tool("relay", meta={"traceparent": TP, "baggage": "tenant=acme"})
            tc = r.structured_content["trace"]
            assert tc["traceparent"] == TP and tc["baggage"] == {"tenant": "acme"}
            # Without a trace to carry, none is made up.
            r = await client.call_tool("relay")
            assert r.structured_content == {"trace": None}

    run(main())


LEAF_SCRIPT = """
import sys
from hypermcp import Server, Context

server = Server("leaf")

@server.tool
def whoami(ctx: Context) -> dict:
    tc = ctx.trace_context
    return {"trace_id": tc.trace_id, "parent_id": tc.parent_id} if tc else {}

@server.tool
def broken() -> str:
    raise RuntimeError("no")

server.run()
"""

# An app with OpenTelemetry: its spans go to memory, then out as JSON.
OTEL_APP = """
import asyncio, json, sys
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

from hypermcp import Client, Context, McpError, Server

LEAF, MODE, PORT = sys.argv[1], sys.argv[2], int(sys.argv[3])
proxy = Server("proxy")
seen = {}

@proxy.tool
async def relay(ctx: Context) -> dict:
    seen["relay"] = ctx.trace_context.parent_id
    async with Client.stdio(sys.executable, LEAF) as leaf:
        who = (await leaf.call_tool("whoami")).structured_content
        failed = await leaf.call_tool("broken")
    return {"leaf": who, "failed": failed.is_error}

@proxy.tool
def refuse() -> str:
    raise McpError(-32050, "refused")

@proxy.resource("file:///a.txt")
def a() -> str:
    return "A"

@proxy.prompt()
def hello(name: str) -> str:
    return f"Hello {name}"

@proxy.tool
async def ask(ctx: Context) -> str:
    answer = await ctx.elicit("Name?", {"type": "object", "properties": {"v": {"type": "string"}}})
    return answer.content["v"]

def answer(params):
    return {"action": "accept", "content": {"v": "Ada"}}

async def main():
    out = {}
    with trace.get_tracer("app").start_as_current_span("app") as root:
        async with Client(proxy, mode=MODE, elicitation_handler=answer) as client:
            out["relay"] = (await client.call_tool("relay")).structured_content
            out["ask"] = (await client.call_tool("ask")).text
            await client.read_resource("file:///a.txt")
            await client.get_prompt("hello", {"name": "Ada"})
            try:
                await client.call_tool("refuse")
            except McpError as e:
                out["refused"] = e.code
        # Over HTTP: the session id and the transport.
        running = await proxy.start_http(port=PORT)
        async with Client.http(f"http://127.0.0.1:{PORT}/mcp", mode="legacy") as client:
            await client.read_resource("file:///a.txt")
        await running.stop()
    out["seen"] = seen
    out["root"] = format(root.get_span_context().span_id, "016x")
    out["spans"] = [
        {
            "name": s.name,
            "kind": s.kind.name,
            "trace_id": format(s.context.trace_id, "032x"),
            "span_id": format(s.context.span_id, "016x"),
            "parent": format(s.parent.span_id, "016x") if s.parent else None,
            "attributes": dict(s.attributes),
            "status": s.status.status_code.name,
        }
        for s in exporter.get_finished_spans()
    ]
    print(json.dumps(out))

asyncio.run(main())
"""


def otel_run(tmp_path: Path, mode: str) -> dict[str, Any]:
    (tmp_path / "leaf.py").write_text(LEAF_SCRIPT)
    (tmp_path / "app.py").write_text(textwrap.dedent(OTEL_APP))
    p = subprocess.run(
        [sys.executable, str(tmp_path / "app.py"), str(tmp_path / "leaf.py"), mode, str(free_port())],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 0, p.stderr
    out: dict[str, Any] = json.loads(p.stdout)
    return out


@pytest.mark.parametrize("mode", ["modern", "legacy"])
def test_opentelemetry_spans_per_request(tmp_path: Path, mode: str) -> None:
    out = otel_run(tmp_path, mode)
    spans = out["spans"]

    def one(name: str, kind: str, **attrs: Any) -> dict[str, Any]:
        found = [
            s for s in spans if s["name"] == name and s["kind"] == kind and attrs.items() <= s["attributes"].items()
        ]
        assert len(found) == 1, (name, kind, attrs, [(s["name"], s["kind"]) for s in spans])
        return found[0]

    root = out["root"]
    # The app's call: a CLIENT span under the app's, the proxy's SERVER span under that.
    client = one("tools/call relay", "CLIENT")
    assert client["parent"] == root
    assert client["attributes"]["mcp.method.name"] == "tools/call"
    assert client["attributes"]["gen_ai.tool.name"] == "relay"
    assert client["attributes"]["gen_ai.operation.name"] == "execute_tool"
    assert client["attributes"]["jsonrpc.request.id"]
    server = one("tools/call relay", "SERVER")
    assert server["parent"] == client["span_id"]
    assert out["seen"]["relay"] == client["span_id"], "ctx.trace_context names the caller's span"
    assert server["attributes"]["mcp.protocol.version"] == ("2026-07-28" if mode == "modern" else "2025-11-25")
    # The proxy's own call to the leaf (another process, over stdio): its CLIENT span is
    # under the proxy's SERVER span, and the leaf reads that span as its parent.
    to_leaf = one("tools/call whoami", "CLIENT")
    assert to_leaf["parent"] == server["span_id"]
    assert to_leaf["attributes"]["network.transport"] == "pipe"
    assert out["relay"]["leaf"] == {"trace_id": client["trace_id"], "parent_id": to_leaf["span_id"]}
    # A tool that reports failure, and a JSON-RPC error.
    broken = one("tools/call broken", "CLIENT")
    assert broken["attributes"]["error.type"] == "tool_error" and broken["status"] == "ERROR"
    assert out["refused"] == -32050
    refused = one("tools/call refuse", "SERVER")
    assert refused["attributes"]["error.type"] == "-32050" and refused["status"] == "ERROR"
    assert one("tools/call refuse", "CLIENT")["attributes"]["rpc.response.status_code"] == "-32050"
    # Resources and prompts.
    read = [s for s in spans if s["name"] == "resources/read" and s["kind"] == "SERVER"]
    assert len(read) == 2 and all(s["attributes"]["mcp.resource.uri"] == "file:///a.txt" for s in read)
    http = [s for s in read if s["attributes"]["network.transport"] == "tcp"]
    assert len(http) == 1 and http[0]["attributes"]["mcp.session.id"]
    prompt = one("prompts/get hello", "SERVER", **{"gen_ai.prompt.name": "hello"})
    assert prompt["status"] == "UNSET"
    # A call that asks for input: at 2026-07-28 a round ends it (input_required, not a
    # failure) and the retry is a second span; in a legacy session it is one call.
    assert out["ask"] == "Ada"
    asks = [s for s in spans if s["name"] == "tools/call ask" and s["kind"] == "SERVER"]
    assert all(s["status"] == "UNSET" for s in asks)
    rounds = [s["attributes"].get("mcp.result.type") for s in asks]
    assert rounds == (["input_required", None] if mode == "modern" else [None])
    # One trace throughout.
    assert {s["trace_id"] for s in spans} == {client["trace_id"]}
