#!/usr/bin/env python3
"""The 2026-07-28 era through a load balancer in front of replicas, with hypermcp's own Python
client (``Client.http(url, mode="modern")``); run by tests/scale/run_scale.py with the
project's virtual environment (where hypermcp is installed).

    scale_ours.py --url URL

Steps, each checked:
1. the client speaks 2026-07-28 (no session; every request may reach another replica);
2. ``plan_trip``: the client's elicitation and sampling handlers answer the server's
   ``input_required`` rounds, each retry going through the balancer to whichever replica
   (they open the ``requestState`` another sealed: the keys are shared);
3. a listen stream on three cities' ``weather://{city}/now``; ``report`` called for each
   through the balancer; an update of each city arrives on the stream.

Exit 0 with one ``scale_ours: ok (...)`` line on stdout, or print what failed and exit 1.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

from hypermcp import Client

PREFIX = "scale_ours"
SAMPLED = "Take a scarf."


class Failed(Exception):
    pass


def check(cond: object, msg: str) -> None:
    if not cond:
        raise Failed(msg)


async def run(url: str) -> list[str]:
    done: list[str] = []
    asked: list[str] = []

    def elicit(params: dict[str, Any]) -> dict[str, Any]:
        asked.append("elicitation")
        return {"action": "accept", "content": {"city": "lima", "days": 2}}

    def sample(params: dict[str, Any]) -> dict[str, Any]:
        asked.append("sampling")
        return {"role": "assistant", "content": {"type": "text", "text": SAMPLED}, "model": "scale-model"}

    async with Client.http(url, mode="modern", elicitation_handler=elicit, sampling_handler=sample) as client:
        check(client.modern and client.protocol_version == "2026-07-28", f"era: {client.protocol_version}")
        done.append("2026-07-28")
        result = await client.call_tool("plan_trip")
        text = result.text
        check("lima" in text and SAMPLED in text, f"plan_trip: {text!r}")
        check(asked == ["elicitation", "sampling"], f"handlers called: {asked}")
        done.append("plan_trip by input_required rounds through the balancer")

        cities = ["paris", "london", "tokyo"]
        uris = [f"weather://{c}/now" for c in cities]
        async with client.listen(resource_uris=uris) as sub:
            items = aiter(sub)
            method, _ack = await asyncio.wait_for(anext(items), 10)
            check(method == "notifications/subscriptions/acknowledged", f"first item: {method}")
            for city in cities:
                await client.call_tool("report", {"city": city, "sky": "drizzle"})
            got: set[str] = set()
            while len(got) < 3:
                method, params = await asyncio.wait_for(anext(items), 10)
                if method == "notifications/resources/updated":
                    got.add(params["uri"])
            check(got == set(uris), f"updates: {sorted(got)}")
        done.append("listen stream heard the updates of 3 reports made through the balancer")
    return done


def main() -> int:
    args = sys.argv[1:]
    if len(args) != 2 or args[0] != "--url":
        print(f"{PREFIX}: usage: --url URL", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        done = asyncio.run(asyncio.wait_for(run(args[1]), 60))
    except Failed as e:
        print(f"{PREFIX}: FAILED: {e}", file=sys.stderr)
        return 1
    except Exception as e:  # noqa: BLE001 - one line for any failure
        print(f"{PREFIX}: FAILED: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(f"{PREFIX}: ok ({'; '.join(done)}; {time.monotonic() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
