//! HTTP serving for Node: the engine's HTTP service runs on a small tokio runtime (one I/O
//! thread, started on first use); calls reach Node's event loop in batches.
//!
//! The I/O thread never calls JS per call. It queues each batch of session events and, only
//! when the queue was empty, calls a thread-safe function (no arguments) that wakes JS; JS
//! then calls [`HttpServer::poll`] and gets everything queued at that moment as one JSON
//! text. Handlers answer through [`HttpSession`], which completes straight into the engine
//! session from Node's thread.

use crate::errors::rpc_err;
use crate::server::{
    error_outcome, request_parts, resource_text_outcome, result_outcome, server_config, server_event, text_outcome,
    tool_outcome, Registry,
};
use bytes::Bytes;
use http_body_util::BodyExt;
use hypermcp::engine::{Event, RequestKey, State};
use hypermcp::http::server::{serve_http, Dispatcher, HttpService, Session};
use hypermcp::http::HttpOptions;
use hypermcp::LoggingLevel;
use napi::bindgen_prelude::{Buffer, Unknown};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, Status};
use napi_derive::napi;
use serde_json::Value;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// The I/O runtime every HTTP server and client of the process shares.
pub(crate) fn runtime() -> &'static tokio::runtime::Runtime {
    hypermcp::transport::io_runtime()
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The JS function that wakes the loop: no arguments, return value ignored; weak (it does
/// not keep Node alive) except while a server listens.
type Wake = ThreadsafeFunction<(), Unknown<'static>, (), Status, false, true>;

/// What the I/O thread hands the loop.
enum Item {
    Events(Arc<Session>, Vec<Event>),
    Closed(Arc<Session>),
    Head(u64, u16, Vec<(String, String)>),
    Chunk(u64, Bytes),
    End(u64),
    Stopped,
}

/// The queue the I/O thread fills and JS drains, with the wake-up function.
struct HostQueue {
    items: Mutex<Vec<Item>>,
    wake: Mutex<Wake>,
}

impl HostQueue {
    fn push(&self, item: Item) {
        let first = {
            let mut q = lock(&self.items);
            q.push(item);
            q.len() == 1
        };
        if first {
            // One wake-up for everything queued until JS polls.
            lock(&self.wake).call((), ThreadsafeFunctionCallMode::NonBlocking);
        }
    }

    fn take(&self) -> Vec<Item> {
        std::mem::take(&mut *lock(&self.items))
    }
}

struct NodeDispatcher {
    queue: Arc<HostQueue>,
}

impl Dispatcher for NodeDispatcher {
    fn events(&self, session: &Arc<Session>, mut events: Vec<Event>) {
        // JS has nothing to do on "initialized": an idle session never wakes the loop.
        events.retain(|e| !matches!(e, Event::Initialized));
        if !events.is_empty() {
            self.queue.push(Item::Events(session.clone(), events));
        }
    }

    fn closed(&self, session: &Arc<Session>) {
        self.queue.push(Item::Closed(session.clone()));
    }
}

/// `HttpOptions` from the JSON text JS sends (camelCase keys, durations in milliseconds;
/// JS has checked names and types).
fn options_from(text: &str) -> napi::Result<HttpOptions> {
    let mut o = HttpOptions::default();
    let v: Value = crate::bridge::parse(text, "HTTP options")?;
    let Some(map) = v.as_object() else { return Ok(o) };
    let bad = |k: &str, what: &str| napi::Error::new(Status::InvalidArg, format!("HTTP option {k}: expected {what}"));
    let strings = |k: &str, v: &Value| -> napi::Result<Vec<String>> {
        serde_json::from_value(v.clone()).map_err(|_| bad(k, "an array of strings"))
    };
    let ms = |k: &str, v: &Value| -> napi::Result<Duration> {
        v.as_f64()
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| Duration::from_secs_f64(s / 1000.0))
            .ok_or_else(|| bad(k, "a number of milliseconds"))
    };
    let boolean = |k: &str, v: &Value| v.as_bool().ok_or_else(|| bad(k, "a boolean"));
    let string = |k: &str, v: &Value| v.as_str().map(str::to_string).ok_or_else(|| bad(k, "a string"));
    let count = |k: &str, v: &Value| {
        v.as_f64().filter(|n| n.is_finite() && *n >= 0.0).map(|n| n as usize).ok_or_else(|| bad(k, "a count"))
    };
    for (k, v) in map {
        if v.is_null() {
            continue;
        }
        match k.as_str() {
            "path" => o.path = string(k, v)?,
            "stateless" => o.stateless = boolean(k, v)?,
            "jsonResponse" => o.json_response = boolean(k, v)?,
            "allowedHosts" => o.allowed_hosts = strings(k, v)?,
            "allowedOrigins" => o.allowed_origins = strings(k, v)?,
            "maxBody" => o.max_body = count(k, v)?,
            "sessionIdleTimeout" => o.session_idle_timeout = ms(k, v)?,
            "maxSessions" => o.max_sessions = count(k, v)?,
            "keepAlive" => {
                o.keep_alive = match v {
                    Value::Bool(false) => None,
                    _ => Some(ms(k, v)?).filter(|d| !d.is_zero()),
                }
            }
            "retry" => o.retry = ms(k, v)?,
            "jsonWait" => o.json_wait = ms(k, v)?,
            "legacySse" => o.legacy_sse = boolean(k, v)?,
            "ssePath" => o.sse_path = string(k, v)?,
            "messagesPath" => o.messages_path = string(k, v)?,
            other => return Err(napi::Error::new(Status::InvalidArg, format!("unknown HTTP option {other:?}"))),
        }
    }
    Ok(o)
}

