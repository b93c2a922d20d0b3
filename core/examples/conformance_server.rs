//! The conformance server: exactly the tools, resources, resource template and prompts the
//! server scenarios of `@modelcontextprotocol/conformance` call (the same server ships in
//! Python, `examples/python/conformance_server.py`, and Node,
//! `examples/node/conformance_server.mjs`).
//!
//! Run: `cargo run --example conformance_server -- --port 3000 [--host 127.0.0.1]` serves
//! Streamable HTTP at `/mcp`; `--stdio` serves stdio instead (what the tests drive).

use hypermcp::{
    CallToolResult, CompleteResult, CompletionReference, Content, CreateMessageParams, ElicitParams, GetPromptResult,
    LoggingLevel, Prompt, PromptArgument, PromptMessage, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, Role, SamplingMessage, Server, Tool,
};
use serde_json::{json, Value};
use std::time::Duration;

/// A 1x1 PNG, base64.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A minimal WAV file, base64.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";
/// What completion offers for `arg1` of `test_prompt_with_arguments`.
const ARG1_VALUES: [&str; 3] = ["alpha", "alpine", "beta"];

fn no_args() -> Value {
    json!({"type": "object", "properties": {}})
}

fn image(mime_type: &str) -> Content {
    Content::Image { data: PNG.into(), mime_type: mime_type.into(), annotations: None, meta: None }
}

fn text_resource(uri: &str, mime_type: &str, text: &str) -> Content {
    Content::resource(ResourceContents::text(uri, text).with_mime_type(mime_type))
}

/// The text of a sampling answer: one content block, or (2025-11-25) the first text block of
/// an array of them.
fn answer_text(content: &Value) -> String {
    let block = match content {
        Value::Array(items) => items.iter().find(|b| b["type"] == "text").unwrap_or(&Value::Null),
        one => one,
    };
    block["text"].as_str().unwrap_or_default().to_string()
}

/// `"<prefix>: action=<action>, content=<json>"` for an elicitation answer.
async fn elicit(ctx: &hypermcp::Context, prefix: &str, message: &str, schema: Value) -> hypermcp::Result<String> {
    let answer = ctx.elicit(ElicitParams::form(message, schema)).await?;
    let action = serde_json::to_value(answer.action)?;
    let content = Value::Object(answer.content.unwrap_or_default());
    Ok(format!("{prefix}: action={}, content={content}", action.as_str().unwrap_or_default()))
}

