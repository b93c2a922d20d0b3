//! Streamable HTTP on the MCP endpoint: POST (a new session on `initialize`; the answer as
//! one JSON body or an SSE stream, as the docs of [`super`] tell), the standalone GET stream
//! (opened, or resumed with `Last-Event-ID`), and DELETE (the end of a session).

use super::classify::classify;
use super::reply::{error_reply, not_found, set_session_header, sse_reply, too_many_sessions, Reply};
use super::request::{accepts, header_str};
use super::service::BoxError;
use super::session::Session;
use super::stream::{HttpBody, Kind, Mode, SseBody};
use super::table::new_session_id;
use super::HttpService;
use crate::engine::State;
use crate::jsonrpc;
use crate::protocol::{Feature, ProtocolVersion};
use http::{header, HeaderValue, Request, Response, StatusCode};
use http_body::Body;
use std::future::Future;
use std::pin::Pin;
use std::task::Poll;
use std::time::Instant;

impl HttpService {
    pub(super) async fn post<B>(&self, req: Request<B>) -> Reply
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

    pub(super) fn get<B>(&self, req: Request<B>) -> Reply {
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

    pub(super) fn delete<B>(&self, req: Request<B>) -> Reply {
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
}
