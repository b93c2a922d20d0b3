//! Cancellation: a client that gives up on a call (its timeout) gets -32001, tells the
//! server, whose handler future is dropped; the server keeps serving.

use crate::common;

use common::*;
use hypermcp::{CallOptions, CallToolResult, ProtocolVersion, Server, Tool};
use serde_json::json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;

/// Flips its flag and notifies when dropped.
struct DropGuard(Arc<AtomicBool>, Arc<Notify>);

impl Drop for DropGuard {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
        self.1.notify_one();
    }
}

struct Probe {
    started: Arc<Notify>,
    dropped: Arc<AtomicBool>,
    dropped_notify: Arc<Notify>,
    saw_cancel: Arc<Notify>,
}

fn server() -> (Server, Probe) {
    let probe = Probe {
        started: Arc::new(Notify::new()),
        dropped: Arc::new(AtomicBool::new(false)),
        dropped_notify: Arc::new(Notify::new()),
        saw_cancel: Arc::new(Notify::new()),
    };
    let (started, dropped, dropped_notify, saw_cancel) =
        (probe.started.clone(), probe.dropped.clone(), probe.dropped_notify.clone(), probe.saw_cancel.clone());
    let server = Server::new("cancel-server", "1.0.0")
        .tool(Tool::new("hang"), move |_args, ctx| {
            let guard = DropGuard(dropped.clone(), dropped_notify.clone());
            let started = started.clone();
            let saw_cancel = saw_cancel.clone();
            async move {
                let _guard = guard;
                // Work spawned elsewhere learns about the cancellation through the context.
                let watcher = ctx.clone();
                tokio::spawn(async move {
                    watcher.cancelled().await;
                    assert!(watcher.is_cancelled());
                    saw_cancel.notify_one();
                });
                started.notify_one();
                std::future::pending::<()>().await;
                CallToolResult::text("unreachable")
            }
        })
        .tool(Tool::new("echo").input_schema(json!({"type": "object", "properties": {"text": {"type": "string"}}})), {
            |args, _ctx| async move { CallToolResult::text(args["text"].as_str().unwrap_or_default()) }
        });
    (server, probe)
}

#[tokio::test]
async fn timed_out_call_is_cancelled_and_its_handler_dropped() {
    bounded(async {
        let (server, probe) = server();
        let t = connect_tapped(&server, options_for(ProtocolVersion::V2025_11_25)).await;

        let started = probe.started.notified();
        let dropped = probe.dropped_notify.notified();
        let saw_cancel = probe.saw_cancel.notified();
        let opts = CallOptions { timeout: Some(Duration::from_millis(200)), ..Default::default() };
        let begun = std::time::Instant::now();
        let err = t.client.call_tool_with("hang", json!({}), opts).await.expect_err("the call times out");
        assert_eq!(err.code(), -32001, "{err}");
        assert!(err.to_string().contains("timed out"), "{err}");
        assert!(begun.elapsed() >= Duration::from_millis(200), "gave up early: {:?}", begun.elapsed());
        bounded_for(Duration::from_secs(5), started).await;

        // The client told the server which request it abandoned.
        let call = &t.tap.with_method("tools/call")[0];
        let cancelled =
            t.tap.wait_for("notifications/cancelled", |m| m.method() == Some("notifications/cancelled")).await;
        assert_eq!(cancelled.dir, Dir::ToServer);
        assert_eq!(cancelled.json["params"]["requestId"], call.json["id"]);

        // The handler future was dropped, and the context reported the cancellation.
        bounded_for(Duration::from_secs(5), dropped).await;
        assert!(probe.dropped.load(Ordering::SeqCst));
        bounded_for(Duration::from_secs(5), saw_cancel).await;

        // The server keeps serving, and never answers the cancelled request.
        let r = t.client.call_tool("echo", json!({"text": "still here"})).await.expect("next call");
        assert_eq!(r.content[0].as_text(), Some("still here"));
        assert!(t.tap.response_to(Dir::ToServer, &call.json["id"]).is_none(), "{}", t.tap.dump());
        t.assert_all_valid();
    })
    .await;
}

/// Closing is not cancelling: the client's pending call fails at once, while the server
/// lets in-flight work finish (within its grace period after end of input) before its
/// session ends.
#[tokio::test]
async fn closing_fails_pending_calls_and_the_server_finishes_in_flight_work() {
    bounded(async {
        let started = Arc::new(Notify::new());
        let release = Arc::new(Notify::new());
        let finished = Arc::new(AtomicBool::new(false));
        let (s, r, f) = (started.clone(), release.clone(), finished.clone());
        let server = Server::new("slow", "1.0.0").tool(Tool::new("slow"), move |_args, _ctx| {
            let (s, r, f) = (s.clone(), r.clone(), f.clone());
            async move {
                let released = r.notified();
                s.notify_one();
                released.await;
                f.store(true, Ordering::SeqCst);
                CallToolResult::text("late")
            }
        });
        let t = connect_tapped(&server, options_for(ProtocolVersion::V2025_06_18)).await;
        let started_wait = started.notified();
        let client = t.client.clone();
        let call = tokio::spawn(async move { client.call_tool("slow", json!({})).await });
        bounded_for(Duration::from_secs(5), started_wait).await;

        t.client.close().await.expect("close");
        let err = bounded(call).await.expect("join").expect_err("the call fails when the connection closes");
        assert!(matches!(err, hypermcp::Error::Closed), "{err:?}");
        assert!(t.client.ping().await.is_err(), "a closed client refuses requests");

        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!t.server.is_finished(), "the server waits for the in-flight handler");
        assert!(!finished.load(Ordering::SeqCst));
        release.notify_one();
        assert!(bounded(t.server).await.expect("join").is_ok(), "the session ends cleanly");
        assert!(finished.load(Ordering::SeqCst), "the handler ran to completion");
        t.tap.assert_all_valid(ProtocolVersion::V2025_06_18);
    })
    .await;
}
