//! What the tasks of one transport share ([`Shared`]): the mode (undecided, Streamable HTTP
//! or legacy), the session id and negotiated revision, the requests awaiting their answers;
//! building requests, passing the server's messages to the reader, and failing the requests
//! the server cannot answer.

use super::ends::{End, Item};
use super::options::HttpClientOptions;
use super::pool::Pool;
use super::url::Target;
use super::HTTP_TRANSPORT_ERROR;
use crate::catalogue::headers::{client_headers, header_params, HeaderParam};
use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE, HOST};
use http::{Method, Request, Uri};
use http_body_util::Full;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::sync::{Arc, Mutex};
use tokio::sync::{mpsc, watch};

#[derive(Debug, Clone, Default)]
pub(super) enum Mode {
    /// Auto: the first POST decides.
    #[default]
    Undecided,
    Streamable,
    /// Legacy HTTP+SSE: messages are POSTed to this endpoint.
    Legacy(Target),
}

#[derive(Default)]
pub(super) struct State {
    pub(super) mode: Mode,
    pub(super) session: Option<HeaderValue>,
    pub(super) version: Option<HeaderValue>,
    /// The key of the `initialize` request in flight.
    pub(super) init_key: Option<String>,
    /// Requests sent and not answered yet: key (the id as JSON) → id.
    pub(super) pending: HashMap<String, Value>,
    pub(super) get_stream: bool,
    pub(super) fatal: Option<String>,
    /// The `x-mcp-header` parameters of the tools the server listed (2026-07-28), learned
    /// from `tools/list` answers, so that calls carry their `Mcp-Param-*` headers.
    pub(super) tool_headers: HashMap<String, Vec<HeaderParam>>,
    /// Keys of the `tools/list` requests in flight.
    pub(super) tool_lists: std::collections::HashSet<String>,
}

/// Tools whose header parameters are remembered at most.
const TOOL_HEADERS_MAX: usize = 10_000;

pub(super) struct Shared {
    pub(super) base: Target,
    pub(super) opts: HttpClientOptions,
    pub(super) max_message: usize,
    pub(super) headers: HeaderMap,
    pub(super) pool: Arc<Pool>,
    /// The OAuth client, when the options configure one.
    pub(super) auth: Option<Arc<crate::auth::client::Authorizer>>,
    pub(super) state: Mutex<State>,
    /// Set when the transport ends: every task stops.
    pub(super) stop: watch::Sender<bool>,
    /// Set when the writer shuts down or is dropped: the dispatcher stops waiting.
    pub(super) closing: watch::Sender<bool>,
    /// Notified when the client cancels requests (their streams need not be read further).
    pub(super) cancelled: tokio::sync::Notify,
}

/// What a written line holds.
#[derive(Debug, Default)]
pub(super) struct Outgoing {
    /// Keys of the requests in it.
    pub(super) keys: Vec<String>,
    pub(super) initialize: bool,
    pub(super) initialized: bool,
    /// A 2026-07-28 message: sent without session, with these headers (its version first).
    pub(super) modern: Option<Vec<(HeaderName, HeaderValue)>>,
    /// Not to be sent: a 2026-07-28 cancellation, which over HTTP is the closing of the
    /// request's stream (done when it is noted).
    pub(super) local: bool,
}

/// The revision a message's `_meta` names (borrowed: nothing else of it is built).
#[derive(Deserialize)]
struct ModernPeek<'a> {
    #[serde(rename = "_meta", default, borrow)]
    meta: Option<MetaVersion<'a>>,
}

#[derive(Deserialize)]
struct MetaVersion<'a> {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default, borrow)]
    version: Option<std::borrow::Cow<'a, str>>,
}

#[derive(Deserialize)]
struct PeekOut<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
    #[serde(default, borrow)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CancelPeek {
    #[serde(rename = "requestId")]
    request_id: Value,
}

#[derive(Deserialize)]
struct PeekIn<'a> {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<IgnoredAny>,
    #[serde(default, borrow)]
    result: Option<&'a RawValue>,
    #[serde(default)]
    error: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct InitPeek {
    #[serde(rename = "protocolVersion")]
    protocol_version: String,
}

