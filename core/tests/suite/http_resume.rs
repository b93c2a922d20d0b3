//! Resumable SSE streams: a client that lost a call's stream gets the rest with GET and
//! `Last-Event-ID`; a server-side close (`ctx.close_sse_stream()`) then resume; 409 for a
//! stream that is being read; the configured `EventStore` is what replays.

use crate::common;
use crate::http_util;

use bytes::Bytes;
use common::*;
use http_util::*;
use hypermcp::http::{EventStore, HttpOptions, InMemoryEventStore};
use hypermcp::{CallToolResult, Tool};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

const REV: &str = "2025-11-25";

/// An event store that counts its calls and delegates to the in-memory one.
#[derive(Default)]
struct Counting {
    inner: Option<InMemoryEventStore>,
    stores: AtomicUsize,
    replays: AtomicUsize,
    forgotten_streams: AtomicUsize,
    forgotten_sessions: AtomicUsize,
}

impl Counting {
    fn new() -> Arc<Counting> {
        Arc::new(Counting { inner: Some(InMemoryEventStore::new(64)), ..Default::default() })
    }
    fn mem(&self) -> &InMemoryEventStore {
        self.inner.as_ref().unwrap()
    }
}

impl EventStore for Counting {
    fn store(&self, session: &str, stream: u64, seq: u64, data: &Bytes) {
        self.stores.fetch_add(1, Ordering::SeqCst);
        self.mem().store(session, stream, seq, data)
    }
    fn replay(&self, session: &str, stream: u64, after: u64) -> Option<Vec<(u64, Bytes)>> {
        self.replays.fetch_add(1, Ordering::SeqCst);
        self.mem().replay(session, stream, after)
    }
    fn forget_stream(&self, session: &str, stream: u64) {
        self.forgotten_streams.fetch_add(1, Ordering::SeqCst);
        self.mem().forget_stream(session, stream)
    }
    fn forget_session(&self, session: &str) {
        self.forgotten_sessions.fetch_add(1, Ordering::SeqCst);
        self.mem().forget_session(session)
    }
}

async fn start(store: Arc<Counting>) -> TestServer {
    TestServer::start(&test_server(), HttpOptions { event_store: store, ..options() }).await
}

fn resume(s: &McpSession, last: &str) -> Req {
    Req::get().session(s).header("Last-Event-ID", last)
}

#[tokio::test]
async fn a_dropped_post_stream_is_resumed_with_last_event_id() {
    bounded(async {
        let store = Counting::new();
        let ts = start(store.clone()).await;
        let s = initialize(&ts, REV).await;
        let mut r = ts.send(Req::post(&call(1, "slow", json!({"ms": 300}))).session(&s)).await;
        assert!(r.is_sse());
        let prime = r.event().await.expect("priming event");
        let prime_id = prime.id.clone().expect("priming id");
        assert!(prime_id.ends_with("-0") && prime.retry.is_some(), "{prime:?}");
        drop(r); // the client loses the connection
                 // The call goes on (disconnection is no cancellation) and its answer is kept.
        eventually("the call finishes", Duration::from_secs(5), || ts.service.in_flight() == 0).await;
        let mut g = ts.send(resume(&s, &prime_id)).await;
        assert_eq!(g.status, 200, "{g:?}");
        assert!(g.is_sse());
        let ev = g.message().await.expect("the answer is replayed");
        let m = ev.json();
        assert_valid_result(REV, "tools/call", &m);
        assert_eq!(m["id"], 1);
        assert_eq!(m["result"]["content"][0]["text"], "done");
        let stream = prime_id.split('-').next().unwrap();
        assert_eq!(ev.id.as_deref(), Some(format!("{stream}-1").as_str()));
        assert!(g.event().await.is_none(), "the resumed stream ends after the answer");
        assert!(store.replays.load(Ordering::SeqCst) >= 1, "replayed through the EventStore");
        assert!(store.stores.load(Ordering::SeqCst) >= 1);
        // Delivered in full: forgotten, nothing held.
        eventually("the store forgets the stream", Duration::from_secs(2), || store.mem().is_empty()).await;
        assert!(store.forgotten_streams.load(Ordering::SeqCst) >= 1);
        // Resuming it again: the stream is gone, so this opens the standalone stream instead.
        let mut g = ts.send(resume(&s, &prime_id)).await;
        assert_eq!(g.status, 200);
        let fresh = g.event().await.expect("a priming event");
        assert!(!fresh.is_message());
        assert_ne!(fresh.id.as_deref().and_then(|i| i.split_once('-')).map(|p| p.0), Some(stream), "a new stream");
        assert!(g.event_within(Duration::from_millis(100)).await.is_err(), "no replay of a delivered stream");
    })
    .await;
}

