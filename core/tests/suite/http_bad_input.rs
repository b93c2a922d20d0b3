//! Bad input to the Streamable HTTP endpoint: each gets the status and JSON-RPC error the
//! transport prescribes, and the server keeps serving (a good request follows every bad one).

use crate::common;
use crate::http_util;

use common::*;
use http_util::*;
use hypermcp::http::HttpOptions;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::AsyncWriteExt;

const REV: &str = "2025-11-25";

/// Checks an error reply: status, JSON content type, a JSON-RPC error with `id: null`
/// (valid per the schema helpers) and `code`.
async fn assert_error(mut r: Resp, status: u16, code: i64) -> Value {
    assert_eq!(r.status, status, "{r:?}");
    assert!(r.content_type().starts_with("application/json"), "error bodies are JSON: {r:?}");
    let body = r.json().await;
    assert_valid(REV, &body);
    assert_eq!(body["jsonrpc"], "2.0", "{body}");
    assert_eq!(body["id"], Value::Null, "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    body
}

/// A ping in `s` is answered: the server still serves.
async fn still_serving(ts: &TestServer, s: &McpSession) {
    let a = rpc(ts, s, &json!({"jsonrpc": "2.0", "id": 99, "method": "ping"})).await;
    assert_eq!(a.status, 200);
    assert_valid_result(REV, "ping", a.response(99));
}

async fn setup() -> (TestServer, McpSession) {
    let ts = TestServer::start(&test_server(), options()).await;
    let s = initialize(&ts, REV).await;
    (ts, s)
}

#[tokio::test]
async fn invalid_json_is_a_parse_error() {
    bounded(async {
        let (ts, s) = setup().await;
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        let bodies: [&[u8]; 6] =
            [b"{\"jsonrpc\": \"2.0\", \"id\": 1, ", b"not json at all", b"\xff\xfe{}", b"", b"   ", deep.as_bytes()];
        for body in bodies {
            let r = ts.send(Req::post(&json!(null)).body(body.to_vec()).session(&s)).await;
            let e = assert_error(r, 400, -32700).await;
            assert!(e["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{e}");
            still_serving(&ts, &s).await;
        }
    })
    .await;
}

#[tokio::test]
async fn json_that_is_not_json_rpc_is_an_invalid_request() {
    bounded(async {
        let (ts, s) = setup().await;
        for body in [json!({"foo": 1}), json!(42), json!("x"), json!({"jsonrpc": "1.0", "id": 1, "method": "ping"})] {
            let r = ts.send(Req::post(&body).session(&s)).await;
            assert_error(r, 400, -32600).await;
            still_serving(&ts, &s).await;
        }
        // Also on a POST without a session (before the session lookup).
        let r = ts.send(Req::post(&json!([]))).await;
        assert_eq!(r.status, 400);
        still_serving(&ts, &s).await;
    })
    .await;
}

#[tokio::test]
async fn wrong_content_type_is_415() {
    bounded(async {
        let (ts, s) = setup().await;
        for ct in [Some("text/plain"), Some("application/x-www-form-urlencoded"), None] {
            let req = Req::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
                .set_header("Content-Type", ct)
                .session(&s);
            assert_error(ts.send(req).await, 415, -32000).await;
            still_serving(&ts, &s).await;
        }
        // Parameters and case do not matter.
        let req = Req::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
            .set_header("Content-Type", Some("Application/JSON; charset=utf-8"))
            .session(&s);
        assert_eq!(ts.send(req).await.status, 200);
    })
    .await;
}

#[tokio::test]
async fn accept_must_list_both_types() {
    bounded(async {
        let (ts, s) = setup().await;
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        for accept in [Some("application/json"), Some("text/event-stream"), Some("text/html"), None] {
            let req = Req::post(&ping).set_header("Accept", accept).session(&s);
            assert_error(ts.send(req).await, 406, -32000).await;
            still_serving(&ts, &s).await;
        }
        // Wildcards count.
        for accept in ["*/*", "application/*, text/*", "application/json;q=0.9, text/event-stream"] {
            let req = Req::post(&ping).set_header("Accept", Some(accept)).session(&s);
            assert_eq!(ts.send(req).await.status, 200, "{accept}");
        }

        // json_response mode: application/json alone is enough.
        let ts = TestServer::start(&test_server(), HttpOptions { json_response: true, ..options() }).await;
        let s = initialize(&ts, REV).await;
        let req = Req::post(&ping).set_header("Accept", Some("application/json")).session(&s);
        let mut r = ts.send(req).await;
        assert_eq!(r.status, 200, "{r:?}");
        assert_valid_result(REV, "ping", &r.json().await);
        let req = Req::post(&ping).set_header("Accept", Some("text/event-stream")).session(&s);
        assert_error(ts.send(req).await, 406, -32000).await;
        still_serving(&ts, &s).await;
    })
    .await;
}

#[tokio::test]
async fn unknown_session_is_404_and_missing_session_is_400() {
    bounded(async {
        let (ts, s) = setup().await;
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        let bogus = McpSession { id: "0123456789abcdef0123456789abcdef".into(), version: REV.into() };
        assert_error(ts.send(Req::post(&ping).session(&bogus)).await, 404, -32001).await;
        still_serving(&ts, &s).await;
        // GET and DELETE too.
        assert_error(ts.send(Req::get().session(&bogus)).await, 404, -32001).await;
        assert_error(ts.send(Req::new("DELETE", "/mcp").session(&bogus)).await, 404, -32001).await;
        still_serving(&ts, &s).await;

        // No Mcp-Session-Id on a request that is not initialize.
        assert_error(ts.send(Req::post(&ping)).await, 400, -32000).await;
        let r = ts.send(Req::post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))).await;
        assert_error(r, 400, -32000).await;
        assert_error(ts.send(Req::get()).await, 400, -32000).await;
        still_serving(&ts, &s).await;
    })
    .await;
}