/// The headers of a 2026-07-28 message (one whose `_meta` names its protocol version), or
/// `None` for a legacy one.
fn modern_headers(
    method: &str,
    raw: &RawValue,
    tools: &HashMap<String, Vec<HeaderParam>>,
) -> Option<Vec<(HeaderName, HeaderValue)>> {
    const KEY: &[u8] = b"io.modelcontextprotocol/protocolVersion";
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(KEY));
    FINDER.find(raw.get().as_bytes())?;
    let version = serde_json::from_str::<ModernPeek<'_>>(raw.get()).ok()?.meta?.version?;
    let mut out = vec![(HeaderName::from_static("mcp-protocol-version"), HeaderValue::from_str(&version).ok()?)];
    let wants_params = matches!(
        method,
        "tools/call" | "prompts/get" | "resources/read" | "tasks/get" | "tasks/update" | "tasks/cancel"
    );
    let params: Value = if wants_params { serde_json::from_str(raw.get()).ok()? } else { Value::Null };
    let tool = if method == "tools/call" {
        params.get("name").and_then(Value::as_str).and_then(|n| tools.get(n)).map(Vec::as_slice)
    } else {
        None
    };
    for (name, value) in client_headers(method, &params, tool) {
        if let (Ok(n), Ok(v)) = (HeaderName::from_bytes(name.as_bytes()), HeaderValue::from_str(&value)) {
            out.push((n, v));
        }
    }
    Some(out)
}

/// Records the `x-mcp-header` parameters of the tools of a `tools/list` result (tools with
/// invalid annotations are left out: the client drops them).
fn learn_tool_headers(map: &mut HashMap<String, Vec<HeaderParam>>, result: &RawValue) {
    #[derive(Deserialize)]
    struct Tools {
        #[serde(default)]
        tools: Vec<ToolPeek>,
    }
    #[derive(Deserialize)]
    struct ToolPeek {
        name: String,
        #[serde(rename = "inputSchema", default)]
        input_schema: Value,
    }
    let Ok(list) = serde_json::from_str::<Tools>(result.get()) else { return };
    for t in list.tools {
        match header_params(&t.input_schema) {
            Ok(ps) if !ps.is_empty() => {
                if map.len() < TOOL_HEADERS_MAX || map.contains_key(&t.name) {
                    map.insert(t.name, ps);
                }
            }
            _ => {
                map.remove(&t.name);
            }
        }
    }
}

fn id_key(id: &Value) -> String {
    id.to_string()
}

fn is_batch(bytes: &[u8]) -> bool {
    bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[')
}

/// Parses one message or a batch; `None` when it is neither.
fn peek<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> Option<Vec<T>> {
    if is_batch(bytes) {
        serde_json::from_slice(bytes).ok()
    } else {
        serde_json::from_slice(bytes).ok().map(|m| vec![m])
    }
}

fn error_line_with(id: &Value, code: i32, message: &str) -> Bytes {
    let v = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut s = v.to_string();
    s.push('\n');
    Bytes::from(s)
}

/// Options of one request.
#[derive(Default)]
pub(super) struct Req<'a> {
    /// Leave out the session id and protocol version (`initialize`, the legacy GET).
    pub(super) fresh: bool,
    pub(super) last_event_id: Option<&'a str>,
    /// The headers of a 2026-07-28 message (no session id then).
    pub(super) modern: Option<&'a [(HeaderName, HeaderValue)]>,
}

impl Shared {
    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(super) fn fatal_message(&self) -> Option<String> {
        self.state().fatal.clone()
    }

    /// Runs a task until it ends or the transport stops.
    pub(super) fn spawn(&self, fut: impl Future<Output = ()> + Send + 'static) {
        let mut stop = self.stop.subscribe();
        tokio::spawn(async move {
            tokio::select! {
                _ = fut => {}
                _ = stop.wait_for(|s| *s) => {}
            }
        });
    }

