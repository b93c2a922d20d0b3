//! Where the server's messages go: a call's progress, logs and requests to the client on
//! its own POST stream before its result; standalone notifications on the GET stream (kept
//! in a backlog while none is open); concurrent calls; JSON vs SSE replies with or without
//! a priming event; batches.

use crate::common;
use crate::http_util;

use common::*;
use http_util::*;
use hypermcp::http::HttpOptions;
use hypermcp::{CallToolResult, Tool};
use serde_json::{json, Value};
use std::time::Duration;

/// Validates every message of an answer against `rev`, with `method` for the response.
fn validate(rev: &str, a: &Answer, id: i64, method: &str) {
    for m in &a.messages {
        if m.get("id") == Some(&json!(id)) && m.get("method").is_none() {
            assert_valid_result(rev, method, m);
        } else {
            assert_valid(rev, m);
        }
    }
}

#[tokio::test]
async fn a_call_streams_its_progress_logs_and_requests_before_its_result() {
    bounded(async {
        let ts = TestServer::start(&test_server(), options()).await;
        for rev in ["2025-03-26", "2025-06-18", "2025-11-25"] {
            let s = initialize(&ts, rev).await;
            let mut r = ts.send(Req::post(&call_with_progress(10, "chatty", json!({}))).session(&s)).await;
            assert_eq!(r.status, 200);
            assert!(r.is_sse(), "{r:?}");
            assert_eq!(r.header("x-accel-buffering"), Some("no"));
            assert_eq!(r.header("mcp-session-id"), Some(s.id.as_str()));
            let mut seen = Vec::new();
            let mut events = Vec::new();
            let mut answered = false;
            while let Some(ev) = r.event().await {
                events.push(ev.clone());
                if !ev.is_message() {
                    continue;
                }
                let m = ev.json();
                assert_valid(rev, &m);
                if m["method"] == "sampling/createMessage" {
                    assert_valid(rev, &m);
                    // Answer the sampling request with a POST of the response.
                    let reply = json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                        "role": "assistant", "content": {"type": "text", "text": "bonjour"}, "model": "test-model"
                    }});
                    let mut p = ts.send(Req::post(&reply).session(&s)).await;
                    assert_eq!(p.status, 202, "a response POST is accepted");
                    assert!(p.body().await.is_empty());
                    answered = true;
                }
                seen.push(m);
            }
            assert!(answered, "{rev}: the sampling request arrived on the call's stream");
            let kinds: Vec<String> = seen
                .iter()
                .map(|m| m["method"].as_str().map(str::to_string).unwrap_or_else(|| "response".into()))
                .collect();
            assert_eq!(
                kinds,
                [
                    "notifications/progress",
                    "notifications/message",
                    "sampling/createMessage",
                    "notifications/progress",
                    "response"
                ],
                "{rev}"
            );
            let last = seen.last().unwrap();
            assert_valid_result(rev, "tools/call", last);
            assert_eq!(last["id"], 10);
            assert_eq!(last["result"]["content"][0]["text"], "model said: bonjour");
            assert_eq!(seen[0]["params"]["progressToken"], 10);
            // Event ids (2025-11-25 adds a priming event `<stream>-0` with `retry`).
            let ids: Vec<&str> = events.iter().filter_map(|e| e.id.as_deref()).collect();
            assert!(ids.iter().all(|id| id.split_once('-').is_some()), "{ids:?}");
            let primed = events[0].id.as_deref().is_some_and(|id| id.ends_with("-0")) && events[0].retry.is_some();
            assert_eq!(primed, rev == "2025-11-25", "{rev}: {:?}", events[0]);
        }
    })
    .await;
}

