#!/usr/bin/env python3
"""The official Python SDK client (mcp 2.3.0) against a server of the framework layer
(framework_server.py or .mjs): a list hook hides ``_debug``, a guard refuses ``delete``
with its own error, a hook rewrites ``shout``'s arguments, and ``unlock`` shows this session
the ``premium`` tools (told by ``list_changed``) that were hidden, and called by name "not
found", before.

    py_sdk_framework.py [--timeout SECONDS] -- CMD [ARGS...]     stdio
    py_sdk_framework.py [--timeout SECONDS] --url URL             Streamable HTTP
"""

from __future__ import annotations

import sys
from typing import Any

from sdk_harness import Target, check, open_transport, run_main, sdk_missing, use_peers_python

use_peers_python(__file__)

try:
    import anyio
    from mcp import ClientSession, MCPError
except ImportError as exc:
    sdk_missing("py_sdk_framework", exc)

PREFIX = "py_sdk_framework"


async def run(target: Target) -> Target:
    changed = anyio.Event()

    async def on_message(message: Any) -> None:
        root = getattr(message, "root", message)
        if getattr(root, "method", None) == "notifications/tools/list_changed":
            changed.set()

    async with open_transport(target) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            names = [t.name for t in (await session.list_tools()).tools]
            check(names == ["shout", "delete", "unlock"], f"tools/list: {names}")

            res = await session.call_tool("shout", {"text": "quiet"})
            check(not res.is_error and res.content[0].text == "QUIET", f"shout: {res}")

            try:
                res = await session.call_tool("delete", {"path": "/etc"})
                check(False, f"delete was not refused: {res}")
            except MCPError as e:
                check(e.code == -32001 and "not allowed" in e.message, f"delete: {e.code} {e.message}")

            try:
                res = await session.call_tool("report", {})
                check(res.is_error and "Unknown tool" in str(res.content), f"a hidden tool answered: {res}")
            except MCPError as e:
                check("Unknown tool: report" in e.message, f"report before unlock: {e.code} {e.message}")

            res = await session.call_tool("unlock", {})
            check(not res.is_error and res.content[0].text == "unlocked", f"unlock: {res}")
            with anyio.fail_after(10):
                await changed.wait()
            names = [t.name for t in (await session.list_tools()).tools]
            check(names == ["shout", "delete", "report", "unlock"], f"tools/list after unlock: {names}")
            res = await session.call_tool("report", {})
            check(not res.is_error and res.content[0].text == "the premium report", f"report: {res}")
    return target


def ok(target: Target) -> None:
    print(f"{PREFIX}: OK ({target})", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(run_main("py_sdk_framework.py", PREFIX, run, ok))
