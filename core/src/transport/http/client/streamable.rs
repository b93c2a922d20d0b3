//! Streamable HTTP: POSTing a line and handling the answer (a JSON body or an SSE stream),
//! the first POST of the auto mode (which decides between Streamable HTTP and the legacy
//! transport), the standalone GET stream, and reading SSE streams, resumed with
//! `Last-Event-ID` when they break. The legacy transport's POSTs go through
//! [`Shared::post`] too.

use super::ends::Item;
use super::pool::Lease;
use super::response::{drain, media_type, read_limited, snippet, status_text};
use super::state::{Mode, Outgoing, Req, Shared};
use super::url::Target;
use crate::jsonrpc::codes::UNAUTHORIZED;
use crate::transport::http::sse::{SseError, SseParser};
use bytes::Bytes;
use http::{Method, Response, StatusCode};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use std::io;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot, watch};

/// The largest error body read for its JSON-RPC error.
const ERROR_BODY_MAX: usize = 64 * 1024;
/// How long a POST's event stream is still read after it answered its requests.
const ANSWERED_LINGER: Duration = Duration::from_secs(1);
/// The shortest reconnection delay (a server's `retry: 0` must not make a busy loop).
const MIN_RECONNECT_DELAY: Duration = Duration::from_millis(100);

/// Why a POST got no answer to handle.
pub(super) enum Unsent {
    /// It could not be sent.
    Io(io::Error),
    /// The server wants an authorization the OAuth client could not get (the message says why).
    Unauthorized(String),
}

/// An authorization challenge of the server.
pub(super) struct Challenge {
    status: u16,
    www: Vec<String>,
}

/// The `Authorization` value a request carries.
fn authorization_of<B>(req: &http::Request<B>) -> Option<String> {
    req.headers().get(http::header::AUTHORIZATION).and_then(|v| v.to_str().ok()).map(str::to_string)
}

