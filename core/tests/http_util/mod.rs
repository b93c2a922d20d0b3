//! Helpers of the HTTP server tests: a test server on 127.0.0.1:0 driven by `serve_http`, a
//! raw HTTP/1.1 client over `TcpStream` (exact control of every header and byte, chunked
//! bodies, SSE parsing, dropping a connection at any point), and MCP conveniences
//! (initialize a session, post a message, collect a response from JSON or SSE).
//!
//! Each test binary uses a subset of this module.
#![allow(dead_code)]

use hypermcp::http::server::{bind, serve_http};
use hypermcp::http::{HttpOptions, HttpService};
use hypermcp::{CallToolResult, Server, Tool};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How long one read may wait before a test fails.
pub const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Both media types a Streamable HTTP POST must accept.
pub const ACCEPT_BOTH: &str = "application/json, text/event-stream";

// ---- the server --------------------------------------------------------------------------

/// A server running `serve_http` on 127.0.0.1:0.
pub struct TestServer {
    /// Where it listens.
    pub addr: SocketAddr,
    /// The service (for `session_count` and the like).
    pub service: HttpService,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<hypermcp::Result<()>>>,
}

impl TestServer {
    /// Serves `server` with `options`.
    pub async fn start(server: &Server, options: HttpOptions) -> TestServer {
        let mut options = options;
        let listener = bind("127.0.0.1:0", &mut options).await.expect("bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("local addr");
        let service = server.http_service(options);
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(serve_http(service.clone(), listener, async move {
            let _ = stopped.await;
        }));
        TestServer { addr, service, stop: Some(stop), task: Some(task) }
    }

    /// Sends `req` on a new connection and reads the response head.
    pub async fn send(&self, req: Req) -> Resp {
        let mut c = Conn::connect(self.addr).await;
        c.send(&req).await;
        c.response().await
    }

    /// Fires the shutdown future and returns the serve task (it ends once shut down).
    pub fn shutdown(&mut self) -> JoinHandle<hypermcp::Result<()>> {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
        self.task.take().expect("shut down once")
    }

    /// `Host` value of this server.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.addr.port())
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(s) = self.stop.take() {
            let _ = s.send(());
        }
    }
}

/// Options for tests: the defaults with a short `json_wait`.
pub fn options() -> HttpOptions {
    HttpOptions { json_wait: Duration::from_millis(50), ..HttpOptions::default() }
}

fn arg_u64(args: &serde_json::Map<String, Value>, name: &str, default: u64) -> u64 {
    args.get(name).and_then(Value::as_u64).unwrap_or(default)
}

/// The server most tests use:
/// - `echo {text}`: answers at once;
/// - `slow {ms}`: sleeps, then answers `done`;
/// - `chatty`: progress, a log, a sampling request (its text is the result), then the result;
/// - `poll {ms}`: progress 1, closes its SSE connection, sleeps, progress 2, then `polled`;
/// - `progress_slow {ms}`: progress 1, sleeps, then `finished`.
pub fn test_server() -> Server {
    let text = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    Server::new("http-test-server", "1.0.0")
        .tool(Tool::new("echo").input_schema(text), |args, _ctx| async move {
            CallToolResult::text(args.get("text").and_then(Value::as_str).unwrap_or_default())
        })
        .tool(Tool::new("slow"), |args, _ctx| async move {
            tokio::time::sleep(Duration::from_millis(arg_u64(&args, "ms", 300))).await;
            CallToolResult::text("done")
        })
        .tool(Tool::new("chatty"), |_args, ctx| async move {
            ctx.report_progress(1.0, Some(2.0), Some("starting")).await?;
            ctx.log(hypermcp::LoggingLevel::Info, Some("chatty"), json!("working"));
            let sampled = ctx
                .request(
                    "sampling/createMessage",
                    Some(json!({
                        "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                        "maxTokens": 10
                    })),
                    None,
                )
                .await?;
            ctx.report_progress(2.0, Some(2.0), Some("sampled")).await?;
            let text = sampled["content"]["text"].as_str().unwrap_or("?").to_string();
            Ok::<_, hypermcp::Error>(CallToolResult::text(format!("model said: {text}")))
        })
        .tool(Tool::new("poll"), |args, ctx| async move {
            ctx.report_progress(1.0, None, Some("before")).await?;
            ctx.close_sse_stream();
            tokio::time::sleep(Duration::from_millis(arg_u64(&args, "ms", 200))).await;
            ctx.report_progress(2.0, None, Some("after")).await?;
            Ok::<_, hypermcp::Error>(CallToolResult::text("polled"))
        })
        .tool(Tool::new("progress_slow"), |args, ctx| async move {
            ctx.report_progress(1.0, None, None).await?;
            tokio::time::sleep(Duration::from_millis(arg_u64(&args, "ms", 300))).await;
            Ok::<_, hypermcp::Error>(CallToolResult::text("finished"))
        })
}

