//! The Streamable HTTP client transport, with the legacy HTTP+SSE fallback.
//!
//! [`connect`] returns a newline-delimited byte stream pair: write one JSON-RPC message (or
//! batch) per line to the [`HttpWriter`], read the server's messages, one per line, from the
//! [`HttpReader`]. [`Client::connect`] and the host-driven client sessions of the bindings
//! therefore run over HTTP unchanged; [`Client::http`] is the shortcut.
//!
//! What the adapter does on the wire (spec 2025-11-25, "Transports"):
//!
//! - each written line is POSTed to the MCP endpoint (`Accept: application/json,
//!   text/event-stream`), with the custom headers, `Mcp-Session-Id` once the server issued
//!   one and `MCP-Protocol-Version` once `initialize` was answered. POSTs run concurrently: a
//!   tool call that waits for a sampling answer does not hold back the POST of that answer.
//!   Notifications and responses wait (briefly) for their `202` before the next line goes, so
//!   the server sees `notifications/initialized` before the requests that follow it;
//! - an `application/json` answer is read as one line; a `text/event-stream` answer is parsed
//!   and each `message` event becomes a line. A stream that ends before it answered its
//!   requests is resumed with `GET` + `Last-Event-ID` after the server's `retry:` delay (or
//!   the [`ReconnectPolicy`] backoff);
//! - once `notifications/initialized` is accepted, the standalone `GET` stream is opened
//!   (`405` means the server offers none) and reconnected when it drops;
//! - an HTTP error on a POST that carried requests answers those requests with a JSON-RPC
//!   error ([`HTTP_TRANSPORT_ERROR`]) naming the status and the server's explanation, so calls
//!   fail instead of hanging; `404` on a request carrying a session id means the session
//!   expired: pending requests fail and the reader ends with an error (no silent re-initialize);
//! - a refused connection (a POST, or resuming a stream) means nothing listens at the server's
//!   address any more, and the closing of the legacy event stream ends its session: either
//!   way pending requests fail with `CONNECTION_CLOSED` and the reader ends with an error;
//! - shutting the writer down sends `DELETE` with the session id, then ends the reader;
//! - legacy fallback: when the `initialize` POST gets `400`, `404` or `405`, the URL is opened
//!   with `GET` as an HTTP+SSE stream; its `endpoint` event names where to POST, and the
//!   server's messages arrive as `message` events on that stream.

use super::sse::{SseError, SseParser};
use crate::client::{Client, ClientOptions};
use crate::error::{Error, Result};
use bytes::{Bytes, BytesMut};
use futures_util::future::BoxFuture;
use http::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE, HOST};
use http::{Method, Request, Response, StatusCode, Uri};
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{mpsc, oneshot, watch};

/// The JSON-RPC error code of the answers this transport makes up for requests the server
/// could not answer (an HTTP error status, a broken stream, an expired session...).
pub const HTTP_TRANSPORT_ERROR: i32 = -32010;

/// Lines queued for the reader.
const READER_QUEUE: usize = 32;
/// Lines queued from the writer to the dispatcher.
const WRITER_QUEUE: usize = 64;
/// How long a notification or a response may hold back the next line (waiting for its 202).
const ORDER_WAIT: Duration = Duration::from_secs(10);
/// How long `DELETE` may take at shutdown.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);
/// How long the legacy SSE stream may take to name its POST endpoint.
const ENDPOINT_WAIT: Duration = Duration::from_secs(10);
/// How much of an error body is read, and how long that may take.
const SNIPPET_BYTES: usize = 8 * 1024;
const SNIPPET_WAIT: Duration = Duration::from_secs(2);
/// An idle pooled connection older than this is not reused (servers commonly close idle
/// keep-alive connections after 5 s; reusing one the server is closing would lose a POST).
const IDLE_REUSE: Duration = Duration::from_secs(3);
/// Idle connections kept for reuse.
const MAX_IDLE: usize = 8;
/// How long a POST's event stream is still read after it answered its requests.
const ANSWERED_LINGER: Duration = Duration::from_secs(1);
/// The shortest reconnection delay (a server's `retry: 0` must not make a busy loop).
const MIN_RECONNECT_DELAY: Duration = Duration::from_millis(100);
/// Bodies drained (to reuse the connection) when their content is not needed.
const DRAIN_BYTES: usize = 64 * 1024;

/// Which HTTP transport to speak (`"auto"`, `"http"` or `"sse"` in options).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
pub enum HttpTransport {
    /// Streamable HTTP; if the `initialize` POST is refused with 400, 404 or 405 and
    /// [`HttpClientOptions::legacy_fallback`] is set, the legacy HTTP+SSE transport.
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// Streamable HTTP only.
    #[serde(rename = "http", alias = "streamable-http")]
    Streamable,
    /// The legacy HTTP+SSE transport (2024-11-05): the URL is the server's SSE endpoint.
    #[serde(rename = "sse")]
    Sse,
}

/// How broken SSE streams are resumed.
#[derive(Debug, Clone)]
pub struct ReconnectPolicy {
    /// Delay before the first attempt (doubled on each failed attempt). A `retry:` field
    /// sent by the server replaces it.
    pub initial_delay: Duration,
    /// Cap of the doubled delay.
    pub max_delay: Duration,
    /// Attempts in a row that may fail before the stream is given up (the requests it was
    /// to answer then fail).
    pub max_attempts: u32,
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        ReconnectPolicy { initial_delay: Duration::from_secs(1), max_delay: Duration::from_secs(30), max_attempts: 5 }
    }
}

impl ReconnectPolicy {
    fn delay(&self, attempt: u32) -> Duration {
        let factor = 1u32.checked_shl(attempt.min(16)).unwrap_or(u32::MAX);
        self.initial_delay.saturating_mul(factor).min(self.max_delay)
    }
}

