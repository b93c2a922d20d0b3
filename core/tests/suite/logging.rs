//! Logging: `ctx.log` reaches the client as `notifications/message`, filtered by the level
//! the client set with `logging/setLevel`; messages a handler logs arrive before its result.

use crate::common;

use common::*;
use hypermcp::{CallToolResult, LoggingLevel, ProtocolVersion, Server, Tool};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

fn server() -> Server {
    Server::new("logging-server", "1.0.0").tool(Tool::new("chatty"), |_args, ctx| async move {
        ctx.log(LoggingLevel::Debug, Some("chatty"), "debug detail");
        ctx.log(LoggingLevel::Info, Some("chatty"), json!({"step": "info"}));
        ctx.log(LoggingLevel::Warning, None, "careful");
        ctx.log(LoggingLevel::Error, Some("chatty"), json!({"error": "bad", "code": 7}));
        CallToolResult::text("done")
    })
}

type Logs = Arc<Mutex<Vec<Value>>>;

fn collecting(rev: ProtocolVersion) -> (hypermcp::ClientOptions, Logs) {
    let logs: Logs = Default::default();
    let sink = logs.clone();
    let options = options_for(rev).on_notification(move |method, params| {
        if method == "notifications/message" {
            sink.lock().unwrap().push(params.clone());
        }
    });
    (options, logs)
}

fn levels(logs: &Logs) -> Vec<String> {
    logs.lock().unwrap().iter().map(|p| p["level"].as_str().unwrap_or("?").to_string()).collect()
}

#[tokio::test]
async fn logs_are_filtered_by_the_client_level() {
    bounded(async {
        for rev in ProtocolVersion::LEGACY {
            let (options, logs) = collecting(rev);
            let t = connect_tapped(&server(), options).await;

            // No level set: everything is sent. The messages were logged before the handler
            // returned, so they are delivered before its result.
            let r = t.client.call_tool("chatty", json!({})).await.expect("call");
            assert_eq!(r.content[0].as_text(), Some("done"));
            assert_eq!(levels(&logs), ["debug", "info", "warning", "error"], "{rev}: {}", t.tap.dump());
            let all = logs.lock().unwrap().clone();
            assert_eq!(all[0], json!({"level": "debug", "logger": "chatty", "data": "debug detail"}));
            assert_eq!(all[2], json!({"level": "warning", "data": "careful"}));
            assert_eq!(all[3]["data"], json!({"error": "bad", "code": 7}));

            // From warning up only.
            logs.lock().unwrap().clear();
            t.client.set_logging_level(LoggingLevel::Warning).await.expect("setLevel");
            t.client.call_tool("chatty", json!({})).await.expect("call");
            assert_eq!(levels(&logs), ["warning", "error"], "{rev}");

            // Errors only.
            logs.lock().unwrap().clear();
            t.client.set_logging_level(LoggingLevel::Error).await.expect("setLevel");
            t.client.call_tool("chatty", json!({})).await.expect("call");
            assert_eq!(levels(&logs), ["error"], "{rev}");

            // The wire agrees: 4 + 2 + 1 messages, all server to client.
            let wire = t.tap.with_method("notifications/message");
            assert_eq!(wire.len(), 7, "{rev}: {}", t.tap.dump());
            assert!(wire.iter().all(|m| m.dir == Dir::ToClient));
            t.tap.assert_all_valid(rev);
        }
    })
    .await;
}

#[tokio::test]
async fn logs_precede_the_result_on_the_wire() {
    bounded(async {
        let (options, _logs) = collecting(ProtocolVersion::V2025_11_25);
        let t = connect_tapped(&server(), options).await;
        t.client.call_tool("chatty", json!({})).await.expect("call");
        let to_client = t.tap.sent(Dir::ToClient);
        let call = &t.tap.with_method("tools/call")[0];
        let result_at = to_client.iter().position(|m| m.is_response() && m.json["id"] == call.json["id"]).unwrap();
        let logs_at: Vec<usize> = to_client
            .iter()
            .enumerate()
            .filter(|(_, m)| m.method() == Some("notifications/message"))
            .map(|(i, _)| i)
            .collect();
        assert_eq!(logs_at.len(), 4);
        assert!(logs_at.iter().all(|&i| i < result_at), "logs after the result: {}", t.tap.dump());
        t.assert_all_valid();
    })
    .await;
}
