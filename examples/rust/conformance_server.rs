//! The conformance server: exactly the tools, resources, resource template and prompts the
//! server scenarios of `@modelcontextprotocol/conformance` call (the same server ships in
//! Python, `examples/python/conformance_server.py`, and Node,
//! `examples/node/conformance_server.mjs`).
//!
//! Run: `cargo run --example conformance_server -- --port 3000 [--host 127.0.0.1]` serves
//! Streamable HTTP at `/mcp`; `--stdio` serves stdio instead (what the tests drive).

use hypermcp::catalogue::TaskMode;
use hypermcp::server::tasks::TaskOptions;
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
                            "$anchor": "addressDef",
                            "type": "object",
                            "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
                        }
                    },
                    "properties": {
                        "name": {"type": "string"},
                        "address": {"$ref": "#/$defs/address"},
                        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                        "phone": {"type": "string"},
                        "email": {"type": "string"}
                    },
                    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
                    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
                    "then": {"required": ["phone"]},
                    "else": {"required": ["email"]},
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

/// A form elicitation asking for one string field.
fn ask_text(message: &str, field: &str) -> Value {
    json!({
        "message": message,
        "requestedSchema": {"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}
    })
}

/// A field of an accepted elicitation answer.
fn field(answer: &Value, name: &str) -> String {
    answer["content"][name].as_str().unwrap_or_default().to_string()
}

fn sampling(text: &str, max_tokens: u32) -> Value {
    json!({"messages": [{"role": "user", "content": {"type": "text", "text": text}}], "maxTokens": max_tokens})
}

/// The tools of the tasks extension's scenarios (`tasks-*`): tasks that run, fail, ask for
/// input, are cancelled, and one that becomes a task after a multi round-trip round.
fn task_tools(server: Server) -> Server {
    let ask_bool = |message: &str| {
        json!({"message": message, "requestedSchema": {"type": "object",
            "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}})
    };
    server
        .tasks(TaskOptions::default())
        .tool(
            Tool::new("greet")
                .description("Greets someone at once (never a task)")
                .input_schema(json!({"type": "object", "properties": {"name": {"type": "string"}}})),
            |args, _ctx| async move { format!("Hello, {}!", args.get("name").and_then(Value::as_str).unwrap_or("world")) },
        )
        .tool(
            Tool::new("slow_compute")
                .description("Works for `seconds` (a task when the client can follow one); stops when cancelled")
                .input_schema(json!({"type": "object", "properties": {"seconds": {"type": "number"}, "label": {"type": "string"}}})),
            |args, ctx| async move {
                let seconds = args.get("seconds").and_then(Value::as_f64).unwrap_or(1.0).clamp(0.0, 600.0);
                let label = args.get("label").and_then(Value::as_str).unwrap_or("compute").to_string();
                let _ = ctx.report_progress(0.0, Some(seconds), Some(&format!("{label}: started"))).await;
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_secs_f64(seconds)) => {
                        Ok(format!("{label}: done after {seconds} s"))
                    }
                    _ = ctx.cancelled() => Err(hypermcp::Error::msg(format!("{label}: cancelled"))),
                }
            },
        )
        .task_mode("slow_compute", TaskMode::Optional)
        .tool(
            Tool::new("failing_job").description("Runs only as a task, then fails with isError").input_schema(no_args()),
            |_args, _ctx| async move {
                tokio::time::sleep(Duration::from_millis(300)).await;
                CallToolResult::error("the job failed: disk full")
            },
        )
        .task_mode("failing_job", TaskMode::Required)
        .tool(
            Tool::new("protocol_error_job").description("A task that ends with a JSON-RPC error").input_schema(no_args()),
            |_args, _ctx| async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                Err::<String, _>(hypermcp::Error::Rpc(hypermcp::RpcError::internal("the job hit an internal error")))
            },
        )
        .task_mode("protocol_error_job", TaskMode::Optional)
        .tool(
            Tool::new("confirm_delete")
                .description("Asks for confirmation (an input request of the task), then deletes")
                .input_schema(json!({"type": "object", "properties": {"filename": {"type": "string"}}})),
            move |args, ctx| async move {
                let file = args.get("filename").and_then(Value::as_str).unwrap_or("file").to_string();
                let answer =
                    ctx.request("elicitation/create", Some(ask_bool(&format!("Delete {file}?"))), None).await?;
                let yes = answer["action"] == "accept" && answer["content"]["confirm"] == true;
                Ok::<_, hypermcp::Error>(if yes { format!("Deleted {file}") } else { format!("Kept {file}") })
            },
        )
        .task_mode("confirm_delete", TaskMode::Optional)
        .tool(
            Tool::new("multi_input").description("Asks two questions at once, then answers").input_schema(no_args()),
            move |_args, ctx| async move {
                let (a, b) = tokio::join!(
                    ctx.request_input(Some("first"), "elicitation/create", Some(ask_text("First name?", "name")), None),
                    ctx.request_input(Some("second"), "elicitation/create", Some(ask_text("Last name?", "name")), None),
                );
                Ok::<_, hypermcp::Error>(format!("Hello, {} {}!", field(&a?, "name"), field(&b?, "name")))
            },
        )
        .task_mode("multi_input", TaskMode::Optional)
        .tool(
            Tool::new("test_tool_with_task")
                .description("Asks for a name (a multi round-trip round), then becomes a task that greets")
                .input_schema(no_args()),
            |_args, ctx| async move {
                let answer =
                    ctx.request_input(Some("user_name"), "elicitation/create", Some(ask_text("Your name?", "name")), None).await?;
                ctx.start_task().await?;
                tokio::time::sleep(Duration::from_millis(200)).await;
                Ok::<_, hypermcp::Error>(format!("Hello, {}! (from a task)", field(&answer, "name")))
            },
        )
        .task_mode("test_tool_with_task", TaskMode::Manual)
}

/// The tools the 2026-07-28 scenarios call: multi round-trip requests (each input under the
/// key the scenario names), the stateless diagnostics, and a header-mirrored parameter.
/// Written with the era-neutral context calls: the same tools serve legacy clients with real
/// server-to-client requests.
fn modern_tools(server: Server) -> Server {
    let dynamic = server.clone();
    let dynamic_prompts = server.clone();
    server
        .tool(
            Tool::new("test_input_required_result_elicitation")
                .description("Asks the user for their name (input key user_name), then greets them")
                .input_schema(no_args()),
            |_args, ctx| async move {
                let answer = ctx.request_input(Some("user_name"), "elicitation/create", Some(ask_text("What is your name?", "name")), None).await?;
                Ok::<_, hypermcp::Error>(format!("Hello, {}!", field(&answer, "name")))
            },
        )
        .tool(
            Tool::new("test_input_required_result_sampling")
                .description("Asks the client model a question (input key capital_question)")
                .input_schema(no_args()),
            |_args, ctx| async move {
                let params = sampling("What is the capital of France?", 100);
                let answer = ctx.request_input(Some("capital_question"), "sampling/createMessage", Some(params), None).await?;
                Ok::<_, hypermcp::Error>(format!("Sampling response: {}", answer_text(&answer["content"])))
            },
        )
        .tool(
            Tool::new("test_input_required_result_list_roots")
                .description("Asks for the client's roots (input key client_roots)")
                .input_schema(no_args()),
            |_args, ctx| async move {
                let answer = ctx.request_input(Some("client_roots"), "roots/list", None, None).await?;
                let uris: Vec<&str> =
                    answer["roots"].as_array().into_iter().flatten().filter_map(|r| r["uri"].as_str()).collect();
                Ok::<_, hypermcp::Error>(format!("Client roots: {}", uris.join(", ")))
            },
        )
        .tool(
            // The low-level form: the handler returns its own input_required result, with
            // state of its own that comes back (sealed by the engine) on the retry.
            Tool::new("test_input_required_result_request_state")
                .description("Returns its own input_required result with state of its own (the low-level form)")
                .input_schema(no_args()),
            |_args, ctx| async move {
                let confirmed = ctx.input_responses().and_then(|a| a.get("confirm")).cloned();
                match (ctx.request_state(), confirmed) {
                    (Some("awaiting-confirmation"), Some(answer)) => Ok(format!(
                        "state-ok: confirmed={}",
                        answer["content"]["ok"].as_bool().unwrap_or(false)
                    )),
                    _ => {
                        let mut requests = serde_json::Map::new();
                        requests.insert(
                            "confirm".into(),
                            json!({"method": "elicitation/create", "params": {
                                "message": "Please confirm",
                                "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
                            }}),
                        );
                        let own = hypermcp::InputRequired { requests, state: Some("awaiting-confirmation".into()) };
                        Err(ctx.input_required(own).await)
                    }
                }
            },
        )
        .tool(
            Tool::new("test_input_required_result_multiple_inputs")
                .description("Asks for an elicitation, a sampling and the roots in one round")
                .input_schema(no_args()),
            |_args, ctx| async move {
                // Asked together: all three go out in one round.
                let (name, greeting, roots) = tokio::join!(
                    ctx.request_input(Some("user_name"), "elicitation/create", Some(ask_text("What is your name?", "name")), None),
                    ctx.request_input(Some("greeting"), "sampling/createMessage", Some(sampling("Generate a greeting", 50)), None),
                    ctx.request_input(Some("client_roots"), "roots/list", None, None),
                );
                let (name, greeting, roots) = (name?, greeting?, roots?);
                let count = roots["roots"].as_array().map_or(0, Vec::len);
                Ok::<_, hypermcp::Error>(format!(
                    "name={}, greeting={}, roots={count}",
                    field(&name, "name"),
                    answer_text(&greeting["content"])
                ))
            },
        )
        .tool(
            Tool::new("test_input_required_result_multi_round")
                .description("Asks two questions one after the other (two rounds)")
                .input_schema(no_args()),
            |_args, ctx| async move {
                // Asked one after the other: two rounds (the first answer rides in requestState).
                let name = ctx.request_input(Some("step1"), "elicitation/create", Some(ask_text("Step 1: What is your name?", "name")), None).await?;
                let color = ctx
                    .request_input(Some("step2"), "elicitation/create", Some(ask_text("Step 2: What is your favorite color?", "color")), None)
                    .await?;
                Ok::<_, hypermcp::Error>(format!("{} likes {}", field(&name, "name"), field(&color, "color")))
            },
        )
        .tool(
            Tool::new("test_input_required_result_tampered_state")
                .description("Asks for a confirmation; its sealed requestState must come back intact")
                .input_schema(no_args()),
            |_args, ctx| async move {
                let params = json!({
                    "message": "Please confirm",
                    "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
                });
                let answer = ctx.request_input(Some("confirm"), "elicitation/create", Some(params), None).await?;
                Ok::<_, hypermcp::Error>(format!("confirmed: {}", answer["content"]["ok"]))
            },
        )
        .tool(
            Tool::new("test_input_required_result_capabilities")
                .description("Asks only for the inputs the client declared it can give")
                .input_schema(no_args()),
            |_args, ctx| async move {
                // Asks only for what the client declared.
                let caps = ctx.client_capabilities().clone();
                let mut parts = Vec::new();
                if caps.elicitation.is_some() {
                    let a = ctx.request_input(Some("user_name"), "elicitation/create", Some(ask_text("What is your name?", "name")), None).await?;
                    parts.push(format!("name={}", field(&a, "name")));
                }
                if caps.sampling.is_some() {
                    let a = ctx.request_input(Some("capital_question"), "sampling/createMessage", Some(sampling("What is the capital of France?", 100)), None).await?;
                    parts.push(format!("answer={}", answer_text(&a["content"])));
                }
                Ok::<_, hypermcp::Error>(if parts.is_empty() { "no input capability declared".to_string() } else { parts.join(", ") })
            },
        )
        .tool(
            Tool::new("test_missing_capability")
                .description("Needs sampling: refused with -32021 when the request does not declare it")
                .input_schema(no_args()),
            |_args, ctx| async move {
                let answer = ctx.request_input(None, "sampling/createMessage", Some(sampling("Say hello", 20)), None).await?;
                Ok::<_, hypermcp::Error>(format!("LLM response: {}", answer_text(&answer["content"])))
            },
        )
        .tool(
            Tool::new("test_streaming_elicitation")
                .description("Asks the user for their name and echoes the answer")
                .input_schema(no_args()),
            |_args, ctx| async move { elicit(&ctx, "User response", "What is your name?", ask_text("", "name")["requestedSchema"].clone()).await },
        )
        .tool(
            Tool::new("test_logging_tool").description("Logs at info, then answers").input_schema(no_args()),
            |_args, ctx| async move {
                ctx.log(LoggingLevel::Info, None, "logging tool started");
                ctx.log(LoggingLevel::Warning, None, "logging tool warning");
                CallToolResult::text("logged")
            },
        )
        .tool(
            Tool::new("test_trigger_tool_change").description("Adds or removes test_dynamic_tool").input_schema(no_args()),
            move |_args, _ctx| {
                let server = dynamic.clone();
                async move {
                    if !server.remove_tool("test_dynamic_tool") {
                        let dynamic_tool = Tool::new("test_dynamic_tool").description("Appears and disappears").input_schema(no_args());
                        let _ = server.add_tool(dynamic_tool, |_a, _c| async {
                            CallToolResult::text("dynamic")
                        });
                    }
                    CallToolResult::text("tool list changed")
                }
            },
        )
        .tool(
            Tool::new("test_trigger_prompt_change").description("Adds or removes test_dynamic_prompt").input_schema(no_args()),
            move |_args, _ctx| {
                let server = dynamic_prompts.clone();
                async move {
                    if !server.remove_prompt("test_dynamic_prompt") {
                        let _ = server.add_prompt(Prompt::new("test_dynamic_prompt").description("Appears and disappears"), |_a, _c| async {
                            Ok(GetPromptResult::messages(vec![PromptMessage::user("dynamic")]))
                        });
                    }
                    CallToolResult::text("prompt list changed")
                }
            },
        )
        .tool(
            Tool::new("test_header_param")
                .description("Echoes a region mirrored into the Mcp-Param-Region header (x-mcp-header)")
                .input_schema(json!({
                    "type": "object",
                    "properties": {
                        "region": {"type": "string", "x-mcp-header": "Region"},
                        "query": {"type": "string"}
                    },
                    "required": ["region"]
                })),
            |args, _ctx| async move { format!("region={}", args.get("region").and_then(Value::as_str).unwrap_or_default()) },
        )
        .prompt(
            Prompt::new("test_input_required_result_prompt").description("A prompt that asks the user for context first"),
            |_args, ctx| async move {
                let answer = ctx
                    .request_input(Some("user_context"), "elicitation/create", Some(ask_text("What context should the prompt use?", "context")), None)
                    .await?;
                Ok(GetPromptResult::messages(vec![PromptMessage::user(format!("Context: {}", field(&answer, "context")))]))
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
                Ok(ReadResourceResult::new(vec![blob]))
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
    let server = task_tools(modern_tools(prompts(resources(tools(Server::new(
        "hypermcp-conformance",
        env!("CARGO_PKG_VERSION"),
    ))))))
    // The skills extension's scenarios (sep-2640-skills-*): the example skills.
    .skills_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../skills"));
    if args.stdio {
        return server.serve_stdio().await;
    }
    // Streamable HTTP at /mcp until SIGINT or SIGTERM.
    server.serve_http(format!("{}:{}", args.host, args.port)).await
}