/// The key JS knows a session by (stable while the session lives: the queue and
/// [`HttpServer`] hold it until its "closed" item is polled).
fn session_key(s: &Arc<Session>) -> u64 {
    Arc::as_ptr(s) as usize as u64
}

/// The HTTP server of one `Server`: the service, the queue to the loop, the listener task
/// once started, and requests served for another HTTP stack (`handle`).
#[napi]
pub struct HttpServer {
    service: Mutex<HttpService>,
    queue: Arc<HostQueue>,
    stop: Mutex<Option<tokio::sync::oneshot::Sender<()>>>,
    /// Sessions JS has been told about, by key.
    live: Mutex<HashMap<u64, Arc<Session>>>,
    requests: Mutex<HashMap<u64, tokio::task::AbortHandle>>,
    next_request: AtomicU64,
}

#[napi]
impl HttpServer {
    /// `config` as for `ServerSession`; `options`: JSON text of the HTTP options (camelCase,
    /// milliseconds); `wake`: called with no arguments when items are waiting for `poll`.
    #[napi(constructor)]
    pub fn new(
        config: String,
        registry: &Registry,
        options: String,
        // Spelled out: a type alias here would leak into the generated index.d.ts.
        wake: ThreadsafeFunction<(), Unknown<'static>, (), Status, false, true>,
    ) -> napi::Result<Self> {
        let cfg = server_config(&config)?;
        let opts = options_from(&options)?;
        let queue = Arc::new(HostQueue { items: Mutex::new(Vec::new()), wake: Mutex::new(wake) });
        let dispatcher = Arc::new(NodeDispatcher { queue: queue.clone() });
        let service = HttpService::with_dispatcher(Arc::new(cfg), registry.inner.clone(), dispatcher, opts);
        Ok(HttpServer {
            service: Mutex::new(service),
            queue,
            stop: Mutex::new(None),
            live: Mutex::new(HashMap::new()),
            requests: Mutex::new(HashMap::new()),
            next_request: AtomicU64::new(1),
        })
    }