/// Options of the HTTP transport. It deserializes from an object of these fields
/// (snake_case, or camelCase as JavaScript writes them; `headers` as an object or a list of
/// pairs; durations as for [`crate::transport::http::HttpOptions`]); the reconnect policy is
/// set in code.
#[derive(Clone, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpClientOptions {
    /// Headers sent with every request, e.g. `("Authorization", "Bearer ...")`.
    #[serde(deserialize_with = "header_list")]
    pub headers: Vec<(String, String)>,
    /// Limit of establishing one TCP connection (more than zero).
    #[serde(alias = "connectTimeout", deserialize_with = "positive_duration")]
    pub connect_timeout: Duration,
    /// Which transport to speak.
    pub transport: HttpTransport,
    /// With [`HttpTransport::Auto`]: fall back to HTTP+SSE when `initialize` is refused with
    /// 400, 404 or 405 (default true).
    #[serde(alias = "legacyFallback")]
    pub legacy_fallback: bool,
    /// Largest accepted message (a JSON body or an SSE event), in bytes (default 16 MiB).
    #[serde(alias = "maxMessage")]
    pub max_message: usize,
    /// Resumption of broken SSE streams.
    #[serde(skip)]
    pub reconnect: ReconnectPolicy,
    /// Open the standalone `GET` stream for server-initiated messages after initialization
    /// (default true).
    #[serde(alias = "openGetStream")]
    pub open_get_stream: bool,
}

/// Headers as an object of strings or a list of `[name, value]` pairs.
fn header_list<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Vec<(String, String)>, D::Error> {
    #[derive(serde::Deserialize)]
    #[serde(untagged)]
    enum Headers {
        Pairs(Vec<(String, String)>),
        Object(std::collections::BTreeMap<String, String>),
    }
    match <Headers as serde::Deserialize>::deserialize(d) {
        Ok(Headers::Pairs(p)) => Ok(p),
        Ok(Headers::Object(o)) => Ok(o.into_iter().collect()),
        Err(_) => {
            Err(serde::de::Error::custom("headers: expected an object of strings or a list of [name, value] pairs"))
        }
    }
}

fn positive_duration<'de, D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Duration, D::Error> {
    let t = crate::util::units::duration(d)?;
    if t.is_zero() {
        return Err(serde::de::Error::custom("expected more than zero"));
    }
    Ok(t)
}

impl Default for HttpClientOptions {
    fn default() -> Self {
        HttpClientOptions {
            headers: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            transport: HttpTransport::Auto,
            legacy_fallback: true,
            max_message: crate::jsonrpc::DEFAULT_MAX_MESSAGE_SIZE,
            reconnect: ReconnectPolicy::default(),
            open_get_stream: true,
        }
    }
}

impl std::fmt::Debug for HttpClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Header values are left out: they often are credentials.
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("HttpClientOptions")
            .field("headers", &names)
            .field("connect_timeout", &self.connect_timeout)
            .field("transport", &self.transport)
            .field("legacy_fallback", &self.legacy_fallback)
            .field("max_message", &self.max_message)
            .field("reconnect", &self.reconnect)
            .field("open_get_stream", &self.open_get_stream)
            .finish()
    }
}

impl HttpClientOptions {
    /// Adds a header sent with every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }
    /// Adds `Authorization: Bearer <token>`.
    pub fn bearer_token(self, token: impl AsRef<str>) -> Self {
        let value = format!("Bearer {}", token.as_ref());
        self.header("Authorization", value)
    }
    /// Sets the transport.
    pub fn transport(mut self, transport: HttpTransport) -> Self {
        self.transport = transport;
        self
    }
}

impl Client {
    /// Connects to an MCP server over HTTP (Streamable HTTP, or the legacy HTTP+SSE
    /// transport; see [`HttpClientOptions::transport`]) and performs the handshake.
    pub async fn http(url: &str, http: HttpClientOptions, options: ClientOptions) -> Result<Client> {
        let (reader, writer) = connect(url, http).await?;
        let shared = writer.shared.clone();
        match Client::connect(reader, writer, options).await {
            Err(Error::Closed) => match shared.fatal_message() {
                Some(m) => Err(Error::Message(m)),
                None => Err(Error::Message(format!("{url}: the connection closed during the handshake"))),
            },
            other => other,
        }
    }
}

/// Opens an HTTP transport to `url` (an `http://` URL: the MCP endpoint, or with
/// [`HttpTransport::Sse`] the SSE endpoint). Fails when the server cannot be reached.
pub async fn connect(url: &str, options: HttpClientOptions) -> Result<(HttpReader, HttpWriter)> {
    let base = Target::parse(url).map_err(Error::Message)?;
    let mut headers = HeaderMap::new();
    for (name, value) in &options.headers {
        let n = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| Error::Message(format!("invalid HTTP header name {name:?}")))?;
        let v = HeaderValue::from_str(value)
            .map_err(|_| Error::Message(format!("invalid value of the HTTP header {name:?}")))?;
        headers.append(n, v);
    }
    let pool = Arc::new(Pool {
        host: base.host.clone(),
        port: base.port,
        timeout: options.connect_timeout,
        idle: Mutex::new(Vec::new()),
    });
    let sender = pool.open().await.map_err(|e| Error::Message(format!("cannot connect to {url}: {e}")))?;
    pool.put(sender);
    let mode = match options.transport {
        HttpTransport::Auto => Mode::Undecided,
        HttpTransport::Streamable => Mode::Streamable,
        HttpTransport::Sse => Mode::Undecided, // set below, once the endpoint is known
    };
    let (item_tx, item_rx) = mpsc::channel(READER_QUEUE);
    let (cmd_tx, cmd_rx) = mpsc::channel(WRITER_QUEUE);
    let shared = Arc::new(Shared {
        base,
        max_message: options.max_message,
        opts: options,
        headers,
        pool,
        state: Mutex::new(State { mode, ..State::default() }),
        stop: watch::Sender::new(false),
        closing: watch::Sender::new(false),
        cancelled: tokio::sync::Notify::new(),
    });
    if shared.opts.transport == HttpTransport::Sse {
        match shared.open_legacy(&item_tx).await {
            Ok(target) => shared.state().mode = Mode::Legacy(target),
            Err(e) => {
                shared.stop.send_replace(true);
                return Err(Error::Message(format!("{url}: {e}")));
            }
        }
    }
    tokio::spawn(dispatch(shared.clone(), cmd_rx, item_tx));
    let reader = HttpReader { rx: item_rx, cur: Bytes::new(), done: false };
    let writer = HttpWriter {
        tx: cmd_tx,
        reserve: None,
        partial: Vec::new(),
        lines: VecDeque::new(),
        shared,
        ack: None,
        shut: false,
    };
    Ok((reader, writer))
}

