//! The HTTP client transport against real servers: the official
//! `@modelcontextprotocol/server-everything` (TypeScript SDK) over Streamable HTTP and
//! HTTP+SSE, and a server on the official Python SDK (`tests/peers/py_http_server.py`) over
//! Streamable HTTP (SSE and JSON answers) and HTTP+SSE. A recording proxy in front of a real
//! server shows the headers on the wire (custom headers, session id, protocol version,
//! `Last-Event-ID`, the `DELETE` at close); small canned servers check the error mapping.
//!
//! The peers are installed by `tests/interop/setup_peers.sh` into `<workspace>/.peers` (or
//! `$HYPERMCP_PEERS`). Without them the peer tests are skipped with a message on stderr,
//! unless `HYPERMCP_REQUIRE_PEERS=1`, which makes them fail.

use crate::common;

use bytes::Bytes;
use common::*;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use hypermcp::http::client::{HttpClientOptions, HttpTransport, HTTP_TRANSPORT_ERROR};
use hypermcp::{
    CallOptions, Client, ClientMode, ClientOptions, CreateMessageResult, ElicitAction, ElicitParams, ElicitResult, Role,
};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;

/// This file checks the legacy HTTP transports (sessions, the GET stream, resumption, the
/// HTTP+SSE fallback): its clients open with `initialize` (the 2026-07-28 client over HTTP is
/// covered by modern_http.rs and the conformance client legs).
fn legacy() -> ClientOptions {
    ClientOptions::default().mode(ClientMode::Legacy)
}

const EVERYTHING: &str = "npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
const PY_SERVER: &str = "tests/peers/py_http_server.py";
const LIMIT: Duration = Duration::from_secs(40);

// ---- peers -------------------------------------------------------------------------------

fn peers_dir() -> PathBuf {
    match std::env::var_os("HYPERMCP_PEERS") {
        Some(p) => PathBuf::from(p),
        None => workspace_dir().join(".peers"),
    }
}

fn skip(what: &str, why: String) -> Option<PathBuf> {
    if std::env::var("HYPERMCP_REQUIRE_PEERS").as_deref() == Ok("1") {
        panic!("HYPERMCP_REQUIRE_PEERS=1 but {what} is unavailable: {why}");
    }
    eprintln!("SKIPPED ({what}): {why}; set HYPERMCP_REQUIRE_PEERS=1 to make this a failure");
    None
}

/// The server-everything script, if it and `node` are there.
fn everything() -> Option<PathBuf> {
    let script = peers_dir().join(EVERYTHING);
    if !script.is_file() {
        return skip("server-everything", format!("{} not found", script.display()));
    }
    match std::process::Command::new("node").arg("--version").output() {
        Ok(o) if o.status.success() => Some(script),
        _ => skip("server-everything", "node is not runnable".into()),
    }
}

/// The peers' Python (with the `mcp` package), if it is there.
fn python() -> Option<PathBuf> {
    let py = peers_dir().join("venv/bin/python");
    if !py.is_file() {
        return skip("the Python SDK", format!("{} not found", py.display()));
    }
    Some(py)
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind an ephemeral port");
    l.local_addr().expect("local address").port()
}

/// A server process, killed on drop; its output goes to a log file shown on failure.
struct Peer {
    child: tokio::process::Child,
    port: u16,
    log: PathBuf,
}

impl Peer {
    async fn start(program: &Path, args: &[&str], env: &[(&str, String)], port: u16, name: &str) -> Peer {
        let log = std::env::temp_dir().join(format!("hypermcp-http-{name}-{port}.log"));
        let out = std::fs::File::create(&log).expect("create the log file");
        let err = out.try_clone().expect("clone the log file");
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args).stdin(Stdio::null()).stdout(out).stderr(err).kill_on_drop(true);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = cmd.spawn().unwrap_or_else(|e| panic!("spawning {}: {e}", program.display()));
        let peer = Peer { child, port, log };
        for _ in 0..300 {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                return peer;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{name} did not listen on port {port}; log:\n{}", peer.output());
    }

