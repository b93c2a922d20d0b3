#!/usr/bin/env python3
"""The 2026-07-28 era through a load balancer in front of replicas, with the official Python
SDK client (mcp 2.3.0 ``Client`` pinned to 2026-07-28); run by tests/scale/run_scale.py.

    scale_modern.py --url URL

Steps, each checked:
1. ``tools/list`` (stateless: every request may reach another replica);
2. ``plan_trip`` by multi round-trip requests: the first leg ends ``input_required`` with a
   ``requestState`` sealed by the replica that served it; the SDK answers the elicitation and
   the sampling and retries through the balancer, so other replicas open that state (the
   replicas share ``HYPERMCP_REQUEST_STATE_KEYS``);
3. a ``subscriptions/listen`` stream on three cities' ``weather://{city}/now`` (held by one
   replica), then ``report`` called for each through the balancer (round-robin: at least two
   of them on other replicas): an update of each city arrives on the stream.

Exit 0 with one ``scale_modern: ok (...)`` line on stdout, or print what failed and exit 1.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "interop"))

from sdk_harness import CheckFailed, check, describe, sdk_missing, use_peers_python

use_peers_python(__file__)

try:
    import anyio
    import mcp_types as types
    from mcp import Client
    from mcp.client.session import ClientRequestContext
    from mcp.client.streamable_http import streamable_http_client
    from mcp.client.subscriptions import ResourceUpdated
except ImportError as exc:
    sdk_missing("scale_modern", exc)

PREFIX = "scale_modern"
SAMPLED = "Bring sunglasses."


async def run(url: str) -> list[str]:
    done: list[str] = []
    elicited: list[Any] = []
    sampled: list[Any] = []

    async def elicitation(context: ClientRequestContext, params: types.ElicitRequestParams) -> types.ElicitResult:
        elicited.append(params)
        return types.ElicitResult(action="accept", content={"city": "tokyo", "days": 2})

    async def sampling(context: ClientRequestContext, params: types.CreateMessageRequestParams) -> Any:
        sampled.append(params)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=SAMPLED), model="scale-model"
        )

    async with Client(
        streamable_http_client(url), mode="2026-07-28", elicitation_callback=elicitation, sampling_callback=sampling
    ) as client:
        check(client.protocol_version == "2026-07-28", f"protocol {client.protocol_version}")
        names = {t.name for t in (await client.list_tools(cache_mode="refresh")).tools}
        check({"forecast", "plan_trip", "report"} <= names, f"tools: {sorted(names)}")
        done.append("tools/list")

        res = await client.call_tool("plan_trip", {})
        text = "".join(c.text for c in res.content if isinstance(c, types.TextContent))
        check(not res.is_error and "tokyo" in text and SAMPLED in text, f"plan_trip: {text!r}")
        check(len(elicited) == 1 and len(sampled) == 1, f"elicitations {len(elicited)}, samplings {len(sampled)}")
        done.append("plan_trip by input_required rounds through the balancer")

        # Updates of one URI are level triggers the SDK coalesces while unread: one URI a report.
        cities = ["paris", "london", "tokyo"]
        uris = [f"weather://{c}/now" for c in cities]
        async with client.listen(resource_subscriptions=uris) as sub:
            check(sub.honored is not None, "no acknowledgment")
            for city in cities:
                r = await client.call_tool("report", {"city": city, "sky": "hail"})
                check(not r.is_error, f"report: {r}")
            got: set[str] = set()
            with anyio.fail_after(10):
                while len(got) < 3:
                    event = await sub.__anext__()
                    if isinstance(event, ResourceUpdated):
                        got.add(event.uri)
            check(got == set(uris), f"listen events: {sorted(got)}")
        done.append("listen stream heard the updates of 3 reports made through the balancer")
    return done


def main() -> int:
    args = sys.argv[1:]
    if len(args) != 2 or args[0] != "--url":
        print(f"{PREFIX}: usage: --url URL", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        done = anyio.run(_bounded, args[1])
    except CheckFailed as e:
        print(f"{PREFIX}: FAILED: {e}", file=sys.stderr)
        return 1
    except BaseException as e:  # noqa: BLE001 - one line for any failure
        print(f"{PREFIX}: FAILED: {describe(e)}", file=sys.stderr)
        return 1
    print(f"{PREFIX}: ok ({'; '.join(done)}; {time.monotonic() - started:.1f} s)")
    return 0


async def _bounded(url: str) -> list[str]:
    with anyio.fail_after(60):
        return await run(url)


if __name__ == "__main__":
    sys.exit(main())