// ---- the byte stream ends ---------------------------------------------------------------

type Item = io::Result<Bytes>;

/// The server's messages, one JSON-RPC message (or batch) per line. Ends (EOF) when the
/// transport shuts down; ends with an error when the session expired or the legacy event
/// stream closed.
#[derive(Debug)]
pub struct HttpReader {
    rx: mpsc::Receiver<Item>,
    cur: Bytes,
    done: bool,
}

impl AsyncRead for HttpReader {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        loop {
            if !this.cur.is_empty() {
                let n = buf.remaining().min(this.cur.len());
                buf.put_slice(&this.cur.split_to(n));
                return Poll::Ready(Ok(()));
            }
            if this.done {
                return Poll::Ready(Ok(()));
            }
            match ready!(this.rx.poll_recv(cx)) {
                Some(Ok(line)) => this.cur = line,
                Some(Err(e)) => {
                    this.done = true;
                    this.rx.close();
                    return Poll::Ready(Err(e));
                }
                None => this.done = true,
            }
        }
    }
}

enum Cmd {
    Line(Bytes),
    Shutdown(oneshot::Sender<()>),
}

type Reserve = BoxFuture<'static, std::result::Result<mpsc::OwnedPermit<Cmd>, mpsc::error::SendError<()>>>;

/// Takes the client's messages, one per line, and POSTs each. Shutting it down ends the
/// session (`DELETE`) and the [`HttpReader`].
pub struct HttpWriter {
    tx: mpsc::Sender<Cmd>,
    reserve: Option<Reserve>,
    partial: Vec<u8>,
    lines: VecDeque<Bytes>,
    shared: Arc<Shared>,
    ack: Option<oneshot::Receiver<()>>,
    shut: bool,
}

impl std::fmt::Debug for HttpWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpWriter").field("url", &self.shared.base.url).finish()
    }
}

fn closed_error(m: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::BrokenPipe, m.into())
}

impl HttpWriter {
    fn poll_permit(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<mpsc::OwnedPermit<Cmd>>> {
        let tx = &self.tx;
        let fut = self.reserve.get_or_insert_with(|| Box::pin(tx.clone().reserve_owned()));
        let r = ready!(fut.as_mut().poll(cx));
        self.reserve = None;
        Poll::Ready(r.map_err(|_| closed_error("the HTTP transport is closed")))
    }

    /// Hands the complete lines to the dispatcher.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while !self.lines.is_empty() {
            let permit = ready!(self.poll_permit(cx))?;
            if let Some(line) = self.lines.pop_front() {
                permit.send(Cmd::Line(line));
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl AsyncWrite for HttpWriter {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        if let Some(m) = this.shared.fatal_message() {
            return Poll::Ready(Err(closed_error(m)));
        }
        if this.shut || this.ack.is_some() {
            return Poll::Ready(Err(closed_error("the HTTP transport is shut down")));
        }
        ready!(this.poll_drain(cx))?;
        let mut rest = buf;
        while let Some(i) = memchr::memchr(b'\n', rest) {
            this.partial.extend_from_slice(&rest[..i]);
            let line = std::mem::take(&mut this.partial);
            if !line.iter().all(u8::is_ascii_whitespace) {
                this.lines.push_back(Bytes::from(line));
            }
            rest = &rest[i + 1..];
        }
        if this.partial.len() + rest.len() > this.shared.max_message {
            this.partial.clear();
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("a message is larger than the limit of {} bytes", this.shared.max_message),
            )));
        }
        this.partial.extend_from_slice(rest);
        // Hand the lines over now if there is room; else on the next write or flush.
        if let Poll::Ready(Err(e)) = this.poll_drain(cx) {
            return Poll::Ready(Err(e));
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().poll_drain(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.shut {
            return Poll::Ready(Ok(()));
        }
        if this.ack.is_none() {
            if ready!(this.poll_drain(cx)).is_err() {
                this.shut = true;
                return Poll::Ready(Ok(()));
            }
            this.shared.closing.send_replace(true);
            let Ok(permit) = ready!(this.poll_permit(cx)) else {
                this.shut = true;
                return Poll::Ready(Ok(()));
            };
            let (ack_tx, ack_rx) = oneshot::channel();
            permit.send(Cmd::Shutdown(ack_tx));
            this.ack = Some(ack_rx);
        }
        if let Some(ack) = &mut this.ack {
            let _ = ready!(Pin::new(ack).poll(cx));
        }
        this.ack = None;
        this.shut = true;
        Poll::Ready(Ok(()))
    }
}

impl Drop for HttpWriter {
    fn drop(&mut self) {
        // Stop waiting on the line in flight; the dispatcher then ends the session.
        self.shared.closing.send_replace(true);
    }
}

// ---- URLs --------------------------------------------------------------------------------

/// Where requests go: one `http://` URL, split for connecting and for the request line.
#[derive(Debug, Clone)]
struct Target {
    url: String,
    host: String,
    port: u16,
    authority: HeaderValue,
    path: String,
}

impl Target {
    fn parse(url: &str) -> std::result::Result<Target, String> {
        let uri: Uri = url.trim().parse().map_err(|e| format!("invalid URL {url:?}: {e}"))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") => {
                return Err(format!("TLS is not supported by this build: cannot connect to {url} (use an http:// URL)"))
            }
            Some(other) => return Err(format!("unsupported URL scheme {other:?} in {url} (expected http://)")),
            None => return Err(format!("{url:?} is not an absolute http:// URL")),
        }
        let Some(auth) = uri.authority() else { return Err(format!("{url:?} has no host")) };
        let host = auth.host();
        if host.is_empty() {
            return Err(format!("{url:?} has no host"));
        }
        let port = auth.port_u16().unwrap_or(80);
        let authority = match auth.port() {
            Some(p) => format!("{host}:{p}"),
            None => host.to_string(),
        };
        let authority = HeaderValue::from_str(&authority).map_err(|_| format!("invalid host in {url:?}"))?;
        let path = match uri.path_and_query().map(|p| p.as_str()) {
            Some(p) if !p.is_empty() => p.to_string(),
            _ => "/".to_string(),
        };
        let host = host.trim_start_matches('[').trim_end_matches(']').to_string();
        Ok(Target { url: url.trim().to_string(), host, port, authority, path })
    }

    /// Resolves a reference (an absolute URL, or a path, relative or absolute) against this
    /// URL. Only the same origin is accepted: the custom headers often carry credentials.
    fn resolve(&self, reference: &str) -> std::result::Result<Target, String> {
        let r = reference.trim();
        let target = if r.contains("://") {
            Target::parse(r)?
        } else if let Some(rest) = r.strip_prefix("//") {
            Target::parse(&format!("http://{rest}"))?
        } else {
            let base_path = self.path.split(['?', '#']).next().unwrap_or("/");
            let path = if r.starts_with('/') {
                r.to_string()
            } else if r.starts_with('?') {
                format!("{base_path}{r}")
            } else {
                let dir = &base_path[..base_path.rfind('/').map_or(0, |i| i + 1)];
                let dir = if dir.is_empty() { "/" } else { dir };
                format!("{dir}{r}")
            };
            let path = path.split('#').next().unwrap_or_default().to_string();
            http::uri::PathAndQuery::try_from(path.as_str()).map_err(|_| format!("invalid endpoint {r:?}"))?;
            let authority = self.authority.to_str().unwrap_or_default();
            Target { url: format!("http://{authority}{path}"), path, ..self.clone() }
        };
        if !target.host.eq_ignore_ascii_case(&self.host) || target.port != self.port {
            return Err(format!(
                "the endpoint {r:?} is on another origin than {}; refusing to send messages there",
                self.url
            ));
        }
        Ok(target)
    }
}

