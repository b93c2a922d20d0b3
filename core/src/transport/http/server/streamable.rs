//! Streamable HTTP on the MCP endpoint: POST (a new session on `initialize`; the answer as
//! one JSON body or an SSE stream, as the docs of [`super`] tell), the standalone GET stream
//! (opened, or resumed with `Last-Event-ID`), and DELETE (the end of a session).

use super::classify::{classify, targets, Class};
use super::reply::{error_reply, not_found, set_session_header, sse_reply, Reply};
use super::request::{accepts, handler_headers, header_str, recycle_headers};
use super::service::BoxError;
use super::session::Session;
use super::stream::{HttpBody, Kind, Mode, SseBody, Stream};
use super::table::{new_session_id, LeanListener};
use super::HttpService;
use crate::auth::server::AuthInfo;
use crate::engine::{Origin, RequestHeaders, State};
use crate::jsonrpc::{codes, Envelope};
use crate::protocol::{Feature, ProtocolVersion};
use http::{header, HeaderValue, Request, Response, StatusCode};
use http_body::Body;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Instant;

impl HttpService {
    pub(super) async fn post<B>(
        &self,
        req: Request<B>,
        auth: Option<Arc<AuthInfo>>,
        peer: Option<super::ClientAddr>,
    ) -> Reply
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
        let headers = request_headers(&req);
        let existing = header_str(&req, header::HeaderName::from_static("mcp-session-id")).map(str::to_string);
        let client = self.client_of(&req, peer);
        let modern_header = headers.declares_modern();
        let legacy_version = if modern_header { Ok(None) } else { self.version_header(&req) };
        let (parts, body) = req.into_parts();
        let body = match self.read_body(&parts.headers, body).await {
            Ok(b) => b,
            Err(r) => return *r,
        };
        let seen = handler_headers(parts.headers, auth.is_some());
        // A request whose version header names 2026-07-28 is served as one whatever its body
        // says (the engine checks the two agree): no need to look for the `_meta` keys.
        let (class, single) = match classify(&body, !modern_header) {
            Ok(c) => c,
            Err(e) => {
                return error_reply(StatusCode::BAD_REQUEST, e.code, e.message);
            }
        };
        if let Err(r) = self.check_entry_scopes(auth.as_ref(), &body) {
            return *r;
        }
        // 2026-07-28: a request that says so (in `_meta` or in its version header) is served
        // on its own, whatever session header it carries; unsupported versions included (the
        // engine answers them with the versions it speaks).
        if class.modern || (modern_header && class.requests) {
            let hide_unauthorized = sh.guard.as_ref().is_some_and(|g| g.hide_unauthorized);
            let origin =
                Arc::new(Origin { headers: seen, session_id: None, auth, hide_unauthorized, client_address: client });
            return self.post_modern(headers, &body, single, &class, origin).await;
        }
        // No client-to-server notification of the spec's is defined over HTTP at 2026-07-28,
        // nor what headers one carries: a notification POST that names no session (or says
        // 2026-07-28) reaches the handlers of the server's own on a session of its own.
        let sessionless = !class.requests && !class.initialize && existing.is_none();
        if (modern_header || sessionless) && mentions_own_notification(&body) {
            let s = Session::new(sh, None);
            s.with(|i| i.engine.handle_message(&body, Instant::now()));
            s.close();
            let mut r = Response::new(HttpBody::Empty);
            *r.status_mut() = StatusCode::ACCEPTED;
            return r;
        }
        if modern_header {
            let mut r = Response::new(HttpBody::Empty);
            *r.status_mut() = StatusCode::ACCEPTED;
            return r;
        }
        let version = match legacy_version {
            Ok(v) => v,
            Err(r) => return *r,
        };
        let (session, new) = if sh.options.stateless {
            let s = match self.sessionless(auth.as_deref()) {
                Ok(s) => s,
                Err(later) => match later.await {
                    Ok(s) => s,
                    Err(r) => return *r,
                },
            };
            if !class.initialize {
                let v = version.unwrap_or(ProtocolVersion::V2025_03_26);
                s.with(|i| i.engine.assume_initialized(v));
            }
            (s, false)
        } else if class.initialize {
            if let Err(full) = sh.make_room(client) {
                return full.reply();
            }
            let s = Session::new(sh, Some(new_session_id()));
            s.set_client(client);
            (s, true)
        } else {
            let Some(id) = existing else {
                return error_reply(StatusCode::BAD_REQUEST, -32000, "Bad Request: Mcp-Session-Id header is required");
            };
            match self.lookup(&id).await {
                Ok(s) => (s, false),
                Err(r) => return *r,
            }
        };
        let now = Instant::now();
        if !class.requests {
            // With replicas: answers to another replica's requests go there.
            let mine = match self.forward(&session, &body).await {
                Ok(mine) => mine,
                Err(e) => return super::cluster::unavailable(&e),
            };
            let body: &[u8] = mine.as_deref().unwrap_or(&body);
            // The session may have been closed (deleted, expired) since it was looked up.
            let open = session.with(|i| {
                if !i.closed && !body.is_empty() {
                    i.engine.handle_message(body, now);
                }
                !i.closed
            });
            if open {
                if let Err(r) = self.save_record(&session, true).await {
                    return *r;
                }
            }
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
        let hide_unauthorized = sh.guard.as_ref().is_some_and(|g| g.hide_unauthorized);
        let session_id = session.id().map(str::to_string);
        let origin = Arc::new(Origin { headers: seen, session_id, auth, hide_unauthorized, client_address: client });
        let stream = session.with(|i| {
            if i.closed {
                return None;
            }
            let s = session.open_stream(i, Kind::Post, 1);
            if json_only {
                s.lock().mode = Mode::Json;
            }
            i.input = Some(s.clone());
            i.engine.set_origin(Some(origin.clone()));
            i.engine.handle_parsed(&body, single, now);
            i.engine.set_origin(None);
            Some(s)
        });
        let Some(stream) = stream else { return not_found() };
        // A new session joins the table once its initialize succeeded (a failed one is
        // answered without a session id and dropped).
        let mut admitted = !new;
        if new && session.state() != State::Uninitialized {
            self.number_new(&session);
            if let Err(full) = sh.admit(&session) {
                session.close();
                return full.reply();
            }
            admitted = true;
        }
        // With replicas: the record is in the store before the client hears of the session
        // (its next request may reach another replica), and changes reach the others.
        if let Err(r) = self.save_record(&session, !new).await {
            if new {
                if let Some(id) = session.id() {
                    sh.remove_session(id);
                }
                session.close();
            }
            return *r;
        }
        let retry = session
            .protocol_version()
            .filter(|v| v.supports(Feature::SsePolling) && session.id().is_some())
            .map(|_| sh.options.retry);
        let mut r = match self.answer(&session, stream, retry, json_only).await {
            Ok(r) => r,
            // Closed while the call ran: it was cancelled.
            Err(()) if !sh.options.stateless => return not_found(),
            Err(()) => accepted(),
        };
        if admitted {
            set_session_header(&mut r, &session);
        }
        recycle_headers(&mut r, origin);
        r
    }

