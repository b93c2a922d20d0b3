//! Sessions of the Streamable HTTP server: unguessable ids, DELETE, idle expiry, the
//! `max_sessions` cap (evicting the longest-idle session, 503 when all are busy).

use crate::common;
use crate::http_util;

use common::*;
use http_util::*;
use hypermcp::http::HttpOptions;
use serde_json::json;
use std::collections::HashSet;
use std::time::Duration;

const REV: &str = "2025-11-25";

async fn ping_status(ts: &TestServer, s: &McpSession) -> u16 {
    let a = rpc(ts, s, &json!({"jsonrpc": "2.0", "id": 5, "method": "ping"})).await;
    if a.status == 200 {
        assert_valid_result(REV, "ping", a.response(5));
    } else {
        assert_valid(REV, &a.messages[0]);
    }
    a.status
}

#[tokio::test]
async fn initialize_gives_an_unguessable_session_id() {
    bounded(async {
        let ts = TestServer::start(&test_server(), options()).await;
        let mut seen = HashSet::new();
        for _ in 0..50 {
            let mut r = ts.send(Req::post(&initialize_request(REV, 1))).await;
            assert_eq!(r.status, 200);
            let id = r.header("mcp-session-id").expect("Mcp-Session-Id").to_string();
            assert_eq!(id.len(), 32, "{id}");
            assert!(id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()), "{id}");
            let body = r.json().await;
            assert_valid_result(REV, "initialize", &body);
            assert!(seen.insert(id), "session ids repeat");
        }
        // 128 random bits: no two ids share even their first 8 hex digits (2^-32 per pair).
        let prefixes: HashSet<&str> = seen.iter().map(|s| &s[..8]).collect();
        assert_eq!(prefixes.len(), seen.len());
        assert_eq!(ts.service.session_count(), 50);

        // A failed initialize opens no session and gives no id.
        let bad = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 5}});
        let mut r = ts.send(Req::post(&bad)).await;
        assert_eq!(r.status, 200);
        assert!(r.header("mcp-session-id").is_none(), "{r:?}");
        assert_eq!(r.json().await["error"]["code"], -32602);
        assert_eq!(ts.service.session_count(), 50);
    })
    .await;
}

#[tokio::test]
async fn delete_ends_the_session() {
    bounded(async {
        let ts = TestServer::start(&test_server(), options()).await;
        let s = initialize(&ts, REV).await;
        let other = initialize(&ts, REV).await;
        // An open GET stream ends when its session is deleted.
        let mut g = ts.send(Req::get().session(&s)).await;
        assert_eq!(g.status, 200);
        assert_eq!(ping_status(&ts, &s).await, 200);
        let mut r = ts.send(Req::new("DELETE", "/mcp").session(&s)).await;
        assert_eq!(r.status, 200, "{r:?}");
        let _ = r.body().await;
        assert_eq!(ping_status(&ts, &s).await, 404);
        let r = ts.send(Req::new("DELETE", "/mcp").session(&s)).await;
        assert_eq!(r.status, 404);
        let r = ts.send(Req::get().session(&s)).await;
        assert_eq!(r.status, 404);
        // The stream ended (comments aside).
        loop {
            match g.event().await {
                None => break,
                Some(ev) => assert!(!ev.is_message(), "{ev:?}"),
            }
        }
        assert_eq!(ts.service.session_count(), 1);
        assert_eq!(ping_status(&ts, &other).await, 200);
        // DELETE without a session id is a 400.
        assert_eq!(ts.send(Req::new("DELETE", "/mcp")).await.status, 400);
    })
    .await;
}

#[tokio::test]
async fn delete_during_a_call_cancels_it_and_ends_its_stream() {
    bounded(async {
        let ts = TestServer::start(&test_server(), options()).await;
        let s = initialize(&ts, REV).await;
        let mut r = ts.send(Req::post(&call(3, "slow", json!({"ms": 5000}))).session(&s)).await;
        assert!(r.is_sse());
        assert_eq!(ts.service.in_flight(), 1);
        let d = ts.send(Req::new("DELETE", "/mcp").session(&s)).await;
        assert_eq!(d.status, 200);
        // The call's stream ends without an answer; nothing is left running.
        while let Some(ev) = r.event().await {
            assert!(!ev.is_message(), "{ev:?}");
        }
        assert_eq!(ts.service.in_flight(), 0);
        assert_eq!(ts.service.session_count(), 0);
    })
    .await;
}