#[tokio::test]
async fn bodies_over_max_body_are_413() {
    bounded(async {
        let ts = TestServer::start(&test_server(), HttpOptions { max_body: 1024, ..options() }).await;
        let s = initialize(&ts, REV).await;
        let big = call(1, "echo", json!({"text": "x".repeat(4000)}));
        // Declared too large by Content-Length: the body is never read, so the connection
        // is announced closed.
        let r = ts.send(Req::post(&big).session(&s)).await;
        assert_eq!(r.header("connection"), Some("close"));
        assert_error(r, 413, -32600).await;
        still_serving(&ts, &s).await;
        // Chunked, no length: found out while reading.
        assert_error(ts.send(Req::post(&big).chunked().session(&s)).await, 413, -32600).await;
        still_serving(&ts, &s).await;
        let small = call(2, "echo", json!({"text": "small"}));
        let a = rpc(&ts, &s, &small).await;
        assert_eq!(a.response(2)["result"]["content"][0]["text"], "small");
        // Chunked within the limit works.
        let a = read_answer(ts.send(Req::post(&small).chunked().session(&s)).await).await;
        assert_eq!(a.status, 200);
        assert_eq!(a.response(2)["result"]["content"][0]["text"], "small");
    })
    .await;
}

#[tokio::test]
async fn bad_origin_and_bad_host_are_403() {
    bounded(async {
        let (ts, s) = setup().await;
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        let r = ts.send(Req::post(&ping).header("Origin", "http://evil.example.com").session(&s)).await;
        assert_error(r, 403, -32000).await;
        still_serving(&ts, &s).await;
        let r = ts.send(Req::post(&ping).header("Origin", "null").session(&s)).await;
        assert_error(r, 403, -32000).await;
        let r = ts.send(Req::post(&ping).header("Host", "evil.example.com").session(&s)).await;
        assert_error(r, 403, -32000).await;
        still_serving(&ts, &s).await;
        // Even an initialize, a GET and the legacy endpoint are guarded.
        let r = ts.send(Req::post(&initialize_request(REV, 1)).header("Host", "attacker.test:80")).await;
        assert_error(r, 403, -32000).await;
        let r = ts.send(Req::get().header("Origin", "https://evil.example.com").session(&s)).await;
        assert_error(r, 403, -32000).await;
        let r =
            ts.send(Req::new("GET", "/sse").header("Accept", "text/event-stream").header("Host", "evil.test")).await;
        assert_error(r, 403, -32000).await;
        // A local origin is fine.
        let r = ts.send(Req::post(&ping).header("Origin", "http://localhost:5173").session(&s)).await;
        assert_eq!(r.status, 200);
        assert_eq!(ts.service.session_count(), 1, "no session was opened by a refused request");
    })
    .await;
}

