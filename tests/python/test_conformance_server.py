"""The Python conformance server (examples/python/conformance_server.py) over stdio, driven by
the hypermcp Python client: every tool, resource, template, prompt and completion the
conformance suite calls, with the client answering sampling and elicitation and recording
logs and progress.

Plain ``asyncio.run`` in each test (through ``_helpers.run``): no pytest plugin needed.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from _helpers import run, within
from hypermcp import Client
from hypermcp.client import Record, prompt_ref
from hypermcp.errors import InvalidParams, ResourceNotFound

SERVER = Path(__file__).resolve().parents[2] / "examples" / "python" / "conformance_server.py"

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="

TOOLS = {
    "json_schema_2020_12_tool",
    "test_audio_content",
    "test_elicitation",
    "test_elicitation_sep1034_defaults",
    "test_elicitation_sep1330_enums",
    "test_embedded_resource",
    "test_error_handling",
    "test_header_param",
    "test_image_content",
    "test_input_required_result_capabilities",
    "test_input_required_result_elicitation",
    "test_input_required_result_list_roots",
    "test_input_required_result_multi_round",
    "test_input_required_result_multiple_inputs",
    "test_input_required_result_request_state",
    "test_input_required_result_sampling",
    "test_input_required_result_tampered_state",
    "test_logging_tool",
    "test_missing_capability",
    "test_multiple_content_types",
    "test_reconnection",
    "test_sampling",
    "test_simple_text",
    "test_streaming_elicitation",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_trigger_prompt_change",
    "test_trigger_tool_change",
    # The tasks extension's scenarios (tasks-*).
    "confirm_delete",
    "failing_job",
    "greet",
    "multi_input",
    "protocol_error_job",
    "slow_compute",
    "test_tool_with_task",
}

JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


class Peer:
    """What the client's handlers saw, and how they answer."""

    def __init__(self) -> None:
        self.sampling: list[Record] = []
        self.elicitations: list[Record] = []
        self.logs: list[Record] = []
        self.elicit_answer: dict[str, Any] = {"action": "accept", "content": {"response": "yes"}}

    def sample(self, params: Record) -> Mapping[str, Any]:
        self.sampling.append(params)
        asked = params["messages"][0]["content"]["text"]
        return {"role": "assistant", "content": {"type": "text", "text": f"echo {asked}"}, "model": "test-model"}

    def elicit(self, params: Record) -> Mapping[str, Any]:
        self.elicitations.append(params)
        return self.elicit_answer

    def log(self, params: Record) -> None:
        self.logs.append(params)


@asynccontextmanager
async def conformance() -> AsyncIterator[tuple[Client, Peer]]:
    peer = Peer()
    client = Client.stdio(
        sys.executable,
        str(SERVER),
        "--stdio",
        timeout=10,
        sampling_handler=peer.sample,
        elicitation_handler=peer.elicit,
        logging_handler=peer.log,
    )
    await within(client.connect())
    try:
        yield client, peer
    finally:
        await within(client.close())


def content_after(text: str, prefix: str) -> tuple[str, Any]:
    """``(action, content)`` of ``"<prefix>: action=<a>, content=<json>"``."""
    assert text.startswith(f"{prefix}: action="), text
    action, _, content = text[len(prefix) + len(": action=") :].partition(", content=")
    return action, json.loads(content)


def test_capabilities_and_lists() -> None:
    async def main() -> None:
        async with conformance() as (client, _):
            caps = client.server_capabilities
            assert caps["tools"] == {"listChanged": True}
            assert caps["resources"] == {"subscribe": True, "listChanged": True}
            assert caps["prompts"] == {"listChanged": True}
            assert caps["logging"] == {}
            assert caps["completions"] == {}

            tools = {t["name"]: t for t in await within(client.list_tools())}
            assert set(tools) == TOOLS
            for name, tool in tools.items():
                assert tool.get("description"), name
                assert tool["inputSchema"]["type"] == "object", name
            assert tools["json_schema_2020_12_tool"]["inputSchema"] == JSON_SCHEMA_2020_12
            assert tools["test_sampling"]["inputSchema"]["required"] == ["prompt"]
            assert tools["test_elicitation"]["inputSchema"]["required"] == ["message"]

            resources = {r["uri"]: r for r in await within(client.list_resources())}
            # The example skills' SKILL.md files (the skills extension's scenarios) too.
            assert set(resources) == {
                "test://static-text",
                "test://static-binary",
                "test://watched-resource",
                "skill://acme/billing/refunds/SKILL.md",
                "skill://git-workflow/SKILL.md",
                "skill://git-workflow/commit-message/SKILL.md",
                "skill://pdf-processing/SKILL.md",
            }
            assert all(r["name"] for r in resources.values())
            assert resources["test://static-text"]["mimeType"] == "text/plain"
            assert resources["test://static-binary"]["mimeType"] == "image/png"
            templates = await within(client.list_resource_templates())
            assert [(t["uriTemplate"], t["mimeType"]) for t in templates] == [
                ("test://template/{id}/data", "application/json")
            ]
            assert templates[0]["name"]

            prompts = {p["name"]: p for p in await within(client.list_prompts())}
            assert set(prompts) == {
                "test_simple_prompt",
                "test_prompt_with_arguments",
                "test_prompt_with_embedded_resource",
                "test_prompt_with_image",
                "test_input_required_result_prompt",
            }
            assert all(p.get("description") for p in prompts.values())
            args = [(a["name"], a["required"]) for a in prompts["test_prompt_with_arguments"]["arguments"]]
            assert args == [("arg1", True), ("arg2", True)]
            args = [(a["name"], a["required"]) for a in prompts["test_prompt_with_embedded_resource"]["arguments"]]
            assert args == [("resourceUri", True)]

    run(main())