fn tools(server: Server) -> Server {
    server
        .tool(
            Tool::new("test_simple_text").description("Tests simple text content response").input_schema(no_args()),
            |_args, _ctx| async { CallToolResult::text("This is a simple text response for testing.") },
        )
        .tool(
            Tool::new("test_image_content").description("Tests image content response").input_schema(no_args()),
            |_args, _ctx| async { vec![image("image/png")] },
        )
        .tool(
            Tool::new("test_audio_content").description("Tests audio content response").input_schema(no_args()),
            |_args, _ctx| async {
                vec![Content::Audio { data: WAV.into(), mime_type: "audio/wav".into(), annotations: None, meta: None }]
            },
        )
        .tool(
            Tool::new("test_embedded_resource")
                .description("Tests embedded resource content response")
                .input_schema(no_args()),
            |_args, _ctx| async {
                vec![text_resource("test://embedded-resource", "text/plain", "This is an embedded resource content.")]
            },
        )
        .tool(
            Tool::new("test_multiple_content_types")
                .description("Tests response with multiple content types (text, image, resource)")
                .input_schema(no_args()),
            |_args, _ctx| async {
                vec![
                    Content::text("Multiple content types test:"),
                    image("image/png"),
                    text_resource(
                        "test://mixed-content-resource",
                        "application/json",
                        r#"{"test":"data","value":123}"#,
                    ),
                ]
            },
        )
        .tool(
            Tool::new("test_tool_with_logging")
                .description("Tests tool that emits log messages during execution")
                .input_schema(no_args()),
            |_args, ctx| async move {
                // Sent through the context: tied to this call (on HTTP, its own response stream).
                ctx.log(LoggingLevel::Info, None, "Tool execution started");
                tokio::time::sleep(Duration::from_millis(50)).await;
                ctx.log(LoggingLevel::Info, None, "Tool processing data");
                tokio::time::sleep(Duration::from_millis(50)).await;
                ctx.log(LoggingLevel::Info, None, "Tool execution completed");
                CallToolResult::text("Tool with logging executed successfully")
            },
        )
        .tool(
            Tool::new("test_tool_with_progress")
                .description("Tests tool that reports progress notifications")
                .input_schema(no_args()),
            |_args, ctx| async move {
                // Sent only when the call carried a progress token.
                for (i, step) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                    if i > 0 {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                    ctx.report_progress(step, Some(100.0), Some(&format!("Completed step {step} of 100"))).await?;
                }
                Ok::<_, hypermcp::Error>(CallToolResult::text("Tool with progress executed successfully"))
            },
        )
        .tool(
            Tool::new("test_error_handling").description("Tests error response handling").input_schema(no_args()),
            |_args, _ctx| async { CallToolResult::error("This tool intentionally returns an error for testing") },
        )
        .tool(
            Tool::new("test_sampling")
                .description("Tests server-initiated sampling (LLM completion request)")
                .input_schema(json!({
                    "type": "object",
                    "properties": {"prompt": {"type": "string", "description": "The prompt to send to the LLM"}},
                    "required": ["prompt"]
                })),
            |args, ctx| async move {
                let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or_default();
                let params = CreateMessageParams {
                    messages: vec![SamplingMessage {
                        role: Role::User,
                        content: json!({"type": "text", "text": prompt}),
                    }],
                    max_tokens: 100,
                    ..Default::default()
                };
                let answer = ctx.sample(params).await?;
                Ok::<_, hypermcp::Error>(format!("LLM response: {}", answer_text(&answer.content)))
            },
        )
        .tool(
            Tool::new("test_elicitation")
                .description("Tests server-initiated elicitation (user input request)")
                .input_schema(json!({
                    "type": "object",
                    "properties": {"message": {"type": "string", "description": "The message to show the user"}},
                    "required": ["message"]
                })),
            |args, ctx| async move {
                let message = args.get("message").and_then(Value::as_str).unwrap_or_default();
                let schema = json!({
                    "type": "object",
                    "properties": {"response": {"type": "string", "description": "User's response"}},
                    "required": ["response"]
                });
                elicit(&ctx, "User response", message, schema).await
            },
        )
        .tool(
            Tool::new("test_elicitation_sep1034_defaults")
                .description("Tests elicitation with default values per SEP-1034")
                .input_schema(no_args()),
            |_args, ctx| async move {
                let schema = json!({
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "User name", "default": "John Doe"},
                        "age": {"type": "integer", "description": "User age", "default": 30},
                        "score": {"type": "number", "description": "User score", "default": 95.5},
                        "status": {
                            "type": "string",
                            "description": "User status",
                            "enum": ["active", "inactive", "pending"],
                            "default": "active"
                        },
                        "verified": {"type": "boolean", "description": "Verification status", "default": true}
                    }
                });
                let message = "Please review and update the form fields with defaults";
                elicit(&ctx, "Elicitation completed", message, schema).await
            },
        )
        .tool(
            Tool::new("test_elicitation_sep1330_enums")
                .description("Tests elicitation with enum schema improvements per SEP-1330")
                .input_schema(no_args()),
            |_args, ctx| async move {
                let schema = json!({
                    "type": "object",
                    "properties": {
                        "untitledSingle": {
                            "type": "string",
                            "description": "Select one option",
                            "enum": ["option1", "option2", "option3"]
                        },
                        "titledSingle": {
                            "type": "string",
                            "description": "Select one option with titles",
                            "oneOf": [
                                {"const": "value1", "title": "First Option"},
                                {"const": "value2", "title": "Second Option"},
                                {"const": "value3", "title": "Third Option"}
                            ]
                        },
                        "legacyEnum": {
                            "type": "string",
                            "description": "Select one option (legacy)",
                            "enum": ["opt1", "opt2", "opt3"],
                            "enumNames": ["Option One", "Option Two", "Option Three"]
                        },
                        "untitledMulti": {
                            "type": "array",
                            "description": "Select multiple options",
                            "minItems": 1,
                            "maxItems": 3,
                            "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
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
                                    {"const": "value3", "title": "Third Choice"}
                                ]
                            }
                        }
                    }
                });
                let message = "Please select options from the enum fields";
                elicit(&ctx, "Elicitation completed", message, schema).await
            },
        )
        .tool(
            Tool::new("json_schema_2020_12_tool")
                .description("Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)")
                .input_schema(json!({
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "$defs": {
                        "address": {
                            "type": "object",
                            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                        }
                    },
                    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
                    "additionalProperties": false
                })),
            |args, _ctx| async move { format!("JSON Schema 2020-12 tool called with: {}", Value::Object(args)) },
        )
        .tool(
            Tool::new("test_reconnection")
                .description(
                    "Tests SSE stream disconnection and client reconnection (SEP-1699): the server closes \
                     the stream mid-call and sends the result after the client reconnects",
                )
                .input_schema(no_args()),
            |_args, ctx| async move {
                // Over HTTP the call's SSE stream closes now (priming event, retry hint); the
                // client reconnects with Last-Event-ID and gets the result. No-op on stdio.
                ctx.close_sse_stream();
                tokio::time::sleep(Duration::from_millis(100)).await;
                CallToolResult::text(
                    "Reconnection test completed successfully. If you received this, the client properly \
                     reconnected after stream closure.",
                )
            },
        )
}