#[tokio::test]
async fn protocol_version_header_must_be_supported() {
    bounded(async {
        let (ts, s) = setup().await;
        let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        for bad in ["1999-01-01", "2025-11-26", "latest", ""] {
            let req = Req::post(&ping).header("Mcp-Session-Id", &s.id).header("MCP-Protocol-Version", bad);
            let e = assert_error(ts.send(req).await, 400, -32000).await;
            assert!(e["error"]["message"].as_str().unwrap().contains("2025-11-25"), "lists what is supported: {e}");
            still_serving(&ts, &s).await;
        }
        // Any supported revision is accepted, even one other than the session's.
        for good in ["2025-03-26", "2025-06-18", "2024-11-05", REV] {
            let req = Req::post(&ping).header("Mcp-Session-Id", &s.id).header("MCP-Protocol-Version", good);
            assert_eq!(ts.send(req).await.status, 200, "{good}");
        }
        // Absent: assumed.
        let req = Req::post(&ping).header("Mcp-Session-Id", &s.id);
        assert_eq!(ts.send(req).await.status, 200);
        // On GET and DELETE too.
        let req = Req::get().header("Mcp-Session-Id", &s.id).header("MCP-Protocol-Version", "2000-01-01");
        assert_error(ts.send(req).await, 400, -32000).await;
        let req = Req::new("DELETE", "/mcp").header("Mcp-Session-Id", &s.id).header("MCP-Protocol-Version", "x");
        assert_error(ts.send(req).await, 400, -32000).await;
        still_serving(&ts, &s).await;
    })
    .await;
}

#[tokio::test]
async fn other_methods_are_405_with_allow_and_other_paths_404() {
    bounded(async {
        let (ts, s) = setup().await;
        for m in ["PUT", "PATCH", "OPTIONS", "HEAD"] {
            let mut r = ts.send(Req::new(m, "/mcp").header("Content-Length", "0").session(&s)).await;
            assert_eq!(r.status, 405, "{m}: {r:?}");
            let allow = r.header("allow").unwrap_or_else(|| panic!("{m}: Allow header")).to_string();
            for needed in ["GET", "POST", "DELETE"] {
                assert!(allow.contains(needed), "{m}: Allow {allow:?}");
            }
            if m != "HEAD" {
                let body = r.json().await;
                assert_eq!(body["error"]["code"], -32000);
            }
            still_serving(&ts, &s).await;
        }
        for path in ["/", "/mcp/", "/mcpx", "/other", "/mcp/extra"] {
            let mut r = ts
                .send(Req::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).session(&s).set_path(path))
                .await;
            assert_eq!(r.status, 404, "{path}");
            let _ = r.body().await;
        }
        // A query string does not change the path.
        let a = read_answer(
            ts.send(Req::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).session(&s).set_path("/mcp?x=1"))
                .await,
        )
        .await;
        assert_eq!(a.status, 200);
        still_serving(&ts, &s).await;
    })
    .await;
}

#[tokio::test]
async fn get_without_event_stream_accept_is_406() {
    bounded(async {
        let (ts, s) = setup().await;
        for accept in [Some("application/json"), Some("text/html"), None] {
            let r = ts.send(Req::get().set_header("Accept", accept).session(&s)).await;
            assert_error(r, 406, -32000).await;
            still_serving(&ts, &s).await;
        }
        let r = ts.send(Req::get().session(&s)).await;
        assert_eq!(r.status, 200);
        assert!(r.is_sse());
    })
    .await;
}