    /// Waits for the first sign of how a POST is answered: its answer (one JSON body), or
    /// a message before it or the `json_wait` deadline (an SSE stream). `Err`: the session
    /// closed with nothing to send.
    async fn answer(
        &self,
        session: &Arc<Session>,
        stream: Arc<Stream>,
        retry: Option<std::time::Duration>,
        json_only: bool,
    ) -> Result<Reply, ()> {
        let sh = &self.shared;
        let mut body = SseBody::new(stream.clone(), session.clone(), sh.options.keep_alive, b": keep-alive\n\n");
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
        Ok(match json {
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
                    None if session.lock().closed => return Err(()),
                    None => accepted(),
                }
            }
            None => sse_reply(body),
        })
    }

    /// The session of one request without a session id: its authenticated caller's (whose
    /// own rules of visibility it serves and changes), or no one's, made at once; `Err`: the
    /// caller's rules must be read first (from the store), by the future returned.
    fn sessionless<'a>(&'a self, auth: Option<&'a AuthInfo>) -> Result<Arc<Session>, Later<'a>> {
        match auth.and_then(|a| a.subject.as_deref()) {
            None => Ok(Session::new(&self.shared, None)),
            // Boxed: the future of every request without a caller stays as it was.
            Some(subject) => Err(Box::pin(self.callers_session(subject))),
        }
    }

    async fn callers_session(&self, subject: &str) -> Result<Arc<Session>, Box<Reply>> {
        let rules = self.caller_view(subject).await.map_err(Box::new)?;
        let session = Session::new(&self.shared, None);
        let _ = session.subject.set(Arc::from(subject));
        if let Some(rules) = rules {
            session.with(|i| i.engine.set_caller_rules((*rules).clone()));
        }
        Ok(session)
    }

    /// A POST of the stateless revision: a fresh engine session for this one request (no
    /// `Mcp-Session-Id` is read or minted), its headers checked against the body.
    async fn post_modern(
        &self,
        headers: RequestHeaders,
        body: &[u8],
        single: Option<Envelope<'_>>,
        class: &Class,
        origin: Arc<Origin>,
    ) -> Reply {
        let sh = &self.shared;
        let session = match self.sessionless(origin.auth.as_deref()) {
            Ok(s) => s,
            Err(later) => match later.await {
                Ok(s) => s,
                Err(r) => return *r,
            },
        };
        if class.listen && !sh.add_listener(&session) {
            session.close();
            return error_reply(
                StatusCode::SERVICE_UNAVAILABLE,
                -32000,
                format!(
                    "Service Unavailable: the server has its maximum of {} subscriptions/listen streams open",
                    sh.config.max_listeners
                ),
            );
        }
        let now = Instant::now();
        let stream = session.with(|i| {
            let s = session.open_stream(i, Kind::Post, 1);
            {
                let mut q = s.lock();
                if sh.options.json_response && !class.listen {
                    q.mode = Mode::Json;
                }
                if class.listen {
                    q.limit = sh.options.listener_buffer;
                }
            }
            i.input = Some(s.clone());
            i.engine.set_origin(Some(origin.clone()));
            i.engine.handle_http_parsed(body, single, headers, now);
            i.engine.set_origin(None);
            s
        });
        if class.listen {
            if let Some(r) = self.keep_lean(&session, &stream) {
                return r;
            }
            // Refused (no subscription opened): the session is no listener.
            sh.remove_listener(&session);
            session.listening.store(false, std::sync::atomic::Ordering::Release);
        }
        let mut r = match self.answer(&session, stream, None, sh.options.json_response && !class.listen).await {
            Ok(r) => r,
            Err(()) => return accepted(),
        };
        // Refusals carry their HTTP status (`basic/transports/streamable-http.mdx`).
        if let HttpBody::Full(Some(b)) = r.body() {
            if let Some(status) = refusal_status(b) {
                *r.status_mut() = status;
            }
        }
        recycle_headers(&mut r, origin);
        r
    }

    /// An acknowledged `subscriptions/listen` request: its subscription is taken out of the
    /// session into a [`LeanListener`] that alone feeds the stream, and the session ends; the
    /// stream is the reply. `None` when the request opened no subscription (the session
    /// answers its refusal as any other).
    fn keep_lean(&self, session: &Arc<Session>, stream: &Arc<Stream>) -> Option<Reply> {
        let sh = &self.shared;
        let listen = session.with(|i| {
            let listen = i.engine.detach_listen()?;
            // The stream is the listener's now: the session's end must not end it.
            i.release_input();
            Some(listen)
        })?;
        let subject = session.subject.get().cloned();
        let lean = Arc::new(LeanListener { listen, stream: stream.clone(), shared: Arc::downgrade(sh), subject });
        sh.keep_lean(session, lean.clone());
        session.close();
        {
            let mut q = stream.lock();
            if q.mode != Mode::Sse {
                stream.start_sse(&mut q, None);
            }
        }
        Some(sse_reply(SseBody::new(stream.clone(), lean, sh.options.keep_alive, b": keep-alive\n\n")))
    }

    /// 403 `insufficient_scope` when a request of `body` uses a tool, resource or prompt whose
    /// required scopes the token lacks (only with the `auth` option).
    pub(super) fn check_entry_scopes(&self, auth: Option<&Arc<AuthInfo>>, body: &[u8]) -> Result<(), Box<Reply>> {
        let sh = &self.shared;
        let (Some(guard), Some(info)) = (&sh.guard, auth) else { return Ok(()) };
        // Hidden entries are the engine's to answer: "not found", as if they did not exist.
        if guard.hide_unauthorized || !sh.registry.has_required_scopes() {
            return Ok(());
        }
        for (method, target) in targets(body) {
            if let Some(need) = sh.registry.required_scopes(&method, &target) {
                guard.check_scopes(info, &need)?;
            }
        }
        Ok(())
    }

    pub(super) async fn get<B>(&self, req: Request<B>) -> Reply {
        let sh = &self.shared;
        if sh.options.stateless || request_headers(&req).declares_modern() {
            let mut r = error_reply(
                StatusCode::METHOD_NOT_ALLOWED,
                -32000,
                "Method not allowed: this server is stateless (and 2026-07-28 has no GET stream and no DELETE)",
            );
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
        let last = header_str(&req, header::HeaderName::from_static("last-event-id")).and_then(|v| {
            let (s, n) = v.split_once('-')?;
            Some((s.parse::<u64>().ok()?, n.parse::<u64>().ok()?))
        });
        let session = match self.session_id_of(&req) {
            Ok(id) => match self.lookup(&id).await {
                Ok(s) => s,
                Err(r) => return *r,
            },
            Err(r) => return *r,
        };
        // With replicas: a stream this replica never held (its replica gone, or the client
        // moved) is replayed from the store, and goes on here as the session's GET stream.
        let mut elsewhere = None;
        if let (Some((sid, seq)), Some(id)) = (last, session.id()) {
            if !session.lock().streams.contains_key(&sid) {
                match self.replay_elsewhere(id, sid, seq).await {
                    Ok(r) => elsewhere = r.map(|events| (sid, events)),
                    Err(e) => return super::cluster::unavailable(&e),
                }
            }
        }
        let mut wakers = Vec::new();
        let result = {
            let mut g = session.lock();
            let resumed = last.and_then(|(sid, seq)| g.streams.get(&sid).cloned().map(|s| (s, seq)));
            if g.closed {
                // Deleted or expired since it was looked up.
                Err(not_found())
            } else if let Some((sid, events)) = elsewhere {
                if g.get_stream.as_ref().is_some_and(|s| s.lock().attached) {
                    Err(error_reply(
                        StatusCode::CONFLICT,
                        -32000,
                        "Conflict: only one standalone SSE stream is allowed per session",
                    ))
                } else {
                    session.forget_get_streams(&mut g);
                    let s = session.resume_stream(&mut g, sid, &events);
                    g.attach_get(s.clone(), &mut wakers);
                    Ok(s)
                }
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
                // Replicas: what waited in the store's queue for a GET stream comes now.
                if let Some(id) = session.id() {
                    sh.deliver_queued(id);
                }
                let mut r = sse_reply(SseBody::new(s, session.clone(), sh.options.keep_alive, b": keep-alive\n\n"));
                set_session_header(&mut r, &session);
                r
            }
            Err(r) => r,
        }
    }

    pub(super) async fn delete<B>(&self, req: Request<B>) -> Reply {
        if self.shared.options.stateless || request_headers(&req).declares_modern() {
            let mut r = error_reply(
                StatusCode::METHOD_NOT_ALLOWED,
                -32000,
                "Method not allowed: this server is stateless (and 2026-07-28 has no GET stream and no DELETE)",
            );
            r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
            return r;
        }
        if let Err(r) = self.version_header(&req) {
            return *r;
        }
        let session = match self.session_id_of(&req) {
            Ok(id) => match self.lookup(&id).await {
                Ok(s) => s,
                Err(r) => return *r,
            },
            Err(r) => return *r,
        };
        if let Some(id) = session.id() {
            if let Err(e) = self.forget_everywhere(id).await {
                return super::cluster::unavailable(&e);
            }
            self.shared.remove_session(id);
        }
        session.close_because("deleted by the client");
        Response::new(HttpBody::Empty)
    }
}