// ---- connections -------------------------------------------------------------------------

type Sender = SendRequest<Full<Bytes>>;

/// HTTP/1.1 connections to the server's origin: idle ones are reused.
struct Pool {
    host: String,
    port: u16,
    timeout: Duration,
    idle: Mutex<Vec<(Sender, Instant)>>,
}

/// A connection lent to one exchange; given back once the response body was read to its end
/// (dropping it closes the connection).
struct Lease {
    sender: Sender,
    pool: Arc<Pool>,
}

impl Lease {
    fn release(self) {
        self.pool.put(self.sender);
    }
}

impl Pool {
    async fn open(&self) -> io::Result<Sender> {
        let connect = tokio::net::TcpStream::connect((self.host.as_str(), self.port));
        let stream = match tokio::time::timeout(self.timeout, connect).await {
            Ok(r) => r?,
            Err(_) => {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("connecting timed out after {:?}", self.timeout),
                ))
            }
        };
        let _ = stream.set_nodelay(true);
        let (sender, conn) =
            hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.map_err(io::Error::other)?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(sender)
    }

    fn put(&self, sender: Sender) {
        if sender.is_closed() {
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE {
            idle.push((sender, Instant::now()));
        }
    }

    fn take(&self) -> Option<Sender> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        while let Some((sender, since)) = idle.pop() {
            if !sender.is_closed() && sender.is_ready() && since.elapsed() < IDLE_REUSE {
                return Some(sender);
            }
        }
        None
    }

    /// Sends a request on an idle connection (when one is ready) or a new one.
    async fn send(self: &Arc<Self>, mut req: Request<Full<Bytes>>) -> io::Result<(Response<Incoming>, Lease)> {
        loop {
            let (mut sender, reused) = match self.take() {
                Some(s) => (s, true),
                None => (self.open().await?, false),
            };
            if !reused {
                sender.ready().await.map_err(io::Error::other)?;
            }
            match sender.try_send_request(req).await {
                Ok(resp) => return Ok((resp, Lease { sender, pool: self.clone() })),
                Err(mut e) => match e.take_message() {
                    // Not sent: the pooled connection was closing. Try a fresh one.
                    Some(r) if reused => req = r,
                    _ => return Err(io::Error::other(e.into_error())),
                },
            }
        }
    }
}

// ---- shared state ------------------------------------------------------------------------

#[derive(Debug, Clone, Default)]
enum Mode {
    /// Auto: the first POST decides.
    #[default]
    Undecided,
    Streamable,
    /// Legacy HTTP+SSE: messages are POSTed to this endpoint.
    Legacy(Target),
}

#[derive(Default)]
struct State {
    mode: Mode,
    session: Option<HeaderValue>,
    version: Option<HeaderValue>,
    /// The key of the `initialize` request in flight.
    init_key: Option<String>,
    /// Requests sent and not answered yet: key (the id as JSON) → id.
    pending: HashMap<String, Value>,
    get_stream: bool,
    fatal: Option<String>,
}

struct Shared {
    base: Target,
    opts: HttpClientOptions,
    max_message: usize,
    headers: HeaderMap,
    pool: Arc<Pool>,
    state: Mutex<State>,
    /// Set when the transport ends: every task stops.
    stop: watch::Sender<bool>,
    /// Set when the writer shuts down or is dropped: the dispatcher stops waiting.
    closing: watch::Sender<bool>,
    /// Notified when the client cancels requests (their streams need not be read further).
    cancelled: tokio::sync::Notify,
}

/// What a written line holds.
#[derive(Debug, Default)]
struct Outgoing {
    /// Keys of the requests in it.
    keys: Vec<String>,
    initialize: bool,
    initialized: bool,
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

fn error_line(id: &Value, message: &str) -> Bytes {
    error_line_with(id, HTTP_TRANSPORT_ERROR, message)
}

fn error_line_with(id: &Value, code: i32, message: &str) -> Bytes {
    let v = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    let mut s = v.to_string();
    s.push('\n');
    Bytes::from(s)
}

fn media_type(resp: &Response<Incoming>) -> String {
    resp.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Reads a whole body of at most `limit` bytes.
async fn read_limited(body: &mut Incoming, limit: usize) -> std::result::Result<Bytes, String> {
    let mut buf = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| format!("reading the response failed: {e}"))?;
        if let Ok(data) = frame.into_data() {
            if buf.len() + data.len() > limit {
                return Err(format!("the response is larger than the limit of {limit} bytes"));
            }
            buf.extend_from_slice(&data);
        }
    }
    Ok(buf.freeze())
}