// ---- raw HTTP/1.1 --------------------------------------------------------------------------

/// A request to write by hand.
#[derive(Clone, Debug)]
pub struct Req {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Send the body chunked (no Content-Length).
    pub chunked: bool,
    /// Add `Host: 127.0.0.1:<port>` when no Host header was set.
    pub auto_host: bool,
}

impl Req {
    pub fn new(method: &str, path: &str) -> Req {
        Req {
            method: method.into(),
            path: path.into(),
            headers: Vec::new(),
            body: Vec::new(),
            chunked: false,
            auto_host: true,
        }
    }

    /// A Streamable HTTP POST of `body` to `/mcp` with the right Accept and Content-Type.
    pub fn post(body: &Value) -> Req {
        Req::new("POST", "/mcp")
            .header("Accept", ACCEPT_BOTH)
            .header("Content-Type", "application/json")
            .body(serde_json::to_vec(body).unwrap())
    }

    /// A GET of the standalone SSE stream.
    pub fn get() -> Req {
        Req::new("GET", "/mcp").header("Accept", "text/event-stream")
    }

    pub fn header(mut self, name: &str, value: &str) -> Req {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Replaces (or removes, with `None`) every header called `name`.
    pub fn set_header(mut self, name: &str, value: Option<&str>) -> Req {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        if let Some(v) = value {
            self.headers.push((name.into(), v.into()));
        }
        self
    }

    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Req {
        self.body = body.into();
        self
    }

    pub fn set_path(mut self, path: &str) -> Req {
        self.path = path.into();
        self
    }

    pub fn chunked(mut self) -> Req {
        self.chunked = true;
        self
    }

    pub fn no_host(mut self) -> Req {
        self.auto_host = false;
        self
    }

    /// Adds the session headers of `s`.
    pub fn session(self, s: &McpSession) -> Req {
        self.header("Mcp-Session-Id", &s.id).header("MCP-Protocol-Version", &s.version)
    }

    fn has(&self, name: &str) -> bool {
        self.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case(name))
    }

    /// The request head (and body, unless `head_only`).
    pub fn encode(&self, addr: SocketAddr, head_only: bool) -> Vec<u8> {
        let mut out = format!("{} {} HTTP/1.1\r\n", self.method, self.path);
        if self.auto_host && !self.has("host") {
            out.push_str(&format!("Host: 127.0.0.1:{}\r\n", addr.port()));
        }
        for (n, v) in &self.headers {
            out.push_str(&format!("{n}: {v}\r\n"));
        }
        let has_body = !self.body.is_empty() || self.method == "POST";
        if self.chunked {
            out.push_str("Transfer-Encoding: chunked\r\n");
        } else if has_body && !self.has("content-length") {
            out.push_str(&format!("Content-Length: {}\r\n", self.body.len()));
        }
        out.push_str("\r\n");
        let mut bytes = out.into_bytes();
        if head_only {
            return bytes;
        }
        if self.chunked {
            for piece in self.body.chunks(8192) {
                bytes.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
                bytes.extend_from_slice(piece);
                bytes.extend_from_slice(b"\r\n");
            }
            bytes.extend_from_slice(b"0\r\n\r\n");
        } else {
            bytes.extend_from_slice(&self.body);
        }
        bytes
    }
}

/// One client connection.
pub struct Conn {
    pub addr: SocketAddr,
    rd: BufReader<OwnedReadHalf>,
    wr: OwnedWriteHalf,
}

