//! Progress: `ctx.report_progress` reaches `CallOptions.on_progress` in order, with totals
//! and messages; values must increase; without a callback no token is sent.

use crate::common;

use common::*;
use hypermcp::{CallOptions, CallToolResult, ProtocolVersion, Server, Tool};
use serde_json::json;
use std::sync::{Arc, Mutex};

type Seen = Arc<Mutex<Vec<(f64, Option<f64>, Option<String>)>>>;

fn recorder() -> (CallOptions, Seen) {
    let seen: Seen = Default::default();
    let sink = seen.clone();
    let opts = CallOptions {
        on_progress: Some(Arc::new(move |p, total, message| {
            sink.lock().unwrap().push((p, total, message.map(str::to_string)));
        })),
        ..Default::default()
    };
    (opts, seen)
}

fn server() -> Server {
    Server::new("progress-server", "1.0.0")
        .tool(Tool::new("work"), |_args, ctx| async move {
            let mut sent = 0;
            for i in 1..=5 {
                let message = format!("step {i}");
                if ctx.report_progress(i as f64, Some(5.0), Some(&message)).await? {
                    sent += 1;
                }
                tokio::task::yield_now().await;
            }
            Ok::<_, hypermcp::Error>(CallToolResult::text(format!("sent {sent}")))
        })
        .tool(Tool::new("backwards"), |_args, ctx| async move {
            ctx.report_progress(2.0, None, None).await?;
            // The refusal is reported to the handler (not sent anywhere).
            Ok::<_, hypermcp::Error>(match ctx.report_progress(1.0, None, None).await {
                Ok(_) => CallToolResult::text("accepted a decreasing value"),
                Err(e) => CallToolResult::error(format!("code {}: {e}", e.code())),
            })
        })
}

#[tokio::test]
async fn progress_reaches_the_callback_in_order() {
    bounded(async {
        for rev in ProtocolVersion::LEGACY {
            let t = connect_tapped(&server(), options_for(rev)).await;
            let (opts, seen) = recorder();
            let r = t.client.call_tool_with("work", json!({}), opts).await.expect("call");
            assert_eq!(r.content[0].as_text(), Some("sent 5"));
            let seen = seen.lock().unwrap().clone();
            let values: Vec<f64> = seen.iter().map(|s| s.0).collect();
            assert_eq!(values, [1.0, 2.0, 3.0, 4.0, 5.0], "{rev}");
            assert!(seen.iter().all(|s| s.1 == Some(5.0)), "{rev}: {seen:?}");
            // `message` exists from 2025-03-26 on.
            let messages: Vec<Option<&str>> = seen.iter().map(|s| s.2.as_deref()).collect();
            if rev >= ProtocolVersion::V2025_03_26 {
                assert_eq!(messages, [Some("step 1"), Some("step 2"), Some("step 3"), Some("step 4"), Some("step 5")]);
            } else {
                assert!(messages.iter().all(Option::is_none), "{rev}: {messages:?}");
            }

            // On the wire: the request carries a token, every notification uses it.
            let call = &t.tap.with_method("tools/call")[0];
            let token = call.json["params"]["_meta"]["progressToken"].clone();
            assert!(token.is_number() || token.is_string(), "{}", call.line);
            let notes = t.tap.with_method("notifications/progress");
            assert_eq!(notes.len(), 5);
            assert!(notes.iter().all(|n| n.json["params"]["progressToken"] == token && n.dir == Dir::ToClient));
            t.tap.assert_all_valid(rev);
        }
    })
    .await;
}

#[tokio::test]
async fn no_callback_means_no_token_and_no_notifications() {
    bounded(async {
        let t = connect_tapped(&server(), options_for(ProtocolVersion::V2025_11_25)).await;
        let r = t.client.call_tool("work", json!({})).await.expect("call");
        assert_eq!(r.content[0].as_text(), Some("sent 0"), "report_progress returns false without a token");
        let call = &t.tap.with_method("tools/call")[0];
        assert!(call.json["params"].get("_meta").is_none(), "{}", call.line);
        assert!(t.tap.with_method("notifications/progress").is_empty());
        t.assert_all_valid();
    })
    .await;
}

#[tokio::test]
async fn progress_must_increase() {
    bounded(async {
        let t = connect_tapped(&server(), options_for(ProtocolVersion::V2025_11_25)).await;
        let (opts, seen) = recorder();
        let r = t.client.call_tool_with("backwards", json!({}), opts).await.expect("call");
        assert!(r.failed(), "{r:?}");
        let text = r.content[0].as_text().unwrap();
        assert!(text.starts_with("code -32602: ") && text.contains("progress must increase"), "{r:?}");
        assert_eq!(seen.lock().unwrap().iter().map(|s| s.0).collect::<Vec<_>>(), [2.0]);
        assert_eq!(t.tap.with_method("notifications/progress").len(), 1, "the decreasing value was not sent");
        t.assert_all_valid();
    })
    .await;
}
