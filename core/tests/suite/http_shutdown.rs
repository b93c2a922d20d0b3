//! Graceful shutdown of `serve_http`: a call in flight when the shutdown future fires still
//! gets its answer, open streams end, then the server returns and refuses new connections.

use crate::common;
use crate::http_util;

use common::*;
use http_util::*;
use hypermcp::http::HttpOptions;
use serde_json::json;
use std::time::Duration;

#[tokio::test]
async fn a_call_in_flight_is_answered_before_the_server_returns() {
    bounded(async {
        let mut ts = TestServer::start(&test_server(), options()).await;
        let s = initialize(&ts, "2025-11-25").await;
        let mut get = ts.send(Req::get().session(&s)).await;
        assert_eq!(get.status, 200);
        let mut r = ts.send(Req::post(&call(1, "slow", json!({"ms": 400}))).session(&s)).await;
        assert!(r.is_sse());
        let prime = r.event().await.unwrap();
        assert!(!prime.is_message());
        let task = ts.shutdown();
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!task.is_finished(), "the server waits for the call");
        // New connections are refused once shutdown began.
        assert!(tokio::net::TcpStream::connect(ts.addr).await.is_err(), "the listener is closed");
        // The answer arrives, then the stream ends.
        let m = r.message().await.expect("the answer").json();
        assert_valid_result("2025-11-25", "tools/call", &m);
        assert_eq!(m["result"]["content"][0]["text"], "done");
        assert!(r.event().await.is_none());
        // The standalone stream ends too.
        while let Some(ev) = get.event().await {
            assert!(!ev.is_message());
        }
        let served = bounded_for(Duration::from_secs(5), task).await.expect("join");
        assert!(served.is_ok(), "{served:?}");
        assert_eq!(ts.service.session_count(), 0);
        assert!(tokio::net::TcpStream::connect(ts.addr).await.is_err());
    })
    .await;
}

#[tokio::test]
async fn idle_keep_alive_connections_do_not_hold_the_shutdown() {
    bounded(async {
        let mut ts = TestServer::start(&test_server(), options()).await;
        let s = initialize(&ts, "2025-11-25").await;
        // A keep-alive connection that stays open and idle.
        let mut c = Conn::connect(ts.addr).await;
        c.send(&Req::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).session(&s)).await;
        let mut r = c.response().await;
        assert_eq!(r.status, 200);
        let _ = r.body().await;
        let mut c = r.into_conn();
        let start = tokio::time::Instant::now();
        let served = bounded_for(Duration::from_secs(3), ts.shutdown()).await.expect("join");
        assert!(served.is_ok());
        assert!(start.elapsed() < Duration::from_secs(1), "{:?}", start.elapsed());
        assert!(c.closed_within(Duration::from_secs(1)).await, "the idle connection is closed");
    })
    .await;
}

#[tokio::test]
async fn a_stateless_call_in_flight_is_answered_too() {
    bounded(async {
        let mut ts = TestServer::start(&test_server(), HttpOptions { stateless: true, ..options() }).await;
        let mut r = ts.send(Req::post(&call(1, "slow", json!({"ms": 300})))).await;
        assert!(r.is_sse());
        let task = ts.shutdown();
        let m = r.message().await.expect("the answer").json();
        assert_eq!(m["result"]["content"][0]["text"], "done");
        let served = bounded_for(Duration::from_secs(5), task).await.expect("join");
        assert!(served.is_ok());
    })
    .await;
}
