//! A legacy HTTP+SSE client that never reads its stream cannot grow the server's memory:
//! past half the stream's buffer its POSTs are refused with 429, and the process RSS stays
//! within the limit while 100 MiB of answers are asked for. Alone in its binary so no other
//! test moves the RSS.

mod common;
mod http_util;

use common::*;
use http_util::*;
use hypermcp::http::HttpOptions;
use serde_json::{json, Value};
use std::time::Duration;

fn post(endpoint: &str, msg: &Value) -> Req {
    Req::new("POST", endpoint).header("Content-Type", "application/json").body(serde_json::to_vec(msg).unwrap())
}

#[tokio::test]
async fn an_unread_legacy_stream_is_bounded() {
    bounded_for(Duration::from_secs(120), async {
        let limit = 1 << 20;
        let o = HttpOptions { stream_buffer: limit, ..options() };
        let ts = TestServer::start(&test_server(), o).await;
        let mut sse = ts.send(Req::new("GET", "/sse").header("Accept", "text/event-stream")).await;
        let endpoint = sse.event().await.expect("the endpoint event").data.expect("endpoint");
        let init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
        assert_eq!(ts.send(post(&endpoint, &init)).await.status, 202);
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(ts.send(post(&endpoint, &note)).await.status, 202);
        // From here on the stream is never read.
        let text = "x".repeat(1 << 20);
        let before = rss_bytes();
        let (mut accepted, mut refused) = (0, 0);
        for i in 1..=100 {
            let mut r = ts.send(post(&endpoint, &call(i, "echo", json!({"text": text})))).await;
            match r.status {
                202 => accepted += 1,
                429 => {
                    refused += 1;
                    assert!(r.header("retry-after").is_some(), "{r:?}");
                    let body = r.json().await;
                    let m = body["error"]["message"].as_str().unwrap_or_default().to_string();
                    assert!(m.contains("has not read"), "{body}");
                }
                s => panic!("unexpected status {s}: {r:?}"),
            }
        }
        let grown = rss_bytes().saturating_sub(before);
        eprintln!("accepted {accepted}, refused {refused}, RSS +{:.1} MiB", grown as f64 / 1048576.0);
        assert!(refused > 50, "a client that does not read is refused: {accepted} accepted");
        // The kernel's socket buffers hold some answers; the server holds at most the limit
        // (plus one answer and the allocator's slack).
        assert!(grown < 24 << 20, "the server's RSS grew by {grown} bytes for 100 MiB of answers");
        // Nothing accepted was lost: the initialize answer and one per accepted call come once
        // the client reads; then the session is served again.
        let mut answers = 0;
        while answers < accepted + 1 {
            let ev = sse.event().await.expect("the stream goes on");
            if ev.is_message() {
                answers += 1;
            }
        }
        assert_eq!(ts.send(post(&endpoint, &call(1000, "echo", json!({"text": "again"})))).await.status, 202);
        let m = loop {
            let ev = sse.event().await.expect("the answer");
            if ev.is_message() {
                break ev.json();
            }
        };
        assert!(m["id"] == 1000 && m["result"]["content"][0]["text"] == "again", "the next answer");
    })
    .await;
}
