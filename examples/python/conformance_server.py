"""The conformance server: exactly the tools, resources, resource template and prompts the
server scenarios of ``@modelcontextprotocol/conformance`` call (the same server ships in Rust,
``core/examples/conformance_server.rs``, and Node, ``examples/node/conformance_server.mjs``).

    python examples/python/conformance_server.py --port 3000 [--host 127.0.0.1]   # Streamable HTTP at /mcp
    python examples/python/conformance_server.py --stdio                          # stdio
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
from typing import Any

from hypermcp import Audio, CallToolResult, Content, Context, EmbeddedResource, Image, PromptMessage, Server, Text

#: A 1x1 PNG, base64.
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
#: A minimal WAV file, base64.
WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
#: What completion offers for ``arg1`` of ``test_prompt_with_arguments``.
ARG1_VALUES = ["alpha", "alpine", "beta"]

#: The input schema ``json_schema_2020_12_tool`` must list verbatim.
JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
    "additionalProperties": False,
}

server = Server("hypermcp-conformance", version="1.0.0")


def _json(value: Any) -> str:
    """Compact JSON, as ``JSON.stringify`` writes it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


# ---- tools ----------------------------------------------------------------------------------


@server.tool
def test_simple_text() -> str:
    """Tests simple text content response"""
    return "This is a simple text response for testing."


@server.tool
def test_image_content() -> Image:
    """Tests image content response"""
    return Image(PNG, "image/png")


@server.tool
def test_audio_content() -> Audio:
    """Tests audio content response"""
    return Audio(WAV, "audio/wav")


@server.tool
def test_embedded_resource() -> EmbeddedResource:
    """Tests embedded resource content response"""
    return EmbeddedResource(
        "test://embedded-resource", text="This is an embedded resource content.", mime_type="text/plain"
    )


@server.tool
def test_multiple_content_types() -> list[Content]:
    """Tests response with multiple content types (text, image, resource)"""
    return [
        Text("Multiple content types test:"),
        Image(PNG, "image/png"),
        EmbeddedResource(
            "test://mixed-content-resource", text=_json({"test": "data", "value": 123}), mime_type="application/json"
        ),
    ]


@server.tool
async def test_tool_with_logging(ctx: Context) -> str:
    """Tests tool that emits log messages during execution"""
    # Sent through the context: tied to this call (on HTTP, its own response stream).
    await ctx.info("Tool execution started")
    await asyncio.sleep(0.05)
    await ctx.info("Tool processing data")
    await asyncio.sleep(0.05)
    await ctx.info("Tool execution completed")
    return "Tool with logging executed successfully"


@server.tool
async def test_tool_with_progress(ctx: Context) -> str:
    """Tests tool that reports progress notifications"""
    # Sent only when the call carried a progress token.
    for i, step in enumerate((0, 50, 100)):
        if i:
            await asyncio.sleep(0.05)
        await ctx.report_progress(step, total=100, message=f"Completed step {step} of 100")
    return "Tool with progress executed successfully"


@server.tool
def test_error_handling() -> CallToolResult:
    """Tests error response handling"""
    return CallToolResult([Text("This tool intentionally returns an error for testing")], is_error=True)


@server.tool
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Tests server-initiated sampling (LLM completion request)

    Args:
        prompt: The prompt to send to the LLM
    """
    answer = await ctx.sample([{"role": "user", "content": {"type": "text", "text": prompt}}], max_tokens=100)
    content = answer.get("content")
    # One content block, or (2025-11-25) a list of them.
    blocks = content if isinstance(content, list) else [content]
    text = next((b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"), "")
    return f"LLM response: {text}"


async def _elicit(ctx: Context, prefix: str, message: str, schema: dict[str, Any]) -> str:
    answer = await ctx.elicit(message, schema)
    return f"{prefix}: action={answer.action}, content={_json(answer.content or {})}"


@server.tool
async def test_elicitation(message: str, ctx: Context) -> str:
    """Tests server-initiated elicitation (user input request)

    Args:
        message: The message to show the user
    """
    schema = {
        "type": "object",
        "properties": {"response": {"type": "string", "description": "User's response"}},
        "required": ["response"],
    }
    return await _elicit(ctx, "User response", message, schema)


@server.tool
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Tests elicitation with default values per SEP-1034"""
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": True},
        },
    }
    return await _elicit(ctx, "Elicitation completed", "Please review and update the form fields with defaults", schema)