/// How reading an SSE body ended.
pub(super) enum Pump {
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
pub(super) enum StreamKind {
    /// The stream answering a POST of these requests.
    Post(Vec<String>),
    /// The standalone GET stream.
    Get,
    /// The legacy HTTP+SSE stream.
    Legacy,
}

impl Shared {
    /// Auto mode, first line: POSTs it and decides between Streamable HTTP and the legacy
    /// HTTP+SSE transport.
    pub(super) async fn probe(
        self: &Arc<Self>,
        line: Bytes,
        out: Outgoing,
        tx: &mpsc::Sender<Item>,
        closing: &mut watch::Receiver<bool>,
    ) {
        let build = || self.request(Method::POST, &self.base, line.clone(), Req { fresh: true, ..Req::default() });
        let sent = tokio::select! {
            r = self.send_authorized(build) => r,
            _ = closing.wait_for(|c| *c) => return,
        };
        let (resp, lease) = match sent {
            Ok(r) => r,
            Err(why) => return self.unsent(tx, &out.keys, &self.base.url, why).await,
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

    /// Sends the request `build` makes; while the server answers it with an authorization
    /// challenge the OAuth client may take (at most `max_authorizations` times), authorizes
    /// and sends it again.
    async fn send_authorized(
        &self,
        build: impl Fn() -> http::Request<http_body_util::Full<Bytes>>,
    ) -> std::result::Result<(Response<Incoming>, Lease), Unsent> {
        let mut authorizations = 0;
        loop {
            if let Some(auth) = &self.auth {
                auth.before_request().await;
            }
            let req = build();
            // Only an OAuth client compares it with the token it holds.
            let sent = self.auth.as_ref().and_then(|_| authorization_of(&req));
            let (resp, lease) = self.pool.send(req).await.map_err(Unsent::Io)?;
            let Some(ch) = self.auth_challenge(&resp, &mut authorizations) else { return Ok((resp, lease)) };
            drain(resp.into_body(), lease).await;
            self.authorize(ch, sent).await.map_err(Unsent::Unauthorized)?;
        }
    }

    /// Fails the requests among `keys` of a POST to `url` that got no answer to handle.
    async fn unsent(&self, tx: &mpsc::Sender<Item>, keys: &[String], url: &str, why: Unsent) {
        match why {
            Unsent::Io(e) => self.send_failed(tx, keys, &format!("POST {url}"), &e).await,
            Unsent::Unauthorized(m) => self.fail_requests_with(tx, keys, UNAUTHORIZED, &m).await,
        }
    }

    /// When `resp` refuses a request for want of authorization (`401`, or `403` with an
    /// `insufficient_scope` challenge) and the OAuth client may try once more, the challenge.
    fn auth_challenge(&self, resp: &Response<Incoming>, authorizations: &mut u32) -> Option<Challenge> {
        let auth = self.auth.as_ref()?;
        if let Some(n) = resp.headers().get("dpop-nonce").and_then(|v| v.to_str().ok()) {
            auth.note_dpop_nonce(n);
        }
        let status = resp.status().as_u16();
        if !matches!(status, 401 | 403) || *authorizations >= auth.options().max_authorizations {
            return None;
        }
        let www: Vec<String> = resp
            .headers()
            .get_all(http::header::WWW_AUTHENTICATE)
            .iter()
            .filter_map(|v| v.to_str().ok().map(str::to_string))
            .collect();
        if status == 403 && !www.iter().any(|v| v.contains("insufficient_scope")) {
            return None;
        }
        *authorizations += 1;
        Some(Challenge { status, www })
    }

    /// Runs the OAuth client on a challenge; `Err` is the message the refused requests fail with.
    async fn authorize(&self, ch: Challenge, sent: Option<String>) -> std::result::Result<(), String> {
        let Some(auth) = &self.auth else { return Err("no OAuth client".into()) };
        let www: Vec<&str> = ch.www.iter().map(String::as_str).collect();
        auth.challenge(ch.status, &www, sent.as_deref()).await.map_err(|e| {
            format!(
                "{} from POST {}; authorization failed: {e}",
                status_text(StatusCode::from_u16(ch.status).unwrap_or(StatusCode::UNAUTHORIZED)),
                self.base.url
            )
        })
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
    pub(super) async fn post(
        self: Arc<Self>,
        legacy: Option<Target>,
        line: Bytes,
        out: Outgoing,
        tx: mpsc::Sender<Item>,
        head: oneshot::Sender<()>,
    ) {
        let carried_session =
            legacy.is_none() && !out.initialize && out.modern.is_none() && self.state().session.is_some();
        // At 2026-07-28 a cancelled request's POST is dropped: closing its connection is the
        // cancellation the server sees.
        let modern = out.modern.is_some() && !out.keys.is_empty();
        let keys = out.keys.clone();
        let this = self.clone();
        let exchange = async move {
            let target = legacy.as_ref().unwrap_or(&this.base);
            let build = || {
                let req = Req { fresh: out.initialize, modern: out.modern.as_deref(), ..Req::default() };
                this.request(Method::POST, target, line.clone(), req)
            };
            match this.send_authorized(build).await {
                Err(why) => {
                    drop(head);
                    this.unsent(&tx, &out.keys, &target.url, why).await;
                }
                Ok((resp, lease)) => {
                    if out.initialize && legacy.is_none() {
                        this.adopt_session(&resp);
                    }
                    drop(head);
                    let is_legacy = legacy.is_some();
                    this.on_post_response(resp, lease, out, tx, carried_session, is_legacy).await;
                }
            }
        };
        if modern {
            tokio::select! {
                _ = exchange => {}
                _ = self.until_cancelled(&keys) => {}
            }
        } else {
            exchange.await
        }
    }

    /// Resolves once none of `keys` is pending any more (the client cancelled them, or they
    /// were answered).
    async fn until_cancelled(&self, keys: &[String]) {
        loop {
            let notified = self.cancelled.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.answered(keys) {
                return;
            }
            notified.await;
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
            // A 2026-07-28 server explains a refusal (400, 404) with the JSON-RPC error in the
            // body: that error is the answer (the client tells the eras apart by it).
            let json = media_type(&resp) == "application/json";
            let mut body = resp.into_body();
            let detail = if json && !legacy {
                match read_limited(&mut body, ERROR_BODY_MAX).await {
                    Ok(bytes) => {
                        if self.deliver_error(&tx, &bytes, &out.keys).await {
                            return;
                        }
                        String::from_utf8_lossy(&bytes[..bytes.len().min(512)]).trim().to_string()
                    }
                    Err(_) => String::new(),
                }
            } else {
                snippet(body).await
            };
            let mut m = if detail.is_empty() {
                format!("{} from POST {url}", status_text(status))
            } else {
                format!("{} from POST {url}: {detail}", status_text(status))
            };
            let code = match status {
                StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => UNAUTHORIZED,
                _ => super::HTTP_TRANSPORT_ERROR,
            };
            if status == StatusCode::UNAUTHORIZED && self.auth.is_none() {
                m.push_str(" (the server requires authorization: set the `auth` option to authorize with OAuth, or send a token in the headers)");
            }
            self.fail_requests_with(&tx, &out.keys, code, &m).await;
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
                Req { fresh: false, last_event_id: last_id.as_deref(), modern: None },
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
    pub(super) async fn pump(
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
}