    fn output(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    async fn everything(script: &Path, transport: &str) -> Peer {
        let port = free_port();
        Peer::start(
            Path::new("node"),
            &[script.to_str().expect("utf-8 path"), transport],
            &[("PORT", port.to_string())],
            port,
            &format!("everything-{transport}"),
        )
        .await
    }

    async fn python(py: &Path, args: &[&str]) -> Peer {
        let port = free_port();
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(PY_SERVER);
        let port_s = port.to_string();
        let mut all = vec![script.to_str().expect("utf-8 path"), args[0], port_s.as_str()];
        all.extend_from_slice(&args[1..]);
        Peer::start(py, &all, &[], port, &format!("python-{}", args[0])).await
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
    }
}

// ---- small real HTTP servers in the test --------------------------------------------------

/// One request as seen by a test server.
#[derive(Debug, Clone)]
struct Seen {
    method: String,
    path: String,
    headers: HashMap<String, String>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
    fn rpc_method(&self) -> Option<&str> {
        self.body.get("method").and_then(Value::as_str)
    }
}

type Log = Arc<Mutex<Vec<Seen>>>;

fn record(log: &Log, parts: &http::request::Parts, body: &[u8]) -> Seen {
    let headers = parts
        .headers
        .iter()
        .map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect();
    let seen = Seen {
        method: parts.method.to_string(),
        path: parts.uri.to_string(),
        headers,
        body: serde_json::from_slice(body).unwrap_or(Value::Null),
    };
    log.lock().unwrap().push(seen.clone());
    seen
}

fn requests(log: &Log) -> Vec<Seen> {
    log.lock().unwrap().clone()
}

fn io_err(e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> std::io::Error {
    std::io::Error::other(e)
}

/// A proxy in front of a real server that records every request (bodies are buffered, then
/// forwarded; responses stream through).
async fn proxy(upstream: u16) -> (u16, Log, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the proxy");
    let port = listener.local_addr().expect("proxy address").port();
    let log: Log = Arc::default();
    let log2 = log.clone();
    let conns = Arc::new(AtomicUsize::new(0));
    let conns2 = conns.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            conns2.fetch_add(1, Ordering::Relaxed);
            let log = log2.clone();
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
                    let log = log.clone();
                    async move {
                        let (parts, body) = req.into_parts();
                        let body = body.collect().await.map_err(io_err)?.to_bytes();
                        record(&log, &parts, &body);
                        let upstream_conn = tokio::net::TcpStream::connect(("127.0.0.1", upstream)).await?;
                        let (mut sender, conn) =
                            hyper::client::conn::http1::handshake(TokioIo::new(upstream_conn)).await.map_err(io_err)?;
                        tokio::spawn(conn);
                        let resp: Response<Incoming> =
                            sender.send_request(Request::from_parts(parts, Full::new(body))).await.map_err(io_err)?;
                        Ok::<_, std::io::Error>(resp)
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), svc).await;
            });
        }
    });
    (port, log, conns)
}

/// A canned answer: status (0: the connection is dropped under the request), content type,
/// body.
type Canned = (u16, &'static str, String);

/// A test server answering each request with `answer(request)`; also records them.
async fn canned(answer: impl Fn(&Seen) -> Canned + Send + Sync + 'static) -> (String, Log) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the canned server");
    let port = listener.local_addr().expect("address").port();
    let log: Log = Arc::default();
    let log2 = log.clone();
    let answer = Arc::new(answer);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let log = log2.clone();
            let answer = answer.clone();
            tokio::spawn(async move {
                let svc = hyper::service::service_fn(move |req: Request<Incoming>| {
                    let log = log.clone();
                    let answer = answer.clone();
                    async move {
                        let (parts, body) = req.into_parts();
                        let body = body.collect().await.map_err(io_err)?.to_bytes();
                        let seen = record(&log, &parts, &body);
                        let (status, ct, text) = answer(&seen);
                        if status == 0 {
                            // Status 0: no answer, the connection dropped.
                            return Err(io_err("dropped"));
                        }
                        let mut resp = Response::builder().status(status).header("mcp-session-id", "canned-session");
                        if !ct.is_empty() {
                            resp = resp.header("content-type", ct);
                        }
                        resp.body(Full::new(Bytes::from(text))).map_err(io_err)
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(stream), svc).await;
            });
        }
    });
    (format!("http://127.0.0.1:{port}/mcp"), log)
}