def test_content_tools() -> None:
    async def main() -> None:
        async with conformance() as (client, _):
            r = await within(client.call_tool("test_simple_text"))
            assert not r.is_error
            assert r.content == [{"type": "text", "text": "This is a simple text response for testing."}]

            r = await within(client.call_tool("test_image_content"))
            assert r.content == [{"type": "image", "data": PNG, "mimeType": "image/png"}]

            r = await within(client.call_tool("test_audio_content"))
            assert r.content == [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]

            r = await within(client.call_tool("test_embedded_resource"))
            assert r.content == [
                {
                    "type": "resource",
                    "resource": {
                        "uri": "test://embedded-resource",
                        "mimeType": "text/plain",
                        "text": "This is an embedded resource content.",
                    },
                }
            ]

            r = await within(client.call_tool("test_multiple_content_types"))
            assert len(r.content) == 3
            assert r.content[0] == {"type": "text", "text": "Multiple content types test:"}
            assert r.content[1] == {"type": "image", "data": PNG, "mimeType": "image/png"}
            embedded = r.content[2]["resource"]
            assert r.content[2]["type"] == "resource"
            assert (embedded["uri"], embedded["mimeType"]) == ("test://mixed-content-resource", "application/json")
            assert json.loads(embedded["text"]) == {"test": "data", "value": 123}

            r = await within(client.call_tool("test_error_handling"))
            assert r.is_error
            assert r.content == [{"type": "text", "text": "This tool intentionally returns an error for testing"}]

    run(main())


def test_logging_and_progress() -> None:
    async def main() -> None:
        async with conformance() as (client, peer):
            start = time.monotonic()
            r = await within(client.call_tool("test_tool_with_logging"))
            elapsed = time.monotonic() - start
            assert not r.is_error and r.text
            # All three arrived before the result, at info level, about 50 ms apart.
            assert [(p["level"], p["data"]) for p in peer.logs] == [
                ("info", "Tool execution started"),
                ("info", "Tool processing data"),
                ("info", "Tool execution completed"),
            ]
            assert elapsed >= 0.09, elapsed

            # Below the client's level: nothing is sent.
            await within(client.set_logging_level("warning"))
            peer.logs.clear()
            r = await within(client.call_tool("test_tool_with_logging"))
            assert not r.is_error
            assert peer.logs == []

            progress: list[tuple[float, float | None, str | None]] = []
            r = await within(
                client.call_tool("test_tool_with_progress", progress_handler=lambda p, t, m: progress.append((p, t, m)))
            )
            assert not r.is_error and r.text
            assert [(p, t) for p, t, _ in progress] == [(0, 100), (50, 100), (100, 100)]

            # Without a progress token the tool still answers.
            r = await within(client.call_tool("test_tool_with_progress"))
            assert not r.is_error and r.text

    run(main())


def test_sampling() -> None:
    async def main() -> None:
        async with conformance() as (client, peer):
            r = await within(client.call_tool("test_sampling", {"prompt": "What is 2+2?"}))
            assert not r.is_error
            assert r.text == "LLM response: echo What is 2+2?"
            assert len(peer.sampling) == 1
            assert peer.sampling[0]["messages"] == [
                {"role": "user", "content": {"type": "text", "text": "What is 2+2?"}}
            ]
            assert peer.sampling[0]["maxTokens"] == 100

    run(main())