async fn timed<F: std::future::Future>(what: &str, f: F) -> F::Output {
    match tokio::time::timeout(READ_TIMEOUT, f).await {
        Ok(v) => v,
        Err(_) => panic!("timed out waiting for {what}"),
    }
}

impl Conn {
    pub async fn connect(addr: SocketAddr) -> Conn {
        let tcp = timed("connect", TcpStream::connect(addr)).await.expect("connect");
        tcp.set_nodelay(true).ok();
        let (r, w) = tcp.into_split();
        Conn { addr, rd: BufReader::new(r), wr: w }
    }

    /// Connects from another loopback address (`127.0.0.2`, say): a second client address.
    pub async fn connect_from(addr: SocketAddr, source: std::net::IpAddr) -> Conn {
        let sock = tokio::net::TcpSocket::new_v4().expect("socket");
        sock.bind(SocketAddr::new(source, 0)).expect("bind the source address");
        let tcp = timed("connect", sock.connect(addr)).await.expect("connect");
        tcp.set_nodelay(true).ok();
        let (r, w) = tcp.into_split();
        Conn { addr, rd: BufReader::new(r), wr: w }
    }

    pub async fn send(&mut self, req: &Req) {
        let bytes = req.encode(self.addr, false);
        self.write(&bytes).await;
    }

    pub async fn write(&mut self, bytes: &[u8]) {
        timed("write", self.wr.write_all(bytes)).await.expect("write");
        self.wr.flush().await.expect("flush");
    }

    /// Reads a response head; the body is read through the returned [`Resp`].
    pub async fn response(mut self) -> Resp {
        let mut status_line = String::new();
        let n = timed("the status line", self.rd.read_line(&mut status_line)).await.expect("read status");
        assert!(n > 0, "the server closed the connection without answering");
        let mut parts = status_line.split_whitespace();
        assert_eq!(parts.next(), Some("HTTP/1.1"), "status line {status_line:?}");
        let status: u16 = parts.next().and_then(|s| s.parse().ok()).expect("status code");
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            timed("a header", self.rd.read_line(&mut line)).await.expect("read header");
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                break;
            }
            let (n, v) = line.split_once(':').expect("header line");
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
        let get = |n: &str| headers.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
        let body = if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
            Body::Chunked { left: 0, done: false }
        } else if let Some(len) = get("content-length") {
            Body::Length(len.parse().expect("content-length"))
        } else if status == 204 || status == 304 {
            Body::Length(0)
        } else {
            Body::UntilClose(false)
        };
        Resp { status, headers, conn: self, body, text: Vec::new() }
    }

    /// Whether the server closed this connection within `wait` (whatever it sent first).
    pub async fn closed_within(&mut self, wait: Duration) -> bool {
        let mut b = [0u8; 1024];
        let eof = async {
            loop {
                match self.rd.read(&mut b).await {
                    Ok(0) | Err(_) => return,
                    Ok(_) => continue,
                }
            }
        };
        tokio::time::timeout(wait, eof).await.is_ok()
    }
}

enum Body {
    Length(usize),
    Chunked { left: usize, done: bool },
    UntilClose(bool),
}

/// One SSE event (or a block of comments).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SseEvent {
    pub id: Option<String>,
    pub event: Option<String>,
    /// The data lines joined with `\n` (`None`: no data field).
    pub data: Option<String>,
    pub retry: Option<u64>,
    pub comments: Vec<String>,
}

impl SseEvent {
    /// The data parsed as JSON (panics when it is not).
    pub fn json(&self) -> Value {
        let d = self.data.as_deref().unwrap_or_else(|| panic!("event without data: {self:?}"));
        serde_json::from_str(d).unwrap_or_else(|e| panic!("event data is not JSON ({e}): {d}"))
    }

    /// Whether this carries a JSON-RPC message (non-empty data).
    pub fn is_message(&self) -> bool {
        self.data.as_deref().is_some_and(|d| !d.is_empty())
    }
}

/// A response: its head, and its body read on demand.
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    conn: Conn,
    body: Body,
    /// Body bytes read but not yet parsed as SSE events.
    text: Vec<u8>,
}

