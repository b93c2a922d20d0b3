//! The HTTP server: Streamable HTTP on one endpoint (POST, GET, DELETE) and, beside it, the
//! legacy HTTP+SSE transport (`GET /sse`, `POST /messages`).
//!
//! [`HttpService`] is a hyper (and tower) service: mount it in an existing app, or let
//! [`serve_http`] / [`crate::Server::serve_http`] run it on a socket.
//!
//! How a POST is answered: the engine answers what it can at once (`initialize`, lists,
//! `ping`…) and the reply is one JSON body. A call into user code gets a JSON body too when
//! it finishes within [`HttpOptions::json_wait`] having sent nothing else; a call that
//! sends progress, logs or requests to the client, or takes longer, gets an SSE stream
//! (priming event with an id and `retry`, then its messages, then its answer).

mod dispatch;
mod events;
mod options;
mod session;
mod stream;

pub use events::{EventStore, InMemoryEventStore};
pub use options::HttpOptions;
pub use session::{Dispatcher, Session};
pub use stream::HttpBody;

use crate::catalogue::{ListenerId, Registry, RegistryChange};
use crate::engine::{ServerConfig, State};
use crate::error::{Error, Result};
use crate::jsonrpc::{self, Incoming, RpcError};
use crate::protocol::{Feature, ProtocolVersion};
use bytes::Bytes;
use http::{header, HeaderValue, Method, Request, Response, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, Limited};
use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::task::Poll;
use std::time::{Duration, Instant};
use stream::{Kind, Mode, SseBody};

/// What every session of one HTTP server shares.
pub(crate) struct Shared {
    pub options: HttpOptions,
    pub config: Arc<ServerConfig>,
    pub registry: Arc<Registry>,
    pub dispatcher: Arc<dyn Dispatcher>,
    epoch: Instant,
    sessions: Mutex<HashMap<Arc<str>, Arc<Session>>>,
    /// The runtime the service runs on (timers and handler tasks go there).
    pub runtime: OnceLock<tokio::runtime::Handle>,
    sweeper: OnceLock<()>,
    /// The one registry listener of the service (it forwards changes to every session).
    listener: Mutex<Option<ListenerId>>,
    /// Stateless sessions alive (each is one POST being answered).
    pub stateless_live: AtomicUsize,
}

impl Drop for Shared {
    fn drop(&mut self) {
        let id = self.listener.get_mut().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(id) = id {
            self.registry.remove_listener(id);
        }
    }
}

impl Shared {
    pub fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Arc<Session>>> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn remove_session(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions().remove(id)
    }

    fn session(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions().get(id).cloned()
    }

    /// The session to evict to make room: the longest idle without open streams or calls
    /// in progress. Called with the sessions table locked (lock order: table, then session).
    fn idlest(map: &HashMap<Arc<str>, Arc<Session>>) -> Option<Arc<Session>> {
        let mut by_age: Vec<(u64, &Arc<Session>)> =
            map.values().map(|s| (s.last_seen.load(Ordering::Relaxed), s)).collect();
        by_age.sort_unstable_by_key(|(seen, _)| *seen);
        by_age.into_iter().map(|(_, s)| s).find(|s| !s.busy()).cloned()
    }

    /// Makes room for one more session: evicts the longest-idle one when at the cap. False
    /// when every session is busy.
    fn make_room(&self) -> bool {
        self.reserve(None)
    }

    /// Adds a new session to the table, evicting as [`Self::make_room`] does (concurrent
    /// initializes may have filled the room made before). False when every session is busy.
    fn admit(&self, session: &Arc<Session>) -> bool {
        session.id().is_some() && self.reserve(Some(session))
    }

    /// Evicts longest-idle sessions until the table has room, then inserts `session` if given
    /// (under the same lock as the last check). False when every session is busy.
    fn reserve(&self, session: Option<&Arc<Session>>) -> bool {
        loop {
            let victim = {
                let mut map = self.sessions();
                if map.len() < self.options.max_sessions {
                    if let Some((s, id)) = session.and_then(|s| Some((s, s.id()?))) {
                        map.insert(Arc::from(id), s.clone());
                    }
                    return true;
                }
                let Some(v) = Self::idlest(&map) else { return false };
                if let Some(id) = v.id() {
                    map.remove(id);
                }
                v
            };
            victim.close();
        }
    }

    /// Forwards a registry change (list_changed, resource updates) to every session.
    fn registry_changed(&self, change: &RegistryChange) {
        let all: Vec<Arc<Session>> = self.sessions().values().cloned().collect();
        for s in all {
            s.with(|i| {
                if !i.closed {
                    i.engine.registry_changed(change);
                }
            });
        }
    }

