#!/usr/bin/env python3
"""Drive the weather example server through every MCP feature with the official Python SDK
client (mcp 2.3.0 ``ClientSession``) over stdio (starting CMD), Streamable HTTP (``--url``) or
legacy HTTP+SSE (``--sse-url``).

    py_sdk_full.py [--timeout SECONDS] (-- CMD [ARGS...] | --url URL | --sse-url URL)

The server must serve what examples/python/weather_server.py serves: tools ``forecast`` (structured
output, progress, an info log), ``alerts`` (a list wrapped in its one array property), ``weather_map``
(an image and a resource link) and ``plan_trip`` (elicitation, then sampling); the resource
``weather://cities``; the template ``weather://{city}/now``; the prompt ``packing_list``;
completion of ``city`` for both. Every step's result is checked; the run is bounded (30 s by
default). Exit 0 with one ``py_sdk_full: ok (...)`` line on stdout, or print what failed to
stderr and exit 1.

When ${PEERS:-<repo>/.peers}/venv exists (see setup_peers.sh), the script re-executes
itself with that venv's python, so the pinned SDK is used whatever python started it.
"""

from __future__ import annotations

import itertools
import json
import sys
import warnings
from typing import Any

from sdk_harness import CheckFailed, Target, check, open_transport, run_main, sdk_missing, use_peers_python

use_peers_python(__file__)

try:
    import anyio
    import jsonschema
    import mcp_types as types
    from mcp import ClientSession, MCPDeprecationWarning, MCPError
    from mcp.client.session import ClientRequestContext
except ImportError as exc:
    sdk_missing("py_sdk_full", exc)

# logging/setLevel and resources/subscribe are deprecated as of 2026-07-28; this walk speaks
# 2025-11-25, where they are current.
warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

PREFIX = "py_sdk_full"
CITIES = ["lima", "london", "paris", "tokyo"]
SAMPLED = "Pack light layers and sunglasses."
INVALID_PARAMS = -32602


def wire(model: Any) -> str:
    return json.dumps(model.model_dump(by_alias=True, mode="json", exclude_none=True))


async def settle(cond: Any, seconds: float = 2.0) -> None:
    """Waits until ``cond()`` holds or ``seconds`` pass: the SDK runs progress and logging
    callbacks in tasks of their own, which may still be queued when the call returns."""
    with anyio.move_on_after(seconds):
        while not cond():
            await anyio.sleep(0.01)


