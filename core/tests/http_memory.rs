//! Memory: thousands of sessions opened then expired leave nothing behind (the process RSS
//! comes back and stays flat over rounds; the event store is empty), and an idle session
//! costs little. Alone in its binary so no other test moves the RSS.

mod common;
mod http_util;

use common::*;
use http_util::*;
use hypermcp::http::{HttpOptions, InMemoryEventStore};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

const N: usize = 2000;

/// Opens `n` sessions over one keep-alive connection: initialize, initialized, one call.
async fn open_sessions(ts: &TestServer, n: usize) {
    let mut conn = Conn::connect(ts.addr).await;
    for i in 0..n {
        conn.send(&Req::post(&initialize_request("2025-11-25", 1))).await;
        let mut r = conn.response().await;
        assert_eq!(r.status, 200);
        let s = McpSession { id: r.header("mcp-session-id").unwrap().to_string(), version: "2025-11-25".into() };
        let _ = r.body().await;
        conn = r.into_conn();
        conn.send(&Req::post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).session(&s)).await;
        let mut r = conn.response().await;
        assert_eq!(r.status, 202);
        let _ = r.body().await;
        conn = r.into_conn();
        conn.send(&Req::post(&call(2, "echo", json!({"text": format!("session {i}")}))).session(&s)).await;
        let mut r = conn.response().await;
        assert_eq!(r.status, 200);
        let m = r.json().await;
        assert_eq!(m["result"]["content"][0]["text"], format!("session {i}"));
        conn = r.into_conn();
    }
}

async fn expire_all(ts: &TestServer) {
    eventually("every session expires", Duration::from_secs(20), || ts.service.session_count() == 0).await;
    // Let tasks and connections settle.
    tokio::time::sleep(Duration::from_millis(100)).await;
}

fn mib(b: usize) -> f64 {
    b as f64 / (1024.0 * 1024.0)
}

#[tokio::test]
async fn expired_sessions_leave_nothing_behind() {
    bounded_for(Duration::from_secs(120), async {
        let store = Arc::new(InMemoryEventStore::new(512));
        let o = HttpOptions { session_idle_timeout: Duration::from_secs(5), event_store: store.clone(), ..options() };
        let ts = TestServer::start(&test_server(), o).await;

        // Warm up allocator pools, caches and lazily built schemas.
        open_sessions(&ts, 300).await;
        ts.service.close_all();
        assert_eq!(ts.service.session_count(), 0);
        tokio::time::sleep(Duration::from_millis(100)).await;

        let base = rss_bytes();
        open_sessions(&ts, N).await;
        let full = rss_bytes();
        assert_eq!(ts.service.session_count(), N, "no session expired while opening (raise the idle timeout)");
        let per = full.saturating_sub(base) / N;
        println!(
            "RSS: base {:.1} MiB, with {N} idle sessions {:.1} MiB: {per} bytes per idle session",
            mib(base),
            mib(full)
        );
        assert!(store.is_empty(), "JSON replies store no events ({} held)", store.len());

        expire_all(&ts).await;
        let after1 = rss_bytes();
        assert!(store.is_empty(), "the event store holds {} events", store.len());

        // Another round: a leak would grow the RSS again.
        open_sessions(&ts, N).await;
        expire_all(&ts).await;
        let after2 = rss_bytes();
        println!(
            "RSS after expiry: round 1 {:.1} MiB, round 2 {:.1} MiB (base {:.1} MiB)",
            mib(after1),
            mib(after2),
            mib(base)
        );
        assert!(store.is_empty());
        let delta = full.saturating_sub(base);
        // The allocator keeps freed pages mapped (glibc only trims the top of its heap), so
        // the RSS need not drop after expiry; but memory must be reused: after 2 × N
        // sessions the process holds no more than one round's peak (plus slack), and the
        // second round costs nothing more than the first.
        assert!(after1 <= full + (2 << 20), "RSS grew during expiry: full {full}, after {after1}");
        assert!(after2 <= base + delta + (4 << 20), "RSS after two rounds: base {base}, peak {full}, now {after2}");
        assert!(after2 <= after1 + (2 << 20), "RSS grows over rounds: {after1} -> {after2}");
        assert!(per < 16 * 1024, "{per} bytes per idle session (target < 16 KiB)");
    })
    .await;
}
