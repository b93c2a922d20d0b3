//! Tools: paginated listing, calls, structured output, tool errors (`isError`), JSON-RPC
//! errors from handlers, invalid arguments and unknown tools.

use crate::common;

use common::*;
use hypermcp::{CallToolResult, Error, ProtocolVersion, RpcError, Server, Tool};
use serde_json::{json, Value};

fn text_schema() -> Value {
    json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
}

fn echo_server() -> Server {
    Server::new("tools-server", "1.0.0")
        .tool(Tool::new("echo").description("Echo").input_schema(text_schema()), |args, _ctx| async move {
            CallToolResult::text(args["text"].as_str().unwrap_or_default())
        })
}

#[tokio::test]
async fn list_walks_every_page() {
    bounded(async {
        let mut server = Server::new("paged", "1.0.0");
        for i in 0..5 {
            server = server.tool(Tool::new(format!("tool_{i}")).description(format!("tool number {i}")), {
                move |_args, _ctx| async move { CallToolResult::text(format!("{i}")) }
            });
        }
        server.registry().set_page_size(2);
        let t = connect_tapped(&server, options_for(ProtocolVersion::V2025_11_25)).await;

        let first = t.client.list_tools_page(None).await.expect("first page");
        assert_eq!(first.tools.len(), 2);
        assert!(first.next_cursor.is_some(), "a first page of 2 out of 5 has a next cursor");

        let all = t.client.list_tools().await.expect("list_tools");
        let names: Vec<&str> = all.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["tool_0", "tool_1", "tool_2", "tool_3", "tool_4"]);

        // 1 single page + 3 pages walked by list_tools.
        let lists = t.tap.with_method("tools/list");
        assert_eq!(lists.len(), 4, "{}", t.tap.dump());
        assert!(lists[1].json.get("params").and_then(|p| p.get("cursor")).is_none());
        assert!(lists[2].json["params"]["cursor"].is_string());
        assert!(lists[3].json["params"]["cursor"].is_string());
        let last = t.tap.response_to(Dir::ToServer, &lists[3].json["id"]).expect("last page answered");
        assert_eq!(last.json["result"]["tools"].as_array().map(Vec::len), Some(1));
        assert!(last.json["result"].get("nextCursor").is_none(), "the last page has no cursor");

        // A cursor that was never issued is refused.
        let bad = t.client.list_tools_page(Some("not-a-cursor")).await.expect_err("bad cursor");
        assert_eq!(bad.code(), -32602, "{bad}");
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn call_returns_the_handler_result() {
    bounded(async {
        let t = connect_tapped(&echo_server(), options_for(ProtocolVersion::V2025_11_25)).await;
        let r = t.client.call_tool("echo", json!({"text": "hi there"})).await.expect("call");
        assert!(!r.failed());
        assert_eq!(r.content.len(), 1);
        assert_eq!(r.content[0].as_text(), Some("hi there"));
        let call = &t.tap.with_method("tools/call")[0];
        assert_eq!(call.json["params"], json!({"name": "echo", "arguments": {"text": "hi there"}}));
        t.assert_all_valid();
    })
    .await;
}

fn weather_server() -> Server {
    let output = json!({
        "type": "object",
        "properties": {"temperature": {"type": "number"}, "conditions": {"type": "string"}},
        "required": ["temperature", "conditions"]
    });
    Server::new("weather", "1.0.0")
        .tool(Tool::new("weather").output_schema(output.clone()), |_args, _ctx| async move {
            json!({"temperature": 21.5, "conditions": "sunny"})
        })
        .tool(
            Tool::new("broken_weather").output_schema(output),
            |_args, _ctx| async move { json!({"temperature": "warm"}) },
        )
}

#[tokio::test]
async fn structured_output_matches_the_output_schema() {
    bounded(async {
        let t = connect_tapped(&weather_server(), options_for(ProtocolVersion::V2025_06_18)).await;
        let tools = t.client.list_tools().await.expect("list");
        let weather = tools.iter().find(|t| t.name == "weather").expect("weather listed");
        assert_eq!(weather.output_schema.as_ref().map(|s| &s["required"]), Some(&json!(["temperature", "conditions"])));

        let r = t.client.call_tool("weather", json!({})).await.expect("call");
        assert!(!r.failed(), "{r:?}");
        assert_eq!(r.structured_content, Some(json!({"temperature": 21.5, "conditions": "sunny"})));
        // The text rendering carries the same JSON for clients that ignore structuredContent.
        let text: Value = serde_json::from_str(r.content[0].as_text().expect("text")).expect("JSON text");
        assert_eq!(Some(text), r.structured_content);

        // Output that does not match the declared schema is reported as a tool error.
        let bad = t.client.call_tool("broken_weather", json!({})).await.expect("call");
        assert!(bad.failed(), "{bad:?}");
        assert!(bad.content[0].as_text().unwrap().contains("outputSchema"), "{bad:?}");
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn structured_output_is_hidden_from_older_revisions() {
    bounded(async {
        let t = connect_tapped(&weather_server(), options_for(ProtocolVersion::V2025_03_26)).await;
        let tools = t.client.list_tools().await.expect("list");
        assert!(tools.iter().all(|t| t.output_schema.is_none()), "2025-03-26 has no outputSchema");
        let r = t.client.call_tool("weather", json!({})).await.expect("call");
        assert!(r.structured_content.is_none(), "2025-03-26 has no structuredContent");
        assert!(r.content[0].as_text().unwrap().contains("sunny"));
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn handler_errors_become_is_error_results() {
    bounded(async {
        let server = Server::new("failing", "1.0.0").tool(Tool::new("fail"), |_args, _ctx| async move {
            Err::<CallToolResult, _>(Error::msg("the disk is full"))
        });
        let t = connect_tapped(&server, options_for(ProtocolVersion::V2025_11_25)).await;
        let r = t.client.call_tool("fail", json!({})).await.expect("a result, not a JSON-RPC error");
        assert!(r.failed());
        assert_eq!(r.content[0].as_text(), Some("the disk is full"));
        let call = &t.tap.with_method("tools/call")[0];
        let answer = t.tap.response_to(Dir::ToServer, &call.json["id"]).expect("answered");
        assert_eq!(answer.json["result"]["isError"], true);
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn rpc_errors_from_handlers_are_json_rpc_errors() {
    bounded(async {
        let server = Server::new("rpc-failing", "1.0.0").tool(Tool::new("deny"), |_args, _ctx| async move {
            Err::<CallToolResult, _>(Error::Rpc(
                RpcError::new(-32050, "access denied").with_data(json!({"reason": "policy"})),
            ))
        });
        let t = connect_tapped(&server, options_for(ProtocolVersion::V2025_11_25)).await;
        let e = t.client.call_tool("deny", json!({})).await.expect_err("a JSON-RPC error");
        let rpc = e.rpc().unwrap_or_else(|| panic!("not an RPC error: {e:?}"));
        assert_eq!(rpc.code, -32050);
        assert_eq!(rpc.message, "access denied");
        assert_eq!(rpc.data, Some(json!({"reason": "policy"})));
        let call = &t.tap.with_method("tools/call")[0];
        let answer = t.tap.response_to(Dir::ToServer, &call.json["id"]).expect("answered");
        assert!(answer.json.get("result").is_none());
        assert_eq!(answer.json["error"]["code"], -32050);
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn invalid_arguments_are_refused_before_the_handler() {
    bounded(async {
        let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = calls.clone();
        let server = Server::new("strict", "1.0.0").tool(Tool::new("echo").input_schema(text_schema()), {
            move |args, _ctx| {
                counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                async move { CallToolResult::text(args["text"].as_str().unwrap_or_default()) }
            }
        });

        // 2025-11-25: invalid input is a tool error the model can read.
        let t = connect_tapped(&server, options_for(ProtocolVersion::V2025_11_25)).await;
        let r = t.client.call_tool("echo", json!({"text": 42})).await.expect("an isError result");
        assert!(r.failed(), "{r:?}");
        assert!(r.content[0].as_text().unwrap().contains("Invalid arguments for tool echo"), "{r:?}");
        let r = t.client.call_tool("echo", json!({})).await.expect("an isError result");
        assert!(r.failed(), "missing required argument: {r:?}");
        t.assert_all_valid();

        // Earlier revisions: a JSON-RPC -32602 error.
        let t = connect_tapped(&server, options_for(ProtocolVersion::V2025_06_18)).await;
        let e = t.client.call_tool("echo", json!({"text": 42})).await.expect_err("-32602");
        assert_eq!(e.code(), -32602, "{e}");
        assert!(e.to_string().contains("Invalid arguments for tool echo"), "{e}");
        t.assert_all_valid();

        assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 0, "the handler never ran");
    })
    .await;
}

#[tokio::test]
async fn unknown_tool_is_invalid_params() {
    bounded(async {
        let t = connect_tapped(&echo_server(), options_for(ProtocolVersion::V2025_11_25)).await;
        let e = t.client.call_tool("no_such_tool", json!({})).await.expect_err("unknown tool");
        assert_eq!(e.code(), -32602, "{e}");
        assert!(e.to_string().contains("Unknown tool: no_such_tool"), "{e}");
        // The session is still usable.
        assert_eq!(t.client.call_tool("echo", json!({"text": "ok"})).await.unwrap().content[0].as_text(), Some("ok"));
        t.assert_all_valid();
    })
    .await;
}