fn accepted() -> Reply {
    let mut r = Response::new(HttpBody::Empty);
    *r.status_mut() = StatusCode::ACCEPTED;
    r
}

/// The headers the engine checks against a 2026-07-28 body (`basic/transports/streamable-http.mdx`,
/// "Request Metadata"). A value that is not visible ASCII is kept as an impossible value, so
/// that it fails the comparison.
pub(super) fn request_headers<B>(req: &Request<B>) -> RequestHeaders {
    let text = |v: &HeaderValue| v.to_str().map(str::to_string).unwrap_or_else(|_| "\u{fffd}".to_string());
    let mut out = RequestHeaders { protocol_version: None, method: None, name: None, params: Vec::new() };
    // One pass over the headers (their names are lowercase), where three lookups would hash
    // a name each. A name sent twice counts by its first value, as a lookup would find it.
    for (name, value) in req.headers() {
        let Some(rest) = name.as_str().strip_prefix("mcp-") else { continue };
        let slot = match rest {
            "protocol-version" => &mut out.protocol_version,
            "method" => &mut out.method,
            "name" => &mut out.name,
            _ => {
                if let Some(param) = rest.strip_prefix("param-") {
                    out.params.push((param.to_string(), text(value)));
                }
                continue;
            }
        };
        if slot.is_none() {
            *slot = Some(text(value));
        }
    }
    out
}