impl std::fmt::Debug for Resp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resp").field("status", &self.status).field("headers", &self.headers).finish()
    }
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(k, _)| *k == name).map(|(_, v)| v.as_str())
    }

    pub fn content_type(&self) -> &str {
        self.header("content-type").unwrap_or("")
    }

    pub fn is_sse(&self) -> bool {
        self.content_type().starts_with("text/event-stream")
    }

    /// The next piece of body data (`None` at the end of the body).
    pub async fn chunk(&mut self) -> Option<Vec<u8>> {
        timed("body data", self.chunk_inner()).await
    }

    async fn chunk_inner(&mut self) -> Option<Vec<u8>> {
        let rd = &mut self.conn.rd;
        match &mut self.body {
            Body::Length(0) => None,
            Body::Length(left) => {
                let mut buf = vec![0u8; (*left).min(65536)];
                let n = rd.read(&mut buf).await.expect("read body");
                assert!(n > 0, "connection closed with {left} body bytes missing");
                *left -= n;
                buf.truncate(n);
                Some(buf)
            }
            Body::UntilClose(true) => None,
            Body::UntilClose(done) => {
                let mut buf = vec![0u8; 65536];
                let n = rd.read(&mut buf).await.unwrap_or(0);
                if n == 0 {
                    *done = true;
                    return None;
                }
                buf.truncate(n);
                Some(buf)
            }
            Body::Chunked { done: true, .. } => None,
            Body::Chunked { left, done } => {
                if *left == 0 {
                    let mut line = String::new();
                    let n = rd.read_line(&mut line).await.expect("chunk size");
                    if n == 0 {
                        *done = true; // cut off without the last chunk
                        return None;
                    }
                    let size = line.trim_end().split(';').next().unwrap_or("");
                    let size = usize::from_str_radix(size.trim(), 16).expect("chunk size hex");
                    if size == 0 {
                        // Trailers, then the blank line.
                        loop {
                            let mut t = String::new();
                            let n = rd.read_line(&mut t).await.expect("trailer");
                            if n == 0 || t == "\r\n" || t == "\n" {
                                break;
                            }
                        }
                        *done = true;
                        return None;
                    }
                    *left = size;
                }
                let mut buf = vec![0u8; *left];
                rd.read_exact(&mut buf).await.expect("chunk data");
                let mut crlf = [0u8; 2];
                rd.read_exact(&mut crlf).await.expect("chunk CRLF");
                *left = 0;
                Some(buf)
            }
        }
    }

    /// The whole body.
    pub async fn body(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.text);
        while let Some(c) = self.chunk().await {
            out.extend_from_slice(&c);
        }
        out
    }

    pub async fn text(&mut self) -> String {
        String::from_utf8(self.body().await).expect("UTF-8 body")
    }

    /// The whole body as JSON.
    pub async fn json(&mut self) -> Value {
        let b = self.body().await;
        serde_json::from_slice(&b).unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", String::from_utf8_lossy(&b)))
    }

    /// The next SSE event or comment block; `None` when the stream ended.
    pub async fn event(&mut self) -> Option<SseEvent> {
        loop {
            if let Some(ev) = self.parse_event() {
                return Some(ev);
            }
            match self.chunk().await {
                Some(c) => self.text.extend_from_slice(&c),
                None => return None,
            }
        }
    }

    /// The next event within `wait`: `Err(())` on timeout, `Ok(None)` at the end.
    pub async fn event_within(&mut self, wait: Duration) -> Result<Option<SseEvent>, ()> {
        tokio::time::timeout(wait, self.event()).await.map_err(|_| ())
    }

    /// The next event that carries a message (comments and priming events are skipped).
    pub async fn message(&mut self) -> Option<SseEvent> {
        loop {
            let ev = self.event().await?;
            if ev.is_message() {
                return Some(ev);
            }
        }
    }

    fn parse_event(&mut self) -> Option<SseEvent> {
        let end = self.text.windows(2).position(|w| w == b"\n\n")?;
        let block: Vec<u8> = self.text.drain(..end + 2).collect();
        let block = String::from_utf8(block).expect("UTF-8 SSE");
        let mut ev = SseEvent::default();
        for line in block.trim_end_matches('\n').split('\n') {
            if let Some(c) = line.strip_prefix(':') {
                ev.comments.push(c.trim().to_string());
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (line, ""),
            };
            match field {
                "id" => ev.id = Some(value.to_string()),
                "event" => ev.event = Some(value.to_string()),
                "retry" => ev.retry = value.parse().ok(),
                "data" => {
                    let d = ev.data.get_or_insert_with(String::new);
                    if !d.is_empty() {
                        d.push('\n');
                    }
                    d.push_str(value);
                }
                _ => {}
            }
        }
        Some(ev)
    }

    /// Gives the connection back (after the body was read in full) to send another request.
    pub fn into_conn(self) -> Conn {
        self.conn
    }
}