fn init_result(id: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": {
        "protocolVersion": "2025-06-18",
        "capabilities": {"tools": {}},
        "serverInfo": {"name": "canned", "version": "1"}
    }})
    .to_string()
}

// ---- helpers -------------------------------------------------------------------------------

type Progress = Arc<Mutex<Vec<(f64, Option<f64>)>>>;

fn with_progress() -> (CallOptions, Progress) {
    let got: Progress = Arc::default();
    let g = got.clone();
    let opts = CallOptions {
        on_progress: Some(Arc::new(move |p, t, _m| g.lock().unwrap().push((p, t)))),
        ..Default::default()
    };
    (opts, got)
}

fn text(r: &hypermcp::CallToolResult) -> String {
    r.content.iter().filter_map(|c| c.as_text()).collect::<Vec<_>>().join("\n")
}

fn sampling_options() -> ClientOptions {
    ClientOptions::new("hypermcp-http-test", "0.0.1").mode(ClientMode::Legacy).on_sampling(|p| async move {
        let asked = p.messages.first().map(|m| serde_json::to_string(&m.content).unwrap_or_default());
        Ok(CreateMessageResult {
            role: Role::Assistant,
            content: json!({"type": "text", "text": format!("sampled answer to {}", asked.unwrap_or_default())}),
            model: "test-model".into(),
            stop_reason: Some("endTurn".into()),
            meta: None,
        })
    })
}

fn elicitation_options() -> ClientOptions {
    ClientOptions::new("hypermcp-http-test", "0.0.1").mode(ClientMode::Legacy).on_elicitation(false, |p| async move {
        let ElicitParams::Form { requested_schema, .. } = p else {
            return Ok(ElicitResult { action: ElicitAction::Decline, content: None, meta: None });
        };
        assert!(requested_schema["properties"]["name"].is_object(), "{requested_schema}");
        let content = Map::from_iter([("name".to_string(), json!("Ada")), ("age".to_string(), json!(36))]);
        Ok(ElicitResult { action: ElicitAction::Accept, content: Some(content), meta: None })
    })
}

