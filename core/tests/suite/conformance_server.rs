//! The Rust conformance server (`examples/rust/conformance_server.rs`) as a child process over
//! stdio, driven by the Rust client: every tool, resource, template, prompt and completion the
//! conformance suite calls, with the client answering sampling and elicitation and recording
//! log messages and progress.
//!
//! The example binary is spawned from `<target>/<profile>/examples/conformance_server` (next to
//! this test's own directory) or `$HYPERMCP_CONFORMANCE_SERVER`. `cargo test` builds examples;
//! a lone `cargo test --test conformance_server` does not: run
//! `cargo build -p hypermcp-examples --example conformance_server` first.

use crate::common;

use common::*;
use hypermcp::{
    CallOptions, Client, ClientOptions, CompleteParams, CompletionArgument, CompletionReference, Content,
    CreateMessageParams, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult, LoggingLevel, ResourceContents,
    Role,
};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `(progress, total)` as received.
type Progress = (f64, Option<f64>);

const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

const TOOLS: [&str; 35] = [
    // The tasks extension's scenarios.
    "confirm_delete",
    "failing_job",
    "greet",
    "json_schema_2020_12_tool",
    "multi_input",
    "protocol_error_job",
    "slow_compute",
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
    "test_tool_with_task",
    "test_trigger_prompt_change",
    "test_trigger_tool_change",
];

fn server_path() -> PathBuf {
    let path = match std::env::var_os("HYPERMCP_CONFORMANCE_SERVER") {
        Some(p) => PathBuf::from(p),
        None => examples_dir().join("conformance_server"),
    };
    assert!(
        path.is_file(),
        "conformance server not found at {}: run `cargo build -p hypermcp-examples --example conformance_server` first \
         (or set HYPERMCP_CONFORMANCE_SERVER)",
        path.display()
    );
    let source = workspace_dir().join("examples/rust/conformance_server.rs");
    let modified = |p: &PathBuf| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(bin), Some(src)) = (modified(&path), modified(&source)) {
        assert!(
            bin >= src,
            "{} is older than its source: run `cargo build -p hypermcp-examples --example conformance_server`",
            path.display()
        );
    }
    path
}

/// What the client's handlers saw, and how elicitation answers.
#[derive(Clone)]
struct Peer {
    sampling: Arc<Mutex<Vec<CreateMessageParams>>>,
    elicitations: Arc<Mutex<Vec<ElicitParams>>>,
    elicit_answer: Arc<Mutex<ElicitResult>>,
    logs: Arc<Mutex<Vec<Value>>>,
}

impl Peer {
    fn new() -> Self {
        Peer {
            sampling: Default::default(),
            elicitations: Default::default(),
            elicit_answer: Arc::new(Mutex::new(answer(ElicitAction::Accept, Some(json!({"response": "yes"}))))),
            logs: Default::default(),
        }
    }

    fn answer_with(&self, action: ElicitAction, content: Option<Value>) {
        *self.elicit_answer.lock().unwrap() = answer(action, content);
    }

    fn logs(&self) -> Vec<(String, Value)> {
        self.logs
            .lock()
            .unwrap()
            .iter()
            .map(|p| (p["level"].as_str().unwrap_or_default().to_string(), p["data"].clone()))
            .collect()
    }

    /// The form of the last elicitation: `(message, requestedSchema)`.
    fn last_form(&self) -> (String, Value) {
        match self.elicitations.lock().unwrap().last() {
            Some(ElicitParams::Form { message, requested_schema, .. }) => (message.clone(), requested_schema.clone()),
            other => panic!("expected a form elicitation, got {other:?}"),
        }
    }
}

fn answer(action: ElicitAction, content: Option<Value>) -> ElicitResult {
    let content = content.map(|c| match c {
        Value::Object(m) => m,
        other => panic!("elicitation content must be an object, not {other}"),
    });
    ElicitResult { action, content, meta: None }
}

async fn connect() -> (Client, Peer) {
    let peer = Peer::new();
    let (sampling, elicitations, elicit_answer, logs) =
        (peer.sampling.clone(), peer.elicitations.clone(), peer.elicit_answer.clone(), peer.logs.clone());
    let mut options = ClientOptions::new("conformance-test", "0.0.1")
        .on_sampling(move |params: CreateMessageParams| {
            let asked = params.messages[0].content["text"].as_str().unwrap_or_default().to_string();
            sampling.lock().unwrap().push(params);
            async move {
                Ok(CreateMessageResult {
                    role: Role::Assistant,
                    content: json!({"type": "text", "text": format!("echo {asked}")}),
                    model: "test-model".into(),
                    stop_reason: None,
                    meta: None,
                })
            }
        })
        .on_elicitation(false, move |params| {
            elicitations.lock().unwrap().push(params);
            let reply = elicit_answer.lock().unwrap().clone();
            async move { Ok(reply) }
        })
        .on_notification(move |method, params| {
            if method == "notifications/message" {
                logs.lock().unwrap().push(params.clone());
            }
        });
    options.timeout = Some(Duration::from_secs(10));
    let client = Client::spawn(server_path().to_str().expect("a UTF-8 path"), ["--stdio"], options)
        .await
        .unwrap_or_else(|e| panic!("spawning the conformance server: {e}"));
    assert_eq!(client.server().server_info.name, "hypermcp-conformance");
    (client, peer)
}

