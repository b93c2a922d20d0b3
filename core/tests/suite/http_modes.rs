//! The two modes: stateless (no sessions: every POST stands alone; GET and DELETE are 405)
//! and json_response (never SSE: a call's progress goes to the GET stream when one is open).

use crate::common;
use crate::http_util;

use common::*;
use http_util::*;
use hypermcp::http::{HttpOptions, InMemoryEventStore};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

fn stateless() -> HttpOptions {
    HttpOptions { stateless: true, ..options() }
}

#[tokio::test]
async fn stateless_serves_calls_without_sessions() {
    bounded(async {
        let store = Arc::new(InMemoryEventStore::new(16));
        let ts = TestServer::start(&test_server(), HttpOptions { event_store: store.clone(), ..stateless() }).await;
        // initialize answers, but opens no session.
        let mut r = ts.send(Req::post(&initialize_request("2025-11-25", 1))).await;
        assert_eq!(r.status, 200);
        assert!(r.header("mcp-session-id").is_none(), "{r:?}");
        assert_valid_result("2025-11-25", "initialize", &r.json().await);
        // A call with no initialize before it, with and without a version header.
        for (rev, header) in
            [("2025-06-18", Some("2025-06-18")), ("2025-11-25", Some("2025-11-25")), ("2025-03-26", None)]
        {
            let req = Req::post(&call(2, "echo", json!({"text": "hi"}))).set_header("MCP-Protocol-Version", header);
            let mut r = ts.send(req).await;
            assert_eq!(r.status, 200);
            assert!(r.header("mcp-session-id").is_none());
            assert_eq!(r.content_type(), "application/json");
            let m = r.json().await;
            assert_valid_result(rev, "tools/call", &m);
            assert_eq!(m["result"]["content"][0]["text"], "hi");
        }
        // A session header is ignored.
        let req = Req::post(&call(3, "echo", json!({"text": "x"}))).header("Mcp-Session-Id", "whatever");
        assert_eq!(ts.send(req).await.status, 200);
        // Lists, ping.
        let a =
            read_answer(ts.send(Req::post(&json!({"jsonrpc": "2.0", "id": 4, "method": "tools/list"}))).await).await;
        assert_valid_result("2025-03-26", "tools/list", a.response(4));
        // A slow call: SSE with no event ids (nothing to resume without a session).
        let req = Req::post(&call_with_progress(5, "progress_slow", json!({"ms": 150})))
            .header("MCP-Protocol-Version", "2025-11-25");
        let a = read_answer(ts.send(req).await).await;
        assert!(a.sse);
        assert!(a.events.iter().all(|e| e.id.is_none()), "{:?}", a.events);
        assert_eq!(a.messages.len(), 2);
        assert_eq!(a.response(5)["result"]["content"][0]["text"], "finished");
        // Notifications: 202.
        let r = ts.send(Req::post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))).await;
        assert_eq!(r.status, 202);
        // GET and DELETE: 405 with Allow.
        for req in [Req::get(), Req::new("DELETE", "/mcp")] {
            let mut r = ts.send(req).await;
            assert_eq!(r.status, 405);
            assert_eq!(r.header("allow"), Some("POST"));
            assert_eq!(r.json().await["error"]["code"], -32000);
        }
        // The legacy endpoints do not exist without sessions.
        assert_eq!(ts.send(Req::new("GET", "/sse").header("Accept", "text/event-stream")).await.status, 404);
        // Nothing is kept.
        assert_eq!(ts.service.session_count(), 0);
        assert_eq!(ts.service.in_flight(), 0);
        assert!(store.is_empty());
    })
    .await;
}

#[tokio::test]
async fn stateless_calls_run_concurrently_and_a_dropped_one_is_cleaned_up() {
    bounded(async {
        let ts = TestServer::start(&test_server(), stateless()).await;
        let tasks: Vec<_> = (0..10)
            .map(|id| {
                let addr = ts.addr;
                tokio::spawn(async move {
                    let mut c = Conn::connect(addr).await;
                    c.send(&Req::post(&call(id, "slow", json!({"ms": 100})))).await;
                    read_answer(c.response().await).await
                })
            })
            .collect();
        for (id, t) in tasks.into_iter().enumerate() {
            assert_eq!(t.await.unwrap().response(id as i64)["result"]["content"][0]["text"], "done");
        }
        // A client that leaves: its call is cancelled with its (single-request) session.
        let mut r = ts.send(Req::post(&call(1, "slow", json!({"ms": 10_000})))).await;
        assert!(r.is_sse());
        assert_eq!(ts.service.in_flight(), 1, "a stateless call in progress counts");
        drop(r.event_within(Duration::from_millis(10)).await);
        drop(r);
        eventually("the abandoned call ends", Duration::from_secs(3), || ts.service.in_flight() == 0).await;
        assert_eq!(ts.service.session_count(), 0);
    })
    .await;
}