    pub(super) fn request(&self, method: Method, target: &Target, body: Bytes, opts: Req<'_>) -> Request<Full<Bytes>> {
        let mut req = Request::new(Full::new(body));
        *req.method_mut() = method.clone();
        // The path was validated when the target was built.
        *req.uri_mut() = target.path.parse().unwrap_or_else(|_| Uri::from_static("/"));
        let h = req.headers_mut();
        for (n, v) in &self.headers {
            h.append(n, v.clone());
        }
        h.insert(HOST, target.authority.clone());
        if let Some(auth) = &self.auth {
            if let Some(v) = auth.authorization().and_then(|v| HeaderValue::from_str(&v).ok()) {
                h.insert(http::header::AUTHORIZATION, v);
                // A DPoP-bound token goes with a fresh proof of this request (RFC 9449 §7.1).
                if let Some(p) = auth.proof(method.as_str(), &target.url).and_then(|p| HeaderValue::from_str(&p).ok()) {
                    h.insert(HeaderName::from_static("dpop"), p);
                }
            }
        }
        if method == Method::POST {
            h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            h.insert(ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
        } else if method == Method::GET {
            h.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
            h.insert(http::header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        }
        if let Some(extra) = opts.modern {
            for (n, v) in extra {
                h.insert(n.clone(), v.clone());
            }
        } else if !opts.fresh {
            let st = self.state();
            if let Some(s) = &st.session {
                h.insert(HeaderName::from_static("mcp-session-id"), s.clone());
            }
            if let Some(v) = &st.version {
                h.insert(HeaderName::from_static("mcp-protocol-version"), v.clone());
            }
        }
        if let Some(id) = opts.last_event_id.and_then(|id| HeaderValue::from_str(id).ok()) {
            h.insert(HeaderName::from_static("last-event-id"), id);
        }
        req
    }

    /// Classifies a written line and records its requests as pending.
    pub(super) fn note_outgoing(&self, line: &[u8]) -> Outgoing {
        let mut out = Outgoing::default();
        let msgs: Vec<PeekOut<'_>> = peek(line).unwrap_or_default();
        let mut st = self.state();
        let mut cancelled = false;
        if let [m] = msgs.as_slice() {
            if let (Some(method), Some(raw)) = (m.method.as_deref(), m.params) {
                out.modern = modern_headers(method, raw, &st.tool_headers);
            }
        }
        for m in msgs {
            match (m.method.as_deref(), m.id) {
                (Some(method), Some(id)) if !id.is_null() => {
                    let key = id_key(&id);
                    if method == "initialize" {
                        out.initialize = true;
                        st.init_key = Some(key.clone());
                    }
                    if method == "tools/list" && out.modern.is_some() {
                        st.tool_lists.insert(key.clone());
                    }
                    st.pending.insert(key.clone(), id);
                    out.keys.push(key);
                }
                (Some("notifications/initialized"), _) => out.initialized = true,
                // The client gave up on a request (e.g. its timeout): stop waiting for the answer.
                (Some("notifications/cancelled"), _) => {
                    if let Some(c) = m.params.and_then(|p| serde_json::from_str::<CancelPeek>(p.get()).ok()) {
                        cancelled |= st.pending.remove(&id_key(&c.request_id)).is_some();
                    }
                    out.local = out.modern.is_some();
                }
                _ => {}
            }
        }
        drop(st);
        if cancelled {
            self.cancelled.notify_waiters();
        }
        out
    }

    /// Records the answers in a server message (and the negotiated revision).
    fn note_incoming(&self, msg: &[u8]) {
        let Some(msgs) = peek::<PeekIn<'_>>(msg) else { return };
        let mut st = self.state();
        for m in msgs {
            if m.method.is_some() || (m.result.is_none() && m.error.is_none()) {
                continue;
            }
            let Some(id) = m.id else { continue };
            let key = id_key(&id);
            st.pending.remove(&key);
            if st.tool_lists.remove(&key) {
                if let Some(r) = m.result {
                    learn_tool_headers(&mut st.tool_headers, r);
                }
            }
            if st.init_key.as_deref() == Some(key.as_str()) {
                st.init_key = None;
                if let Some(v) = m
                    .result
                    .and_then(|r| serde_json::from_str::<InitPeek>(r.get()).ok())
                    .and_then(|p| HeaderValue::from_str(&p.protocol_version).ok())
                {
                    st.version = Some(v);
                }
            }
        }
    }

    /// Passes one server message to the reader. False when the reader is gone.
    pub(super) async fn deliver(&self, tx: &mpsc::Sender<Item>, msg: &[u8]) -> bool {
        if msg.iter().all(u8::is_ascii_whitespace) {
            return true;
        }
        self.note_incoming(msg);
        let mut line = Vec::with_capacity(msg.len() + 1);
        line.extend_from_slice(msg);
        // JSON has no raw line breaks inside strings: outside them they are whitespace.
        for b in &mut line {
            if *b == b'\n' || *b == b'\r' {
                *b = b' ';
            }
        }
        line.push(b'\n');
        tx.send(Ok(Bytes::from(line))).await.is_ok()
    }

    /// Delivers an HTTP error body that is a JSON-RPC error answering one of `keys`; false
    /// when it is not (the caller makes up the error then).
    pub(super) async fn deliver_error(&self, tx: &mpsc::Sender<Item>, body: &[u8], keys: &[String]) -> bool {
        let Some(msgs) = peek::<PeekIn<'_>>(body) else { return false };
        let ours = msgs.len() == 1
            && msgs[0].error.is_some()
            && msgs[0].id.as_ref().is_some_and(|id| keys.iter().any(|k| *k == id_key(id)));
        ours && self.deliver(tx, body).await
    }

    pub(super) fn answered(&self, keys: &[String]) -> bool {
        let st = self.state();
        keys.iter().all(|k| !st.pending.contains_key(k))
    }

    /// Answers the still pending requests among `keys` with an error.
    pub(super) async fn fail_requests(&self, tx: &mpsc::Sender<Item>, keys: &[String], message: &str) {
        self.fail_requests_with(tx, keys, HTTP_TRANSPORT_ERROR, message).await
    }

    /// [`Shared::fail_requests`] with this error code.
    pub(super) async fn fail_requests_with(&self, tx: &mpsc::Sender<Item>, keys: &[String], code: i32, message: &str) {
        let ids: Vec<Value> = {
            let mut st = self.state();
            keys.iter().filter_map(|k| st.pending.remove(k)).collect()
        };
        for id in ids {
            if tx.send(Ok(error_line_with(&id, code, message))).await.is_err() {
                return;
            }
        }
    }

    /// Ends the transport with an error: pending requests fail, the reader ends with it.
    pub(super) async fn fail(&self, tx: &mpsc::Sender<Item>, message: String) {
        self.fail_with(tx, HTTP_TRANSPORT_ERROR, message).await
    }

    /// The connection to the server is over (nothing listens at its address any more, or the
    /// legacy event stream closed): the transport ends, pending requests fail as closed.
    pub(super) async fn closed(&self, tx: &mpsc::Sender<Item>, message: String) {
        self.fail_with(tx, crate::jsonrpc::codes::CONNECTION_CLOSED, message).await
    }

    /// A request to the server could not be sent: when nothing listens at its address any
    /// more the transport ends (see [`Shared::closed`]), else the requests among `keys` fail.
    /// A connection that broke under the request (a server killed while it sat in the pool)
    /// is told apart by trying a fresh one: refused, the server is gone; else only these
    /// requests fail, as closed (they may or may not have been served: never sent twice).
    pub(super) async fn send_failed(&self, tx: &mpsc::Sender<Item>, keys: &[String], what: &str, e: &io::Error) {
        use io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionRefused, ConnectionReset, UnexpectedEof};
        let unreachable = |e: &io::Error| format!("the server at {} is unreachable: {e}", self.base.url);
        match e.kind() {
            ConnectionRefused => self.closed(tx, unreachable(e)).await,
            ConnectionReset | ConnectionAborted | BrokenPipe | UnexpectedEof => match self.pool.open().await {
                Err(probe) if probe.kind() == ConnectionRefused => self.closed(tx, unreachable(&probe)).await,
                probe => {
                    if let Ok(sender) = probe {
                        self.pool.put(sender);
                    }
                    let code = crate::jsonrpc::codes::CONNECTION_CLOSED;
                    self.fail_requests_with(tx, keys, code, &format!("{what} failed: {e}")).await
                }
            },
            _ => self.fail_requests(tx, keys, &format!("{what} failed: {e}")).await,
        }
    }

    async fn fail_with(&self, tx: &mpsc::Sender<Item>, code: i32, message: String) {
        let ids: Vec<Value> = {
            let mut st = self.state();
            if st.fatal.is_some() {
                return;
            }
            st.fatal = Some(message.clone());
            st.pending.drain().map(|(_, id)| id).collect()
        };
        let mut lines = Vec::new();
        for id in &ids {
            lines.extend_from_slice(&error_line_with(id, code, &message));
        }
        let error = io::Error::new(io::ErrorKind::ConnectionAborted, message);
        let _ = tx.send(Err(End { lines: Bytes::from(lines), error })).await;
        self.stop.send_replace(true);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn message_peeking() {
        let out: Vec<PeekOut<'_>> =
            peek(br#"[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"n"}]"#).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].id, Some(json!(1)));
        let inc: Vec<PeekIn<'_>> =
            peek(br#"{"jsonrpc":"2.0","id":"x","result":{"protocolVersion":"2025-06-18"}}"#).unwrap();
        assert!(inc[0].result.is_some() && inc[0].method.is_none());
        assert!(peek::<PeekOut>(b"not json").is_none());
        let line = error_line_with(&json!(7), HTTP_TRANSPORT_ERROR, "HTTP 500");
        let v: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["error"]["code"], HTTP_TRANSPORT_ERROR);
        assert_eq!(v["id"], 7);
        assert!(line.ends_with(b"\n"));
    }
}