#[tokio::test]
async fn resuming_mid_stream_replays_only_what_was_missed() {
    bounded(async {
        let store = Counting::new();
        let ts = start(store.clone()).await;
        let s = initialize(&ts, REV).await;
        let mut r = ts.send(Req::post(&call_with_progress(2, "progress_slow", json!({"ms": 300}))).session(&s)).await;
        assert!(r.is_sse());
        let progress = r.message().await.expect("progress");
        assert_eq!(progress.json()["method"], "notifications/progress");
        let last = progress.id.clone().expect("event id");
        drop(r);
        // Resume before the call ended: the stream goes on live.
        let mut g = ts.send(resume(&s, &last)).await;
        assert_eq!(g.status, 200);
        let m = g.message().await.expect("the answer").json();
        assert_eq!(m["id"], 2, "only the answer follows, not the progress again: {m}");
        assert_eq!(m["result"]["content"][0]["text"], "finished");
        assert!(g.event().await.is_none());
        eventually("the store is empty", Duration::from_secs(2), || store.mem().is_empty()).await;
    })
    .await;
}

#[tokio::test]
async fn close_sse_stream_then_resume() {
    bounded(async {
        let store = Counting::new();
        let ts = start(store.clone()).await;
        let s = initialize(&ts, REV).await;
        let mut r = ts.send(Req::post(&call_with_progress(3, "poll", json!({"ms": 300}))).session(&s)).await;
        assert!(r.is_sse(), "{r:?}");
        let mut events = Vec::new();
        while let Some(ev) = r.event().await {
            events.push(ev);
        }
        // Priming event, progress 1, a retry hint; then the server closed the connection.
        assert!(events[0].id.as_deref().is_some_and(|i| i.ends_with("-0")), "{events:?}");
        let messages: Vec<_> = events.iter().filter(|e| e.is_message()).collect();
        assert_eq!(messages.len(), 1, "{events:?}");
        assert_eq!(messages[0].json()["params"]["message"], "before");
        assert!(events.last().unwrap().retry.is_some(), "a retry hint before closing: {events:?}");
        let last = messages[0].id.clone().unwrap();
        assert_eq!(ts.service.in_flight(), 1, "the call goes on");
        // The client reconnects (at once: the rest is delivered live).
        let mut g = ts.send(resume(&s, &last)).await;
        assert_eq!(g.status, 200);
        let p = g.message().await.expect("progress 2").json();
        assert_eq!(p["params"]["message"], "after");
        let m = g.message().await.expect("the answer").json();
        assert_valid_result(REV, "tools/call", &m);
        assert_eq!(m["result"]["content"][0]["text"], "polled");
        assert!(g.event().await.is_none());

        // Reconnecting late (after the call finished) replays the rest from the store.
        let mut r = ts.send(Req::post(&call_with_progress(4, "poll", json!({"ms": 50}))).session(&s)).await;
        let mut last = String::new();
        while let Some(ev) = r.event().await {
            if ev.is_message() {
                last = ev.id.clone().unwrap();
            }
        }
        eventually("the call finishes", Duration::from_secs(5), || ts.service.in_flight() == 0).await;
        let mut g = ts.send(resume(&s, &last)).await;
        let p = g.message().await.expect("progress 2").json();
        assert_eq!(p["params"]["message"], "after");
        assert_eq!(g.message().await.expect("answer").json()["id"], 4);
        assert!(g.event().await.is_none());
        eventually("the store is empty", Duration::from_secs(2), || store.mem().is_empty()).await;
    })
    .await;
}

#[tokio::test]
async fn resuming_a_stream_being_read_is_409() {
    bounded(async {
        let ts = start(Counting::new()).await;
        let s = initialize(&ts, REV).await;
        let mut r = ts.send(Req::post(&call(5, "slow", json!({"ms": 300}))).session(&s)).await;
        let prime = r.event().await.unwrap();
        let id = prime.id.clone().unwrap();
        let mut c = ts.send(resume(&s, &id)).await;
        assert_eq!(c.status, 409, "{c:?}");
        let body = c.json().await;
        assert_valid(REV, &body);
        // The original reader still gets its answer.
        let m = r.message().await.expect("answer").json();
        assert_eq!(m["id"], 5);
        // Resuming a resumed stream that is being read: 409 too.
        let mut r = ts.send(Req::post(&call(6, "slow", json!({"ms": 300}))).session(&s)).await;
        let id = r.event().await.unwrap().id.unwrap();
        drop(r);
        let mut g = ts.send(resume(&s, &id)).await;
        assert_eq!(g.status, 200);
        assert_eq!(ts.send(resume(&s, &id)).await.status, 409);
        assert_eq!(g.message().await.unwrap().json()["id"], 6);
    })
    .await;
}