// ---- server-everything ------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_against_server_everything() {
    let Some(script) = everything() else { return };
    let peer = Peer::everything(&script, "streamableHttp").await;
    bounded_for(LIMIT, async {
        let client = Client::http(&peer.url("/mcp"), HttpClientOptions::default(), sampling_options())
            .await
            .unwrap_or_else(|e| panic!("connect: {e}; server log:\n{}", peer.output()));
        assert!(client.server().server_info.name.contains("everything"), "{:?}", client.server().server_info);
        assert_eq!(client.protocol_version().as_str(), "2025-11-25");

        let tools = client.list_tools().await.expect("tools/list");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert!(names.contains(&"echo") && names.contains(&"trigger-sampling-request"), "{names:?}");

        let r = client.call_tool("echo", json!({"message": "over http"})).await.expect("echo");
        assert_eq!(text(&r), "Echo: over http");

        // Progress notifications arrive on the call's SSE stream.
        let (opts, got) = with_progress();
        let r = client
            .call_tool_with("trigger-long-running-operation", json!({"duration": 0.6, "steps": 3}), opts)
            .await
            .expect("long running operation");
        assert!(text(&r).contains("Long running operation completed"), "{r:?}");
        assert_eq!(*got.lock().unwrap(), vec![(1.0, Some(3.0)), (2.0, Some(3.0)), (3.0, Some(3.0))]);

        // A server-to-client request in the middle of a call: its answer is POSTed while the
        // call's own POST is still open.
        let r = client
            .call_tool("trigger-sampling-request", json!({"prompt": "ping?", "maxTokens": 10}))
            .await
            .expect("sampling tool");
        assert!(text(&r).contains("sampled answer to"), "{}", text(&r));
        assert!(text(&r).contains("test-model"), "{}", text(&r));

        // A call that times out is cancelled; the connection stays usable.
        let opts = CallOptions { timeout: Some(Duration::from_millis(300)), ..Default::default() };
        let e = client
            .call_tool_with("trigger-long-running-operation", json!({"duration": 5, "steps": 5}), opts)
            .await
            .expect_err("timed out");
        assert_eq!(e.code(), hypermcp::jsonrpc::codes::REQUEST_TIMEOUT, "{e:?}");

        // Several calls at once share the pool of connections.
        let calls = (0..8).map(|i| {
            let c = client.clone();
            async move { c.call_tool("echo", json!({"message": format!("n{i}")})).await }
        });
        for (i, r) in futures_util::future::join_all(calls).await.into_iter().enumerate() {
            assert_eq!(text(&r.expect("concurrent echo")), format!("Echo: n{i}"));
        }
        client.close().await.expect("close");
    })
    .await;
    let log = peer.output();
    assert!(log.contains("Received session termination request"), "no DELETE seen; log:\n{log}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forced_legacy_sse_against_server_everything() {
    let Some(script) = everything() else { return };
    let peer = Peer::everything(&script, "sse").await;
    bounded_for(LIMIT, async {
        let http = HttpClientOptions::default().transport(HttpTransport::Sse);
        let client = Client::http(&peer.url("/sse"), http, legacy())
            .await
            .unwrap_or_else(|e| panic!("connect: {e}; server log:\n{}", peer.output()));
        let r = client.call_tool("echo", json!({"message": "legacy"})).await.expect("echo");
        assert_eq!(text(&r), "Echo: legacy");
        let (opts, got) = with_progress();
        client
            .call_tool_with("trigger-long-running-operation", json!({"duration": 0.3, "steps": 2}), opts)
            .await
            .expect("long running operation");
        assert_eq!(got.lock().unwrap().len(), 2);
        client.close().await.expect("close");
    })
    .await;
}