#[tokio::test]
async fn a_client_that_leaves_mid_body_does_not_hurt() {
    bounded(async {
        let (ts, s) = setup().await;
        for _ in 0..3 {
            // Headers promise 1000 bytes; 10 come, then the client leaves.
            let req = Req::post(&json!(null)).header("Content-Length", "1000").session(&s);
            let mut c = Conn::connect(ts.addr).await;
            c.write(&req.encode(ts.addr, true)).await;
            c.write(b"{\"jsonrpc\"").await;
            drop(c);
            // Chunked, cut inside a chunk.
            let req = Req::post(&json!(null)).chunked().session(&s);
            let mut c = Conn::connect(ts.addr).await;
            c.write(&req.encode(ts.addr, true)).await;
            c.write(b"100\r\n{\"jsonrpc\": \"2.0\"").await;
            drop(c);
            // Headers only, half a line.
            let mut tcp = tokio::net::TcpStream::connect(ts.addr).await.unwrap();
            tcp.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Ty").await.unwrap();
            drop(tcp);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        still_serving(&ts, &s).await;
        assert_eq!(ts.service.session_count(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_client_that_leaves_mid_stream_does_not_hurt() {
    bounded(async {
        let (ts, s) = setup().await;
        // A slow call's SSE stream, dropped after its priming event.
        let mut r = ts.send(Req::post(&call(7, "slow", json!({"ms": 200}))).session(&s)).await;
        assert!(r.is_sse(), "{r:?}");
        let prime = r.event().await.expect("priming event");
        assert_eq!(prime.data.as_deref(), Some(""));
        drop(r);
        // The standalone stream, dropped while open.
        let mut g = ts.send(Req::get().session(&s)).await;
        assert_eq!(g.status, 200);
        let _ = g.event_within(Duration::from_millis(50)).await;
        drop(g);
        still_serving(&ts, &s).await;
        // The dropped call was not cancelled: it finishes (in_flight drops to 0), and a new
        // GET stream can be opened (the old one is no longer attached).
        eventually("the slow call finishes", Duration::from_secs(5), || ts.service.in_flight() == 0).await;
        let mut g = ts.send(Req::get().session(&s)).await;
        assert_eq!(g.status, 200, "{g:?}");
        drop(g.event_within(Duration::from_millis(20)).await);
        still_serving(&ts, &s).await;
    })
    .await;
}

#[tokio::test]
async fn slow_or_idle_clients_are_disconnected() {
    bounded(async {
        let o = HttpOptions { header_read_timeout: Some(Duration::from_millis(200)), ..options() };
        let ts = TestServer::start(&test_server(), o).await;
        let s = initialize(&ts, REV).await;
        // Headers that never end.
        let mut c = Conn::connect(ts.addr).await;
        c.write(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n").await;
        let start = tokio::time::Instant::now();
        assert!(c.closed_within(Duration::from_secs(3)).await, "a slow client is cut off");
        assert!(start.elapsed() >= Duration::from_millis(150), "{:?}", start.elapsed());
        // An idle keep-alive connection.
        let mut c = Conn::connect(ts.addr).await;
        c.send(&Req::post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).session(&s)).await;
        let mut r = c.response().await;
        assert_eq!(r.status, 200);
        let _ = r.body().await;
        assert!(r.into_conn().closed_within(Duration::from_secs(3)).await, "an idle connection is closed");
        // A stream longer than the timeout is not cut: the timeout is for request heads.
        let mut r = ts.send(Req::post(&call(2, "slow", json!({"ms": 600}))).session(&s)).await;
        assert!(r.is_sse());
        let m = r.message().await.expect("the answer after 600 ms").json();
        assert_eq!(m["result"]["content"][0]["text"], "done");
        still_serving(&ts, &s).await;
    })
    .await;
}