/// The HTTP status of a refused 2026-07-28 request, from its JSON-RPC error: 400 for what
/// the client must correct (headers, version, capabilities, parameters), 404 for a method
/// the server does not have. `None`: a result, or an error that keeps 200.
fn refusal_status(body: &[u8]) -> Option<StatusCode> {
    // Our own writer puts `error` right after the id; anything else is a result.
    static ERROR: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b",\"error\":{\"code\":"));
    ERROR.find(body)?;
    #[derive(serde::Deserialize)]
    struct Code {
        code: i32,
    }
    #[derive(serde::Deserialize)]
    struct Peek {
        error: Option<Code>,
    }
    let code = serde_json::from_slice::<Peek>(body).ok()?.error?.code;
    match code {
        codes::INVALID_PARAMS
        | codes::HEADER_MISMATCH
        | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
        | codes::UNSUPPORTED_PROTOCOL_VERSION
        | codes::INVALID_REQUEST
        | codes::PARSE_ERROR => Some(StatusCode::BAD_REQUEST),
        codes::METHOD_NOT_FOUND => Some(StatusCode::NOT_FOUND),
        _ => None,
    }
}

/// Whether a body of notifications may hold one of the server's own (a method that is not
/// the spec's): a cheap look at the methods, before any session is made for them.
fn mentions_own_notification(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct M<'a> {
        #[serde(borrow, default)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    let own = |m: &M<'_>| m.method.as_deref().is_some_and(|m| crate::protocol::methods::check_custom(m).is_ok());
    match serde_json::from_slice::<M<'_>>(body) {
        Ok(m) => own(&m),
        Err(_) => serde_json::from_slice::<Vec<M<'_>>>(body).is_ok_and(|ms| ms.iter().any(own)),
    }
}