#[tokio::test]
async fn json_response_never_streams() {
    bounded(async {
        let ts = TestServer::start(&test_server(), HttpOptions { json_response: true, ..options() }).await;
        let s = initialize(&ts, "2025-11-25").await;
        // A slow call: still one JSON body.
        let mut r = ts.send(Req::post(&call(1, "slow", json!({"ms": 200}))).session(&s)).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.content_type(), "application/json");
        assert_eq!(r.header("mcp-session-id"), Some(s.id.as_str()));
        let m = r.json().await;
        assert_valid_result("2025-11-25", "tools/call", &m);
        assert_eq!(m["result"]["content"][0]["text"], "done");

        // A call's progress goes to the GET stream when one is open.
        let mut g = ts.send(Req::get().session(&s)).await;
        assert_eq!(g.status, 200);
        assert!(g.is_sse(), "GET still streams");
        let mut r = ts.send(Req::post(&call_with_progress(2, "progress_slow", json!({"ms": 100}))).session(&s)).await;
        assert_eq!(r.content_type(), "application/json");
        let m = r.json().await;
        assert_eq!(m["id"], 2);
        assert_eq!(m["result"]["content"][0]["text"], "finished");
        let p = g.message().await.expect("progress on the GET stream").json();
        assert_valid("2025-11-25", &p);
        assert_eq!(p["method"], "notifications/progress");
        assert_eq!(p["params"]["progressToken"], 2);

        // A call that asks the client something: the request comes on the GET stream, the
        // answer is POSTed, the result comes as JSON.
        let addr = ts.addr;
        let req = Req::post(&call_with_progress(3, "chatty", json!({}))).session(&s);
        let pending = tokio::spawn(async move {
            let mut c = Conn::connect(addr).await;
            c.send(&req).await;
            let mut r = c.response().await;
            (r.content_type().to_string(), r.json().await)
        });
        loop {
            let m = g.message().await.expect("chatty's messages").json();
            assert_valid("2025-11-25", &m);
            if m["method"] == "sampling/createMessage" {
                let reply = json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                    "role": "assistant", "content": {"type": "text", "text": "ok"}, "model": "m"}});
                assert_eq!(ts.send(Req::post(&reply).session(&s)).await.status, 202);
                break;
            }
        }
        let (ct, m) = pending.await.unwrap();
        assert_eq!(ct, "application/json");
        assert_eq!(m["result"]["content"][0]["text"], "model said: ok");
        // close_sse_stream has nothing to close: the answer still comes as JSON.
        let mut r = ts.send(Req::post(&call(4, "poll", json!({"ms": 20}))).session(&s)).await;
        assert_eq!(r.content_type(), "application/json");
        assert_eq!(r.json().await["result"]["content"][0]["text"], "polled");
    })
    .await;
}

#[tokio::test]
async fn json_response_call_of_a_deleted_session_is_answered() {
    bounded(async {
        let ts = TestServer::start(&test_server(), HttpOptions { json_response: true, ..options() }).await;
        let s = initialize(&ts, "2025-11-25").await;
        let req = Req::post(&call(1, "slow", json!({"ms": 10_000}))).session(&s);
        let addr = ts.addr;
        let pending = tokio::spawn(async move {
            let mut c = Conn::connect(addr).await;
            c.send(&req).await;
            let mut r = c.response().await;
            (r.status, r.body().await)
        });
        eventually("the call starts", Duration::from_secs(2), || ts.service.in_flight() == 1).await;
        assert_eq!(ts.send(Req::new("DELETE", "/mcp").session(&s)).await.status, 200);
        let (status, body) = bounded_for(Duration::from_secs(3), pending).await.unwrap();
        assert_eq!(status, 404, "{}", String::from_utf8_lossy(&body));
        assert_eq!(ts.service.in_flight(), 0);
    })
    .await;
}