fn text_of(r: &hypermcp::CallToolResult) -> &str {
    r.content.first().and_then(Content::as_text).unwrap_or_else(|| panic!("no text content in {r:?}"))
}

/// `(action, content)` of `"<prefix>: action=<a>, content=<json>"`.
fn action_and_content(text: &str, prefix: &str) -> (String, Value) {
    let rest = text.strip_prefix(&format!("{prefix}: action=")).unwrap_or_else(|| panic!("unexpected text {text:?}"));
    let (action, content) = rest.split_once(", content=").unwrap_or_else(|| panic!("no content in {text:?}"));
    (action.to_string(), serde_json::from_str(content).unwrap_or_else(|e| panic!("content of {text:?}: {e}")))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn capabilities_and_lists() {
    bounded(async {
        let (client, _) = connect().await;
        let caps = serde_json::to_value(&client.server().capabilities).unwrap();
        assert_eq!(caps["tools"], json!({"listChanged": true}));
        assert_eq!(caps["resources"], json!({"subscribe": true, "listChanged": true}));
        assert_eq!(caps["prompts"], json!({"listChanged": true}));
        assert_eq!(caps["logging"], json!({}));
        assert_eq!(caps["completions"], json!({}));

        let tools = client.list_tools().await.expect("tools/list");
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(names, TOOLS);
        for t in &tools {
            assert!(t.description.as_deref().is_some_and(|d| !d.is_empty()), "{} has no description", t.name);
            assert_eq!(t.input_schema["type"], "object", "{}", t.name);
        }
        let by_name: HashMap<&str, &hypermcp::Tool> = tools.iter().map(|t| (t.name.as_str(), t)).collect();
        assert_eq!(
            by_name["json_schema_2020_12_tool"].input_schema,
            json!({
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
            })
        );
        assert_eq!(by_name["test_sampling"].input_schema["required"], json!(["prompt"]));
        assert_eq!(by_name["test_elicitation"].input_schema["required"], json!(["message"]));

        let resources = client.list_resources().await.expect("resources/list");
        let mut listed: Vec<(&str, Option<&str>)> =
            resources.iter().map(|r| (r.uri.as_str(), r.mime_type.as_deref())).collect();
        listed.sort_unstable();
        assert_eq!(
            listed,
            [
                // The example skills' SKILL.md files (the skills extension's scenarios).
                ("skill://acme/billing/refunds/SKILL.md", Some("text/markdown")),
                ("skill://git-workflow/SKILL.md", Some("text/markdown")),
                ("skill://git-workflow/commit-message/SKILL.md", Some("text/markdown")),
                ("skill://pdf-processing/SKILL.md", Some("text/markdown")),
                ("test://static-binary", Some("image/png")),
                ("test://static-text", Some("text/plain")),
                ("test://watched-resource", Some("text/plain"))
            ]
        );
        assert!(resources.iter().all(|r| !r.name.is_empty()));
        let templates = client.list_resource_templates().await.expect("resources/templates/list");
        assert_eq!(templates.len(), 1);
        assert_eq!(templates[0].uri_template, "test://template/{id}/data");
        assert_eq!(templates[0].mime_type.as_deref(), Some("application/json"));
        assert!(!templates[0].name.is_empty());

        let prompts = client.list_prompts().await.expect("prompts/list");
        let mut names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
        names.sort_unstable();
        assert_eq!(
            names,
            [
                "test_input_required_result_prompt",
                "test_prompt_with_arguments",
                "test_prompt_with_embedded_resource",
                "test_prompt_with_image",
                "test_simple_prompt"
            ]
        );
        assert!(prompts.iter().all(|p| p.description.as_deref().is_some_and(|d| !d.is_empty())));
        let args = |name: &str| -> Vec<(String, Option<bool>)> {
            let p = prompts.iter().find(|p| p.name == name).expect("listed");
            p.arguments.iter().flatten().map(|a| (a.name.clone(), a.required)).collect()
        };
        assert_eq!(args("test_prompt_with_arguments"), [("arg1".into(), Some(true)), ("arg2".into(), Some(true))]);
        assert_eq!(args("test_prompt_with_embedded_resource"), [("resourceUri".into(), Some(true))]);

        client.close().await.expect("close");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn content_tools_and_the_error_tool() {
    bounded(async {
        let (client, _) = connect().await;
        let call = |name: &'static str| {
            let client = client.clone();
            async move {
                let r = client.call_tool(name, json!({})).await.unwrap_or_else(|e| panic!("{name}: {e}"));
                serde_json::to_value(&r).unwrap()
            }
        };

        let r = call("test_simple_text").await;
        assert_eq!(r, json!({"content": [{"type": "text", "text": "This is a simple text response for testing."}]}));
        let r = call("test_image_content").await;
        assert_eq!(r, json!({"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]}));
        let r = call("test_audio_content").await;
        assert_eq!(r, json!({"content": [{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]}));
        let r = call("test_embedded_resource").await;
        assert_eq!(
            r,
            json!({"content": [{"type": "resource", "resource": {
                "uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."
            }}]})
        );

        let r = call("test_multiple_content_types").await;
        let content = r["content"].as_array().expect("content");
        assert_eq!(content.len(), 3, "{r}");
        assert_eq!(content[0], json!({"type": "text", "text": "Multiple content types test:"}));
        assert_eq!(content[1], json!({"type": "image", "data": PNG, "mimeType": "image/png"}));
        assert_eq!(content[2]["type"], "resource");
        assert_eq!(content[2]["resource"]["uri"], "test://mixed-content-resource");
        assert_eq!(content[2]["resource"]["mimeType"], "application/json");
        let embedded: Value = serde_json::from_str(content[2]["resource"]["text"].as_str().expect("text")).unwrap();
        assert_eq!(embedded, json!({"test": "data", "value": 123}));

        let r = call("test_error_handling").await;
        assert_eq!(
            r,
            json!({"content": [{"type": "text", "text": "This tool intentionally returns an error for testing"}], "isError": true})
        );

        client.close().await.expect("close");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn logging_and_progress() {
    bounded(async {
        let (client, peer) = connect().await;
        let start = Instant::now();
        let r = client.call_tool("test_tool_with_logging", json!({})).await.expect("logging tool");
        let elapsed = start.elapsed();
        assert!(!r.failed() && !text_of(&r).is_empty(), "{r:?}");
        // All three arrived before the result, at info level, about 50 ms apart.
        assert_eq!(
            peer.logs(),
            [
                ("info".to_string(), json!("Tool execution started")),
                ("info".to_string(), json!("Tool processing data")),
                ("info".to_string(), json!("Tool execution completed")),
            ]
        );
        assert!(elapsed >= Duration::from_millis(90), "took {elapsed:?}");

        // Below the client's level: nothing is sent.
        client.set_logging_level(LoggingLevel::Warning).await.expect("logging/setLevel");
        peer.logs.lock().unwrap().clear();
        let r = client.call_tool("test_tool_with_logging", json!({})).await.expect("logging tool");
        assert!(!r.failed(), "{r:?}");
        assert_eq!(peer.logs(), []);

        let seen: Arc<Mutex<Vec<Progress>>> = Default::default();
        let sink = seen.clone();
        let opts = CallOptions {
            on_progress: Some(Arc::new(move |p, total, _message| sink.lock().unwrap().push((p, total)))),
            ..Default::default()
        };
        let r = client.call_tool_with("test_tool_with_progress", json!({}), opts).await.expect("progress tool");
        assert!(!r.failed() && !text_of(&r).is_empty(), "{r:?}");
        assert_eq!(*seen.lock().unwrap(), [(0.0, Some(100.0)), (50.0, Some(100.0)), (100.0, Some(100.0))]);

        // Without a progress token the tool still answers.
        let r = client.call_tool("test_tool_with_progress", json!({})).await.expect("progress tool");
        assert!(!r.failed(), "{r:?}");

        client.close().await.expect("close");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling() {
    bounded(async {
        let (client, peer) = connect().await;
        let r = client.call_tool("test_sampling", json!({"prompt": "What is 2+2?"})).await.expect("sampling tool");
        assert!(!r.failed(), "{r:?}");
        assert_eq!(text_of(&r), "LLM response: echo What is 2+2?");
        let asked = peer.sampling.lock().unwrap().clone();
        assert_eq!(asked.len(), 1);
        assert_eq!(asked[0].messages.len(), 1);
        assert_eq!(asked[0].messages[0].role, Role::User);
        assert_eq!(asked[0].messages[0].content, json!({"type": "text", "text": "What is 2+2?"}));
        assert_eq!(asked[0].max_tokens, 100);
        client.close().await.expect("close");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_tools() {
    bounded(async {
        let (client, peer) = connect().await;
        let r = client.call_tool("test_elicitation", json!({"message": "Your name?"})).await.expect("elicitation");
        assert!(!r.failed(), "{r:?}");
        assert_eq!(action_and_content(text_of(&r), "User response"), ("accept".into(), json!({"response": "yes"})));
        let (message, schema) = peer.last_form();
        assert_eq!(message, "Your name?");
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["properties"]["response"]["type"], "string");
        assert_eq!(schema["required"], json!(["response"]));

        peer.answer_with(ElicitAction::Decline, None);
        let r = client.call_tool("test_elicitation", json!({"message": "Again?"})).await.expect("elicitation");
        assert_eq!(action_and_content(text_of(&r), "User response"), ("decline".into(), json!({})));

        peer.answer_with(ElicitAction::Accept, Some(json!({"name": "Ada", "age": 36})));
        let r = client.call_tool("test_elicitation_sep1034_defaults", json!({})).await.expect("sep1034");
        assert_eq!(
            action_and_content(text_of(&r), "Elicitation completed"),
            ("accept".into(), json!({"name": "Ada", "age": 36}))
        );
        let (_, schema) = peer.last_form();
        let props = schema["properties"].as_object().expect("properties");
        let defaults: Map<String, Value> =
            props.iter().map(|(k, v)| (k.clone(), json!([v["type"], v["default"]]))).collect();
        assert_eq!(
            Value::Object(defaults),
            json!({
                "name": ["string", "John Doe"],
                "age": ["integer", 30],
                "score": ["number", 95.5],
                "status": ["string", "active"],
                "verified": ["boolean", true]
            })
        );
        assert_eq!(props["status"]["enum"], json!(["active", "inactive", "pending"]));

        peer.answer_with(ElicitAction::Cancel, None);
        let r = client.call_tool("test_elicitation_sep1330_enums", json!({})).await.expect("sep1330");
        assert_eq!(action_and_content(text_of(&r), "Elicitation completed"), ("cancel".into(), json!({})));
        let (_, schema) = peer.last_form();
        let props = &schema["properties"];
        assert_eq!(props["untitledSingle"]["enum"], json!(["option1", "option2", "option3"]));
        let consts: Vec<&Value> =
            props["titledSingle"]["oneOf"].as_array().expect("oneOf").iter().map(|o| &o["const"]).collect();
        assert_eq!(consts, [&json!("value1"), &json!("value2"), &json!("value3")]);
        assert_eq!(props["titledSingle"]["oneOf"][0]["title"], "First Option");
        assert_eq!(props["legacyEnum"]["enumNames"], json!(["Option One", "Option Two", "Option Three"]));
        assert_eq!(props["untitledMulti"]["items"]["enum"], json!(["option1", "option2", "option3"]));
        assert_eq!(props["titledMulti"]["items"]["anyOf"][0], json!({"const": "value1", "title": "First Choice"}));
        assert_eq!(peer.elicitations.lock().unwrap().len(), 4);

        client.close().await.expect("close");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_schema_tool_and_reconnection_tool() {
    bounded(async {
        let (client, _) = connect().await;
        let args =
            json!({"name": "Ada", "address": {"street": "1 Main St", "city": "London"}, "email": "ada@example.com"});
        let r = client.call_tool("json_schema_2020_12_tool", args.clone()).await.expect("json schema tool");
        assert!(!r.failed(), "{r:?}");
        let echoed = text_of(&r).strip_prefix("JSON Schema 2020-12 tool called with: ").expect("prefix");
        assert_eq!(serde_json::from_str::<Value>(echoed).unwrap(), args);
        // additionalProperties: false is enforced.
        let r = client.call_tool("json_schema_2020_12_tool", json!({"extra": 1})).await.expect("json schema tool");
        assert!(r.failed(), "{r:?}");

        let start = Instant::now();
        let r = client.call_tool("test_reconnection", json!({})).await.expect("reconnection tool");
        assert!(!r.failed(), "{r:?}");
        assert!(text_of(&r).starts_with("Reconnection test completed successfully."), "{r:?}");
        assert!(start.elapsed() >= Duration::from_millis(90));

        client.close().await.expect("close");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_and_subscriptions() {
    bounded(async {
        let (client, _) = connect().await;
        let read = |uri: &'static str| {
            let client = client.clone();
            async move { client.read_resource(uri).await.unwrap_or_else(|e| panic!("{uri}: {e}")).contents }
        };
        assert_eq!(
            read("test://static-text").await,
            [ResourceContents::Text {
                uri: "test://static-text".into(),
                mime_type: Some("text/plain".into()),
                text: "This is the content of the static text resource.".into(),
                meta: None
            }]
        );
        assert_eq!(
            read("test://static-binary").await,
            [ResourceContents::Blob {
                uri: "test://static-binary".into(),
                mime_type: Some("image/png".into()),
                blob: PNG.into(),
                meta: None
            }]
        );
        match read("test://template/123/data").await.as_slice() {
            [ResourceContents::Text { uri, mime_type, text, .. }] => {
                assert_eq!(uri, "test://template/123/data");
                assert_eq!(mime_type.as_deref(), Some("application/json"));
                let data: Value = serde_json::from_str(text).unwrap();
                assert_eq!(data, json!({"id": "123", "templateTest": true, "data": "Data for ID: 123"}));
            }
            other => panic!("template read: {other:?}"),
        }
        match read("test://watched-resource").await.as_slice() {
            [ResourceContents::Text { uri, mime_type, text, .. }] => {
                assert_eq!(uri, "test://watched-resource");
                assert_eq!(mime_type.as_deref(), Some("text/plain"));
                assert!(!text.is_empty());
            }
            other => panic!("watched resource read: {other:?}"),
        }

        client.subscribe_resource("test://watched-resource").await.expect("resources/subscribe");
        client.unsubscribe_resource("test://watched-resource").await.expect("resources/unsubscribe");
        let err = client.read_resource("test://missing").await.expect_err("a missing resource");
        // -32002 on a legacy session; 2026-07-28 says invalid params.
        let expected = if client.is_modern() {
            hypermcp::jsonrpc::codes::INVALID_PARAMS
        } else {
            hypermcp::jsonrpc::codes::RESOURCE_NOT_FOUND
        };
        assert_eq!(err.code(), expected, "{err}");
        client.ping().await.expect("ping");

        client.close().await.expect("close");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompts_and_completion() {
    bounded(async {
        let (client, _) = connect().await;
        let get = |name: &'static str, args: &[(&str, &str)]| {
            let client = client.clone();
            let args: HashMap<String, String> = args.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            async move { client.get_prompt(name, args).await }
        };
        let messages = |r: hypermcp::GetPromptResult| serde_json::to_value(r.messages).unwrap();

        let p = get("test_simple_prompt", &[]).await.expect("simple prompt");
        assert_eq!(
            messages(p),
            json!([{"role": "user", "content": {"type": "text", "text": "This is a simple prompt for testing."}}])
        );

        let p = get("test_prompt_with_arguments", &[("arg1", "one"), ("arg2", "two")]).await.expect("with arguments");
        assert_eq!(
            messages(p),
            json!([{"role": "user", "content": {"type": "text", "text": "Prompt with arguments: arg1='one', arg2='two'"}}])
        );
        let err = get("test_prompt_with_arguments", &[("arg1", "one")]).await.expect_err("arg2 is required");
        assert_eq!(err.code(), hypermcp::jsonrpc::codes::INVALID_PARAMS, "{err}");

        let p = get("test_prompt_with_embedded_resource", &[("resourceUri", "test://doc")]).await.expect("embedded");
        assert_eq!(
            messages(p),
            json!([
                {"role": "user", "content": {"type": "resource", "resource": {
                    "uri": "test://doc", "mimeType": "text/plain", "text": "Embedded resource content for testing."
                }}},
                {"role": "user", "content": {"type": "text", "text": "Please process the embedded resource above."}}
            ])
        );

        let p = get("test_prompt_with_image", &[]).await.expect("image prompt");
        assert_eq!(
            messages(p),
            json!([
                {"role": "user", "content": {"type": "image", "data": PNG, "mimeType": "image/png"}},
                {"role": "user", "content": {"type": "text", "text": "Please analyze the image above."}}
            ])
        );

        let complete = |argument: &str, value: &str| {
            let client = client.clone();
            let params = CompleteParams {
                reference: CompletionReference::Prompt { name: "test_prompt_with_arguments".into() },
                argument: CompletionArgument { name: argument.into(), value: value.into() },
                context: None,
            };
            async move { client.complete(params).await.expect("completion/complete").completion.values }
        };
        assert_eq!(complete("arg1", "").await, ["alpha", "alpine", "beta"]);
        assert_eq!(complete("arg1", "alp").await, ["alpha", "alpine"]);
        assert_eq!(complete("arg2", "").await, Vec::<String>::new());

        client.close().await.expect("close");
    })
    .await;
}
