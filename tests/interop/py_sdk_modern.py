#!/usr/bin/env python3
"""Drive a conformance server at protocol revision 2026-07-28 with the official Python SDK
client (mcp 2.3.0 ``Client``) over stdio (starting CMD) or Streamable HTTP (``--url``).

    py_sdk_modern.py [--timeout SECONDS] [--mode auto|modern] (-- CMD [ARGS...] | --url URL)

``--mode auto`` (the default) lets the SDK probe ``server/discover`` and fall back to
``initialize`` on a legacy server (``Client(mode="auto")``); the check fails if it fell back.
``--mode modern`` pins the revision without a probe (``Client(mode="2026-07-28")``); the script
then sends one ``server/discover`` itself to check the server offers 2026-07-28.

The server must serve what examples/python/conformance_server.py serves. Steps, each checked:
the session is at 2026-07-28; ``tools/list``; ``test_input_required_result_elicitation``
answers ``input_required`` (key ``user_name``), which the SDK's multi-round-trip driver hands
to the elicitation callback and retries until the greeting with the answer comes back; a
``subscriptions/listen`` stream for tools-list changes is acknowledged, ``test_trigger_tool_change``
is called and ``notifications/tools/list_changed`` arrives on the stream; the stream is closed
and the session still answers. The run is bounded (30 s by default). Exit 0 with one
``py_sdk_modern: ok (...)`` line on stdout, or print what failed to stderr and exit 1.

When ${PEERS:-<repo>/.peers}/venv exists (see setup_peers.sh), the script re-executes
itself with that venv's python, so the pinned SDK is used whatever python started it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import sdk_harness
from sdk_harness import CheckFailed, Target, check, open_transport, run_main, sdk_missing, use_peers_python

use_peers_python(__file__)

try:
    import anyio
    import mcp_types as types
    from mcp import Client, MCPError
    from mcp.client.session import ClientRequestContext
    from mcp.client.subscriptions import ToolsListChanged
except ImportError as exc:
    sdk_missing("py_sdk_modern", exc)

PREFIX = "py_sdk_modern"
MODERN = "2026-07-28"
MODES = {"auto": "auto", "modern": MODERN}
USAGE = "[--timeout SECONDS] [--mode auto|modern] (-- CMD [ARGS...] | --url URL)"
ELICIT_TOOL = "test_input_required_result_elicitation"
ELICIT_KEY = "user_name"
ANSWER = "Ada Interop"
#: How long a single step (the listen acknowledgment, the list_changed notification) may take.
STEP_SECONDS = 10.0
#: How long to watch for a notification that must not come.
QUIET_SECONDS = 0.5


def usage() -> None:
    sys.stderr.write(f"usage: {Path(__file__).name} {USAGE}\n")
    sys.exit(2)


def take_mode(argv: list[str]) -> str:
    """Removes ``--mode M`` / ``--mode=M`` (before any ``--``) from ``argv`` and returns M;
    rejects ``--sse-url`` (the 2026-07-28 revision has no HTTP+SSE transport). The rest is
    what sdk_harness.parse_args reads."""
    mode = "auto"
    i = 0
    while i < len(argv) and argv[i] != "--":
        name, eq, value = argv[i].partition("=")
        if name == "--mode":
            if not eq:
                if i + 1 >= len(argv):
                    usage()
                value = argv.pop(i + 1)
            argv.pop(i)
            if value not in MODES:
                usage()
            mode = value
            continue
        if name == "--sse-url":
            usage()
        i += 1
    return mode


MODE = "auto"


def wire(model: Any) -> str:
    return json.dumps(model.model_dump(by_alias=True, mode="json", exclude_none=True))


class Peer:
    """The client-side callbacks, recording what reached them."""

    def __init__(self) -> None:
        self.elicitations: list[tuple[Any, types.ElicitRequestParams]] = []
        self.notifications: list[Any] = []

    async def elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        self.elicitations.append((context.request_id, params))
        return types.ElicitResult(action="accept", content={"name": ANSWER})

    async def message(self, message: Any) -> None:
        self.notifications.append(message)


async def tool_names(client: Client) -> set[str]:
    # "refresh": always ask the server (the SDK caches list results by their ttlMs).
    return {t.name for t in (await client.list_tools(cache_mode="refresh")).tools}


async def run(target: Target) -> list[str]:
    done: list[str] = []
    peer = Peer()
    async with Client(
        open_transport(target),
        mode=MODES[MODE],
        elicitation_callback=peer.elicitation,
        message_handler=peer.message,
    ) as client:
        # ---- the era: 2026-07-28 through server/discover, not the initialize handshake
        session = client.session
        check(
            client.protocol_version == MODERN,
            f"mode {MODE}: the session is at {client.protocol_version!r}, want {MODERN!r}"
            + (" (the SDK fell back to initialize)" if session.initialize_result is not None else ""),
        )
        check(session.initialize_result is None, f"mode {MODE}: the session ran initialize")
        if MODE == "auto":
            discovered = session.discover_result
            check(discovered is not None, "mode auto: no server/discover result adopted")
            assert discovered is not None
        else:
            # The pinned mode adopts a synthesized discover result; ask the server for real.
            try:
                discovered = types.DiscoverResult.model_validate(await session.send_discover(MODERN))
            except MCPError as e:
                raise CheckFailed(f"mode modern: server/discover at {MODERN} failed: {e.code} {e.message}") from None
        check(
            MODERN in discovered.supported_versions,
            f"server/discover supportedVersions lacks {MODERN}: {wire(discovered)}",
        )
        caps = discovered.capabilities
        check(caps.tools is not None, f"server/discover: no tools capability: {wire(discovered)}")
        # The pinned mode's own session has no serverInfo: take the discover result's stamp.
        stamp = (discovered.meta or {}).get("io.modelcontextprotocol/serverInfo")
        info = session.server_info or (types.Implementation.model_validate(stamp) if stamp else None)
        print(
            f"{PREFIX}: mode {MODE}: protocolVersion={client.protocol_version} "
            f"supportedVersions={discovered.supported_versions} "
            f"server={info.name + ' ' + info.version if info else '(anonymous)'}",
            file=sys.stderr,
        )
        how = "via server/discover" if MODE == "auto" else "pinned; server/discover offers it"
        done.append(f"{MODE}: {client.protocol_version} {how}")

        # ---- tools/list
        names = await tool_names(client)
        want = {ELICIT_TOOL, "test_trigger_tool_change"}
        check(want <= names, f"tools/list lacks {sorted(want - names)} (has {sorted(names)})")
        done.append(f"tools/list ({len(names)} tools)")

        # ---- MRTR: the first leg, driven by hand, is an input_required result...
        first = await session.call_tool(ELICIT_TOOL, {}, allow_input_required=True)
        check(
            isinstance(first, types.InputRequiredResult),
            f"{ELICIT_TOOL}: the first leg is not an input_required result: {wire(first)}",
        )
        assert isinstance(first, types.InputRequiredResult)
        requests = first.input_requests or {}
        check(
            list(requests) == [ELICIT_KEY] and isinstance(requests[ELICIT_KEY], types.ElicitRequest),
            f"{ELICIT_TOOL}: input_required wants an elicitation under {ELICIT_KEY!r}: {wire(first)}",
        )
        # ... which Client.call_tool resolves through the elicitation callback and a retry.
        res = await client.call_tool(ELICIT_TOOL, {})
        check(not res.is_error, f"{ELICIT_TOOL} isError: {wire(res)}")
        text = "".join(c.text for c in res.content if isinstance(c, types.TextContent))
        check(ANSWER in text, f"{ELICIT_TOOL}: the final text lacks the answer {ANSWER!r}: {text!r}")
        check(len(peer.elicitations) == 1, f"{ELICIT_TOOL}: {len(peer.elicitations)} elicitations, want 1")
        key, params = peer.elicitations[0]
        # The driver names the callback's request after the input key; a legacy
        # server-to-client elicitation/create would carry a JSON-RPC id instead.
        check(key == ELICIT_KEY, f"{ELICIT_TOOL}: the elicitation came as request {key!r}, not input {ELICIT_KEY!r}")
        check(
            isinstance(params, types.ElicitRequestFormParams)
            and params.message == "What is your name?"
            and params.requested_schema.get("required") == ["name"],
            f"{ELICIT_TOOL}: elicitation request: {wire(params)}",
        )
        done.append(f"input_required elicitation ({text!r})")

        # ---- subscriptions/listen: tools list changes, on the stream that asked for them
        before = await tool_names(client)
        stage = "the acknowledgment"
        try:
            with anyio.fail_after(2 * STEP_SECONDS):
                async with client.listen(tools_list_changed=True) as sub:
                    check(
                        sub.honored.tools_list_changed is True,
                        f"subscriptions/listen: the acknowledgment does not honor toolsListChanged: "
                        f"{wire(sub.honored)}",
                    )
                    seen = len(peer.notifications)
                    res = await client.call_tool("test_trigger_tool_change", {})
                    check(not res.is_error, f"test_trigger_tool_change isError: {wire(res)}")
                    stage = "notifications/tools/list_changed"
                    with anyio.fail_after(STEP_SECONDS):
                        event = await sub.__anext__()
                    check(isinstance(event, ToolsListChanged), f"subscriptions/listen: unexpected event {event!r}")
                    # The SDK also hands the stream's notifications to message_handler, in a
                    # task of their own: the raw frame carries the subscription's id.
                    stage = "notifications/tools/list_changed at message_handler"
                    with anyio.fail_after(STEP_SECONDS):
                        while not any(
                            isinstance(n, types.ToolListChangedNotification) for n in peer.notifications[seen:]
                        ):
                            await anyio.sleep(0.01)
                    raw = next(n for n in peer.notifications[seen:] if isinstance(n, types.ToolListChangedNotification))
                    meta = (raw.params.meta if raw.params else None) or {}
                    check(
                        meta.get("io.modelcontextprotocol/subscriptionId") == sub.subscription_id,
                        f"list_changed subscriptionId is {meta.get('io.modelcontextprotocol/subscriptionId')!r}, "
                        f"want {sub.subscription_id!r}: {wire(raw)}",
                    )
                    stage = "closing the subscription"
        except TimeoutError:
            raise CheckFailed(f"subscriptions/listen: no {stage} within {STEP_SECONDS:g}s") from None
        after = await tool_names(client)
        check(
            ("test_dynamic_tool" in after) != ("test_dynamic_tool" in before),
            f"test_trigger_tool_change did not toggle test_dynamic_tool "
            f"(before: {sorted(before)}, after: {sorted(after)})",
        )
        done.append(f"subscriptions/listen tools list_changed (subscription {sub.subscription_id!r})")

        # ---- the session outlives the closed subscription; undo the change, which nobody
        # listens to now: no list_changed may come (the server sends only what a stream asked for)
        seen = len(peer.notifications)
        res = await client.call_tool("test_trigger_tool_change", {})
        check(not res.is_error, f"test_trigger_tool_change (undo) isError: {wire(res)}")
        await anyio.sleep(QUIET_SECONDS)
        stray = [n for n in peer.notifications[seen:] if isinstance(n, types.ToolListChangedNotification)]
        check(not stray, f"notifications/tools/list_changed without a subscription: {[wire(n) for n in stray]}")
        restored = await tool_names(client)
        check(
            ("test_dynamic_tool" in restored) == ("test_dynamic_tool" in before),
            f"the second test_trigger_tool_change did not toggle back (tools: {sorted(restored)})",
        )
        done.append("session after unsubscribing")
    return done


def main() -> int:
    global MODE
    MODE = take_mode(sys.argv)
    sdk_harness.USAGE = USAGE  # what the harness prints when the rest of the arguments are wrong
    return run_main(__file__, PREFIX, run, lambda done: print(f"{PREFIX}: ok ({', '.join(done)})"))


if __name__ == "__main__":
    sys.exit(main())
