"""The conformance server: exactly the tools, resources, resource template and prompts the
server scenarios of ``@modelcontextprotocol/conformance`` call (the same server ships in Rust,
``examples/rust/conformance_server.rs``, and Node, ``examples/node/conformance_server.mjs``).

    python examples/python/conformance_server.py --port 3000 [--host 127.0.0.1]   # Streamable HTTP at /mcp
    python examples/python/conformance_server.py --stdio                          # stdio
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
from pathlib import Path
from typing import Any

from hypermcp import (
    Audio,
    CallToolResult,
    Content,
    Context,
    EmbeddedResource,
    Image,
    InputRequired,
    McpError,
    PromptMessage,
    Server,
    Text,
)

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

server = Server("hypermcp-conformance", version="1.0.0")
# The skills extension's scenarios (sep-2640-skills-*): the example skills.
server.skills(Path(__file__).resolve().parent.parent / "skills")


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
def json_schema_2020_12_tool(
    name: str | None = None,
    address: dict[str, Any] | None = None,
    contactMethod: str | None = None,  # the scenario's camelCase name
    phone: str | None = None,
    email: str | None = None,
) -> str:
    """Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)"""
    given = {"name": name, "address": address, "contactMethod": contactMethod, "phone": phone, "email": email}
    args = {k: v for k, v in given.items() if v is not None}
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


# ---- 2026-07-28: multi round-trip requests, stateless diagnostics, mirrored headers ----------
# Written with the era-neutral context calls: legacy clients get real requests from them.


def _ask(field: str) -> dict[str, Any]:
    """A form asking for one string ``field``."""
    return {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}


def _answer_text(result: dict[str, Any]) -> str:
    content = result.get("content")
    block = next((b for b in content if b.get("type") == "text"), {}) if isinstance(content, list) else content or {}
    return str(block.get("text", ""))


@server.tool
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """Asks the user for their name (input key user_name), then greets them"""
    answer = await ctx.elicit("What is your name?", _ask("name"), key="user_name")
    return f"Hello, {(answer.content or {}).get('name', '')}!"


@server.tool
async def test_input_required_result_sampling(ctx: Context) -> str:
    """Asks the client model a question (input key capital_question)"""
    answer = await ctx.sample("What is the capital of France?", max_tokens=100, key="capital_question")
    return f"Sampling response: {_answer_text(answer)}"


@server.tool
async def test_input_required_result_list_roots(ctx: Context) -> str:
    """Asks for the client's roots (input key client_roots)"""
    roots = await ctx.list_roots(key="client_roots")
    return "Client roots: " + ", ".join(r.get("uri", "") for r in roots)


@server.tool
async def test_input_required_result_request_state(ctx: Context) -> str:
    """Returns its own input_required result with state of its own (the low-level form)"""
    confirmed = (ctx.input_responses or {}).get("confirm")
    if ctx.request_state == "awaiting-confirmation" and confirmed is not None:
        return f"state-ok: confirmed={confirmed.get('content', {}).get('ok')}"
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    request = {"method": "elicitation/create", "params": {"message": "Please confirm", "requestedSchema": schema}}
    raise InputRequired({"confirm": request}, state="awaiting-confirmation")


@server.tool
async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    """Asks for an elicitation, a sampling and the roots in one round"""
    name, greeting, roots = await asyncio.gather(
        ctx.elicit("What is your name?", _ask("name"), key="user_name"),
        ctx.sample("Generate a greeting", max_tokens=50, key="greeting"),
        ctx.list_roots(key="client_roots"),
    )
    return f"name={(name.content or {}).get('name')}, greeting={_answer_text(greeting)}, roots={len(roots)}"


@server.tool
async def test_input_required_result_multi_round(ctx: Context) -> str:
    """Asks two questions one after the other (two rounds)"""
    name = await ctx.elicit("Step 1: What is your name?", _ask("name"), key="step1")
    color = await ctx.elicit("Step 2: What is your favorite color?", _ask("color"), key="step2")
    return f"{(name.content or {}).get('name')} likes {(color.content or {}).get('color')}"


@server.tool
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    """Asks for a confirmation; its sealed requestState must come back intact"""
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    answer = await ctx.elicit("Please confirm", schema, key="confirm")
    return f"confirmed: {(answer.content or {}).get('ok')}"


@server.tool
async def test_input_required_result_capabilities(ctx: Context) -> str:
    """Asks only for the inputs the client declared it can give"""
    caps = ctx.client_capabilities
    parts = []
    if "elicitation" in caps:
        a = await ctx.elicit("What is your name?", _ask("name"), key="user_name")
        parts.append(f"name={(a.content or {}).get('name')}")
    if "sampling" in caps:
        r = await ctx.sample("What is the capital of France?", max_tokens=100, key="capital_question")
        parts.append(f"answer={_answer_text(r)}")
    return ", ".join(parts) or "no input capability declared"