#[tokio::test]
async fn standalone_notifications_go_to_the_get_stream_or_wait_in_the_backlog() {
    bounded(async {
        let server = test_server();
        let ts = TestServer::start(&server, options()).await;
        let s = initialize(&ts, "2025-11-25").await;
        let add = |name: &str| {
            server.add_tool(Tool::new(name), |_a, _c| async move { CallToolResult::text("new") }).expect("add_tool")
        };
        // No GET stream: the notification waits.
        add("first");
        let mut g = ts.send(Req::get().session(&s)).await;
        assert_eq!(g.status, 200);
        assert!(g.is_sse());
        assert_eq!(g.header("x-accel-buffering"), Some("no"));
        assert_eq!(g.header("mcp-session-id"), Some(s.id.as_str()));
        let m = g.message().await.expect("the backlog is delivered").json();
        assert_eq!(m["method"], "notifications/tools/list_changed");
        assert_valid("2025-11-25", &m);
        // With the stream open: at once.
        add("second");
        let m = g.message().await.expect("a live notification").json();
        assert_eq!(m["method"], "notifications/tools/list_changed");
        // Not on a POST reply.
        let a = rpc(&ts, &s, &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})).await;
        assert_eq!(a.messages.len(), 1);
        let names: Vec<&str> =
            a.response(2)["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert!(names.contains(&"first") && names.contains(&"second"), "{names:?}");
        // Only one GET stream at a time.
        let r = ts.send(Req::get().session(&s)).await;
        assert_eq!(r.status, 409);
        // Close it; changes wait again, in order, for the next GET stream.
        drop(g);
        tokio::time::sleep(Duration::from_millis(20)).await;
        server.remove_tool("first");
        add("third");
        let mut g = ts.send(Req::get().session(&s)).await;
        assert_eq!(g.status, 200, "{g:?}");
        for _ in 0..2 {
            let m = g.message().await.expect("backlog").json();
            assert_eq!(m["method"], "notifications/tools/list_changed");
        }
        assert!(g.event_within(Duration::from_millis(100)).await.is_err(), "nothing else is pending");
    })
    .await;
}

#[tokio::test]
async fn the_backlog_is_bounded() {
    bounded(async {
        let server = test_server();
        let ts = TestServer::start(&server, HttpOptions { backlog: 3, ..options() }).await;
        let s = initialize(&ts, "2025-11-25").await;
        for i in 0..10 {
            server.add_tool(Tool::new(format!("t{i}")), |_a, _c| async move { CallToolResult::text("x") }).unwrap();
        }
        let mut g = ts.send(Req::get().session(&s)).await;
        for _ in 0..3 {
            assert!(g.message().await.is_some());
        }
        assert!(g.event_within(Duration::from_millis(100)).await.is_err(), "only the last 3 were kept");
    })
    .await;
}

#[tokio::test]
async fn concurrent_posts_in_one_session_are_all_answered() {
    bounded(async {
        let ts = TestServer::start(&test_server(), options()).await;
        let s = initialize(&ts, "2025-11-25").await;
        let posts = [
            call(1, "slow", json!({"ms": 300})),
            call(2, "echo", json!({"text": "fast"})),
            call_with_progress(3, "progress_slow", json!({"ms": 150})),
        ];
        let tasks: Vec<_> = posts
            .iter()
            .map(|p| {
                let req = Req::post(p).session(&s);
                let addr = ts.addr;
                tokio::spawn(async move {
                    let mut c = Conn::connect(addr).await;
                    c.send(&req).await;
                    read_answer(c.response().await).await
                })
            })
            .collect();
        let mut answers = Vec::new();
        for t in tasks {
            answers.push(t.await.unwrap());
        }
        assert_eq!(answers[0].response(1)["result"]["content"][0]["text"], "done");
        assert_eq!(answers[1].response(2)["result"]["content"][0]["text"], "fast");
        assert_eq!(answers[2].response(3)["result"]["content"][0]["text"], "finished");
        // Each answer came on its own POST and nowhere else.
        for (a, id) in answers.iter().zip([1, 2, 3]) {
            assert!(a.messages.iter().filter(|m| m.get("result").is_some()).all(|m| m["id"] == id), "{a:?}");
            validate("2025-11-25", a, id, "tools/call");
        }
        assert_eq!(answers[2].messages.len(), 2, "progress, then the result");
        // 20 more, all at once.
        let tasks: Vec<_> = (100..120)
            .map(|id| {
                let req = Req::post(&call(id, "slow", json!({"ms": 50}))).session(&s);
                let addr = ts.addr;
                tokio::spawn(async move {
                    let mut c = Conn::connect(addr).await;
                    c.send(&req).await;
                    (id, read_answer(c.response().await).await)
                })
            })
            .collect();
        for t in tasks {
            let (id, a) = t.await.unwrap();
            assert_eq!(a.response(id)["result"]["content"][0]["text"], "done");
        }
        assert_eq!(ts.service.in_flight(), 0);
    })
    .await;
}