// ---- MCP over the raw client ------------------------------------------------------------

/// A session as a test client sees it.
#[derive(Clone, Debug)]
pub struct McpSession {
    pub id: String,
    pub version: String,
}

/// An `initialize` request for `version` (sampling declared).
pub fn initialize_request(version: &str, id: i64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {"sampling": {}, "roots": {"listChanged": true}},
            "clientInfo": {"name": "raw-http-test", "version": "0.0.1"}
        }
    })
}

/// Opens a session: `initialize` (JSON answer with a session id), then `initialized`.
pub async fn initialize(ts: &TestServer, version: &str) -> McpSession {
    let mut r = ts.send(Req::post(&initialize_request(version, 1))).await;
    assert_eq!(r.status, 200, "initialize: {r:?}");
    assert!(r.content_type().starts_with("application/json"), "initialize answers JSON: {r:?}");
    let id = r.header("mcp-session-id").expect("Mcp-Session-Id on the initialize answer").to_string();
    let body = r.json().await;
    assert_eq!(body["result"]["protocolVersion"], version, "{body}");
    let s = McpSession { id, version: version.to_string() };
    notify_initialized(ts, &s).await;
    s
}

/// Sends `notifications/initialized` (202 expected).
pub async fn notify_initialized(ts: &TestServer, s: &McpSession) {
    let r = ts.send(Req::post(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).session(s)).await;
    assert_eq!(r.status, 202, "initialized: {r:?}");
}

/// A `tools/call` request.
pub fn call(id: i64, name: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": args}})
}

/// A `tools/call` request asking for progress (token = `id`).
pub fn call_with_progress(id: i64, name: &str, args: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": name, "arguments": args, "_meta": {"progressToken": id}}})
}

/// Everything a POST answered with: the messages in order (from a JSON body or an SSE
/// stream), and the SSE events when it was a stream.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub sse: bool,
    pub messages: Vec<Value>,
    pub events: Vec<SseEvent>,
}

impl Answer {
    /// The response with `id`.
    pub fn response(&self, id: i64) -> &Value {
        self.messages
            .iter()
            .find(|m| m.get("id") == Some(&json!(id)) && m.get("method").is_none())
            .unwrap_or_else(|| panic!("no response with id {id} in {:?}", self.messages))
    }
}

/// Reads a whole answer (JSON body or SSE stream to its end).
pub async fn read_answer(mut r: Resp) -> Answer {
    let status = r.status;
    if r.is_sse() {
        let mut events = Vec::new();
        let mut messages = Vec::new();
        while let Some(ev) = r.event().await {
            if ev.is_message() {
                messages.push(ev.json());
            }
            events.push(ev);
        }
        Answer { status, sse: true, messages, events }
    } else {
        let b = r.body().await;
        let messages = if b.is_empty() {
            vec![]
        } else {
            vec![serde_json::from_slice(&b)
                .unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&b)))]
        };
        Answer { status, sse: false, messages, events: vec![] }
    }
}

/// Posts `msg` in session `s` and reads the whole answer.
pub async fn rpc(ts: &TestServer, s: &McpSession, msg: &Value) -> Answer {
    read_answer(ts.send(Req::post(msg).session(s)).await).await
}

/// The resident set size of this process in bytes (`/proc/self/statm`).
pub fn rss_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: usize = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).expect("statm rss");
    pages * 4096
}

/// Waits (bounded) until `f` holds, polling every 10 ms.
pub async fn eventually(what: &str, limit: Duration, mut f: impl FnMut() -> bool) {
    let start = tokio::time::Instant::now();
    while !f() {
        if start.elapsed() > limit {
            panic!("{what} did not happen within {limit:?}");
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}