    /// Binds `host:port` (0: any free port) and starts serving; returns `[host, port]` as
    /// bound. Node stays alive until `stop` has finished (a "stopped" item is polled).
    #[napi]
    #[allow(deprecated)] // refer/unref: the documented way to make a weak function strong
    pub fn listen(&self, env: Env, host: String, port: u32) -> napi::Result<(String, u32)> {
        let mut slot = lock(&self.stop);
        if slot.is_some() {
            return Err(napi::Error::from_reason("the server is already listening"));
        }
        let port = u16::try_from(port).map_err(|_| napi::Error::new(Status::InvalidArg, format!("bad port {port}")))?;
        let rt = runtime();
        let mut service = lock(&self.service);
        let mut options = service.options().clone();
        let addr = if host.contains(':') && !host.starts_with('[') {
            format!("[{host}]:{port}")
        } else {
            format!("{host}:{port}")
        };
        let listener = rt
            .block_on(hypermcp::http::server::bind(addr.as_str(), &mut options))
            .map_err(|e| napi::Error::from_reason(format!("cannot listen on {addr}: {e}")))?;
        let local = listener.local_addr().map_err(|e| napi::Error::from_reason(e.to_string()))?;
        // The DNS-rebinding lists may have been adapted to the address.
        if options.allowed_hosts != service.options().allowed_hosts
            || options.allowed_origins != service.options().allowed_origins
        {
            *service = service.with_options(options);
        }
        let service = service.clone();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        *slot = Some(tx);
        lock(&self.queue.wake).refer(&env)?;
        let queue = self.queue.clone();
        rt.spawn(async move {
            let _ = serve_http(service, listener, async {
                let _ = rx.await;
            })
            .await;
            queue.push(Item::Stopped);
        });
        Ok((local.ip().to_string(), local.port() as u32))
    }

    /// Stops accepting, lets calls in progress finish (10 s at most), closes every session;
    /// a "stopped" item follows. False when not listening.
    #[napi]
    pub fn stop(&self) -> bool {
        match lock(&self.stop).take() {
            Some(tx) => tx.send(()).is_ok(),
            None => false,
        }
    }

    /// Closes every session (for servers mounted with `handle`).
    #[napi]
    pub fn close_all(&self) {
        let service = lock(&self.service).clone();
        service.close_all();
    }