/// A session made once its caller's rules are read ([`HttpService::sessionless`]).
type Later<'a> = futures_util::future::BoxFuture<'a, Result<Arc<Session>, Box<Reply>>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_headers_read_in_one_pass_as_lookups_would() {
        let req = Request::builder()
            .header("Content-Type", "application/json")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "tools/call")
            .header("mcp-method", "second")
            .header("Mcp-Name", "ask")
            .header("Mcp-Param-City", "Paris")
            .header("mcp-param-city", "Rome")
            .header("Mcp-Param-Days", "3")
            .header("Mcp-Other", "ignored")
            .header("X-Mcp-Name", "not ours")
            .body(())
            .unwrap();
        let h = request_headers(&req);
        let lookup = |name: &str| req.headers().get(name).map(|v| v.to_str().unwrap().to_string());
        assert_eq!(h.protocol_version, lookup("mcp-protocol-version"));
        assert_eq!(h.method, lookup("mcp-method"));
        assert_eq!(h.method.as_deref(), Some("tools/call"), "the first value");
        assert_eq!(h.name.as_deref(), Some("ask"));
        let params: Vec<(&str, &str)> = h.params.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(params, [("city", "Paris"), ("city", "Rome"), ("days", "3")]);
        let none = request_headers(&Request::builder().body(()).unwrap());
        assert_eq!((none.protocol_version, none.method, none.name, none.params.len()), (None, None, None, 0));
    }
}