class Peer:
    """The client-side callbacks, recording what the server sent."""

    def __init__(self) -> None:
        self.logs: list[types.LoggingMessageNotificationParams] = []
        self.elicitations: list[types.ElicitRequestParams] = []
        self.samplings: list[types.CreateMessageRequestParams] = []

    async def logging(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append(params)

    async def elicitation(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        self.elicitations.append(params)
        return types.ElicitResult(action="accept", content={"city": "tokyo", "days": 2})

    async def sampling(
        self, context: ClientRequestContext, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult | types.ErrorData:
        self.samplings.append(params)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=SAMPLED), model="interop-model"
        )


async def run(target: Target) -> list[str]:
    done: list[str] = []
    peer = Peer()
    async with open_transport(target) as (read, write):
        async with ClientSession(
            read,
            write,
            logging_callback=peer.logging,
            elicitation_callback=peer.elicitation,
            sampling_callback=peer.sampling,
        ) as session:
            # ---- initialize
            init = await session.initialize()
            caps = init.capabilities
            check(caps.tools is not None, f"no tools capability: {wire(caps)}")
            check(
                caps.resources is not None and caps.resources.subscribe is True,
                f"no resources capability with subscribe: {wire(caps)}",
            )
            check(caps.prompts is not None, f"no prompts capability: {wire(caps)}")
            check(caps.completions is not None, f"no completions capability: {wire(caps)}")
            check(caps.logging is not None, f"no logging capability: {wire(caps)}")
            check(init.server_info.name == "weather", f"server name is {init.server_info.name!r}")
            print(
                f"{PREFIX}: initialized: protocolVersion={init.protocol_version} "
                f"server={init.server_info.name} {init.server_info.version}",
                file=sys.stderr,
            )
            done.append("initialize")

            # ---- tools/list
            tools = {t.name: t for t in (await session.list_tools()).tools}
            want = {"forecast", "alerts", "weather_map", "plan_trip"}
            check(want <= set(tools), f"tools/list lacks {sorted(want - set(tools))} (has {sorted(tools)})")
            for name in want:
                schema = tools[name].input_schema
                check(
                    isinstance(schema, dict) and schema.get("type") == "object",
                    f"{name} inputSchema is not an object schema: {schema}",
                )
            fc = tools["forecast"]
            check(fc.input_schema.get("required") == ["city"], f"forecast inputSchema: {fc.input_schema}")
            props = fc.input_schema.get("properties", {})
            check({"city", "days", "units"} <= set(props), f"forecast input properties: {sorted(props)}")
            check("ctx" not in props, "forecast inputSchema exposes the Context parameter")
            check(fc.output_schema is not None, "forecast has no outputSchema")
            assert fc.output_schema is not None
            jsonschema.Draft202012Validator.check_schema(fc.output_schema)
            check(tools["alerts"].output_schema is not None, "alerts has no outputSchema")
            check("ctx" not in tools["plan_trip"].input_schema.get("properties", {}), "plan_trip exposes ctx")
            done.append("tools/list")

            # ---- logging/setLevel, then forecast with progress and logging
            await session.set_logging_level("debug")
            progress: list[tuple[float, float | None, str | None]] = []

            async def on_progress(value: float, total: float | None, message: str | None) -> None:
                progress.append((value, total, message))

            res = await session.call_tool("forecast", {"city": "Paris", "days": 3}, progress_callback=on_progress)
            check(not res.is_error, f"forecast isError: {wire(res)}")
            sc = res.structured_content
            check(isinstance(sc, dict), f"forecast has no structuredContent: {wire(res)}")
            assert isinstance(sc, dict)
            errors = sorted(str(e.message) for e in jsonschema.Draft202012Validator(fc.output_schema).iter_errors(sc))
            check(not errors, f"forecast structuredContent does not match its outputSchema: {errors}: {sc}")
            check(
                sc == {"city": "Paris", "days": 3, "temperatures": [18.5, 19.0, 19.5], "units": "celsius"},
                f"forecast structuredContent: {sc}",
            )
            texts = [c.text for c in res.content if isinstance(c, types.TextContent)]
            check(texts and json.loads(texts[0]) == sc, f"forecast text is not the structured JSON: {wire(res)}")
            # The server sends them before the result; the SDK delivers them in tasks.
            await settle(lambda: len(progress) >= 3 and any(e.level == "info" for e in peer.logs))
            check(len(progress) == 3, f"forecast progress notifications: {progress}")
            values = [p[0] for p in progress]
            check(all(a < b for a, b in itertools.pairwise(values)), f"progress does not increase: {progress}")
            check(progress[-1][0] == progress[-1][1] == 3, f"progress does not reach the total 3: {progress}")
            check(progress[0][2] == "day 1", f"progress message: {progress}")
            infos = [entry for entry in peer.logs if entry.level == "info"]
            check(
                any("forecast for Paris over 3 days" in str(entry.data) for entry in infos),
                f"no info log for the forecast: {[wire(e) for e in peer.logs]}",
            )
            done.append("tools/call forecast (structured, progress, logging)")

            # ---- alerts: a list return wrapped in the single array property its outputSchema
            # declares ({"result": [...]} in Python, {"alerts": [...]} in the Node example)
            props = tools["alerts"].output_schema.get("properties", {})
            check(
                len(props) == 1 and next(iter(props.values())).get("type") == "array",
                f"alerts outputSchema should wrap one array: {tools['alerts'].output_schema}",
            )
            key = next(iter(props))
            res = await session.call_tool("alerts", {})
            check(not res.is_error, f"alerts isError: {wire(res)}")
            check(
                res.structured_content
                == {
                    key: [
                        {"city": "London", "level": "warning", "message": "Heavy rain"},
                        {"city": "Lima", "level": "info", "message": "Morning fog"},
                    ]
                },
                f"alerts structuredContent: {wire(res)}",
            )
            res = await session.call_tool("alerts", {"country": "pe"})
            check(
                res.structured_content == {key: [{"city": "Lima", "level": "info", "message": "Morning fog"}]},
                f"alerts(country=pe) structuredContent: {wire(res)}",
            )
            done.append("tools/call alerts")

            # ---- weather_map: an image and a resource link
            res = await session.call_tool("weather_map", {"city": "Lima"})
            check(not res.is_error, f"weather_map isError: {wire(res)}")
            images = [c for c in res.content if isinstance(c, types.ImageContent)]
            links = [c for c in res.content if isinstance(c, types.ResourceLink)]
            check(
                len(images) == 1 and images[0].mime_type == "image/png" and images[0].data,
                f"weather_map image: {wire(res)}",
            )
            check(
                len(links) == 1 and str(links[0].uri) == "weather://lima/now" and links[0].name == "Lima now",
                f"weather_map resource_link: {wire(res)}",
            )
            done.append("tools/call weather_map")

            # ---- plan_trip: elicitation, then sampling
            res = await session.call_tool("plan_trip", {})
            check(not res.is_error, f"plan_trip isError: {wire(res)}")
            text = "".join(c.text for c in res.content if isinstance(c, types.TextContent))
            check("tokyo" in text and SAMPLED in text, f"plan_trip text lacks the city or the sample: {text!r}")
            check(len(peer.elicitations) == 1, f"elicitations: {len(peer.elicitations)}")
            elicit = peer.elicitations[0]
            check(
                isinstance(elicit, types.ElicitRequestFormParams)
                and elicit.message == "Where would you like to go?"
                and elicit.requested_schema.get("required") == ["city"],
                f"elicitation request: {wire(elicit)}",
            )
            check(len(peer.samplings) == 1, f"samplings: {len(peer.samplings)}")
            sample = peer.samplings[0]
            first = sample.messages[0].content if sample.messages else None
            check(
                sample.max_tokens == 60 and isinstance(first, types.TextContent) and "tokyo" in first.text,
                f"sampling request: {wire(sample)}",
            )
            done.append("tools/call plan_trip (elicitation + sampling)")

            # ---- the error path: _city() raises McpError(-32602) -> a JSON-RPC error, not isError
            try:
                res = await session.call_tool("forecast", {"city": "Atlantis"})
            except MCPError as e:
                check(e.code == INVALID_PARAMS, f"unknown city: error code {e.code}, want {INVALID_PARAMS}")
                check("Atlantis" in e.message, f"unknown city: error message {e.message!r}")
                check(e.data == {"known": CITIES}, f"unknown city: error data {e.data!r}")
            else:
                raise CheckFailed(f"forecast with an unknown city gave a result, want a JSON-RPC error: {wire(res)}")
            done.append("JSON-RPC error")

            # ---- resources
            resources = (await session.list_resources()).resources
            by_uri = {str(r.uri): r for r in resources}
            check("weather://cities" in by_uri, f"resources/list lacks weather://cities: {sorted(by_uri)}")
            check(by_uri["weather://cities"].mime_type == "application/json", "weather://cities mimeType")
            templates = (await session.list_resource_templates()).resource_templates
            check(
                any(t.uri_template == "weather://{city}/now" for t in templates),
                f"resources/templates/list lacks weather://{{city}}/now: {[t.uri_template for t in templates]}",
            )
            read = await session.read_resource("weather://cities")
            check(len(read.contents) == 1, f"read weather://cities: {wire(read)}")
            item = read.contents[0]
            check(
                isinstance(item, types.TextResourceContents)
                and str(item.uri) == "weather://cities"
                and item.mime_type == "application/json"
                and json.loads(item.text) == CITIES,
                f"read weather://cities: {wire(read)}",
            )
            read = await session.read_resource("weather://paris/now")
            item = read.contents[0]
            check(
                isinstance(item, types.TextResourceContents)
                and str(item.uri) == "weather://paris/now"
                and json.loads(item.text) == {"name": "Paris", "country": "FR", "temp_c": 18.5, "sky": "sunny"},
                f"read weather://paris/now: {wire(read)}",
            )
            await session.subscribe_resource("weather://cities")
            done.append("resources (list, templates, read x2, subscribe)")

            # ---- prompts
            prompts = {p.name: p for p in (await session.list_prompts()).prompts}
            check("packing_list" in prompts, f"prompts/list lacks packing_list: {sorted(prompts)}")
            arg_names = [a.name for a in prompts["packing_list"].arguments or []]
            check(arg_names == ["city", "days"], f"packing_list arguments: {arg_names}")
            prompt = await session.get_prompt("packing_list", {"city": "london", "days": "5"})
            msgs = [
                (m.role, m.content.text if isinstance(m.content, types.TextContent) else None) for m in prompt.messages
            ]
            check(
                msgs
                == [("user", "I am going to london for 5 days; the sky is rain."), ("user", "What should I pack?")],
                f"packing_list messages: {wire(prompt)}",
            )
            done.append("prompts")

            # ---- completion: the prompt argument and the template variable
            comp = await session.complete(
                types.PromptReference(type="ref/prompt", name="packing_list"), {"name": "city", "value": "p"}
            )
            check(comp.completion.values == ["paris"], f"complete prompt city 'p': {wire(comp)}")
            comp = await session.complete(
                types.ResourceTemplateReference(type="ref/resource", uri="weather://{city}/now"),
                {"name": "city", "value": "L"},
            )
            check(comp.completion.values == ["lima", "london"], f"complete template city 'L': {wire(comp)}")
            done.append("completion x2")

            await session.send_ping()
            done.append("ping")
    return done


def main() -> int:
    return run_main(__file__, PREFIX, run, lambda done: print(f"{PREFIX}: ok ({', '.join(done)})"))


if __name__ == "__main__":
    sys.exit(main())