#[tokio::test]
async fn idle_sessions_expire() {
    bounded(async {
        let o = HttpOptions { session_idle_timeout: Duration::from_millis(200), ..options() };
        let ts = TestServer::start(&test_server(), o).await;
        let idle: Vec<McpSession> = futures_join(&ts, 5).await;
        let streaming = initialize(&ts, REV).await;
        let mut g = ts.send(Req::get().session(&streaming)).await;
        assert_eq!(g.status, 200);
        let active = initialize(&ts, REV).await;
        assert_eq!(ts.service.session_count(), 7);
        // `active` keeps sending; `streaming` keeps its GET stream open.
        let start = tokio::time::Instant::now();
        while start.elapsed() < Duration::from_millis(600) {
            assert_eq!(ping_status(&ts, &active).await, 200);
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
        assert_eq!(ts.service.session_count(), 2, "only the idle sessions expired");
        for s in &idle {
            assert_eq!(ping_status(&ts, s).await, 404);
        }
        assert_eq!(ping_status(&ts, &streaming).await, 200);
        // Once its stream closes, `streaming` expires too.
        drop(g.event_within(Duration::from_millis(1)).await);
        drop(g);
        let start = tokio::time::Instant::now();
        while ts.service.session_count() > 1 {
            assert!(start.elapsed() < Duration::from_secs(3), "the streaming session never expired");
            assert_eq!(ping_status(&ts, &active).await, 200);
            tokio::time::sleep(Duration::from_millis(40)).await;
        }
        assert_eq!(ping_status(&ts, &streaming).await, 404);
        assert_eq!(ping_status(&ts, &active).await, 200);
        // A session with a call in progress is not idle.
        let s = initialize(&ts, REV).await;
        let a = rpc(&ts, &s, &call(1, "slow", json!({"ms": 500}))).await;
        assert_eq!(a.response(1)["result"]["content"][0]["text"], "done");
        assert_eq!(ping_status(&ts, &s).await, 200);
    })
    .await;
}

async fn futures_join(ts: &TestServer, n: usize) -> Vec<McpSession> {
    let mut v = Vec::new();
    for _ in 0..n {
        v.push(initialize(ts, REV).await);
    }
    v
}

#[tokio::test]
async fn max_sessions_evicts_the_longest_idle() {
    bounded(async {
        let ts = TestServer::start(&test_server(), HttpOptions { max_sessions: 3, ..options() }).await;
        let s1 = initialize(&ts, REV).await;
        tokio::time::sleep(Duration::from_millis(5)).await;
        let s2 = initialize(&ts, REV).await;
        tokio::time::sleep(Duration::from_millis(5)).await;
        let s3 = initialize(&ts, REV).await;
        tokio::time::sleep(Duration::from_millis(5)).await;
        // s1 becomes the most recently used: s2 is now the longest idle.
        assert_eq!(ping_status(&ts, &s1).await, 200);
        tokio::time::sleep(Duration::from_millis(5)).await;
        let s4 = initialize(&ts, REV).await;
        assert_eq!(ts.service.session_count(), 3);
        assert_eq!(ping_status(&ts, &s2).await, 404, "the longest-idle session was evicted");
        for s in [&s1, &s3, &s4] {
            assert_eq!(ping_status(&ts, s).await, 200);
        }
        // Many more: the count never exceeds the cap.
        for _ in 0..10 {
            initialize(&ts, REV).await;
            assert_eq!(ts.service.session_count(), 3);
        }
    })
    .await;
}

#[tokio::test]
async fn max_sessions_all_busy_is_503() {
    bounded(async {
        let ts = TestServer::start(&test_server(), HttpOptions { max_sessions: 3, ..options() }).await;
        let mut streams = Vec::new();
        let mut sessions = Vec::new();
        for _ in 0..3 {
            let s = initialize(&ts, REV).await;
            let g = ts.send(Req::get().session(&s)).await;
            assert_eq!(g.status, 200);
            streams.push(g);
            sessions.push(s);
        }
        let mut r = ts.send(Req::post(&initialize_request(REV, 1))).await;
        assert_eq!(r.status, 503, "{r:?}");
        let body = r.json().await;
        assert_valid(REV, &body);
        assert_eq!(body["error"]["code"], -32000);
        assert_eq!(ts.service.session_count(), 3);
        // The legacy transport is refused too.
        let r = ts.send(Req::new("GET", "/sse").header("Accept", "text/event-stream")).await;
        assert_eq!(r.status, 503);
        for s in &sessions {
            assert_eq!(ping_status(&ts, s).await, 200, "nobody was evicted");
        }
        // A call in progress also makes a session busy.
        streams.remove(0);
        let mut slow = ts.send(Req::post(&call(1, "slow", json!({"ms": 400}))).session(&sessions[0])).await;
        assert!(slow.is_sse());
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(ts.send(Req::post(&initialize_request(REV, 1))).await.status, 503);
        // Once it is done, that session is the one evicted.
        while slow.event().await.is_some() {}
        tokio::time::sleep(Duration::from_millis(20)).await;
        let fresh = initialize(&ts, REV).await;
        assert_eq!(ts.service.session_count(), 3);
        assert_eq!(ping_status(&ts, &sessions[0]).await, 404);
        assert_eq!(ping_status(&ts, &fresh).await, 200);
    })
    .await;
}

#[tokio::test]
async fn delete_racing_calls_never_hangs_a_request() {
    bounded(async {
        let ts = TestServer::start(&test_server(), options()).await;
        for round in 0..20u64 {
            let s = initialize(&ts, REV).await;
            let mut tasks = Vec::new();
            for i in 0..8i64 {
                let msg = match i % 4 {
                    0 => call(i, "echo", json!({"text": "x"})),
                    1 => call(i, "slow", json!({"ms": (round * 3 + i as u64) % 25})),
                    2 => call_with_progress(i, "progress_slow", json!({"ms": 10})),
                    _ => json!({"jsonrpc": "2.0", "id": i, "method": "tools/list"}),
                };
                let req = Req::post(&msg).session(&s);
                let addr = ts.addr;
                tasks.push(tokio::spawn(async move {
                    let mut c = Conn::connect(addr).await;
                    c.send(&req).await;
                    read_answer(c.response().await).await
                }));
            }
            tokio::time::sleep(Duration::from_millis(round % 7)).await;
            let d = ts.send(Req::new("DELETE", "/mcp").session(&s)).await;
            assert_eq!(d.status, 200);
            for t in tasks {
                // Every request ends: answered, cut short (stream ended), or 404.
                let a = bounded_for(Duration::from_secs(5), t).await.expect("join");
                assert!(a.status == 200 || a.status == 404, "{a:?}");
                for m in &a.messages {
                    assert_valid(REV, m);
                }
            }
        }
        eventually("nothing runs", Duration::from_secs(3), || ts.service.in_flight() == 0).await;
        assert_eq!(ts.service.session_count(), 0);
    })
    .await;
}