    /// Closes sessions idle for longer than the timeout.
    fn sweep(&self) {
        let idle = self.options.session_idle_timeout.as_millis() as u64;
        let now = self.now_ms();
        let expired: Vec<Arc<Session>> = {
            let mut map = self.sessions();
            let ids: Vec<Arc<str>> = map
                .iter()
                .filter(|(_, s)| {
                    now.saturating_sub(s.last_seen.load(std::sync::atomic::Ordering::Relaxed)) > idle && !s.busy()
                })
                .map(|(k, _)| k.clone())
                .collect();
            ids.iter().filter_map(|k| map.remove(k)).collect()
        };
        for s in expired {
            s.close();
        }
    }
}

/// The HTTP service of one MCP server: Streamable HTTP on [`HttpOptions::path`] and the
/// legacy HTTP+SSE transport beside it. Cheap to clone.
///
/// Mount it in hyper (`hyper::service::Service`) or axum/tower (`tower_service::Service`),
/// or call [`HttpService::handle`] from any HTTP stack.
#[derive(Clone)]
pub struct HttpService {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for HttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpService").field("options", &self.shared.options).finish_non_exhaustive()
    }
}

type Reply = Response<HttpBody>;
/// A refusal: the reply to send instead (boxed: a `Result` stays small).
type Refused = Box<Reply>;
type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn header_str<B>(req: &Request<B>, name: header::HeaderName) -> Option<&str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// Whether an Accept header admits `mime` (`*/*` and `type/*` count).
fn accepts(accept: Option<&str>, mime: &str) -> bool {
    let Some(accept) = accept else { return false };
    // What MCP clients send; spares the split below on every POST.
    if accept == "application/json, text/event-stream" || accept == "text/event-stream, application/json" {
        return mime == "application/json" || mime == "text/event-stream";
    }
    let ty = mime.split_once('/').map_or(mime, |(t, _)| t);
    accept.split(',').any(|part| {
        let m = part.split(';').next().unwrap_or("").trim();
        m.eq_ignore_ascii_case(mime) || m == "*/*" || m.strip_suffix("/*").is_some_and(|t| t.eq_ignore_ascii_case(ty))
    })
}

fn not_found() -> Reply {
    error_reply(StatusCode::NOT_FOUND, -32001, "Session not found")
}

