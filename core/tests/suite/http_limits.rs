//! The limits that keep a server healthy under hostile or broken clients: a stalled request
//! body is answered 408 and closed, connections beyond the cap wait their turn, a flood of
//! `initialize` from one address cannot evict another client's session, and a stream whose
//! client does not read drops its connection without losing an event.

use crate::common;
use crate::http_util;

use common::*;
use http_util::*;
use hypermcp::http::{HttpOptions, InMemoryEventStore};
use hypermcp::{CallToolResult, Server, Tool};
use serde_json::{json, Value};
use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Duration;

const REV: &str = "2025-11-25";
const OTHER: IpAddr = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2));

async fn ping_ok(ts: &TestServer, s: &McpSession) -> bool {
    let r = ts.send(Req::post(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"})).session(s)).await;
    r.status == 200
}

#[tokio::test]
async fn a_stalled_body_gets_408_and_the_connection_closes() {
    bounded(async {
        let o = HttpOptions { body_read_timeout: Some(Duration::from_millis(300)), ..options() };
        let ts = TestServer::start(&test_server(), o).await;
        let s = initialize(&ts, REV).await;
        // A legacy session, for its message endpoint.
        let mut sse = ts.send(Req::new("GET", "/sse").header("Accept", "text/event-stream")).await;
        let endpoint = sse.event().await.expect("the endpoint event").data.expect("endpoint");
        for path in ["/mcp", endpoint.as_str()] {
            let req = Req::post(&json!(null)).set_path(path).header("Content-Length", "1000").session(&s);
            let mut c = Conn::connect(ts.addr).await;
            c.write(&req.encode(ts.addr, true)).await;
            c.write(b"{\"jsonrpc\"").await;
            let start = tokio::time::Instant::now();
            let mut r = c.response().await;
            assert_eq!(r.status, 408, "{r:?}");
            assert!(start.elapsed() >= Duration::from_millis(250), "{:?}", start.elapsed());
            assert_eq!(r.header("connection"), Some("close"));
            let body = r.json().await;
            assert!(body["error"]["message"].as_str().unwrap_or_default().contains("did not arrive"), "{body}");
            assert!(r.into_conn().closed_within(Duration::from_secs(3)).await, "the stalled connection is closed");
        }
        // A body that arrives in time, slowly, is fine.
        let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"})).unwrap();
        let req = Req::post(&json!(null)).header("Content-Length", &body.len().to_string()).session(&s);
        let mut c = Conn::connect(ts.addr).await;
        c.write(&req.encode(ts.addr, true)).await;
        c.write(&body[..5]).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
        c.write(&body[5..]).await;
        assert_eq!(c.response().await.status, 200);
        assert!(ping_ok(&ts, &s).await);
    })
    .await;
}

#[tokio::test]
async fn connections_past_the_cap_wait_their_turn() {
    bounded(async {
        let ts = TestServer::start(&test_server(), HttpOptions { max_connections: 2, ..options() }).await;
        let s = initialize(&ts, REV).await;
        let ping = Req::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).session(&s);
        // Two keep-alive connections hold both slots.
        let mut held = Vec::new();
        for _ in 0..2 {
            let mut c = Conn::connect(ts.addr).await;
            c.send(&ping).await;
            let mut r = c.response().await;
            assert_eq!(r.status, 200);
            let _ = r.body().await;
            held.push(r.into_conn());
        }
        // A third is accepted by the kernel but not served...
        let mut third = Conn::connect(ts.addr).await;
        third.send(&ping).await;
        let waiting = tokio::spawn(async move { third.response().await.status });
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert!(!waiting.is_finished(), "a connection past the cap is not served");
        // ...until one of the two ends: then it is, and nothing was lost.
        held.pop();
        let status = tokio::time::timeout(Duration::from_secs(5), waiting).await.expect("served once a slot frees");
        assert_eq!(status.unwrap(), 200);
    })
    .await;
}

/// Opens a session from `source` (`None`: 127.0.0.1), optionally naming a forwarded address.
async fn open_from(ts: &TestServer, source: Option<IpAddr>, forwarded: Option<&str>) -> Result<McpSession, u16> {
    let mut c = match source {
        Some(ip) => Conn::connect_from(ts.addr, ip).await,
        None => Conn::connect(ts.addr).await,
    };
    let mut req = Req::post(&initialize_request(REV, 1));
    if let Some(f) = forwarded {
        req = req.header("X-Forwarded-For", f);
    }
    c.send(&req).await;
    let mut r = c.response().await;
    if r.status != 200 {
        return Err(r.status);
    }
    let id = r.header("mcp-session-id").expect("session id").to_string();
    let _ = r.body().await;
    let s = McpSession { id, version: REV.into() };
    notify_initialized(ts, &s).await;
    Ok(s)
}

#[tokio::test]
async fn an_initialize_flood_from_one_address_leaves_other_clients_alone() {
    bounded(async {
        // The quota: one address keeps at most 5 sessions (its own oldest go first). Behind a
        // proxy naming the clients; loopback clients themselves have no quota.
        let o = HttpOptions {
            max_sessions: 50,
            max_sessions_per_client: 5,
            client_address_header: Some("x-forwarded-for".into()),
            ..options()
        };
        let ts = TestServer::start(&test_server(), o).await;
        let victim = open_from(&ts, None, Some("203.0.113.5")).await.expect("the other client's session");
        for _ in 0..200 {
            open_from(&ts, None, Some("198.51.100.66")).await.expect("the flooder's own oldest session makes room");
        }
        assert_eq!(ts.service.session_count(), 6, "5 for the flooder, 1 for the other client");
        assert!(ping_ok(&ts, &victim).await, "the other client's session survived the flood");
        let o = HttpOptions { max_sessions: 50, max_sessions_per_client: 5, ..options() };
        let ts = TestServer::start(&test_server(), o).await;
        for _ in 0..20 {
            open_from(&ts, None, None).await.unwrap();
        }
        assert_eq!(ts.service.session_count(), 20, "loopback clients have no quota");

        // A full table: the address holding the most sessions gives one up first.
        let o = HttpOptions { max_sessions: 10, max_sessions_per_client: 0, ..options() };
        let ts = TestServer::start(&test_server(), o).await;
        let victim = open_from(&ts, Some(OTHER), None).await.unwrap();
        for _ in 0..100 {
            open_from(&ts, None, None).await.unwrap();
        }
        assert_eq!(ts.service.session_count(), 10);
        assert!(ping_ok(&ts, &victim).await, "the cap evicts the flooder's sessions, not the other client's");
    })
    .await;
}

#[tokio::test]
async fn the_quota_counts_by_a_trusted_proxy_header_and_refuses_when_all_are_busy() {
    bounded(async {
        let o = HttpOptions {
            max_sessions_per_client: 2,
            client_address_header: Some("x-forwarded-for".into()),
            ..options()
        };
        let ts = TestServer::start(&test_server(), o).await;
        // Behind the proxy every connection comes from 127.0.0.1; the header tells clients apart.
        let a = open_from(&ts, None, Some("203.0.113.9, 10.0.0.1")).await.unwrap();
        for _ in 0..10 {
            open_from(&ts, None, Some("198.51.100.7")).await.unwrap();
        }
        assert_eq!(ts.service.session_count(), 3);
        assert!(ping_ok(&ts, &a).await);
        // Busy sessions (an open GET stream) are not evicted: past the quota, 429.
        let mut streams = Vec::new();
        for _ in 0..2 {
            let s = open_from(&ts, None, Some("192.0.2.1")).await.unwrap();
            let mut g = ts.send(Req::get().session(&s)).await;
            assert_eq!(g.status, 200);
            let _ = g.event_within(Duration::from_millis(20)).await;
            streams.push(g);
        }
        assert_eq!(open_from(&ts, None, Some("192.0.2.1")).await.err(), Some(429));
        let mut c = Conn::connect(ts.addr).await;
        c.send(&Req::post(&initialize_request(REV, 1)).header("X-Forwarded-For", "192.0.2.1")).await;
        let mut r = c.response().await;
        assert_eq!(r.status, 429);
        assert!(r.header("retry-after").is_some());
        let body: Value = r.json().await;
        assert!(body["error"]["message"].as_str().unwrap_or_default().contains("maximum of 2 sessions"), "{body}");
    })
    .await;
}

/// A tool sending `n` progress notifications of `size` bytes each, then `done`.
fn flood_server() -> Server {
    Server::new("flood", "1.0.0").tool(Tool::new("flood"), |args, ctx| async move {
        let n = args["n"].as_u64().unwrap_or(10);
        let pad = "p".repeat(args["size"].as_u64().unwrap_or(1000) as usize);
        for i in 0..n {
            ctx.report_progress(i as f64 + 1.0, Some(n as f64), Some(&pad)).await?;
        }
        Ok::<_, hypermcp::Error>(CallToolResult::text("done"))
    })
}

#[tokio::test]
async fn an_unread_post_stream_hangs_up_and_resumes_without_a_gap() {
    bounded_for(Duration::from_secs(60), async {
        let store = Arc::new(InMemoryEventStore::new(4096).max_bytes(64 << 20));
        let o = HttpOptions { stream_buffer: 256 << 10, event_store: store, ..options() };
        let ts = TestServer::start(&flood_server(), o).await;
        let s = initialize(&ts, REV).await;
        // 24 MiB of progress: more than the socket buffers and the stream's 256 KiB.
        let n = 384;
        let mut r =
            ts.send(Req::post(&call_with_progress(1, "flood", json!({"n": n, "size": 65536}))).session(&s)).await;
        assert!(r.is_sse(), "{r:?}");
        // The client reads nothing for a while: the handler finishes meanwhile.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        let mut progress = Vec::new();
        let mut last_id = None;
        let mut answer = None;
        while let Some(ev) = r.event().await {
            if ev.id.is_some() {
                last_id = ev.id.clone();
            }
            if ev.is_message() {
                let m = ev.json();
                match m["method"].as_str() {
                    Some("notifications/progress") => progress.push(m["params"]["progress"].as_f64().unwrap()),
                    _ => answer = Some(m),
                }
            }
        }
        assert!(answer.is_none(), "the stream hung up before its end (it overflowed)");
        // The client resumes where it stopped: every event comes, in order, then the answer.
        let last = last_id.expect("an event id to resume from");
        let mut g = ts.send(Req::get().session(&s).header("Last-Event-ID", &last)).await;
        assert_eq!(g.status, 200, "{g:?}");
        while let Some(ev) = g.event().await {
            if ev.is_message() {
                let m = ev.json();
                match m["method"].as_str() {
                    Some("notifications/progress") => progress.push(m["params"]["progress"].as_f64().unwrap()),
                    _ => {
                        answer = Some(m);
                        break;
                    }
                }
            }
        }
        let want: Vec<f64> = (1..=n).map(|i| i as f64).collect();
        assert_eq!(progress, want, "every progress notification exactly once, in order");
        assert_eq!(answer.expect("the answer")["result"]["content"][0]["text"], "done");
        assert!(ping_ok(&ts, &s).await);
    })
    .await;
}
