//! The legacy HTTP+SSE transport (2024-11-05): `GET /sse` announces the message endpoint,
//! POSTs there are accepted with 202 and answered on the SSE stream as `event: message`.

use crate::common;
use crate::http_util;

use common::*;
use http_util::*;
use hypermcp::http::HttpOptions;
use serde_json::{json, Value};
use std::time::Duration;

const REV: &str = "2024-11-05";

/// Opens the SSE stream; returns it and the message endpoint it announced.
async fn open(ts: &TestServer) -> (Resp, String) {
    let mut sse = ts.send(Req::new("GET", "/sse").header("Accept", "text/event-stream")).await;
    assert_eq!(sse.status, 200, "{sse:?}");
    assert_eq!(sse.content_type(), "text/event-stream");
    assert_eq!(sse.header("x-accel-buffering"), Some("no"));
    let ev = sse.event().await.expect("the endpoint event");
    assert_eq!(ev.event.as_deref(), Some("endpoint"), "{ev:?}");
    let endpoint = ev.data.clone().unwrap();
    let id = endpoint.strip_prefix("/messages?sessionId=").unwrap_or_else(|| panic!("{endpoint}"));
    assert_eq!(id.len(), 32);
    assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
    (sse, endpoint)
}

fn post(endpoint: &str, msg: &Value) -> Req {
    Req::new("POST", endpoint).header("Content-Type", "application/json").body(serde_json::to_vec(msg).unwrap())
}

/// The next `event: message` (pings and comments skipped).
async fn next_message(sse: &mut Resp) -> Value {
    loop {
        let ev = sse.event().await.expect("the SSE stream ended");
        if ev.is_message() {
            assert_eq!(ev.event.as_deref(), Some("message"), "{ev:?}");
            assert!(ev.id.is_none(), "legacy events carry no ids");
            return ev.json();
        }
    }
}

#[tokio::test]
async fn legacy_sse_round_trip() {
    bounded(async {
        let ts = TestServer::start(&test_server(), options()).await;
        let (mut sse, endpoint) = open(&ts).await;
        assert_eq!(ts.service.session_count(), 1);
        let mut r = ts.send(post(&endpoint, &initialize_request(REV, 1))).await;
        assert_eq!(r.status, 202, "{r:?}");
        let _ = r.body().await;
        let init = next_message(&mut sse).await;
        assert_valid_result(REV, "initialize", &init);
        assert_eq!(init["result"]["protocolVersion"], REV);
        let r = ts.send(post(&endpoint, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))).await;
        assert_eq!(r.status, 202);
        for (id, method) in [(2, "tools/list"), (3, "ping")] {
            let r = ts.send(post(&endpoint, &json!({"jsonrpc": "2.0", "id": id, "method": method}))).await;
            assert_eq!(r.status, 202);
            let m = next_message(&mut sse).await;
            assert_eq!(m["id"], id);
            assert_valid_result(REV, method, &m);
        }
        // A call with progress, a log and a sampling request, all on the one stream.
        assert_eq!(ts.send(post(&endpoint, &call_with_progress(4, "chatty", json!({})))).await.status, 202);
        let mut kinds = Vec::new();
        loop {
            let m = next_message(&mut sse).await;
            assert_valid(REV, &m);
            if m["method"] == "sampling/createMessage" {
                let reply = json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                    "role": "assistant", "content": {"type": "text", "text": "legacy"}, "model": "m"}});
                assert_eq!(ts.send(post(&endpoint, &reply)).await.status, 202);
            }
            let done = m["id"] == 4 && m.get("method").is_none();
            kinds.push(m["method"].as_str().unwrap_or("response").to_string());
            if done {
                assert_valid_result(REV, "tools/call", &m);
                assert_eq!(m["result"]["content"][0]["text"], "model said: legacy");
                break;
            }
        }
        assert_eq!(
            kinds,
            [
                "notifications/progress",
                "notifications/message",
                "sampling/createMessage",
                "notifications/progress",
                "response"
            ]
        );
        // Bad JSON: 400 with a parse error, and the stream goes on.
        let mut r = ts.send(post(&endpoint, &json!(null)).body(b"{oops".to_vec())).await;
        assert_eq!(r.status, 400);
        assert_eq!(r.json().await["error"]["code"], -32700);
        assert_eq!(ts.send(post(&endpoint, &json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}))).await.status, 202);
        assert_eq!(next_message(&mut sse).await["id"], 9);
    })
    .await;
}

#[tokio::test]
async fn legacy_unknown_or_missing_session() {
    bounded(async {
        let ts = TestServer::start(&test_server(), options()).await;
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        let mut r = ts.send(post("/messages?sessionId=0123456789abcdef0123456789abcdef", &ping)).await;
        assert_eq!(r.status, 404);
        assert_eq!(r.json().await["error"]["code"], -32001);
        assert_eq!(ts.send(post("/messages", &ping)).await.status, 400);
        // Other methods.
        let r = ts.send(Req::new("POST", "/sse").header("Content-Length", "0")).await;
        assert_eq!(r.status, 405);
        assert_eq!(r.header("allow"), Some("GET"));
        let r = ts.send(Req::new("GET", "/messages")).await;
        assert_eq!(r.status, 405);
        assert_eq!(r.header("allow"), Some("POST"));
        // Wrong content type.
        let (_sse, endpoint) = open(&ts).await;
        let r = ts.send(post(&endpoint, &ping).set_header("Content-Type", Some("text/plain"))).await;
        assert_eq!(r.status, 415);
        // Disabled.
        let ts = TestServer::start(&test_server(), HttpOptions { legacy_sse: false, ..options() }).await;
        assert_eq!(ts.send(Req::new("GET", "/sse").header("Accept", "text/event-stream")).await.status, 404);
    })
    .await;
}

#[tokio::test]
async fn dropping_the_sse_connection_ends_the_session() {
    bounded(async {
        let ts = TestServer::start(&test_server(), options()).await;
        let mut opened = Vec::new();
        for _ in 0..5 {
            opened.push(open(&ts).await);
        }
        assert_eq!(ts.service.session_count(), 5);
        // A slow call in one session: dropping its stream cancels it.
        let (mut sse, endpoint) = opened.pop().unwrap();
        ts.send(post(&endpoint, &initialize_request(REV, 1))).await;
        next_message(&mut sse).await;
        ts.send(post(&endpoint, &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))).await;
        assert_eq!(ts.send(post(&endpoint, &call(2, "slow", json!({"ms": 10_000})))).await.status, 202);
        eventually("the call starts", Duration::from_secs(2), || ts.service.in_flight() == 1).await;
        drop(sse);
        eventually("the session ends", Duration::from_secs(2), || ts.service.session_count() == 4).await;
        assert_eq!(ts.service.in_flight(), 0, "its call was cancelled");
        let r = ts.send(post(&endpoint, &json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))).await;
        assert_eq!(r.status, 404);
        drop(opened);
        eventually("every session ends", Duration::from_secs(2), || ts.service.session_count() == 0).await;
    })
    .await;
}

#[tokio::test]
async fn legacy_keep_alive_pings() {
    bounded(async {
        let o = HttpOptions { keep_alive: Some(Duration::from_millis(100)), ..options() };
        let ts = TestServer::start(&test_server(), o).await;
        let (mut sse, _) = open(&ts).await;
        let start = tokio::time::Instant::now();
        for _ in 0..3 {
            let ev = sse.event().await.expect("a ping");
            assert_eq!(ev.comments, ["ping"], "{ev:?}");
            assert!(!ev.is_message());
        }
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(250) && took < Duration::from_secs(2), "{took:?}");
    })
    .await;
}