#[tokio::test]
async fn fast_calls_get_json_slow_ones_sse_primed_from_2025_11_25() {
    bounded(async {
        let ts = TestServer::start(&test_server(), options()).await;
        for rev in ["2025-03-26", "2025-06-18", "2025-11-25"] {
            let s = initialize(&ts, rev).await;
            // Fast: one JSON body.
            let mut r = ts.send(Req::post(&call(1, "echo", json!({"text": "hi"}))).session(&s)).await;
            assert_eq!(r.status, 200);
            assert_eq!(r.content_type(), "application/json", "{rev}");
            assert_eq!(r.header("mcp-session-id"), Some(s.id.as_str()));
            let m = r.json().await;
            assert_valid_result(rev, "tools/call", &m);
            assert_eq!(m["result"]["content"][0]["text"], "hi");
            // Slow (longer than json_wait): SSE.
            let mut r = ts.send(Req::post(&call(2, "slow", json!({"ms": 200}))).session(&s)).await;
            assert_eq!(r.status, 200);
            assert_eq!(r.content_type(), "text/event-stream", "{rev}");
            assert_eq!(r.header("x-accel-buffering"), Some("no"));
            assert!(r.header("cache-control").is_some_and(|c| c.contains("no-cache")));
            let first = r.event().await.expect("an event");
            if rev == "2025-11-25" {
                let id = first.id.as_deref().expect("priming event id");
                assert!(id.ends_with("-0"), "{id}");
                assert_eq!(first.retry, Some(1000));
                assert_eq!(first.data.as_deref(), Some(""), "empty data");
                let m = r.message().await.expect("the answer").json();
                assert_valid_result(rev, "tools/call", &m);
                assert_eq!(m["result"]["content"][0]["text"], "done");
            } else {
                assert!(first.is_message(), "{rev}: no priming event: {first:?}");
                assert!(first.retry.is_none());
                let m = first.json();
                assert_valid_result(rev, "tools/call", &m);
                assert_eq!(m["result"]["content"][0]["text"], "done");
            }
            assert!(r.event().await.is_none(), "the stream ends after the answer");
            // What the engine answers by itself is JSON too.
            let a = rpc(&ts, &s, &json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"})).await;
            assert!(!a.sse);
            validate(rev, &a, 3, "tools/list");
            // An unknown tool: a JSON error result.
            let a = rpc(&ts, &s, &call(4, "nope", json!({}))).await;
            assert!(!a.sse);
            assert_valid(rev, a.response(4));
        }
    })
    .await;
}

#[tokio::test]
async fn a_2025_03_26_batch_gets_one_batch_answer() {
    bounded(async {
        let ts = TestServer::start(&test_server(), options()).await;
        let s = initialize(&ts, "2025-03-26").await;
        let batch = json!([
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            call(2, "echo", json!({"text": "a"})),
            call(3, "slow", json!({"ms": 150})),
            {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
            {"jsonrpc": "2.0", "id": 4, "method": "no/such/method"},
            {"bad": true},
        ]);
        let r = ts.send(Req::post(&batch).session(&s)).await;
        assert_eq!(r.status, 200);
        let a = read_answer(r).await;
        let answers: Vec<&Value> = a.messages.iter().collect();
        assert_eq!(answers.len(), 1, "one batch answer: {answers:?}");
        let items = answers[0].as_array().expect("a batch");
        assert_eq!(items.len(), 5, "{items:?}");
        assert_valid("2025-03-26", answers[0]);
        let by_id = |id: i64| items.iter().find(|m| m["id"] == id).unwrap_or_else(|| panic!("{id}: {items:?}"));
        assert_eq!(by_id(2)["result"]["content"][0]["text"], "a");
        assert_eq!(by_id(3)["result"]["content"][0]["text"], "done");
        assert_eq!(by_id(4)["error"]["code"], -32601);
        assert!(items.iter().any(|m| m["id"].is_null() && m["error"]["code"] == -32600));

        // A fast batch: one JSON array body.
        let batch = json!([{"jsonrpc": "2.0", "id": 7, "method": "ping"}, call(8, "echo", json!({"text": "b"}))]);
        let mut r = ts.send(Req::post(&batch).session(&s)).await;
        assert_eq!(r.content_type(), "application/json");
        let body = r.json().await;
        assert_eq!(body.as_array().map(Vec::len), Some(2), "{body}");
        // A batch of notifications only: 202.
        let batch = json!([{"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}]);
        assert_eq!(ts.send(Req::post(&batch).session(&s)).await.status, 202);
        // Many batches with calls leave nothing behind.
        for i in 0..20 {
            let batch = json!([
                call(100 + 2 * i, "echo", json!({"text": "x"})),
                call(101 + 2 * i, "echo", json!({"text": "y"}))
            ]);
            let a = read_answer(ts.send(Req::post(&batch).session(&s)).await).await;
            assert_eq!(a.messages[0].as_array().map(Vec::len), Some(2));
        }
        assert_eq!(ts.service.in_flight(), 0);

        // A later revision refuses batches.
        let s = initialize(&ts, "2025-06-18").await;
        let batch = json!([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]);
        let a = read_answer(ts.send(Req::post(&batch).session(&s)).await).await;
        assert_eq!(a.messages[0]["error"]["code"], -32600, "{a:?}");
    })
    .await;
}

#[tokio::test]
async fn cors_when_enabled_answers_preflights_and_exposes_the_mcp_headers() {
    bounded(async {
        let origin = "http://localhost:5173";
        // Off (the default): no CORS headers, OPTIONS is not allowed.
        let ts = TestServer::start(&test_server(), options()).await;
        let r = ts.send(Req::new("OPTIONS", "/mcp").header("Origin", origin)).await;
        assert_eq!(r.status, 405);
        let r = ts.send(Req::post(&initialize_request("2025-11-25", 1)).header("Origin", origin)).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.header("access-control-allow-origin"), None);

        let ts = TestServer::start(&test_server(), HttpOptions { cors: true, ..options() }).await;
        let r = ts
            .send(
                Req::new("OPTIONS", "/mcp")
                    .header("Origin", origin)
                    .header("Access-Control-Request-Method", "POST")
                    .header("Access-Control-Request-Headers", "content-type, mcp-protocol-version, mcp-param-region"),
            )
            .await;
        assert_eq!(r.status, 204);
        assert_eq!(r.header("access-control-allow-origin"), Some(origin));
        assert!(r.header("access-control-allow-methods").is_some_and(|m| m.contains("POST") && m.contains("DELETE")));
        let allowed = r.header("access-control-allow-headers").unwrap_or_default().to_ascii_lowercase();
        for h in ["authorization", "mcp-session-id", "mcp-protocol-version", "last-event-id", "mcp-param-region"] {
            assert!(allowed.contains(h), "{h} in {allowed}");
        }
        let r = ts.send(Req::post(&initialize_request("2025-11-25", 1)).header("Origin", origin)).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.header("access-control-allow-origin"), Some(origin));
        let exposed = r.header("access-control-expose-headers").unwrap_or_default();
        assert!(exposed.contains("Mcp-Session-Id") && exposed.contains("WWW-Authenticate"), "{exposed}");
        // An origin the DNS-rebinding check refuses gets no CORS answer, only the refusal.
        let r = ts.send(Req::new("OPTIONS", "/mcp").header("Origin", "http://evil.example.com")).await;
        assert_eq!(r.status, 403);
        assert_eq!(r.header("access-control-allow-origin"), None);
        // Without Origin (not a browser) nothing changes.
        let r = ts.send(Req::post(&initialize_request("2025-11-25", 2))).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.header("access-control-allow-origin"), None);
    })
    .await;
}
