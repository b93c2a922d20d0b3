//! The legacy HTTP+SSE transport (2024-11-05) beside the Streamable HTTP endpoint: `GET` on
//! its SSE path opens a session and its event stream (whose first event names where to
//! POST); `POST` on its messages path passes a message to the session named by `sessionId`.

use super::classify::classify;
use super::reply::{error_reply, not_found, plain, sse_reply, too_many, Reply};
use super::request::handler_headers;
use super::service::BoxError;
use super::session::Session;
use super::stream::{Kind, SseBody};
use super::table::new_session_id;
use super::HttpService;
use crate::auth::server::AuthInfo;
use crate::engine::Origin;
use http::{Request, StatusCode};
use http_body::Body;
use std::sync::Arc;
use std::time::Instant;

impl HttpService {
    pub(super) fn legacy_get(&self, client: Option<std::net::IpAddr>) -> Reply {
        let sh = &self.shared;
        if let Err(full) = sh.make_room(client) {
            return full.reply();
        }
        // With replicas, the id names the replica holding the stream: POSTs reaching another
        // replica are passed on to it.
        let id = match sh.cluster.get() {
            Some(c) => super::cluster::legacy_session_id(c.store.replica()),
            None => new_session_id(),
        };
        let session = Session::new(sh, Some(id.clone()));
        session.set_client(client);
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
        if let Err(full) = sh.admit(&session) {
            session.close();
            return full.reply();
        }
        sse_reply(SseBody::new(stream, session, sh.options.keep_alive, b": ping\n\n"))
    }

    pub(super) async fn legacy_post<B>(
        &self,
        req: Request<B>,
        auth: Option<Arc<AuthInfo>>,
        peer: Option<super::ClientAddr>,
    ) -> Reply
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
        let client = self.client_of(&req, peer);
        // The body is read before any answer, so that a client still sending it gets the
        // answer (a 404 for a session that ended, say) rather than a reset connection.
        let (parts, body) = req.into_parts();
        let body = match self.read_body(&parts.headers, body).await {
            Ok(b) => b,
            Err(r) => return *r,
        };
        let seen = handler_headers(parts.headers, auth.is_some());
        let local = self.shared.session(&id);
        let elsewhere = match &local {
            Some(_) => None,
            None => match super::cluster::legacy_holder(&id)
                .filter(|n| self.shared.cluster.get().is_some_and(|c| c.store.replica() != *n))
            {
                Some(n) => Some(n),
                None => return not_found(),
            },
        };
        if let Some(s) = &local {
            s.touch();
        }
        let single = match classify(&body, true) {
            Ok((_, single)) => single,
            Err(e) => return error_reply(StatusCode::BAD_REQUEST, e.code, e.message),
        };
        if let Err(r) = self.check_entry_scopes(auth.as_ref(), &body) {
            return *r;
        }
        if let Some(holder) = elsewhere {
            // The stream is on another replica (this one checked the message and the token).
            return match self.pass_legacy(holder, &id, &body).await {
                Ok(()) => plain(StatusCode::ACCEPTED, "Accepted"),
                Err(_) => not_found(),
            };
        }
        let Some(session) = local else { return not_found() };
        let hide_unauthorized = self.shared.guard.as_ref().is_some_and(|g| g.hide_unauthorized);
        let origin =
            Arc::new(Origin { headers: seen, session_id: Some(id), auth, hide_unauthorized, client_address: client });
        let limit = self.shared.options.stream_buffer;
        // Under the one lock that handles the message: a client that does not read its stream
        // gets no more answers queued for it (the body was read first: the client is not cut
        // off mid-request). `Err(None)`: the session closed meanwhile.
        let handled = session.with(|i| {
            if i.closed {
                return Err(None);
            }
            let waiting = i.legacy.as_ref().map_or(0, |l| l.lock().waiting());
            if waiting > limit / 2 {
                return Err(Some(waiting));
            }
            i.engine.set_origin(Some(origin));
            i.engine.handle_parsed(&body, single, Instant::now());
            i.engine.set_origin(None);
            Ok(())
        });
        match handled {
            Ok(()) => plain(StatusCode::ACCEPTED, "Accepted"),
            Err(None) => not_found(),
            Err(Some(waiting)) => too_many(
                format!(
                    "the session's SSE stream has {waiting} bytes its client has not read (limit {limit}); \
                     read the stream, then send again"
                ),
                1,
            ),
        }
    }
}