#[tokio::test]
async fn the_get_stream_resumes_with_what_was_sent_meanwhile() {
    bounded(async {
        let server = test_server();
        let store = Counting::new();
        let ts = TestServer::start(&server, HttpOptions { event_store: store.clone(), ..options() }).await;
        let s = initialize(&ts, REV).await;
        let add = |n: &str| server.add_tool(Tool::new(n), |_a, _c| async move { CallToolResult::text("x") }).unwrap();
        let mut g = ts.send(Req::get().session(&s)).await;
        let first = g.event().await.unwrap();
        assert!(first.id.as_deref().is_some_and(|i| i.ends_with("-0")), "GET is primed too: {first:?}");
        add("a");
        let ev = g.message().await.expect("list_changed");
        let last = ev.id.clone().unwrap();
        drop(g);
        tokio::time::sleep(Duration::from_millis(20)).await;
        add("b"); // sent while no stream is open
        let mut g = ts.send(resume(&s, &last)).await;
        assert_eq!(g.status, 200);
        let ev = g.message().await.expect("what was sent while disconnected");
        assert_eq!(ev.json()["method"], "notifications/tools/list_changed");
        add("c");
        assert!(g.message().await.is_some(), "the resumed stream stays live");
    })
    .await;
}

#[tokio::test]
async fn reopening_the_get_stream_does_not_accumulate_state() {
    bounded(async {
        let server = test_server();
        let store = Counting::new();
        let ts = TestServer::start(&server, HttpOptions { event_store: store.clone(), ..options() }).await;
        let s = initialize(&ts, REV).await;
        for i in 0..200 {
            let mut g = ts.send(Req::get().session(&s)).await;
            assert_eq!(g.status, 200, "round {i}: {g:?}");
            server.add_tool(Tool::new(format!("t{i}")), |_a, _c| async move { CallToolResult::text("x") }).unwrap();
            assert!(g.message().await.is_some());
            drop(g);
            // The next GET may race the server noticing the disconnect: wait for it.
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        // Abandoned GET streams are not kept: at most a couple of streams' events remain.
        assert!(store.mem().len() <= 4, "the store holds {} events", store.mem().len());
        // Many fast calls leave nothing in the store either.
        for i in 0..50 {
            let a = rpc(&ts, &s, &call(i, "echo", json!({"text": "x"}))).await;
            assert!(!a.sse);
        }
        assert!(store.mem().len() <= 4, "the store holds {} events", store.mem().len());
        // Deleting the session forgets everything.
        assert_eq!(ts.send(Req::new("DELETE", "/mcp").session(&s)).await.status, 200);
        assert!(store.mem().is_empty());
        assert!(store.forgotten_sessions.load(Ordering::SeqCst) >= 1);
    })
    .await;
}

#[tokio::test]
async fn undelivered_streams_are_bounded_per_session() {
    bounded(async {
        let store = Counting::new();
        let ts = start(store.clone()).await;
        let s = initialize(&ts, REV).await;
        // 100 calls whose client leaves after the priming event: each finished stream waits
        // for a resume that never comes. (With progress: SSE at once, 2 events per stream.)
        for i in 0..100 {
            let req = Req::post(&call_with_progress(i, "progress_slow", json!({"ms": 30}))).session(&s);
            let mut r = ts.send(req).await;
            assert!(r.is_sse());
            let _prime = r.event().await.unwrap();
        }
        eventually("the calls finish", Duration::from_secs(10), || ts.service.in_flight() == 0).await;
        // One more stream prunes the oldest finished ones: at most 64 streams are kept.
        let a = rpc(&ts, &s, &call_with_progress(1000, "progress_slow", json!({"ms": 10}))).await;
        assert!(a.sse);
        let held = store.mem().len();
        assert!(held <= 2 * 64, "{held} events held for one session");
        assert!(held >= 64, "the most recent undelivered streams are kept ({held})");
        assert_eq!(ts.send(Req::new("DELETE", "/mcp").session(&s)).await.status, 200);
        assert!(store.mem().is_empty());
    })
    .await;
}