/// An error reply with a JSON-RPC error body (`id: null`).
fn error_reply(status: StatusCode, code: i32, message: impl Into<String>) -> Reply {
    let mut body = Vec::new();
    jsonrpc::write_error(&mut body, None, &RpcError::new(code, message));
    let mut r = Response::new(HttpBody::Full(Some(body.into())));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

fn plain(status: StatusCode, text: &'static str) -> Reply {
    let mut r = Response::new(HttpBody::Full(Some(Bytes::from_static(text.as_bytes()))));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    r
}

fn set_session_header(r: &mut Reply, session: &Session) {
    if let Some(v) = session.id().and_then(|id| HeaderValue::from_str(id).ok()) {
        r.headers_mut().insert("mcp-session-id", v);
    }
}

fn sse_reply(body: SseBody) -> Reply {
    let mut r = Response::new(HttpBody::Sse(body));
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, no-transform"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

/// A fresh unguessable session id: 128 random bits in hex.
fn new_session_id() -> Arc<str> {
    let mut b = [0u8; 16];
    if getrandom::fill(&mut b).is_err() {
        // No OS randomness: fall back to time and address entropy hashed per process.
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
        let a = h.finish().to_le_bytes();
        let mut h2 = std::collections::hash_map::RandomState::new().build_hasher();
        h2.write(&a);
        b[..8].copy_from_slice(&a);
        b[8..].copy_from_slice(&h2.finish().to_le_bytes());
    }
    let mut s = String::with_capacity(32);
    for x in b {
        s.push_str(&format!("{x:02x}"));
    }
    Arc::from(s)
}

/// What a POST body holds.
struct Class {
    requests: bool,
    initialize: bool,
}

/// Only what the fast path of [`classify`] reads; every other field is skipped.
#[derive(serde::Deserialize)]
struct Peek<'a> {
    #[serde(borrow, default)]
    jsonrpc: Option<&'a str>,
    #[serde(borrow, default)]
    method: Option<&'a str>,
    #[serde(borrow, default)]
    id: Option<&'a serde_json::value::RawValue>,
}

/// The common case, a single well-formed request, classified at a third of the cost of a
/// full parse (the engine parses the body again anyway). `None`: anything else, for the
/// full [`classify`] to judge (notifications, batches, odd ids, errors of any kind).
fn classify_request(body: &[u8]) -> Option<Class> {
    if body.first() != Some(&b'{') || std::str::from_utf8(body).is_err() {
        return None;
    }
    let peek: Peek<'_> = serde_json::from_slice(body).ok()?;
    if peek.jsonrpc != Some("2.0") || jsonrpc::RequestId::from_raw(peek.id?.get()).is_none() {
        return None;
    }
    let method = peek.method?;
    Some(Class { requests: true, initialize: method == "initialize" })
}

fn classify(body: &[u8]) -> std::result::Result<Class, RpcError> {
    if let Some(class) = classify_request(body) {
        return Ok(class);
    }
    match jsonrpc::parse_message(body) {
        Err(f) => Err(f.error),
        Ok(Incoming::Single(env)) => Ok(Class {
            requests: env.method.is_some() && env.id.is_some(),
            initialize: env.id.is_some() && env.method.as_deref() == Some("initialize"),
        }),
        Ok(Incoming::Batch(items)) => {
            let requests = items.iter().any(|item| match jsonrpc::message::parse_object_str(item.get()) {
                Ok(env) => env.method.is_some() && env.id.is_some(),
                Err(_) => true, // answered with an error
            });
            Ok(Class { requests, initialize: false })
        }
    }
}

impl HttpService {
    /// A service running the Rust handlers of `server`.
    pub fn new(server: &crate::Server, options: HttpOptions) -> HttpService {
        let dispatcher = Arc::new(dispatch::RustDispatcher { server: server.clone() });
        Self::with_dispatcher(Arc::new(server.config()), server.registry().clone(), dispatcher, options)
    }

    /// A service whose calls go to `dispatcher` (how the Python and Node bindings serve).
    pub fn with_dispatcher(
        config: Arc<ServerConfig>,
        registry: Arc<Registry>,
        dispatcher: Arc<dyn Dispatcher>,
        options: HttpOptions,
    ) -> HttpService {
        let shared = Arc::new(Shared {
            options,
            config,
            registry,
            dispatcher,
            epoch: Instant::now(),
            sessions: Mutex::new(HashMap::new()),
            runtime: OnceLock::new(),
            sweeper: OnceLock::new(),
            listener: Mutex::new(None),
            stateless_live: AtomicUsize::new(0),
        });
        // One listener for the whole service (not one per session): a change reaches every
        // session in the table.
        let weak = Arc::downgrade(&shared);
        let id = shared.registry.add_listener(move |c: &RegistryChange| {
            if let Some(sh) = weak.upgrade() {
                sh.registry_changed(c);
            }
        });
        *shared.listener.lock().unwrap_or_else(|e| e.into_inner()) = Some(id);
        HttpService { shared }
    }

    /// The same server with other options (a new service: no sessions are shared).
    pub fn with_options(&self, options: HttpOptions) -> HttpService {
        let sh = &self.shared;
        Self::with_dispatcher(sh.config.clone(), sh.registry.clone(), sh.dispatcher.clone(), options)
    }

    /// The options in force.
    pub fn options(&self) -> &HttpOptions {
        &self.shared.options
    }

    /// How many sessions are open.
    pub fn session_count(&self) -> usize {
        self.shared.sessions().len()
    }

    /// Calls in progress over all sessions (in stateless mode: requests being answered).
    pub fn in_flight(&self) -> usize {
        let sessions: Vec<Arc<Session>> = self.shared.sessions().values().cloned().collect();
        let stateful: usize = sessions.iter().map(|s| s.lock().engine.in_flight()).sum();
        stateful + self.shared.stateless_live.load(Ordering::Acquire)
    }

    /// Closes every session (their calls are cancelled, their streams end).
    pub fn close_all(&self) {
        let all: Vec<Arc<Session>> = self.shared.sessions().drain().map(|(_, s)| s).collect();
        for s in all {
            s.close();
        }
    }

    /// Closes sessions idle past the timeout now (a background task also does this).
    pub fn sweep(&self) {
        self.shared.sweep();
    }

    fn start(&self) {
        let sh = &self.shared;
        if sh.runtime.get().is_none() {
            if let Ok(h) = tokio::runtime::Handle::try_current() {
                let _ = sh.runtime.set(h);
            }
        }
        if !sh.options.stateless && sh.sweeper.set(()).is_ok() {
            let weak = Arc::downgrade(sh);
            let period =
                (sh.options.session_idle_timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
            if let Some(rt) = sh.runtime.get() {
                rt.spawn(async move {
                    loop {
                        tokio::time::sleep(period).await;
                        match weak.upgrade() {
                            Some(sh) => sh.sweep(),
                            None => return,
                        }
                    }
                });
            }
        }
    }

    /// Answers one HTTP request.
    pub async fn handle<B>(&self, req: Request<B>) -> Response<HttpBody>
    where
        B: Body,
        B::Error: Into<BoxError>,
    {
        self.start();
        let o = &self.shared.options;
        let host = header_str(&req, header::HOST).or_else(|| req.uri().authority().map(|a| a.as_str()));
        if let Err(why) = o.check_dns_rebinding(host, header_str(&req, header::ORIGIN)) {
            return error_reply(StatusCode::FORBIDDEN, -32000, format!("Forbidden: {why}"));
        }
        let path = req.uri().path();
        if path == o.path {
            match *req.method() {
                Method::POST => self.post(req).await,
                Method::GET => self.get(req),
                Method::DELETE => self.delete(req),
                _ => {
                    let mut r = error_reply(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method not allowed");
                    r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
                    r
                }
            }
        } else if o.legacy_paths().is_some_and(|(sse, _)| path == sse) {
            if req.method() == Method::GET {
                self.legacy_get()
            } else {
                let mut r = error_reply(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method not allowed");
                r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET"));
                r
            }
        } else if o.legacy_paths().is_some_and(|(_, messages)| path == messages) {
            if req.method() == Method::POST {
                self.legacy_post(req).await
            } else {
                let mut r = error_reply(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method not allowed");
                r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
                r
            }
        } else {
            plain(StatusCode::NOT_FOUND, "Not Found")
        }
    }

    /// Checks `MCP-Protocol-Version`: absent is fine; present must be a revision served.
    fn version_header<B>(&self, req: &Request<B>) -> std::result::Result<Option<ProtocolVersion>, Refused> {
        let Some(raw) = req.headers().get("mcp-protocol-version") else { return Ok(None) };
        let text = raw.to_str().unwrap_or("");
        match text.parse::<ProtocolVersion>() {
            Ok(v) if self.shared.config.versions.contains(&v) => Ok(Some(v)),
            _ => {
                let supported: Vec<&str> = self.shared.config.versions.iter().map(|v| v.as_str()).collect();
                Err(Box::new(error_reply(
                    StatusCode::BAD_REQUEST,
                    -32000,
                    format!(
                        "Bad Request: unsupported MCP-Protocol-Version {text:?} (supported: {})",
                        supported.join(", ")
                    ),
                )))
            }
        }
    }

    /// The session named by `Mcp-Session-Id`: 400 without one, 404 for an unknown one.
    fn find_session<B>(&self, req: &Request<B>) -> std::result::Result<Arc<Session>, Refused> {
        let Some(id) = header_str(req, header::HeaderName::from_static("mcp-session-id")) else {
            return Err(Box::new(error_reply(
                StatusCode::BAD_REQUEST,
                -32000,
                "Bad Request: Mcp-Session-Id header is required",
            )));
        };
        match self.shared.session(id) {
            Some(s) => {
                s.touch();
                Ok(s)
            }
            None => Err(Box::new(not_found())),
        }
    }

    /// Reads a body within the size limit.
    async fn read_body<B>(&self, req: Request<B>) -> std::result::Result<Bytes, Refused>
    where
        B: Body,
        B::Error: Into<BoxError>,
    {
        let max = self.shared.options.max_body;
        if let Some(len) = req.headers().get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok())
        {
            if len > max as u64 {
                return Err(Box::new(too_large(max)));
            }
        }
        match Limited::new(req.into_body(), max).collect().await {
            Ok(c) => Ok(c.to_bytes()),
            Err(e) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => Err(Box::new(too_large(max))),
            Err(e) => {
                let why = format!("Parse error: reading the body failed: {e}");
                Err(Box::new(error_reply(StatusCode::BAD_REQUEST, -32700, why)))
            }
        }
    }

    fn check_content_type<B>(req: &Request<B>) -> std::result::Result<(), Refused> {
        let ct = header_str(req, header::CONTENT_TYPE).unwrap_or("");
        let mime = ct.split(';').next().unwrap_or("").trim();
        if mime.eq_ignore_ascii_case("application/json") {
            Ok(())
        } else {
            Err(Box::new(error_reply(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                -32000,
                format!("Unsupported Media Type: Content-Type must be application/json, not {ct:?}"),
            )))
        }
    }

    async fn post<B>(&self, req: Request<B>) -> Reply
    where
        B: Body,
        B::Error: Into<BoxError>,
    {
        let sh = &self.shared;
        let json_only = sh.options.json_response;
        let accept = header_str(&req, header::ACCEPT);
        if !accepts(accept, "application/json") || !(json_only || accepts(accept, "text/event-stream")) {
            let need = if json_only { "application/json" } else { "both application/json and text/event-stream" };
            return error_reply(
                StatusCode::NOT_ACCEPTABLE,
                -32000,
                format!("Not Acceptable: the Accept header must list {need}"),
            );
        }
        if let Err(r) = Self::check_content_type(&req) {
            return *r;
        }
        let version = match self.version_header(&req) {
            Ok(v) => v,
            Err(r) => return *r,
        };
        let existing = header_str(&req, header::HeaderName::from_static("mcp-session-id")).map(str::to_string);
        let body = match self.read_body(req).await {
            Ok(b) => b,
            Err(r) => return *r,
        };
        let class = match classify(&body) {
            Ok(c) => c,
            Err(e) => {
                let mut out = Vec::new();
                jsonrpc::write_error(&mut out, None, &e);
                let mut r = Response::new(HttpBody::Full(Some(out.into())));
                *r.status_mut() = StatusCode::BAD_REQUEST;
                r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                return r;
            }
        };
        let (session, new) = if sh.options.stateless {
            let s = Session::new(sh, None);
            if !class.initialize {
                let v = version.unwrap_or(ProtocolVersion::V2025_03_26);
                s.with(|i| i.engine.assume_initialized(v));
            }
            (s, false)
        } else if class.initialize {
            if !sh.make_room() {
                return too_many_sessions(sh.options.max_sessions);
            }
            (Session::new(sh, Some(new_session_id())), true)
        } else {
            let Some(id) = existing else {
                return error_reply(StatusCode::BAD_REQUEST, -32000, "Bad Request: Mcp-Session-Id header is required");
            };
            match sh.session(&id) {
                Some(s) => {
                    s.touch();
                    (s, false)
                }
                None => return not_found(),
            }
        };
        let now = Instant::now();
        if !class.requests {
            // The session may have been closed (deleted, expired) since it was looked up.
            let open = session.with(|i| {
                if !i.closed {
                    i.engine.handle_message(&body, now);
                }
                !i.closed
            });
            if sh.options.stateless {
                session.close();
            }
            if !open {
                return not_found();
            }
            let mut r = Response::new(HttpBody::Empty);
            *r.status_mut() = StatusCode::ACCEPTED;
            return r;
        }
        let stream = session.with(|i| {
            if i.closed {
                return None;
            }
            let s = session.open_stream(i, Kind::Post, 1);
            if json_only {
                s.lock().mode = Mode::Json;
            }
            i.input = Some(s.clone());
            i.engine.handle_message(&body, now);
            Some(s)
        });
        let Some(stream) = stream else { return not_found() };
        // A new session joins the table once its initialize succeeded (a failed one is
        // answered without a session id and dropped).
        let mut admitted = !new;
        if new && session.state() != State::Uninitialized {
            if !sh.admit(&session) {
                session.close();
                return too_many_sessions(sh.options.max_sessions);
            }
            admitted = true;
        }
        let mut body = SseBody::new(stream.clone(), session.clone(), sh.options.keep_alive, b": keep-alive\n\n");
        let retry = session
            .protocol_version()
            .filter(|v| v.supports(Feature::SsePolling) && session.id().is_some())
            .map(|_| sh.options.retry);
        // Armed only when the answer is not there at the first look.
        let mut wait: Option<Pin<Box<tokio::time::Sleep>>> = None;
        let json = std::future::poll_fn(|cx| {
            let mut q = stream.lock();
            if q.mode == Mode::Sse {
                return Poll::Ready(None); // the call closed its stream early (SSE polling)
            }
            // Done: every answer is in (or will never come: cancelled, session closed).
            let done = q.expected == 0 || q.finished;
            if done && (!q.related || json_only) {
                q.mode = Mode::Json;
                return Poll::Ready(Some(std::mem::take(&mut q.held)));
            }
            if !json_only
                && (done
                    || q.related
                    || wait
                        .get_or_insert_with(|| Box::pin(tokio::time::sleep(sh.options.json_wait)))
                        .as_mut()
                        .poll(cx)
                        .is_ready())
            {
                stream.start_sse(&mut q, retry);
                return Poll::Ready(None);
            }
            q.waker = Some(cx.waker().clone());
            Poll::Pending
        })
        .await;
        let mut r = match json {
            Some(held) => {
                body.release_now();
                let bytes = match held.len() {
                    0 => None,
                    1 => held.into_iter().next(),
                    _ => {
                        let mut v = b"[".to_vec();
                        for (n, m) in held.iter().enumerate() {
                            if n > 0 {
                                v.push(b',');
                            }
                            v.extend_from_slice(m);
                        }
                        v.push(b']');
                        Some(v.into())
                    }
                };
                match bytes {
                    Some(b) => {
                        let mut r = Response::new(HttpBody::Full(Some(b)));
                        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                        r
                    }
                    // Closed while the call ran: it was cancelled.
                    None if session.lock().closed && !sh.options.stateless => return not_found(),
                    None => {
                        let mut r = Response::new(HttpBody::Empty);
                        *r.status_mut() = StatusCode::ACCEPTED;
                        r
                    }
                }
            }
            None => sse_reply(body),
        };
        if admitted {
            set_session_header(&mut r, &session);
        }
        r
    }

    fn get<B>(&self, req: Request<B>) -> Reply {
        let sh = &self.shared;
        if sh.options.stateless {
            let mut r =
                error_reply(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method not allowed: this server is stateless");
            r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
            return r;
        }
        if !accepts(header_str(&req, header::ACCEPT), "text/event-stream") {
            return error_reply(
                StatusCode::NOT_ACCEPTABLE,
                -32000,
                "Not Acceptable: the Accept header must list text/event-stream",
            );
        }
        if let Err(r) = self.version_header(&req) {
            return *r;
        }
        let session = match self.find_session(&req) {
            Ok(s) => s,
            Err(r) => return *r,
        };
        let last = header_str(&req, header::HeaderName::from_static("last-event-id")).and_then(|v| {
            let (s, n) = v.split_once('-')?;
            Some((s.parse::<u64>().ok()?, n.parse::<u64>().ok()?))
        });
        let mut wakers = Vec::new();
        let result = {
            let mut g = session.lock();
            let resumed = last.and_then(|(sid, seq)| g.streams.get(&sid).cloned().map(|s| (s, seq)));
            if g.closed {
                // Deleted or expired since it was looked up.
                Err(not_found())
            } else if let Some((s, seq)) = resumed {
                let mut q = s.lock();
                if q.attached {
                    Err(error_reply(StatusCode::CONFLICT, -32000, "Conflict: that stream is already being read"))
                } else {
                    // Everything after the client's last event, from the store (what was
                    // queued but never taken is there too).
                    let replay = s.store.replay(&s.session, s.id, seq).unwrap_or_default();
                    q.frames.clear();
                    for (n, data) in replay {
                        q.frames.extend_from_slice(format!("id: {}-{n}\ndata: ", s.id).as_bytes());
                        q.frames.extend_from_slice(&data);
                        q.frames.extend_from_slice(b"\n\n");
                    }
                    q.attached = true;
                    q.hang_up = false;
                    drop(q);
                    if s.kind == Kind::Get {
                        // What was sent while it was away waited in the backlog.
                        g.attach_get(s.clone(), &mut wakers);
                    }
                    Ok(s)
                }
            } else if g.get_stream.as_ref().is_some_and(|s| s.lock().attached) {
                Err(error_reply(
                    StatusCode::CONFLICT,
                    -32000,
                    "Conflict: only one standalone SSE stream is allowed per session",
                ))
            } else {
                // A new standalone stream replaces any earlier one left unread (the client
                // chose not to resume it): it is forgotten.
                session.forget_get_streams(&mut g);
                let s = session.open_stream(&mut g, Kind::Get, usize::MAX);
                let retry = g.engine.protocol_version().filter(|v| v.supports(Feature::SsePolling));
                {
                    let mut q = s.lock();
                    s.start_sse(&mut q, retry.map(|_| sh.options.retry));
                }
                g.attach_get(s.clone(), &mut wakers);
                Ok(s)
            }
        };
        for w in wakers {
            w.wake();
        }
        match result {
            Ok(s) => {
                let mut r = sse_reply(SseBody::new(s, session.clone(), sh.options.keep_alive, b": keep-alive\n\n"));
                set_session_header(&mut r, &session);
                r
            }
            Err(r) => r,
        }
    }

    fn delete<B>(&self, req: Request<B>) -> Reply {
        if self.shared.options.stateless {
            let mut r =
                error_reply(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method not allowed: this server is stateless");
            r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
            return r;
        }
        if let Err(r) = self.version_header(&req) {
            return *r;
        }
        let session = match self.find_session(&req) {
            Ok(s) => s,
            Err(r) => return *r,
        };
        if let Some(id) = session.id() {
            self.shared.remove_session(id);
        }
        session.close();
        Response::new(HttpBody::Empty)
    }

    fn legacy_get(&self) -> Reply {
        let sh = &self.shared;
        if !sh.make_room() {
            return too_many_sessions(sh.options.max_sessions);
        }
        let id = new_session_id();
        let session = Session::new(sh, Some(id.clone()));
        let stream = {
            let mut g = session.lock();
            let s = session.open_stream(&mut g, Kind::Legacy, usize::MAX);
            {
                let mut q = s.lock();
                let endpoint = format!("event: endpoint\ndata: {}?sessionId={id}\n\n", sh.options.messages_path);
                q.frames.extend_from_slice(endpoint.as_bytes());
            }
            g.legacy = Some(s.clone());
            s
        };
        if !sh.admit(&session) {
            session.close();
            return too_many_sessions(sh.options.max_sessions);
        }
        sse_reply(SseBody::new(stream, session, sh.options.keep_alive, b": ping\n\n"))
    }

    async fn legacy_post<B>(&self, req: Request<B>) -> Reply
    where
        B: Body,
        B::Error: Into<BoxError>,
    {
        if let Err(r) = Self::check_content_type(&req) {
            return *r;
        }
        let id = req.uri().query().and_then(|q| {
            q.split('&').find_map(|kv| kv.strip_prefix("sessionId=").or_else(|| kv.strip_prefix("session_id=")))
        });
        let Some(id) = id.map(str::to_string) else {
            return error_reply(
                StatusCode::BAD_REQUEST,
                -32000,
                "Bad Request: the sessionId query parameter is required",
            );
        };
        let Some(session) = self.shared.session(&id) else { return not_found() };
        session.touch();
        let body = match self.read_body(req).await {
            Ok(b) => b,
            Err(r) => return *r,
        };
        if let Err(e) = classify(&body) {
            let mut out = Vec::new();
            jsonrpc::write_error(&mut out, None, &e);
            let mut r = Response::new(HttpBody::Full(Some(out.into())));
            *r.status_mut() = StatusCode::BAD_REQUEST;
            r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            return r;
        }
        let open = session.with(|i| {
            if !i.closed {
                i.engine.handle_message(&body, Instant::now());
            }
            !i.closed
        });
        if !open {
            return not_found();
        }
        let mut r = plain(StatusCode::ACCEPTED, "Accepted");
        *r.status_mut() = StatusCode::ACCEPTED;
        r
    }
}

fn too_many_sessions(max: usize) -> Reply {
    error_reply(
        StatusCode::SERVICE_UNAVAILABLE,
        -32000,
        format!("Service Unavailable: the server has its maximum of {max} sessions, all in use"),
    )
}

/// The 413 reply. The rest of the body is never read, so the connection cannot carry another
/// request: it says so (`Connection: close`) instead of leaving the client to find a reset.
fn too_large(max: usize) -> Reply {
    let mut r = error_reply(
        StatusCode::PAYLOAD_TOO_LARGE,
        -32600,
        format!("Payload Too Large: the body exceeds the limit of {max} bytes"),
    );
    r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

impl<B> hyper::service::Service<Request<B>> for HttpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<HttpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = std::result::Result<Response<HttpBody>, Infallible>> + Send>>;

    fn call(&self, req: Request<B>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.handle(req).await) })
    }
}

impl<B> tower_service::Service<Request<B>> for HttpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<HttpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = std::result::Result<Response<HttpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut std::task::Context<'_>) -> Poll<std::result::Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.handle(req).await) })
    }
}

/// Serves `service` on `listener` until `shutdown` resolves; then stops accepting, lets
/// calls in progress finish (up to 10 s), closes every session and waits (up to 5 s) for
/// connections to end.
pub async fn serve_http(
    service: HttpService,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()>,
) -> Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let mut http1 = hyper::server::conn::http1::Builder::new();
    http1.keep_alive(true).timer(TokioTimer::new()).header_read_timeout(service.options().header_read_timeout);
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut conns = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => {
                let (tcp, _) = match accepted {
                    Ok(x) => x,
                    Err(e) => {
                        // Out of file descriptors and the like: wait a little, keep serving.
                        eprintln!("hypermcp: accept failed: {e}");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                let _ = tcp.set_nodelay(true);
                let svc = service.clone();
                let mut stop = stop_rx.clone();
                let http1 = http1.clone();
                conns.spawn(async move {
                    let conn = http1
                        .serve_connection(TokioIo::new(tcp), hyper::service::service_fn(move |req| {
                            let svc = svc.clone();
                            async move { Ok::<_, Infallible>(svc.handle(req).await) }
                        }));
                    let mut conn = std::pin::pin!(conn);
                    tokio::select! {
                        _ = conn.as_mut() => {}
                        _ = async { let _ = stop.wait_for(|s| *s).await; } => {
                            conn.as_mut().graceful_shutdown();
                            let _ = conn.await;
                        }
                    }
                });
            }
            Some(_) = conns.join_next(), if !conns.is_empty() => {}
        }
    }
    drop(listener);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while service.in_flight() > 0 && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    service.close_all();
    let _ = stop_tx.send(true);
    let _ = tokio::time::timeout(Duration::from_secs(5), async { while conns.join_next().await.is_some() {} }).await;
    Ok(())
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        match (signal(SignalKind::interrupt()), signal(SignalKind::terminate())) {
            (Ok(mut i), Ok(mut t)) => {
                tokio::select! { _ = i.recv() => {}, _ = t.recv() => {} }
            }
            _ => std::future::pending::<()>().await,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// Binds `addr` and adapts the DNS-rebinding defaults: loopback keeps the localhost
/// allow-lists; any other address, left at the defaults, accepts any Host and same-origin
/// (or no) Origin.
pub async fn bind(addr: impl tokio::net::ToSocketAddrs, options: &mut HttpOptions) -> Result<tokio::net::TcpListener> {
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(Error::Io)?;
    let local = listener.local_addr().map_err(Error::Io)?;
    let defaults = HttpOptions::default();
    if !local.ip().is_loopback()
        && options.allowed_hosts == defaults.allowed_hosts
        && options.allowed_origins == defaults.allowed_origins
    {
        options.allowed_hosts.clear();
        options.allowed_origins.clear();
    }
    Ok(listener)
}

impl crate::Server {
    /// The HTTP service of this server, to mount in a hyper or axum app.
    pub fn http_service(&self, options: HttpOptions) -> HttpService {
        HttpService::new(self, options)
    }

    /// Serves Streamable HTTP at `/mcp` (and legacy SSE at `/sse`) on `addr` with default
    /// options until SIGINT or SIGTERM, then shuts down gracefully. Run it on the
    /// multi-thread runtime: with many connections a `current_thread` runtime's one thread
    /// is bound by kernel wake-ups (about 3x fewer calls/s measured on 2 vCPUs).
    pub async fn serve_http(&self, addr: impl tokio::net::ToSocketAddrs) -> Result<()> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// [`Self::serve_http`] with options.
    pub async fn serve_http_with(&self, addr: impl tokio::net::ToSocketAddrs, options: HttpOptions) -> Result<()> {
        let mut options = options;
        let listener = bind(addr, &mut options).await?;
        serve_http(self.http_service(options), listener, shutdown_signal()).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast path agrees with the full parse wherever it answers, and leaves everything
    /// else to it.
    #[test]
    fn classify_fast_path_matches_the_full_parse() {
        let cases: &[&str] = &[
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
            r#"{"jsonrpc":"2.0","id":"a","method":"initialize","params":{}}"#,
            r#"{"method":"ping","id":-3,"jsonrpc":"2.0"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
            r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"x"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"} trailing"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}"#,
            "  {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}",
            "{",
            "",
        ];
        for case in cases {
            if let Some(fast) = classify_request(case.as_bytes()) {
                let full = classify(case.as_bytes()).expect("the fast path accepted what the full parse rejects");
                let slow = match jsonrpc::parse_message(case.as_bytes()) {
                    Ok(Incoming::Single(env)) => {
                        (env.method.is_some() && env.id.is_some(), env.method.as_deref() == Some("initialize"))
                    }
                    other => panic!("{case}: fast path answered for {other:?}"),
                };
                assert_eq!((fast.requests, fast.initialize), slow, "{case}");
                assert_eq!((full.requests, full.initialize), slow, "{case}");
            }
        }
        assert!(classify_request(cases[0].as_bytes()).is_some());
        assert!(classify_request(cases[1].as_bytes()).is_some_and(|c| c.initialize));
        assert!(classify_request(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}")
            .is_none());
    }

    #[test]
    fn accept_lists() {
        for a in [
            "application/json, text/event-stream",
            "text/event-stream, application/json",
            "application/*, text/*",
            "*/*",
        ] {
            assert!(accepts(Some(a), "application/json") && accepts(Some(a), "text/event-stream"), "{a}");
        }
        assert!(!accepts(Some("application/json"), "text/event-stream"));
        assert!(!accepts(None, "application/json"));
    }
}