// ---- the Python SDK ---------------------------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_against_the_python_sdk() {
    let Some(py) = python() else { return };
    let peer = Peer::python(&py, &["streamable"]).await;
    let (port, log, conns) = proxy(peer.port).await;
    bounded_for(LIMIT, async {
        let http = HttpClientOptions::default().bearer_token("secret-token").header("X-Test-Header", "hello");
        let url = format!("http://127.0.0.1:{port}/mcp");
        let client = Client::http(&url, http, elicitation_options())
            .await
            .unwrap_or_else(|e| panic!("connect: {e}; server log:\n{}", peer.output()));
        assert_eq!(client.server().server_info.name, "py-http-test");

        let r = client.call_tool("echo", json!({"text": "hi"})).await.expect("echo");
        assert_eq!(text(&r), "echo: hi");

        // The custom headers, the session id and the negotiated revision reach the server.
        let r = client.call_tool("headers", json!({})).await.expect("headers");
        let h: Value = r.structured_content.clone().unwrap_or_else(|| serde_json::from_str(&text(&r)).unwrap());
        let h = h.get("result").cloned().unwrap_or(h);
        assert_eq!(h["authorization"], "Bearer secret-token", "{h}");
        assert_eq!(h["x-test-header"], "hello", "{h}");
        assert_eq!(h["mcp-protocol-version"], "2025-11-25", "{h}");
        assert!(h["mcp-session-id"].as_str().is_some_and(|s| !s.is_empty()), "{h}");

        let (opts, got) = with_progress();
        let r = client.call_tool_with("progress", json!({"steps": 4}), opts).await.expect("progress");
        assert_eq!(text(&r), "done after 4 steps");
        assert_eq!(got.lock().unwrap().len(), 4);

        // Elicitation: the server's request arrives on the call's stream, the answer is POSTed.
        let r = client.call_tool("ask", json!({})).await.expect("ask");
        assert_eq!(text(&r), "hello Ada, 36");

        // The server closes the call's stream midway; the client resumes it with GET +
        // Last-Event-ID after the server's retry delay and gets the rest.
        let (opts, got) = with_progress();
        let r = client.call_tool_with("resume", json!({}), opts).await.expect("resume");
        assert_eq!(text(&r), "answered after the stream was resumed");
        assert_eq!(got.lock().unwrap().iter().map(|p| p.0).collect::<Vec<_>>(), vec![1.0, 2.0]);

        client.close().await.expect("close");
    })
    .await;

    let seen = requests(&log);
    let dump = || seen.iter().map(|s| format!("{} {} {:?}", s.method, s.path, s.rpc_method())).collect::<Vec<_>>();
    let session = seen[0].headers.get("mcp-session-id");
    assert!(session.is_none(), "initialize carried a session id: {:?}", seen[0]);
    let sid = seen.iter().find_map(|s| s.header("mcp-session-id")).expect("a session id was sent").to_string();
    for s in &seen[1..] {
        assert_eq!(s.header("mcp-session-id"), Some(sid.as_str()), "{s:?}");
        assert_eq!(s.header("mcp-protocol-version"), Some("2025-11-25"), "{s:?}");
        assert_eq!(s.header("authorization"), Some("Bearer secret-token"), "{s:?}");
    }
    for s in seen.iter().filter(|s| s.method == "POST") {
        assert_eq!(s.header("content-type"), Some("application/json"), "{s:?}");
        assert_eq!(s.header("accept"), Some("application/json, text/event-stream"), "{s:?}");
    }
    // The standalone GET stream, then the resumption GET with Last-Event-ID.
    let gets: Vec<&Seen> = seen.iter().filter(|s| s.method == "GET").collect();
    assert!(gets.iter().any(|g| g.header("last-event-id").is_none()), "no standalone GET: {:?}", dump());
    assert!(gets.iter().any(|g| g.header("last-event-id").is_some()), "no resumption GET: {:?}", dump());
    assert!(gets.iter().all(|g| g.header("accept") == Some("text/event-stream")), "{gets:?}");
    // The session ends with DELETE, and the server forgot it.
    let last = seen.last().expect("requests");
    assert_eq!(last.method, "DELETE", "{:?}", dump());
    assert_eq!(last.header("mcp-session-id"), Some(sid.as_str()));
    // Idle connections are reused.
    let conns = conns.load(Ordering::Relaxed);
    eprintln!("{} requests over {conns} connections", seen.len());
    assert!(conns <= seen.len() / 2 + 1, "{} requests over {conns} connections", seen.len());
    let status = raw_post(peer.port, Some(&sid)).await;
    assert_eq!(status, 404, "the session still answers after DELETE");
}

