#!/usr/bin/env python3
"""Conformance client written with the official Python SDK (mcp 2.3.0): the baseline for the
conformance *client* scenarios, and a record of what each one expects.

    MCP_CONFORMANCE_SCENARIO=<name> reference_client.py URL

The conformance CLI (``run_client.sh``) starts a mock server per scenario and runs
``CMD URL`` with the scenario's name in ``MCP_CONFORMANCE_SCENARIO``; the client must do what
the scenario expects over Streamable HTTP and exit 0 (a non-zero exit fails the scenario even
when every check passed):

- ``initialize``: initialize (protocolVersion 2025-06-18 or 2025-11-25, clientInfo with name
  and version), send notifications/initialized, exit. The mock answers everything with
  ``application/json`` (even the notification: 200 with a JSON body instead of 202) and
  answers GET with 400; its URL has no path (``http://localhost:PORT``).
- ``tools_call``: initialize, tools/list, call ``add_numbers {"a": 5, "b": 3}``. The mock is a
  *stateless* TS SDK server (no Mcp-Session-Id; a fresh server per POST; GET is 404).
- ``elicitation-sep1034-client-defaults``: declare the elicitation capability, call
  ``test_client_elicitation_defaults``; the server sends ``elicitation/create`` whose schema
  has defaults for name/age/score/status/verified and no required fields; answer
  ``accept`` with a content holding all five (the defaults applied: "John Doe", 30, 95.5,
  "active", true). Each field present with the right JSON type is one check (5 checks).
- ``sse-retry``: initialize (the mock negotiates 2025-03-26), call ``test_reconnection``. The
  POST answer is an SSE stream with one priming event (``id: event-N``, ``retry: 500``,
  empty ``data:``) that the server closes 50 ms later without the result. The client must
  reconnect with ``GET`` + ``Last-Event-ID: event-N`` between 450 and 700 ms after the close
  (700-1000 ms: WARNING, >1000 ms or <450 ms: FAILURE); the result then arrives on that GET
  stream (after a new priming event). 3 checks: graceful reconnect, retry timing,
  Last-Event-ID.

Exit 0 when the scenario's own steps worked, 1 otherwise (with a message on stderr); bounded
by ``CLIENT_TIMEOUT`` seconds (25). Runs itself under ${PEERS:-<repo>/.peers}/venv's python.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "interop"))
from sdk_harness import CheckFailed, check, describe, sdk_missing, use_peers_python

use_peers_python(__file__)

try:
    import anyio
    import mcp_types as types
    from mcp import ClientSession
    from mcp.client.session import ClientRequestContext
    from mcp.client.streamable_http import streamable_http_client
except ImportError as exc:
    sdk_missing("reference_client", exc)

PREFIX = "reference_client"
CLIENT_INFO = types.Implementation(name="hypermcp-reference-client", version="1.0.0")


def log(msg: str) -> None:
    print(f"{PREFIX}: {msg}", file=sys.stderr, flush=True)


def text_of(result: types.CallToolResult) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def apply_defaults(
    context: ClientRequestContext, params: types.ElicitRequestParams
) -> types.ElicitResult | types.ErrorData:
    """Accepts every form elicitation with the schema's defaults (SEP-1034)."""
    schema: dict[str, Any] = getattr(params, "requested_schema", None) or {}
    content = {
        name: prop["default"]
        for name, prop in (schema.get("properties") or {}).items()
        if isinstance(prop, dict) and "default" in prop
    }
    log(f"elicitation/create -> accept {content}")
    return types.ElicitResult(action="accept", content=content)


async def run(url: str, scenario: str) -> None:
    elicitation = apply_defaults if scenario == "elicitation-sep1034-client-defaults" else None
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write, client_info=CLIENT_INFO, elicitation_callback=elicitation) as session:
            init = await session.initialize()
            log(f"initialized: protocolVersion={init.protocol_version} server={init.server_info.name}")
            if scenario == "initialize":
                return
            tools = [t.name for t in (await session.list_tools()).tools]
            log(f"tools: {tools}")
            if scenario == "tools_call":
                res = await session.call_tool("add_numbers", {"a": 5, "b": 3})
                check(not res.is_error and "8" in text_of(res), f"add_numbers: {text_of(res)!r}")
            elif scenario == "elicitation-sep1034-client-defaults":
                res = await session.call_tool("test_client_elicitation_defaults", {})
                check(not res.is_error, f"test_client_elicitation_defaults: {text_of(res)!r}")
            elif scenario == "sse-retry":
                res = await session.call_tool("test_reconnection", {})
                check("completed" in text_of(res), f"test_reconnection: {text_of(res)!r}")
            else:
                raise CheckFailed(f"unsupported scenario {scenario!r}")
            log(f"result: {text_of(res)!r}")


def main() -> int:
    if len(sys.argv) != 2:
        print("usage: MCP_CONFORMANCE_SCENARIO=<name> reference_client.py URL", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "initialize")
    timeout = float(os.environ.get("CLIENT_TIMEOUT", "25"))

    async def bounded() -> None:
        with anyio.fail_after(timeout):
            await run(sys.argv[1], scenario)

    try:
        anyio.run(bounded)
    except BaseException as exc:  # noqa: BLE001 - any failure fails the scenario
        if isinstance(exc, KeyboardInterrupt):
            return 130
        log(f"FAIL ({scenario}): {describe(exc)}")
        return 1
    log(f"ok ({scenario})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
