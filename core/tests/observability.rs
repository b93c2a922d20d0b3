//! What an operator sees: the engine's log (sessions opened and closed and why, requests and
//! messages refused and why) through `hypermcp::log`, and its counters, read in code and as
//! Prometheus text from `metrics_path`.

mod common;
mod http_util;

use common::*;
use http_util::*;
use hypermcp::http::HttpOptions;
use hypermcp::log::{LevelFilter, LogRecord};
use serde_json::json;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const REV: &str = "2025-11-25";

fn capture() -> Arc<Mutex<Vec<LogRecord>>> {
    let got = Arc::new(Mutex::new(Vec::new()));
    let g = got.clone();
    hypermcp::log::install(LevelFilter::DEBUG, Some(Arc::new(move |r: &LogRecord| g.lock().unwrap().push(r.clone()))))
        .expect("the built-in subscriber");
    got
}

fn said(got: &Mutex<Vec<LogRecord>>, what: &str) -> Vec<String> {
    got.lock()
        .unwrap()
        .iter()
        .filter(|r| r.message.contains(what))
        .map(|r| format!("{} {}", r.level, r.message))
        .collect()
}

// One test: the subscriber and the counters are the process's.
#[tokio::test]
async fn the_log_and_the_counters_tell_what_happened() {
    let got = capture();
    bounded(async {
        let before = hypermcp::metrics::snapshot();
        let o = HttpOptions {
            max_body: 1024,
            metrics_path: Some("/metrics".into()),
            session_idle_timeout: Duration::from_millis(300),
            ..options()
        };
        let ts = TestServer::start(&test_server(), o).await;

        // A session opened, refused a body too large and a message that is not JSON-RPC,
        // answered an unknown method, then deleted by its client.
        let s = initialize(&ts, REV).await;
        let big = call(1, "echo", json!({"text": "x".repeat(4000)}));
        assert_eq!(ts.send(Req::post(&big).session(&s)).await.status, 413);
        let r = ts
            .send(
                Req::new("POST", "/mcp")
                    .header("Accept", ACCEPT_BOTH)
                    .header("Content-Type", "application/json")
                    .session(&s)
                    .body(b"{nope".to_vec()),
            )
            .await;
        assert_eq!(r.status, 400);
        let r = ts.send(Req::post(&json!({"jsonrpc": "2.0", "id": 5, "method": "no/such"})).session(&s)).await;
        assert_eq!(r.status, 200);
        assert_eq!(ts.send(Req::new("DELETE", "/mcp").session(&s)).await.status, 200);
        // Another left idle past its timeout.
        let idle = initialize(&ts, REV).await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        ts.service.sweep();

        let opened = said(&got, "session opened");
        assert!(opened.iter().any(|m| m.contains(&s.id)) && opened.iter().any(|m| m.contains(&idle.id)), "{opened:?}");
        let closed = said(&got, "session closed");
        assert!(closed.iter().any(|m| m.contains(&s.id) && m.contains("deleted by the client")), "{closed:?}");
        assert!(closed.iter().any(|m| m.contains(&idle.id) && m.contains("idle timeout")), "{closed:?}");
        let refused = said(&got, "request refused");
        assert!(refused.iter().any(|m| m.starts_with("INFO") && m.contains("status=413")), "{refused:?}");
        assert!(refused.iter().any(|m| m.contains("status=400") && m.contains("Parse error")), "{refused:?}");
        assert!(said(&got, "error response").iter().any(|m| m.contains("code=-32601")));

        let after = hypermcp::metrics::snapshot();
        assert!(after.sessions_opened >= before.sessions_opened + 2, "{after:?}");
        assert!(after.sessions_closed >= before.sessions_closed + 2, "{after:?}");
        assert!(after.sessions_idle_expired > before.sessions_idle_expired);
        assert!(after.http_refused["413"] > before.http_refused["413"]);
        assert!(after.errors["parse_error"] > before.errors["parse_error"]);
        assert!(after.errors["method_not_found"] > before.errors["method_not_found"]);
        assert!(after.requests >= before.requests + 3);

        // The same, as Prometheus text, before any authorization and without a session.
        let mut r = ts.send(Req::new("GET", "/metrics")).await;
        assert_eq!(r.status, 200);
        assert!(r.content_type().starts_with("text/plain; version=0.0.4"), "{r:?}");
        let text = String::from_utf8(r.body().await).unwrap();
        assert!(text.contains("# TYPE hypermcp_sessions_opened_total counter"), "{text}");
        assert!(text.contains("hypermcp_http_refused_total{status=\"413\"}"), "{text}");
        // Not served where it is not asked for.
        let plain = TestServer::start(&test_server(), options()).await;
        assert_eq!(plain.send(Req::new("GET", "/metrics")).await.status, 404);

        // The logging middleware: one line a request, under hypermcp::requests, with its
        // method, name, outcome, duration, session and client.
        let logged =
            test_server().middleware(hypermcp::middleware::Logging::new().include_payloads(12).methods(["tools/call"]));
        let ts = TestServer::start(&logged, options()).await;
        let s = initialize(&ts, REV).await;
        let r = ts.send(Req::post(&call(7, "echo", json!({"text": "a long text to cut"}))).session(&s)).await;
        assert_eq!(r.status, 200);
        let lines: Vec<LogRecord> =
            got.lock().unwrap().iter().filter(|r| r.target == "hypermcp::requests").cloned().collect();
        assert_eq!(lines.len(), 1, "{lines:?}");
        let line = &lines[0].message;
        assert_eq!(lines[0].level, hypermcp::log::Level::INFO);
        for part in [
            "request method=\"tools/call\" name=\"echo\" outcome=\"ok\" cached=false duration_ms=",
            &format!("session=\"{}\"", s.id),
            "client=\"",
            "payload=\"{\\\"text\\\":\\\"a l…\"",
        ] {
            assert!(line.contains(part), "{part} in {line}");
        }
        // Methods it was not asked to log say nothing.
        let r = ts.send(Req::post(&json!({"jsonrpc": "2.0", "id": 8, "method": "tools/list"})).session(&s)).await;
        assert_eq!(r.status, 200);
        let n = got.lock().unwrap().iter().filter(|r| r.target == "hypermcp::requests").count();
        assert_eq!(n, 1);

        // A call answered from the cache says so; one a rate limit refused has its line too.
        use hypermcp::middleware::{Logging, RateLimiting, ResponseCaching};
        let guarded = test_server()
            .middleware(Logging::new().methods(["tools/call"]))
            .middleware(RateLimiting::new(0.001).burst_capacity(2.0))
            .middleware(ResponseCaching::new(60_000));
        let ts = TestServer::start(&guarded, options()).await;
        let s = initialize(&ts, REV).await;
        for id in 10..13 {
            ts.send(Req::post(&call(id, "echo", json!({"text": "x"}))).session(&s)).await;
        }
        let lines: Vec<String> = got
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.target == "hypermcp::requests")
            .map(|r| r.message.clone())
            .collect();
        let last: Vec<&String> = lines.iter().rev().take(3).rev().collect();
        assert!(last[0].contains("outcome=\"ok\" cached=false"), "{last:?}");
        assert!(last[1].contains("outcome=\"ok\" cached=true"), "{last:?}");
        assert!(last[2].contains("outcome=\"error\" cached=false code=-32029"), "{last:?}");
    })
    .await;
    // Off again: nothing more is said.
    hypermcp::log::install(LevelFilter::INFO, None).unwrap();
    let n = got.lock().unwrap().len();
    tracing_probe();
    assert_eq!(got.lock().unwrap().len(), n);
}

/// Something the engine says at info when a session closes (none is open here: a metrics
/// read says nothing), to check that a turned-off log stays quiet.
fn tracing_probe() {
    let _ = hypermcp::metrics::prometheus();
    hypermcp::metrics::client_event("reconnected", "");
}