/// POSTs a ping with a session id directly; returns the status.
async fn raw_post(port: u16, session: Option<&str>) -> u16 {
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.expect("connect");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(conn);
    let mut req = Request::post("/mcp")
        .header("host", format!("127.0.0.1:{port}"))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25");
    if let Some(s) = session {
        req = req.header("mcp-session-id", s);
    }
    let body = Full::new(Bytes::from(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#));
    sender.send_request(req.body(body).expect("request")).await.expect("response").status().as_u16()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_answers_and_get_stream_against_the_python_sdk() {
    let Some(py) = python() else { return };
    let peer = Peer::python(&py, &["json"]).await;
    bounded_for(LIMIT, async {
        let notes: Arc<Mutex<Vec<String>>> = Arc::default();
        let n = notes.clone();
        let options = legacy().on_notification(move |m, _| n.lock().unwrap().push(m.to_string()));
        let client = Client::http(&peer.url("/mcp"), HttpClientOptions::default(), options)
            .await
            .unwrap_or_else(|e| panic!("connect: {e}; server log:\n{}", peer.output()));
        let r = client.call_tool("echo", json!({"text": "json"})).await.expect("echo");
        assert_eq!(text(&r), "echo: json");
        // A notification unrelated to any call travels on the standalone GET stream.
        let r = client.call_tool("announce", json!({})).await.expect("announce");
        assert_eq!(text(&r), "announced");
        for _ in 0..100 {
            if notes.lock().unwrap().iter().any(|m| m == "notifications/tools/list_changed") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(notes.lock().unwrap().iter().any(|m| m == "notifications/tools/list_changed"), "{notes:?}");
        client.close().await.expect("close");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_sse_fallback_against_the_python_sdk() {
    let Some(py) = python() else { return };
    let peer = Peer::python(&py, &["sse"]).await;
    let (port, log, _) = proxy(peer.port).await;
    bounded_for(LIMIT, async {
        // Auto: the POST of initialize to /sse is refused (405), so the client opens /sse as
        // an event stream and POSTs where its `endpoint` event says.
        let url = format!("http://127.0.0.1:{port}/sse");
        let http = HttpClientOptions::default().header("X-Test-Header", "legacy");
        let client = Client::http(&url, http, elicitation_options())
            .await
            .unwrap_or_else(|e| panic!("connect: {e}; server log:\n{}", peer.output()));
        let r = client.call_tool("echo", json!({"text": "old"})).await.expect("echo");
        assert_eq!(text(&r), "echo: old");
        let (opts, got) = with_progress();
        client.call_tool_with("progress", json!({"steps": 3}), opts).await.expect("progress");
        assert_eq!(got.lock().unwrap().len(), 3);
        let r = client.call_tool("ask", json!({})).await.expect("ask");
        assert_eq!(text(&r), "hello Ada, 36");
        client.close().await.expect("close");
    })
    .await;
    let seen = requests(&log);
    assert_eq!((seen[0].method.as_str(), seen[0].path.as_str()), ("POST", "/sse"), "{seen:?}");
    assert_eq!((seen[1].method.as_str(), seen[1].path.as_str()), ("GET", "/sse"), "{seen:?}");
    let posts: Vec<&Seen> = seen[2..].iter().filter(|s| s.method == "POST").collect();
    assert!(posts.len() >= 4, "{seen:?}");
    for p in posts {
        assert!(p.path.starts_with("/messages/?session_id="), "{p:?}");
        assert_eq!(p.header("x-test-header"), Some("legacy"), "{p:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn expired_session_is_an_error_not_a_silent_reinitialize() {
    let Some(py) = python() else { return };
    // Sessions idle for 1 s are dropped by the server (no GET stream keeps this one busy).
    let peer = Peer::python(&py, &["streamable", "1"]).await;
    bounded_for(LIMIT, async {
        let http = HttpClientOptions { open_get_stream: false, ..Default::default() };
        let client = Client::http(&peer.url("/mcp"), http, legacy())
            .await
            .unwrap_or_else(|e| panic!("connect: {e}; server log:\n{}", peer.output()));
        client.call_tool("echo", json!({"text": "a"})).await.expect("echo while the session lives");
        tokio::time::sleep(Duration::from_millis(2500)).await;
        let e = client.call_tool("echo", json!({"text": "b"})).await.expect_err("the session expired");
        assert!(e.to_string().contains("session expired"), "{e}");
        assert_eq!(e.code(), HTTP_TRANSPORT_ERROR, "{e}");
        // The connection is over: no new session behind the caller's back.
        let e = client.call_tool("echo", json!({"text": "c"})).await.expect_err("closed");
        assert!(matches!(e, hypermcp::Error::Closed), "{e:?}");
        client.close().await.expect("close");
    })
    .await;
    let log = peer.output();
    assert_eq!(log.matches("\"POST /mcp HTTP/1.1\" 404").count(), 1, "{log}");
}

// ---- error mapping (canned servers) -----------------------------------------------------

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_errors_become_clear_rpc_errors() {
    bounded_for(LIMIT, async {
        // 500 on initialize: the handshake fails with the status and the body.
        let (url, _) = canned(|_| (500, "text/plain", "internal kaboom\n  at line 3".into())).await;
        let e = Client::http(&url, HttpClientOptions::default(), legacy()).await.unwrap_err();
        let m = e.to_string();
        assert!(m.contains("HTTP 500 Internal Server Error") && m.contains("internal kaboom at line 3"), "{m}");

        // 400 with a JSON-RPC error body, and no legacy stream either: both are reported.
        let (url, log) = canned(|s| match s.method.as_str() {
            "POST" => (
                400,
                "application/json",
                json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Bad Request: no way"}})
                    .to_string(),
            ),
            _ => (405, "", String::new()),
        })
        .await;
        let http = HttpClientOptions::default().header("Authorization", "Bearer abc");
        let e = Client::http(&url, http, legacy()).await.unwrap_err();
        let m = e.to_string();
        assert!(m.contains("HTTP 400 Bad Request") && m.contains("Bad Request: no way"), "{m}");
        assert!(m.contains("legacy HTTP+SSE") && m.contains("405"), "{m}");
        let seen = requests(&log);
        assert_eq!(seen.iter().map(|s| s.method.as_str()).collect::<Vec<_>>(), ["POST", "GET"]);
        assert!(seen.iter().all(|s| s.header("authorization") == Some("Bearer abc")), "{seen:?}");
        assert_eq!(seen[1].header("accept"), Some("text/event-stream"));

        // Without the fallback, a 404 is reported as such.
        let (url, log) = canned(|_| (404, "text/plain", "nothing here".into())).await;
        let http = HttpClientOptions { legacy_fallback: false, ..Default::default() };
        let e = Client::http(&url, http, legacy()).await.unwrap_err();
        assert!(e.to_string().contains("HTTP 404 Not Found") && e.to_string().contains("nothing here"), "{e}");
        assert_eq!(requests(&log).len(), 1);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn broken_streams_and_failed_calls_do_not_hang() {
    bounded_for(LIMIT, async {
        let (url, log) = canned(|s| {
            let id = s.body.get("id").cloned().unwrap_or(Value::Null);
            match (s.method.as_str(), s.rpc_method()) {
                ("POST", Some("initialize")) => (200, "application/json", init_result(&id)),
                ("POST", Some("tools/list")) => (503, "text/plain", "over capacity".into()),
                // An SSE answer that ends early, with an event id: resuming it (GET) gets 405.
                ("POST", Some("tools/call")) if s.body["params"]["name"] == "resumable" => {
                    (200, "text/event-stream", "id: ev-1\nretry: 10\ndata: \n\n".into())
                }
                // An SSE answer that ends without the response and without event ids.
                ("POST", Some("tools/call")) => (
                    200,
                    "text/event-stream",
                    format!(
                        "event: message\ndata: {}\n\n",
                        json!({"jsonrpc": "2.0", "method": "notifications/message",
                               "params": {"level": "info", "data": "working"}})
                    ),
                ),
                ("POST", Some("ping")) => (200, "application/json; charset=utf-8", "{not json".into()),
                ("POST", _) => (202, "", String::new()),
                ("GET", _) => (405, "", String::new()),
                ("DELETE", _) => (200, "", String::new()),
                _ => (400, "", String::new()),
            }
        })
        .await;
        let notes: Arc<Mutex<Vec<String>>> = Arc::default();
        let n = notes.clone();
        let options = legacy().on_notification(move |m, _| n.lock().unwrap().push(m.to_string()));
        let client = Client::http(&url, HttpClientOptions::default(), options).await.expect("connect");
        assert_eq!(client.protocol_version().as_str(), "2025-06-18");

        let e = client.list_tools().await.unwrap_err();
        assert!(e.to_string().contains("HTTP 503 Service Unavailable") && e.to_string().contains("over capacity"));
        assert_eq!(e.code(), HTTP_TRANSPORT_ERROR);

        let e = client.call_tool("x", json!({})).await.unwrap_err();
        assert!(e.to_string().contains("without an event id"), "{e}");
        assert_eq!(notes.lock().unwrap().as_slice(), ["notifications/message"]);

        let e = client.call_tool("resumable", json!({})).await.unwrap_err();
        assert!(e.to_string().contains("resuming the server's event stream failed: HTTP 405"), "{e}");

        // Still usable after those errors.
        let e = client.ping().await.unwrap_err();
        assert!(e.code() != hypermcp::jsonrpc::codes::CONNECTION_CLOSED, "{e:?}");
        client.close().await.expect("close");

        let seen = requests(&log);
        let methods: Vec<String> =
            seen.iter().map(|s| format!("{} {}", s.method, s.rpc_method().unwrap_or(""))).collect();
        assert!(methods.contains(&"GET ".to_string()), "no standalone GET: {methods:?}");
        let resumed = seen.iter().find(|s| s.header("last-event-id").is_some()).expect("a resumption GET");
        assert_eq!((resumed.method.as_str(), resumed.header("last-event-id")), ("GET", Some("ev-1")));
        // (The engine's answer to the invalid JSON may race the DELETE.)
        let delete = seen.iter().find(|s| s.method == "DELETE").unwrap_or_else(|| panic!("no DELETE: {methods:?}"));
        assert_eq!(delete.header("mcp-session-id"), Some("canned-session"));
        for s in &seen[1..] {
            assert_eq!(s.header("mcp-session-id"), Some("canned-session"), "{s:?}");
            assert_eq!(s.header("mcp-protocol-version"), Some("2025-06-18"), "{s:?}");
        }
    })
    .await;
}

/// A connection that breaks under a request while the server is still there fails that
/// request as closed (it may or may not have been served: it is not sent again), and the
/// client goes on; a server gone for good ends the transport (the reconnect tests).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_connection_broken_under_a_request_fails_it_as_closed() {
    bounded_for(LIMIT, async {
        let (url, log) = canned(|s| {
            let id = s.body.get("id").cloned().unwrap_or(Value::Null);
            match (s.method.as_str(), s.rpc_method()) {
                ("POST", Some("initialize")) => (200, "application/json", init_result(&id)),
                ("POST", Some("tools/call")) => (0, "", String::new()),
                ("POST", Some("ping")) => {
                    (200, "application/json", json!({"jsonrpc": "2.0", "id": id, "result": {}}).to_string())
                }
                ("POST", _) => (202, "", String::new()),
                _ => (405, "", String::new()),
            }
        })
        .await;
        let client = Client::http(&url, HttpClientOptions::default(), legacy()).await.expect("connect");
        let e = client.call_tool("x", json!({})).await.unwrap_err();
        // (Error::Closed: the Rust error of a closed connection carries no message.)
        assert_eq!(e.code(), hypermcp::jsonrpc::codes::CONNECTION_CLOSED, "{e:?}");
        client.ping().await.expect("the client goes on");
        let calls = requests(&log).iter().filter(|s| s.rpc_method() == Some("tools/call")).count();
        assert_eq!(calls, 1, "never sent twice");
        client.close().await.expect("close");
    })
    .await;
}

#[tokio::test]
async fn unreachable_and_unsupported_urls() {
    bounded_for(LIMIT, async {
        let port = free_port();
        let url = format!("http://127.0.0.1:{port}/mcp");
        let e = Client::http(&url, HttpClientOptions::default(), legacy()).await.unwrap_err();
        assert!(e.to_string().contains(&url), "{e}");
        let e = Client::http("gopher://example.com/mcp", HttpClientOptions::default(), legacy()).await.unwrap_err();
        assert!(e.to_string().contains("unsupported URL scheme"), "{e}");
        let http = HttpClientOptions::default().header("Bad Header", "x");
        let e = Client::http("http://127.0.0.1:1/", http, legacy()).await.unwrap_err();
        assert!(e.to_string().contains("invalid HTTP header name"), "{e}");
    })
    .await;
}