/// Reads a body to its end when it is small, and gives the connection back.
async fn drain(mut body: Incoming, lease: Lease) {
    let mut n = 0;
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(f) => {
                if let Ok(d) = f.into_data() {
                    n += d.len();
                    if n > DRAIN_BYTES {
                        return;
                    }
                }
            }
            Err(_) => return,
        }
    }
    lease.release();
}

/// The start of an error body, for messages: a JSON-RPC error's message when it is one,
/// else the text (whitespace collapsed, cut at 300 characters).
async fn snippet(mut body: Incoming) -> String {
    let mut buf = Vec::new();
    let read = async {
        while let Some(Ok(frame)) = body.frame().await {
            if let Ok(d) = frame.into_data() {
                buf.extend_from_slice(&d);
                if buf.len() >= SNIPPET_BYTES {
                    break;
                }
            }
        }
    };
    let _ = tokio::time::timeout(SNIPPET_WAIT, read).await;
    if let Ok(v) = serde_json::from_slice::<Value>(&buf) {
        if let Some(m) = v.pointer("/error/message").and_then(Value::as_str) {
            return m.to_string();
        }
    }
    let text = String::from_utf8_lossy(&buf);
    let mut out: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.chars().count() > 300 {
        out = out.chars().take(300).collect::<String>() + "...";
    }
    out
}

fn status_text(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(r) => format!("HTTP {} {r}", status.as_u16()),
        None => format!("HTTP {}", status.as_u16()),
    }
}

/// Options of one request.
#[derive(Default)]
struct Req<'a> {
    /// Leave out the session id and protocol version (`initialize`, the legacy GET).
    fresh: bool,
    last_event_id: Option<&'a str>,
}

/// How reading an SSE body ended.
enum Pump {
    /// Every request the stream was to answer is answered.
    Answered,
    /// The reader is gone.
    ReaderGone,
    /// The body ended (cleanly, or broken); `events` were received on it.
    Ended { events: usize },
    /// A size limit was broken.
    TooLarge(SseError),
}

#[derive(Debug)]
enum StreamKind {
    /// The stream answering a POST of these requests.
    Post(Vec<String>),
    /// The standalone GET stream.
    Get,
    /// The legacy HTTP+SSE stream.
    Legacy,
}

impl Shared {
    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn fatal_message(&self) -> Option<String> {
        self.state().fatal.clone()
    }

    /// Runs a task until it ends or the transport stops.
    fn spawn(&self, fut: impl Future<Output = ()> + Send + 'static) {
        let mut stop = self.stop.subscribe();
        tokio::spawn(async move {
            tokio::select! {
                _ = fut => {}
                _ = stop.wait_for(|s| *s) => {}
            }
        });
    }