@server.tool
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Tests elicitation with enum schema improvements per SEP-1330"""
    schema = {
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Select one option",
                "enum": ["option1", "option2", "option3"],
            },
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": [
                    {"const": "value1", "title": "First Option"},
                    {"const": "value2", "title": "Second Option"},
                    {"const": "value3", "title": "Third Option"},
                ],
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "maxItems": 3,
                "items": {
                    "anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"},
                    ]
                },
            },
        },
    }
    return await _elicit(ctx, "Elicitation completed", "Please select options from the enum fields", schema)


@server.tool
def json_schema_2020_12_tool(name: str | None = None, address: dict[str, Any] | None = None) -> str:
    """Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)"""
    args: dict[str, Any] = {}
    if name is not None:
        args["name"] = name
    if address is not None:
        args["address"] = address
    return f"JSON Schema 2020-12 tool called with: {_json(args)}"


# ``@server.tool`` derives the input schema from the type hints and has no way to take one as
# given; this tool must list JSON_SCHEMA_2020_12 verbatim ($schema, $defs, additionalProperties),
# so its registry entry is replaced with that schema (the engine validates calls against it).
server._registry.add_tool(
    {
        "name": "json_schema_2020_12_tool",
        "description": "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)",
        "inputSchema": JSON_SCHEMA_2020_12,
    }
)


@server.tool
async def test_reconnection(ctx: Context) -> str:
    """Tests SSE stream disconnection and client reconnection (SEP-1699): the server closes the
    stream mid-call and sends the result after the client reconnects"""
    # Over HTTP the call's SSE stream closes now (priming event, retry hint); the client
    # reconnects with Last-Event-ID and gets the result below. On stdio this does nothing.
    ctx.close_sse_stream()
    await asyncio.sleep(0.1)
    return (
        "Reconnection test completed successfully. If you received this, the client properly "
        "reconnected after stream closure."
    )


# ---- resources ------------------------------------------------------------------------------


@server.resource(
    "test://static-text",
    name="static-text",
    description="A static text resource for testing",
    mime_type="text/plain",
)
def static_text() -> str:
    return "This is the content of the static text resource."


@server.resource(
    "test://static-binary",
    name="static-binary",
    description="A static binary resource (image) for testing",
    mime_type="image/png",
)
def static_binary() -> bytes:
    return base64.b64decode(PNG)


@server.resource(
    "test://template/{id}/data",
    name="template",
    description="A resource template with parameter substitution",
    mime_type="application/json",
)
def template(id: str) -> str:
    return _json({"id": id, "templateTest": True, "data": f"Data for ID: {id}"})


@server.resource(
    "test://watched-resource",
    name="watched-resource",
    description="A resource clients can subscribe to",
    mime_type="text/plain",
)
def watched_resource() -> str:
    return "Watched resource content"


# ---- prompts --------------------------------------------------------------------------------


@server.prompt
def test_simple_prompt() -> str:
    """A simple prompt without arguments"""
    return "This is a simple prompt for testing."


@server.prompt
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt with required arguments

    Args:
        arg1: First test argument
        arg2: Second test argument
    """
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@server.prompt
def test_prompt_with_embedded_resource(resourceUri: str) -> list[PromptMessage]:
    """A prompt that includes an embedded resource

    Args:
        resourceUri: URI of the resource to embed
    """
    return [
        PromptMessage(
            EmbeddedResource(resourceUri, text="Embedded resource content for testing.", mime_type="text/plain")
        ),
        PromptMessage("Please process the embedded resource above."),
    ]


@server.prompt
def test_prompt_with_image() -> list[PromptMessage]:
    """A prompt that includes image content"""
    return [PromptMessage(Image(PNG, "image/png")), PromptMessage("Please analyze the image above.")]


@server.completion(prompt="test_prompt_with_arguments", argument="arg1")
def complete_arg1(value: str) -> list[str]:
    return [v for v in ARG1_VALUES if v.startswith(value)]


def main() -> None:
    parser = argparse.ArgumentParser(description="The hypermcp conformance server.")
    parser.add_argument("--port", type=int, default=3000, help="HTTP port (default 3000)")
    parser.add_argument("--host", default="127.0.0.1", help="HTTP host (default 127.0.0.1)")
    parser.add_argument("--stdio", action="store_true", help="serve stdio instead of HTTP")
    args = parser.parse_args()
    if args.stdio:
        server.run()
    else:
        server.run("http", host=args.host, port=args.port, path="/mcp")


if __name__ == "__main__":
    main()
