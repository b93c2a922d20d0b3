//! SSE keep-alive: idle streams get `: keep-alive` comments at the configured period, and
//! SSE replies carry `Content-Type: text/event-stream` and `X-Accel-Buffering: no`.

use crate::common;
use crate::http_util;

use common::*;
use http_util::*;
use hypermcp::http::HttpOptions;
use serde_json::json;
use std::time::Duration;

fn short_keep_alive() -> HttpOptions {
    HttpOptions { keep_alive: Some(Duration::from_millis(100)), ..options() }
}

#[tokio::test]
async fn an_idle_get_stream_gets_keep_alive_comments() {
    bounded(async {
        let ts = TestServer::start(&test_server(), short_keep_alive()).await;
        let s = initialize(&ts, "2025-11-25").await;
        let mut g = ts.send(Req::get().session(&s)).await;
        assert_eq!(g.status, 200);
        assert_eq!(g.header("content-type"), Some("text/event-stream"));
        assert_eq!(g.header("x-accel-buffering"), Some("no"));
        assert!(g.header("cache-control").is_some_and(|v| v.contains("no-cache")));
        assert_eq!(g.header("mcp-session-id"), Some(s.id.as_str()));
        let prime = g.event().await.unwrap();
        assert!(!prime.is_message(), "{prime:?}");
        let start = tokio::time::Instant::now();
        for _ in 0..4 {
            let ev = g.event().await.expect("a comment");
            assert_eq!(ev.comments, ["keep-alive"], "{ev:?}");
            assert!(ev.data.is_none() && ev.id.is_none());
        }
        let took = start.elapsed();
        assert!(took >= Duration::from_millis(350) && took < Duration::from_secs(3), "{took:?}");
        // Keep-alive does not make the session busy forever once the stream is gone, and a
        // live stream is never expired.
        assert_eq!(ts.service.session_count(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_slow_call_stream_gets_keep_alive_comments_too() {
    bounded(async {
        let ts = TestServer::start(&test_server(), short_keep_alive()).await;
        let s = initialize(&ts, "2025-03-26").await;
        let mut r = ts.send(Req::post(&call(1, "slow", json!({"ms": 450}))).session(&s)).await;
        assert_eq!(r.content_type(), "text/event-stream");
        assert_eq!(r.header("x-accel-buffering"), Some("no"));
        let mut comments = 0;
        let answer = loop {
            let ev = r.event().await.expect("events until the answer");
            if ev.is_message() {
                break ev.json();
            }
            if ev.comments == ["keep-alive"] {
                comments += 1;
            }
        };
        assert!(comments >= 2, "{comments} keep-alive comments");
        assert_eq!(answer["result"]["content"][0]["text"], "done");
        assert!(r.event().await.is_none());
    })
    .await;
}

#[tokio::test]
async fn keep_alive_can_be_disabled() {
    bounded(async {
        let ts = TestServer::start(&test_server(), HttpOptions { keep_alive: None, ..options() }).await;
        let s = initialize(&ts, "2025-11-25").await;
        let mut g = ts.send(Req::get().session(&s)).await;
        let _prime = g.event().await.unwrap();
        assert!(g.event_within(Duration::from_millis(300)).await.is_err(), "no comments");
    })
    .await;
}