@server.tool
async def test_missing_capability(ctx: Context) -> str:
    """Needs sampling: refused with -32021 when the request does not declare it"""
    answer = await ctx.sample("Say hello", max_tokens=20)
    return f"LLM response: {_answer_text(answer)}"


@server.tool
async def test_streaming_elicitation(ctx: Context) -> str:
    """Asks the user for their name and echoes the answer"""
    return await _elicit(ctx, "User response", "What is your name?", _ask("name"))


@server.tool
async def test_logging_tool(ctx: Context) -> str:
    """Logs at info, then answers"""
    await ctx.info("logging tool started")
    await ctx.warning("logging tool warning")
    return "logged"


def test_dynamic_tool() -> str:
    """Appears and disappears"""
    return "dynamic"


def test_dynamic_prompt() -> str:
    """Appears and disappears"""
    return "dynamic"


@server.tool
def test_trigger_tool_change() -> str:
    """Adds or removes test_dynamic_tool"""
    if not server.remove_tool("test_dynamic_tool"):
        server.add_tool(test_dynamic_tool)
    return "tool list changed"


@server.tool
def test_trigger_prompt_change() -> str:
    """Adds or removes test_dynamic_prompt"""
    if not server.remove_prompt("test_dynamic_prompt"):
        server.add_prompt(test_dynamic_prompt)
    return "prompt list changed"


@server.tool(headers={"region": "Region"})
def test_header_param(region: str, query: str | None = None) -> str:
    """Echoes a region mirrored into the Mcp-Param-Region header (x-mcp-header)"""
    return f"region={region}"


@server.prompt
async def test_input_required_result_prompt(ctx: Context) -> list[PromptMessage]:
    """A prompt that asks the user for context first"""
    answer = await ctx.elicit("What context should the prompt use?", _ask("context"), key="user_context")
    return [PromptMessage(f"Context: {(answer.content or {}).get('context')}")]


@server.completion(prompt="test_prompt_with_arguments", argument="arg1")
def complete_arg1(value: str) -> list[str]:
    return [v for v in ARG1_VALUES if v.startswith(value)]


# ---- the tasks extension's scenarios (tasks-*): tasks that run, fail, ask for input, are
# cancelled, and one that becomes a task after a multi round-trip round.


@server.tool
def greet(name: str = "world") -> str:
    """Greets someone at once (never a task)"""
    return f"Hello, {name}!"


@server.tool(task=True)
async def slow_compute(ctx: Context, seconds: float = 1.0, label: str = "compute") -> str:
    """Works for `seconds` (a task when the client can follow one); stops when cancelled"""
    seconds = min(max(seconds, 0.0), 600.0)
    await ctx.report_progress(0, seconds, f"{label}: started")
    await asyncio.sleep(seconds)
    return f"{label}: done after {seconds} s"


@server.tool(task="required")
async def failing_job() -> CallToolResult:
    """Runs only as a task, then fails with isError"""
    await asyncio.sleep(0.3)
    return CallToolResult([Text("the job failed: disk full")], is_error=True)


@server.tool(task=True)
async def protocol_error_job() -> str:
    """A task that ends with a JSON-RPC error"""
    await asyncio.sleep(0.2)
    raise McpError(-32603, "the job hit an internal error")


@server.tool(task=True)
async def confirm_delete(ctx: Context, filename: str = "file") -> str:
    """Asks for confirmation (an input request of the task), then deletes"""
    schema = {"type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}
    answer = await ctx.elicit(f"Delete {filename}?", schema)
    yes = answer.accepted and (answer.content or {}).get("confirm") is True
    return f"Deleted {filename}" if yes else f"Kept {filename}"


@server.tool(task=True)
async def multi_input(ctx: Context) -> str:
    """Asks two questions at once, then answers"""
    first, last = await asyncio.gather(
        ctx.elicit("First name?", _ask("name"), key="first"), ctx.elicit("Last name?", _ask("name"), key="second")
    )
    return f"Hello, {(first.content or {}).get('name')} {(last.content or {}).get('name')}!"


@server.tool(task="manual")
async def test_tool_with_task(ctx: Context) -> str:
    """Asks for a name (a multi round-trip round), then becomes a task that greets"""
    answer = await ctx.elicit("Your name?", _ask("name"), key="user_name")
    await ctx.start_task()
    await asyncio.sleep(0.2)
    return f"Hello, {(answer.content or {}).get('name')}! (from a task)"


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