def test_elicitation_tools() -> None:
    async def main() -> None:
        async with conformance() as (client, peer):
            r = await within(client.call_tool("test_elicitation", {"message": "Your name?"}))
            assert not r.is_error
            assert content_after(r.text, "User response") == ("accept", {"response": "yes"})
            asked = peer.elicitations[-1]
            assert asked["message"] == "Your name?"
            assert asked["requestedSchema"]["type"] == "object"
            assert asked["requestedSchema"]["properties"]["response"]["type"] == "string"
            assert asked["requestedSchema"]["required"] == ["response"]

            peer.elicit_answer = {"action": "decline"}
            r = await within(client.call_tool("test_elicitation", {"message": "Again?"}))
            assert content_after(r.text, "User response") == ("decline", {})

            peer.elicit_answer = {"action": "accept", "content": {"name": "Ada", "age": 36}}
            r = await within(client.call_tool("test_elicitation_sep1034_defaults"))
            assert content_after(r.text, "Elicitation completed") == ("accept", {"name": "Ada", "age": 36})
            props = peer.elicitations[-1]["requestedSchema"]["properties"]
            defaults = {k: (v["type"], v["default"]) for k, v in props.items()}
            assert defaults == {
                "name": ("string", "John Doe"),
                "age": ("integer", 30),
                "score": ("number", 95.5),
                "status": ("string", "active"),
                "verified": ("boolean", True),
            }
            assert props["status"]["enum"] == ["active", "inactive", "pending"]

            peer.elicit_answer = {"action": "cancel"}
            r = await within(client.call_tool("test_elicitation_sep1330_enums"))
            assert content_after(r.text, "Elicitation completed") == ("cancel", {})
            props = peer.elicitations[-1]["requestedSchema"]["properties"]
            assert props["untitledSingle"]["enum"] == ["option1", "option2", "option3"]
            assert [o["const"] for o in props["titledSingle"]["oneOf"]] == ["value1", "value2", "value3"]
            assert props["titledSingle"]["oneOf"][0]["title"] == "First Option"
            assert props["legacyEnum"]["enumNames"] == ["Option One", "Option Two", "Option Three"]
            assert props["untitledMulti"]["items"]["enum"] == ["option1", "option2", "option3"]
            assert props["titledMulti"]["items"]["anyOf"][0] == {"const": "value1", "title": "First Choice"}
            assert len(peer.elicitations) == 4

    run(main())


def test_json_schema_tool_and_reconnection() -> None:
    async def main() -> None:
        async with conformance() as (client, _):
            args = {"name": "Ada", "address": {"street": "1 Main St", "city": "London"}, "email": "ada@example.com"}
            r = await within(client.call_tool("json_schema_2020_12_tool", args))
            assert not r.is_error
            prefix = "JSON Schema 2020-12 tool called with: "
            assert r.text.startswith(prefix)
            assert json.loads(r.text[len(prefix) :]) == args
            # additionalProperties: false is enforced.
            r = await within(client.call_tool("json_schema_2020_12_tool", {"extra": 1}))
            assert r.is_error

            start = time.monotonic()
            r = await within(client.call_tool("test_reconnection"))
            assert not r.is_error
            assert r.text.startswith("Reconnection test completed successfully.")
            assert time.monotonic() - start >= 0.09

    run(main())


def test_resources() -> None:
    async def main() -> None:
        async with conformance() as (client, _):
            r = await within(client.read_resource("test://static-text"))
            assert r.contents == [
                {
                    "uri": "test://static-text",
                    "mimeType": "text/plain",
                    "text": "This is the content of the static text resource.",
                }
            ]
            r = await within(client.read_resource("test://static-binary"))
            assert r.contents == [{"uri": "test://static-binary", "mimeType": "image/png", "blob": PNG}]
            r = await within(client.read_resource("test://template/123/data"))
            assert len(r.contents) == 1
            item = r.contents[0]
            assert (item["uri"], item["mimeType"]) == ("test://template/123/data", "application/json")
            assert json.loads(item["text"]) == {"id": "123", "templateTest": True, "data": "Data for ID: 123"}
            r = await within(client.read_resource("test://watched-resource"))
            assert [(c["uri"], c["mimeType"]) for c in r.contents] == [("test://watched-resource", "text/plain")]
            assert r.text

            assert await within(client.subscribe_resource("test://watched-resource")) is None
            assert await within(client.unsubscribe_resource("test://watched-resource")) is None
            # -32002 on a legacy session, -32602 at 2026-07-28.
            with pytest.raises((ResourceNotFound, InvalidParams)):
                await within(client.read_resource("test://missing"))
            await within(client.ping())

    run(main())


def test_prompts_and_completion() -> None:
    async def main() -> None:
        async with conformance() as (client, _):
            p = await within(client.get_prompt("test_simple_prompt"))
            assert p["messages"] == [
                {"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}
            ]

            p = await within(client.get_prompt("test_prompt_with_arguments", {"arg1": "one", "arg2": "two"}))
            assert p["messages"] == [
                {"role": "user", "content": {"type": "text", "text": "Prompt with arguments: arg1='one', arg2='two'"}}
            ]
            with pytest.raises(InvalidParams):
                await within(client.get_prompt("test_prompt_with_arguments", {"arg1": "one"}))

            p = await within(client.get_prompt("test_prompt_with_embedded_resource", {"resourceUri": "test://doc"}))
            assert p["messages"] == [
                {
                    "role": "user",
                    "content": {
                        "type": "resource",
                        "resource": {
                            "uri": "test://doc",
                            "mimeType": "text/plain",
                            "text": "Embedded resource content for testing.",
                        },
                    },
                },
                {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}},
            ]

            p = await within(client.get_prompt("test_prompt_with_image"))
            assert p["messages"] == [
                {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
                {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}},
            ]

            ref = prompt_ref("test_prompt_with_arguments")
            assert (await within(client.complete(ref, "arg1", ""))).completion.values == ["alpha", "alpine", "beta"]
            assert (await within(client.complete(ref, "arg1", "alp"))).completion.values == ["alpha", "alpine"]
            assert (await within(client.complete(ref, "arg2", ""))).completion.values == []

    run(main())