    /// Everything queued, as JSON text of an array (empty string when nothing is):
    /// `["e", sessionKey, [events]]` (events as `ServerSession.pollEvents`; the session's
    /// handle comes from `session(key)`),
    /// `["c", sessionKey]` (closed), `["h", request, status, [name, value, ...]]`,
    /// `["d", request, text]` (a body chunk), `["x", request]` (end), `["s"]` (stopped).
    #[napi]
    #[allow(deprecated)]
    pub fn poll(&self, env: Env) -> napi::Result<String> {
        let items = self.queue.take();
        if items.is_empty() {
            return Ok(String::new());
        }
        let mut out = String::with_capacity(256);
        out.push('[');
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !first {
                out.push(',');
            }
            first = false;
        };
        for item in items {
            match item {
                Item::Events(session, events) => {
                    let key = session_key(&session);
                    match lock(&self.live).entry(key) {
                        Entry::Occupied(_) => {}
                        // Late events of a session already gone: nobody to run them.
                        Entry::Vacant(_) if session.state() == State::Closed => continue,
                        Entry::Vacant(slot) => {
                            slot.insert(session);
                        }
                    }
                    let list: Vec<Value> = events.iter().filter_map(server_event).collect();
                    if list.is_empty() {
                        continue;
                    }
                    sep(&mut out);
                    let _ = write!(out, "[\"e\",{key},");
                    out.push_str(&Value::Array(list).to_string());
                    out.push(']');
                }
                Item::Closed(session) => {
                    let key = session_key(&session);
                    if lock(&self.live).remove(&key).is_some() {
                        sep(&mut out);
                        let _ = write!(out, "[\"c\",{key}]");
                    }
                }
                Item::Head(id, status, headers) => {
                    sep(&mut out);
                    let flat: Vec<&str> = headers.iter().flat_map(|(k, v)| [k.as_str(), v.as_str()]).collect();
                    let _ = write!(out, "[\"h\",{id},{status},{}]", serde_json::to_string(&flat).unwrap_or_default());
                }
                Item::Chunk(id, data) => {
                    sep(&mut out);
                    // The engine writes JSON and SSE text: UTF-8.
                    let text = String::from_utf8_lossy(&data);
                    let _ = write!(out, "[\"d\",{id},{}]", serde_json::to_string(&text).unwrap_or_default());
                }
                Item::End(id) => {
                    lock(&self.requests).remove(&id);
                    sep(&mut out);
                    let _ = write!(out, "[\"x\",{id}]");
                }
                Item::Stopped => {
                    sep(&mut out);
                    out.push_str("[\"s\"]");
                    // Nothing more will come from the listener: Node may exit when idle.
                    lock(&self.queue.wake).unref(&env)?;
                }
            }
        }
        out.push(']');
        if first {
            return Ok(String::new());
        }
        Ok(out)
    }

    /// The handle of a session announced by `poll`, or null once it closed.
    #[napi]
    pub fn session(&self, key: f64) -> Option<HttpSession> {
        lock(&self.live).get(&(key as u64)).map(|s| HttpSession { inner: s.clone() })
    }

    /// Serves one request that arrived through another HTTP stack (`node:http`, Express,
    /// Fastify): `headers` flat `[name, value, ...]`. Returns a request id; the answer comes
    /// back through `poll` as "h", "d"... and "x" items.
    #[napi]
    pub fn handle(&self, method: String, target: String, headers: Vec<String>, body: Buffer) -> napi::Result<f64> {
        let mut req = http::Request::builder().method(method.as_str()).uri(target.as_str());
        for pair in headers.chunks_exact(2) {
            req = req.header(pair[0].as_str(), pair[1].as_str());
        }
        let req = req
            .body(http_body_util::Full::new(Bytes::from(Vec::<u8>::from(body))))
            .map_err(|e| napi::Error::new(Status::InvalidArg, format!("invalid request: {e}")))?;
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let service = lock(&self.service).clone();
        let queue = self.queue.clone();
        let mut requests = lock(&self.requests);
        let task = runtime().spawn(async move {
            let resp = service.handle(req).await;
            let (parts, mut body) = resp.into_parts();
            let headers = parts
                .headers
                .iter()
                .map(|(k, v)| (k.as_str().to_string(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
                .collect();
            queue.push(Item::Head(id, parts.status.as_u16(), headers));
            while let Some(frame) = body.frame().await {
                if let Ok(Some(data)) = frame.map(|f| f.into_data().ok()) {
                    if !data.is_empty() {
                        queue.push(Item::Chunk(id, data));
                    }
                }
            }
            queue.push(Item::End(id));
        });
        requests.insert(id, task.abort_handle());
        Ok(id as f64)
    }

    /// The client of a request served with `handle` went away: its response stops (a call
    /// answering on it keeps running; the client may resume its stream).
    #[napi]
    pub fn cancel(&self, request: f64) {
        if let Some(t) = lock(&self.requests).remove(&(request as u64)) {
            t.abort();
        }
    }

    /// Open sessions.
    #[napi(getter)]
    pub fn session_count(&self) -> u32 {
        lock(&self.service).session_count() as u32
    }
}

/// One HTTP session, with the methods of `ServerSession` that handlers use (plus
/// `closeStream`). Thread-safe: it completes into the engine session from Node's thread
/// while the I/O thread serves its streams.
#[napi]
pub struct HttpSession {
    inner: Arc<Session>,
}

#[napi]
impl HttpSession {
    /// Events are delivered by `HttpServer.poll`: always empty.
    #[napi]
    pub fn poll_events(&self) -> String {
        String::new()
    }

    /// Nothing to write: messages go out on the HTTP streams. Always empty.
    #[napi]
    pub fn take_output(&self) -> Buffer {
        Buffer::from(Vec::new())
    }

    /// Always false (see `takeOutput`).
    #[napi]
    pub fn has_output(&self) -> bool {
        false
    }

    /// Answers a tool call with a `CallToolResult` (JSON text).
    #[napi]
    pub fn complete_tool(&self, key: i64, result: String) -> napi::Result<()> {
        self.inner.complete(RequestKey(key as u64), tool_outcome(&result)?);
        Ok(())
    }

    /// Answers a tool call with one text block.
    #[napi]
    pub fn complete_tool_text(&self, key: i64, text: String, is_error: bool) {
        self.inner.complete(RequestKey(key as u64), text_outcome(text, is_error));
    }

    /// Answers a resource read with one text content.
    #[napi]
    pub fn complete_resource_text(&self, key: i64, uri: String, mime_type: String, text: String) {
        self.inner.complete(RequestKey(key as u64), resource_text_outcome(uri, &mime_type, text));
    }

    /// Answers a resource read, prompt or completion (JSON text of the result).
    #[napi]
    pub fn complete_result(&self, key: i64, kind: String, result: String) -> napi::Result<()> {
        self.inner.complete(RequestKey(key as u64), result_outcome(&kind, &result)?);
        Ok(())
    }

    /// Answers with a JSON-RPC error (`data` as JSON text, or null).
    #[napi]
    pub fn complete_error(&self, key: i64, code: i32, message: String, data: Option<String>) -> napi::Result<()> {
        self.inner.complete(RequestKey(key as u64), error_outcome(code, message, data)?);
        Ok(())
    }

    /// Sends progress; false when the client asked for none.
    #[napi]
    pub fn progress(&self, key: i64, progress: f64, total: Option<f64>, message: Option<String>) -> napi::Result<bool> {
        self.inner.progress(RequestKey(key as u64), progress, total, message.as_deref()).map_err(|e| rpc_err(&e))
    }

    /// Sends a log message (`data` as JSON text) if the client's level lets it through.
    #[napi]
    pub fn log(&self, level: String, data: String, logger: Option<String>, related: Option<i64>) -> napi::Result<bool> {
        let lvl: LoggingLevel = level.parse().map_err(napi::Error::from_reason)?;
        let data: Value = crate::bridge::parse(&data, "log data")?;
        Ok(self.inner.log(lvl, logger.as_deref(), data, related.map(|k| RequestKey(k as u64))))
    }

    /// Sends a request to the client (params as JSON text, `timeout` in seconds); returns
    /// its id (the answer comes as a "response" event).
    #[napi]
    pub fn request(
        &self,
        method: String,
        params: Option<String>,
        timeout: Option<f64>,
        related: Option<i64>,
    ) -> napi::Result<i64> {
        let (params, opts) = request_parts(params, timeout, related)?;
        self.inner.request(&method, params, &opts).map(|id| id as i64).map_err(|e| rpc_err(&e))
    }

    /// Stops waiting for a request and tells the client.
    #[napi]
    pub fn cancel_request(&self, id: i64, reason: Option<String>) -> bool {
        self.inner.cancel_request(id as u64, reason.as_deref())
    }

    /// Tells the client a URL-mode elicitation finished.
    #[napi]
    pub fn elicitation_complete(&self, elicitation_id: String) -> napi::Result<()> {
        self.inner.elicitation_complete(&elicitation_id).map_err(|e| rpc_err(&e))
    }

    /// Closes the SSE connection a call answers on, with a `retry` hint; the client
    /// resumes it with `Last-Event-ID`. False when the call has no resumable stream.
    #[napi]
    pub fn close_stream(&self, key: i64) -> bool {
        self.inner.close_stream(RequestKey(key as u64))
    }

    /// List changes reach HTTP sessions from the registry itself: nothing to do.
    #[napi]
    pub fn list_changed(&self, _kind: String) {}

    /// Resource updates reach HTTP sessions from the registry too
    /// (`Registry.notifyResourceUpdated`), sessions without a connection included: nothing to do.
    #[napi]
    pub fn resource_updated(&self, _uri: String) {}

    /// Timers run on the I/O thread: always null.
    #[napi]
    pub fn next_timeout(&self) -> Option<f64> {
        None
    }

    /// Timers run on the I/O thread: nothing to do.
    #[napi]
    pub fn handle_timeout(&self) {}

    /// Nothing to do over HTTP.
    #[napi]
    pub fn input_closed(&self) {}

    /// Ends the session (its calls are cancelled, its streams end).
    #[napi]
    pub fn close(&self) {
        self.inner.close();
    }

    /// The `Mcp-Session-Id` (null when stateless).
    #[napi(getter)]
    pub fn session_id(&self) -> Option<String> {
        self.inner.id().map(str::to_string)
    }

    /// "uninitialized", "initializing", "operating" or "closed".
    #[napi(getter)]
    pub fn state(&self) -> String {
        self.inner.state().as_str().to_string()
    }

    /// The negotiated revision.
    #[napi(getter)]
    pub fn protocol_version(&self) -> Option<String> {
        self.inner.protocol_version().map(|v| v.as_str().to_string())
    }

    /// JSON text of the client's `{name, version, ...}` (or null).
    #[napi(getter)]
    pub fn client_info(&self) -> Option<String> {
        self.inner.client_info().map(|i| serde_json::to_string(&i).unwrap_or_default())
    }

    /// JSON text of the client's capabilities.
    #[napi(getter)]
    pub fn client_capabilities(&self) -> String {
        serde_json::to_string(&self.inner.client_capabilities()).unwrap_or_default()
    }

    /// Calls in progress.
    #[napi(getter)]
    pub fn in_flight(&self) -> u32 {
        self.inner.in_flight() as u32
    }
}