    fn request(&self, method: Method, target: &Target, body: Bytes, opts: Req<'_>) -> Request<Full<Bytes>> {
        let mut req = Request::new(Full::new(body));
        *req.method_mut() = method.clone();
        // The path was validated when the target was built.
        *req.uri_mut() = target.path.parse().unwrap_or_else(|_| Uri::from_static("/"));
        let h = req.headers_mut();
        for (n, v) in &self.headers {
            h.append(n, v.clone());
        }
        h.insert(HOST, target.authority.clone());
        if method == Method::POST {
            h.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
            h.insert(ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
        } else if method == Method::GET {
            h.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
            h.insert(http::header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        }
        if !opts.fresh {
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
    fn note_outgoing(&self, line: &[u8]) -> Outgoing {
        let mut out = Outgoing::default();
        let msgs: Vec<PeekOut<'_>> = peek(line).unwrap_or_default();
        let mut st = self.state();
        let mut cancelled = false;
        for m in msgs {
            match (m.method.as_deref(), m.id) {
                (Some(method), Some(id)) if !id.is_null() => {
                    let key = id_key(&id);
                    if method == "initialize" {
                        out.initialize = true;
                        st.init_key = Some(key.clone());
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
    async fn deliver(&self, tx: &mpsc::Sender<Item>, msg: &[u8]) -> bool {
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

    fn answered(&self, keys: &[String]) -> bool {
        let st = self.state();
        keys.iter().all(|k| !st.pending.contains_key(k))
    }

    /// Answers the still pending requests among `keys` with an error.
    async fn fail_requests(&self, tx: &mpsc::Sender<Item>, keys: &[String], message: &str) {
        let ids: Vec<Value> = {
            let mut st = self.state();
            keys.iter().filter_map(|k| st.pending.remove(k)).collect()
        };
        for id in ids {
            if tx.send(Ok(error_line(&id, message))).await.is_err() {
                return;
            }
        }
    }

    /// Ends the transport with an error: pending requests fail, the reader ends with it.
    async fn fail(&self, tx: &mpsc::Sender<Item>, message: String) {
        self.fail_with(tx, HTTP_TRANSPORT_ERROR, message).await
    }

    /// The connection to the server is over (nothing listens at its address any more, or the
    /// legacy event stream closed): the transport ends, pending requests fail as closed.
    async fn closed(&self, tx: &mpsc::Sender<Item>, message: String) {
        self.fail_with(tx, crate::jsonrpc::codes::CONNECTION_CLOSED, message).await
    }

    /// A request to the server could not be sent: when nothing listens at its address any
    /// more the transport ends (see [`Shared::closed`]), else the requests among `keys` fail.
    async fn send_failed(&self, tx: &mpsc::Sender<Item>, keys: &[String], what: &str, e: &io::Error) {
        if e.kind() == io::ErrorKind::ConnectionRefused {
            let m = format!("the server at {} is unreachable: {e}", self.base.url);
            return self.closed(tx, m).await;
        }
        self.fail_requests(tx, keys, &format!("{what} failed: {e}")).await
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
        for id in ids {
            let _ = tx.send(Ok(error_line_with(&id, code, &message))).await;
        }
        let _ = tx.send(Err(io::Error::new(io::ErrorKind::ConnectionAborted, message))).await;
        self.stop.send_replace(true);
    }

    // ---- Streamable HTTP --------------------------------------------------------------

    /// Handles one written line (in order).
    async fn handle_line(self: &Arc<Self>, line: Bytes, tx: &mpsc::Sender<Item>, closing: &mut watch::Receiver<bool>) {
        let out = self.note_outgoing(&line);
        let mode = self.state().mode.clone();
        let legacy = match mode {
            Mode::Undecided => return self.probe(line, out, tx, closing).await,
            Mode::Streamable => None,
            Mode::Legacy(target) => Some(target),
        };
        let wait = out.keys.is_empty() || out.initialize;
        let limit = if out.initialize { None } else { Some(ORDER_WAIT) };
        let (head_tx, head_rx) = oneshot::channel();
        self.spawn(self.clone().post(legacy, line, out, tx.clone(), head_tx));
        if wait && !*closing.borrow() {
            let sleep = async {
                match limit {
                    Some(d) => tokio::time::sleep(d).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = head_rx => {}
                _ = closing.wait_for(|c| *c) => {}
                _ = sleep => {}
            }
        }
    }

    /// Auto mode, first line: POSTs it and decides between Streamable HTTP and the legacy
    /// HTTP+SSE transport.
    async fn probe(
        self: &Arc<Self>,
        line: Bytes,
        out: Outgoing,
        tx: &mpsc::Sender<Item>,
        closing: &mut watch::Receiver<bool>,
    ) {
        let req = self.request(Method::POST, &self.base, line.clone(), Req { fresh: true, ..Req::default() });
        let sent = tokio::select! {
            r = self.pool.send(req) => r,
            _ = closing.wait_for(|c| *c) => return,
        };
        let (resp, lease) = match sent {
            Ok(r) => r,
            Err(e) => return self.send_failed(tx, &out.keys, &format!("POST {}", self.base.url), &e).await,
        };
        let status = resp.status();
        let refused = matches!(status.as_u16(), 400 | 404 | 405);
        if !(out.initialize && refused && self.opts.legacy_fallback) {
            self.state().mode = Mode::Streamable;
            if out.initialize {
                self.adopt_session(&resp);
            }
            self.spawn(self.clone().on_post_response(resp, lease, out, tx.clone(), false, false));
            return;
        }
        let detail = snippet(resp.into_body()).await;
        let opened = tokio::select! {
            r = self.open_legacy(tx) => r,
            _ = closing.wait_for(|c| *c) => return,
        };
        match opened {
            Ok(target) => {
                self.state().mode = Mode::Legacy(target.clone());
                let (head_tx, head_rx) = oneshot::channel();
                self.spawn(self.clone().post(Some(target), line, out, tx.clone(), head_tx));
                let _ = head_rx.await;
            }
            Err(e) => {
                self.state().mode = Mode::Streamable;
                let m = format!(
                    "{} from POST {}: {detail} (the fallback to the legacy HTTP+SSE transport failed too: {e})",
                    status_text(status),
                    self.base.url
                );
                self.fail_requests(tx, &out.keys, &m).await;
            }
        }
    }

    /// Takes the session id of an `initialize` answer.
    fn adopt_session(&self, resp: &Response<Incoming>) {
        let mut st = self.state();
        if resp.status().is_success() {
            st.session = resp.headers().get("mcp-session-id").cloned();
            st.version = None;
            st.get_stream = false;
        }
    }

    /// POSTs one line (to the MCP endpoint, or the legacy endpoint) and handles the answer;
    /// `head` is dropped once the response head arrived (or the POST failed).
    async fn post(
        self: Arc<Self>,
        legacy: Option<Target>,
        line: Bytes,
        out: Outgoing,
        tx: mpsc::Sender<Item>,
        head: oneshot::Sender<()>,
    ) {
        let target = legacy.as_ref().unwrap_or(&self.base);
        let carried_session = legacy.is_none() && !out.initialize && self.state().session.is_some();
        let req = self.request(Method::POST, target, line, Req { fresh: out.initialize, ..Req::default() });
        match self.pool.send(req).await {
            Err(e) => {
                drop(head);
                self.send_failed(&tx, &out.keys, &format!("POST {}", target.url), &e).await;
            }
            Ok((resp, lease)) => {
                if out.initialize && legacy.is_none() {
                    self.adopt_session(&resp);
                }
                drop(head);
                let is_legacy = legacy.is_some();
                self.on_post_response(resp, lease, out, tx, carried_session, is_legacy).await;
            }
        }
    }

    async fn on_post_response(
        self: Arc<Self>,
        resp: Response<Incoming>,
        lease: Lease,
        out: Outgoing,
        tx: mpsc::Sender<Item>,
        carried_session: bool,
        legacy: bool,
    ) {
        let status = resp.status();
        let url = if legacy { "the HTTP+SSE endpoint" } else { self.base.url.as_str() };
        if status.is_success() {
            if out.initialized && !legacy {
                self.start_get_stream(&tx);
            }
            // Legacy answers arrive on the event stream; a 202 to a request means the answer
            // comes on the GET stream.
            if out.keys.is_empty() || legacy || status == StatusCode::ACCEPTED || status == StatusCode::NO_CONTENT {
                return drain(resp.into_body(), lease).await;
            }
            match media_type(&resp).as_str() {
                "application/json" => {
                    let mut body = resp.into_body();
                    match read_limited(&mut body, self.max_message).await {
                        Ok(bytes) => {
                            lease.release();
                            if !self.deliver(&tx, &bytes).await {
                                return;
                            }
                            let m = format!("the JSON answer of {url} did not answer this request");
                            self.fail_requests(&tx, &out.keys, &m).await;
                        }
                        Err(e) => self.fail_requests(&tx, &out.keys, &format!("POST {url}: {e}")).await,
                    }
                }
                "text/event-stream" => {
                    let body = resp.into_body();
                    self.run_stream(StreamKind::Post(out.keys), Some((body, lease)), &tx).await;
                }
                other => {
                    let m = format!("POST {url} answered with the unexpected content type {other:?}");
                    self.fail_requests(&tx, &out.keys, &m).await;
                }
            }
        } else if status == StatusCode::NOT_FOUND && carried_session {
            let m = format!("the MCP session expired (HTTP 404 Not Found from {url}); a new session must be started");
            self.fail(&tx, m).await;
        } else {
            let detail = snippet(resp.into_body()).await;
            let m = if detail.is_empty() {
                format!("{} from POST {url}", status_text(status))
            } else {
                format!("{} from POST {url}: {detail}", status_text(status))
            };
            self.fail_requests(&tx, &out.keys, &m).await;
        }
    }

    fn start_get_stream(self: &Arc<Self>, tx: &mpsc::Sender<Item>) {
        if !self.opts.open_get_stream {
            return;
        }
        {
            let mut st = self.state();
            if st.get_stream || st.fatal.is_some() {
                return;
            }
            st.get_stream = true;
        }
        let this = self.clone();
        let tx = tx.clone();
        self.spawn(async move { this.run_stream(StreamKind::Get, None, &tx).await });
    }

    /// Reads an SSE stream (the answer to a POST, or the standalone GET stream), resuming it
    /// with GET + `Last-Event-ID` when it breaks.
    async fn run_stream(&self, kind: StreamKind, first: Option<(Incoming, Lease)>, tx: &mpsc::Sender<Item>) {
        let policy = &self.opts.reconnect;
        let mut parser = SseParser::new(self.max_message);
        let mut conn = first;
        let mut attempts: u32 = 0;
        let mut opened_once = conn.is_some();
        let mut opened_at = Instant::now();
        let mut last_error: Option<String> = None;
        loop {
            if let Some((body, lease)) = conn.take() {
                match self.pump(&kind, body, lease, &mut parser, tx).await {
                    Pump::Answered | Pump::ReaderGone => return,
                    Pump::TooLarge(e) => {
                        if let StreamKind::Post(keys) = &kind {
                            self.fail_requests(tx, keys, &format!("the server's event stream broke a limit: {e}"))
                                .await;
                        }
                        return;
                    }
                    Pump::Ended { events } => {
                        // A stream that carried events, or lived long, worked: start over.
                        if events > 0 || opened_at.elapsed() >= policy.max_delay {
                            attempts = 0;
                        }
                    }
                }
            }
            let last_id = parser.last_event_id().map(str::to_string);
            if let StreamKind::Post(keys) = &kind {
                if self.answered(keys) {
                    return;
                }
                if last_id.is_none() {
                    let m = "the server ended its event stream before answering, without an event id to resume it";
                    return self.fail_requests(tx, keys, m).await;
                }
            }
            if opened_once && attempts >= policy.max_attempts {
                if let StreamKind::Post(keys) = &kind {
                    let mut m = format!("resuming the server's event stream failed {attempts} times in a row");
                    if let Some(e) = &last_error {
                        m = format!("{m} (last: {e})");
                    }
                    self.fail_requests(tx, keys, &m).await;
                }
                return;
            }
            if opened_once {
                let delay = parser.retry().unwrap_or_else(|| policy.delay(attempts)).max(MIN_RECONNECT_DELAY);
                attempts += 1;
                tokio::time::sleep(delay).await;
            }
            opened_once = true;
            let req = self.request(
                Method::GET,
                &self.base,
                Bytes::new(),
                Req { fresh: false, last_event_id: last_id.as_deref() },
            );
            let (resp, lease) = match self.pool.send(req).await {
                Ok(r) => r,
                Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                    let m = format!("the server at {} is unreachable: {e}", self.base.url);
                    return self.closed(tx, m).await;
                }
                Err(e) => {
                    last_error = Some(e.to_string());
                    continue;
                }
            };
            let status = resp.status();
            if status.is_success() && media_type(&resp) == "text/event-stream" {
                parser.reset();
                conn = Some((resp.into_body(), lease));
                opened_at = Instant::now();
                continue;
            }
            if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS {
                last_error = Some(status_text(status));
                continue;
            }
            // Refused for good (405: no GET stream on this server).
            if let StreamKind::Post(keys) = &kind {
                let detail = snippet(resp.into_body()).await;
                let m = format!("resuming the server's event stream failed: {} {detail}", status_text(status));
                self.fail_requests(tx, keys, m.trim_end()).await;
            }
            return;
        }
    }

    /// Reads one SSE body, passing its `message` events to the reader.
    async fn pump(
        &self,
        kind: &StreamKind,
        mut body: Incoming,
        lease: Lease,
        parser: &mut SseParser,
        tx: &mpsc::Sender<Item>,
    ) -> Pump {
        let mut events = 0;
        let post = matches!(kind, StreamKind::Post(_));
        // Once its requests are answered, a POST stream is read a little longer (the server
        // normally ends it at once, and the connection can then be reused).
        let mut linger: Option<tokio::time::Instant> = None;
        loop {
            let until_linger = async {
                match linger {
                    Some(t) => tokio::time::sleep_until(t).await,
                    None => std::future::pending().await,
                }
            };
            let frame = tokio::select! {
                f = body.frame() => f,
                _ = tx.closed() => return Pump::ReaderGone,
                _ = until_linger => return Pump::Answered,
                _ = self.cancelled.notified(), if post && linger.is_none() => {
                    if let StreamKind::Post(keys) = kind {
                        if self.answered(keys) {
                            return Pump::Answered;
                        }
                    }
                    continue;
                }
            };
            let data = match frame {
                None => {
                    lease.release();
                    return if linger.is_some() { Pump::Answered } else { Pump::Ended { events } };
                }
                Some(Err(_)) if linger.is_some() => return Pump::Answered,
                Some(Err(_)) => return Pump::Ended { events },
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(d) => d,
                    Err(_) => continue,
                },
            };
            if let Err(e) = parser.feed(&data) {
                return Pump::TooLarge(e);
            }
            while let Some(ev) = parser.next_event() {
                events += 1;
                if ev.event == "message" && !self.deliver(tx, ev.data.as_bytes()).await {
                    return Pump::ReaderGone;
                }
            }
            if let StreamKind::Post(keys) = kind {
                if linger.is_none() && self.answered(keys) {
                    linger = Some(tokio::time::Instant::now() + ANSWERED_LINGER);
                }
            }
        }
    }

    // ---- legacy HTTP+SSE ----------------------------------------------------------------

    /// Opens the legacy event stream at the base URL and waits for its `endpoint` event;
    /// the stream is then read by a task. Returns where to POST.
    async fn open_legacy(self: &Arc<Self>, tx: &mpsc::Sender<Item>) -> std::result::Result<Target, String> {
        let req = self.request(Method::GET, &self.base, Bytes::new(), Req { fresh: true, ..Req::default() });
        let (resp, lease) = self.pool.send(req).await.map_err(|e| format!("GET {} failed: {e}", self.base.url))?;
        let status = resp.status();
        if !status.is_success() {
            let detail = snippet(resp.into_body()).await;
            return Err(format!("GET {} answered {}: {detail}", self.base.url, status_text(status)));
        }
        let ct = media_type(&resp);
        if ct != "text/event-stream" {
            return Err(format!("GET {} answered with {ct:?}, not an event stream", self.base.url));
        }
        let mut body = resp.into_body();
        let mut parser = SseParser::new(self.max_message);
        let wait = async {
            loop {
                let Some(frame) = body.frame().await else {
                    return Err("the event stream ended before naming the endpoint".to_string());
                };
                let frame = frame.map_err(|e| format!("reading the event stream failed: {e}"))?;
                let Ok(data) = frame.into_data() else { continue };
                parser.feed(&data).map_err(|e| e.to_string())?;
                while let Some(ev) = parser.next_event() {
                    match ev.event.as_str() {
                        "endpoint" => return self.base.resolve(&ev.data),
                        "message" => {
                            self.deliver(tx, ev.data.as_bytes()).await;
                        }
                        _ => {}
                    }
                }
            }
        };
        let target = match tokio::time::timeout(ENDPOINT_WAIT, wait).await {
            Ok(r) => r?,
            Err(_) => return Err(format!("no `endpoint` event within {ENDPOINT_WAIT:?}")),
        };
        let this = self.clone();
        let tx = tx.clone();
        self.spawn(async move {
            if let Pump::ReaderGone = this.pump(&StreamKind::Legacy, body, lease, &mut parser, &tx).await {
                return;
            }
            let m = format!("the server closed the HTTP+SSE event stream {}", this.base.url);
            this.closed(&tx, m).await;
        });
        Ok(target)
    }

    // ---- shutdown ---------------------------------------------------------------------

    async fn shutdown(&self) {
        let session = {
            let st = self.state();
            matches!((&st.mode, &st.session, &st.fatal), (Mode::Streamable, Some(_), None))
        };
        if session {
            let req = self.request(Method::DELETE, &self.base, Bytes::new(), Req::default());
            let _ = tokio::time::timeout(SHUTDOWN_WAIT, async {
                if let Ok((resp, lease)) = self.pool.send(req).await {
                    drain(resp.into_body(), lease).await;
                }
            })
            .await;
        }
        self.stop.send_replace(true);
    }
}

/// Takes the written lines in order and POSTs them.
async fn dispatch(shared: Arc<Shared>, mut rx: mpsc::Receiver<Cmd>, tx: mpsc::Sender<Item>) {
    let mut closing = shared.closing.subscribe();
    let mut stop = shared.stop.subscribe();
    loop {
        let cmd = tokio::select! {
            c = rx.recv() => c,
            // A fatal error: drop the reader's sender too.
            _ = async { let _ = stop.wait_for(|s| *s).await; } => {
                drop(tx);
                // Keep taking commands so the writer's shutdown completes.
                while let Some(cmd) = rx.recv().await {
                    if let Cmd::Shutdown(ack) = cmd {
                        let _ = ack.send(());
                        return;
                    }
                }
                return;
            }
        };
        match cmd {
            Some(Cmd::Line(line)) => shared.handle_line(line, &tx, &mut closing).await,
            Some(Cmd::Shutdown(ack)) => {
                shared.shutdown().await;
                let _ = ack.send(());
                return;
            }
            None => {
                shared.shutdown().await;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let t = Target::parse("http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!((t.host.as_str(), t.port, t.path.as_str()), ("127.0.0.1", 8080, "/mcp"));
        assert_eq!(t.authority, "127.0.0.1:8080");
        let t = Target::parse("http://localhost").unwrap();
        assert_eq!((t.host.as_str(), t.port, t.path.as_str()), ("localhost", 80, "/"));
        assert_eq!(t.authority, "localhost");
        let t = Target::parse("http://[::1]:9000/a/b?x=1").unwrap();
        assert_eq!((t.host.as_str(), t.port, t.path.as_str()), ("::1", 9000, "/a/b?x=1"));
        assert_eq!(t.authority, "[::1]:9000");
        let e = Target::parse("https://example.com/mcp").unwrap_err();
        assert!(e.contains("TLS is not supported by this build"), "{e}");
        assert!(Target::parse("ftp://x/").is_err());
        assert!(Target::parse("/relative").is_err());
        assert!(Target::parse("not a url").is_err());
    }

    #[test]
    fn endpoint_resolution() {
        let base = Target::parse("http://127.0.0.1:8000/sse").unwrap();
        let r = base.resolve("/messages/?session_id=ab12").unwrap();
        assert_eq!(r.path, "/messages/?session_id=ab12");
        assert_eq!(r.url, "http://127.0.0.1:8000/messages/?session_id=ab12");
        let r = base.resolve("message?sessionId=1").unwrap();
        assert_eq!(r.path, "/message?sessionId=1");
        let base2 = Target::parse("http://127.0.0.1:8000/app/sse?x=1").unwrap();
        assert_eq!(base2.resolve("post").unwrap().path, "/app/post");
        assert_eq!(base2.resolve("?s=2").unwrap().path, "/app/sse?s=2");
        let r = base.resolve("http://127.0.0.1:8000/m").unwrap();
        assert_eq!(r.path, "/m");
        assert!(base.resolve("http://evil.example:8000/m").is_err());
        assert!(base.resolve("//127.0.0.1:9999/m").is_err());
        assert!(base.resolve("https://127.0.0.1:8000/m").is_err());
    }

    #[test]
    fn backoff() {
        let p = ReconnectPolicy::default();
        assert_eq!(p.delay(0), Duration::from_secs(1));
        assert_eq!(p.delay(1), Duration::from_secs(2));
        assert_eq!(p.delay(4), Duration::from_secs(16));
        assert_eq!(p.delay(5), Duration::from_secs(30));
        assert_eq!(p.delay(100), Duration::from_secs(30));
    }

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
        let line = error_line(&json!(7), "HTTP 500");
        let v: Value = serde_json::from_slice(&line).unwrap();
        assert_eq!(v["error"]["code"], HTTP_TRANSPORT_ERROR);
        assert_eq!(v["id"], 7);
        assert!(line.ends_with(b"\n"));
    }
}