fn resources(server: Server) -> Server {
    server
        .resource(
            Resource::new("test://static-text", "static-text")
                .description("A static text resource for testing")
                .mime_type("text/plain"),
            |req, _ctx| async move {
                Ok(ReadResourceResult::text(
                    req.uri,
                    "This is the content of the static text resource.",
                    Some("text/plain"),
                ))
            },
        )
        .resource(
            Resource::new("test://static-binary", "static-binary")
                .description("A static binary resource (image) for testing")
                .mime_type("image/png"),
            |req, _ctx| async move {
                let blob = ResourceContents::Blob { uri: req.uri, mime_type: Some("image/png".into()), blob: PNG.into(), meta: None };
                Ok(ReadResourceResult { contents: vec![blob], meta: None })
            },
        )
        .resource_template(
            ResourceTemplate {
                description: Some("A resource template with parameter substitution".into()),
                ..ResourceTemplate::new("test://template/{id}/data", "template").mime_type("application/json")
            },
            |req, _ctx| async move {
                let id = req.variables.get("id").cloned().unwrap_or_default();
                // Written out so the keys keep this order.
                let text = format!(
                    r#"{{"id":{},"templateTest":true,"data":{}}}"#,
                    json!(id),
                    json!(format!("Data for ID: {id}"))
                );
                Ok(ReadResourceResult::text(req.uri, text, Some("application/json")))
            },
        )
        .resource(
            Resource::new("test://watched-resource", "watched-resource")
                .description("A resource clients can subscribe to")
                .mime_type("text/plain"),
            |req, _ctx| async move { Ok(ReadResourceResult::text(req.uri, "Watched resource content", Some("text/plain"))) },
        )
}

fn prompts(server: Server) -> Server {
    let user = |content: Content| PromptMessage { role: Role::User, content };
    server
        .prompt(
            Prompt::new("test_simple_prompt").description("A simple prompt without arguments"),
            |_args, _ctx| async {
                Ok(GetPromptResult::messages(vec![PromptMessage::user("This is a simple prompt for testing.")]))
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_arguments")
                .description("A prompt with required arguments")
                .argument(PromptArgument::new("arg1", true).description("First test argument"))
                .argument(PromptArgument::new("arg2", true).description("Second test argument")),
            |args, _ctx| async move {
                let (arg1, arg2) =
                    (args.get("arg1").cloned().unwrap_or_default(), args.get("arg2").cloned().unwrap_or_default());
                Ok(GetPromptResult::messages(vec![PromptMessage::user(format!(
                    "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
                ))]))
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_embedded_resource")
                .description("A prompt that includes an embedded resource")
                .argument(PromptArgument::new("resourceUri", true).description("URI of the resource to embed")),
            move |args, _ctx| async move {
                let uri = args.get("resourceUri").cloned().unwrap_or_default();
                Ok(GetPromptResult::messages(vec![
                    user(text_resource(&uri, "text/plain", "Embedded resource content for testing.")),
                    PromptMessage::user("Please process the embedded resource above."),
                ]))
            },
        )
        .prompt(
            Prompt::new("test_prompt_with_image").description("A prompt that includes image content"),
            move |_args, _ctx| async move {
                Ok(GetPromptResult::messages(vec![
                    user(image("image/png")),
                    PromptMessage::user("Please analyze the image above."),
                ]))
            },
        )
        .completion(|params, _ctx| async move {
            let values = match (&params.reference, params.argument.name.as_str()) {
                (CompletionReference::Prompt { name }, "arg1") if name == "test_prompt_with_arguments" => ARG1_VALUES
                    .iter()
                    .filter(|v| v.starts_with(params.argument.value.as_str()))
                    .map(|v| v.to_string())
                    .collect(),
                _ => Vec::new(),
            };
            Ok(CompleteResult::values(values))
        })
}

struct Args {
    host: String,
    port: u16,
    stdio: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args { host: "127.0.0.1".into(), port: 3000, stdio: false };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--stdio" => args.stdio = true,
            "--host" => args.host = it.next().ok_or("--host needs a value")?,
            "--port" => {
                let value = it.next().ok_or("--port needs a value")?;
                args.port = value.parse().map_err(|_| format!("--port: not a port number: {value:?}"))?;
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(args)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> hypermcp::Result<()> {
    let args = match parse_args() {
        Ok(a) => a,
        Err(why) => {
            eprintln!("conformance_server: {why}\nusage: conformance_server [--port N] [--host H] [--stdio]");
            std::process::exit(2);
        }
    };
    let server = prompts(resources(tools(Server::new("hypermcp-conformance", env!("CARGO_PKG_VERSION")))));
    if args.stdio {
        return server.serve_stdio().await;
    }
    // Streamable HTTP at /mcp until SIGINT or SIGTERM.
    server.serve_http(format!("{}:{}", args.host, args.port)).await
}
