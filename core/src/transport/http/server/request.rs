//! The checks of a request before it reaches a session: its headers (Accept, Content-Type,
//! `MCP-Protocol-Version`), the session named by `Mcp-Session-Id`, and its body, read within
//! the size limit.

use super::reply::{error_reply, too_large, Refused, Reply};
use super::service::BoxError;
use super::stream::HttpBody;
use super::HttpService;
use crate::engine::Origin;
use crate::protocol::ProtocolVersion;
use bytes::Bytes;
use http::{header, Request, StatusCode};
use http_body::Body;
use http_body_util::{BodyExt, Limited};
use std::sync::Arc;

pub(super) fn header_str<B>(req: &Request<B>, name: header::HeaderName) -> Option<&str> {
    req.headers().get(name).and_then(|v| v.to_str().ok())
}

/// A request's headers as handlers see them (`ctx.headers`): the request's own map, moved
/// out of it (not copied). With `verified`, the `Authorization` and `DPoP` headers are left
/// out: the token was checked, and is not handed around.
pub(super) fn handler_headers(mut h: http::HeaderMap, verified: bool) -> http::HeaderMap {
    if verified {
        h.remove(header::AUTHORIZATION);
        h.remove("dpop");
    }
    h
}

/// The most headers a recycled map has room for (what 24 entries cost: ~2.7 KB).
pub(super) const KEPT_HEADERS: usize = 24;

/// Gives a request's header map back to its reply once nothing else holds the request's
/// [`Origin`] (a handler may keep its context): cleared, the map keeps the room the request
/// needed, and the connection reads its next request into the map of this reply (our
/// HTTP/1.1 code and hyper's, as `cached_headers`, both do). A fresh reply's map holds six
/// headers; a request with more (a 2026-07-28 one sends `Mcp-Method`, `Mcp-Name` and
/// `MCP-Protocol-Version` besides the usual ones) would grow it again, two allocations, on
/// every request. Not for a stream (an idle listener's connection keeps no map), nor a map
/// grown past [`KEPT_HEADERS`] (an idle connection keeps what it holds).
pub(super) fn recycle_headers(r: &mut Reply, origin: Arc<Origin>) {
    if matches!(r.body(), HttpBody::Sse(_)) {
        return;
    }
    let Ok(origin) = Arc::try_unwrap(origin) else { return };
    let mut h = origin.headers;
    if h.capacity() > KEPT_HEADERS {
        return;
    }
    h.clear();
    h.extend(r.headers_mut().drain());
    *r.headers_mut() = h;
}

/// Whether an Accept header admits `mime` (`*/*` and `type/*` count).
pub(super) fn accepts(accept: Option<&str>, mime: &str) -> bool {
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

impl HttpService {
    /// Checks `MCP-Protocol-Version`: absent is fine; present must be a revision served.
    pub(super) fn version_header<B>(&self, req: &Request<B>) -> std::result::Result<Option<ProtocolVersion>, Refused> {
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
    /// The `Mcp-Session-Id` of a request (400 without one).
    pub(super) fn session_id_of<B>(&self, req: &Request<B>) -> std::result::Result<String, Refused> {
        match header_str(req, header::HeaderName::from_static("mcp-session-id")) {
            Some(id) => Ok(id.to_string()),
            None => Err(Box::new(error_reply(
                StatusCode::BAD_REQUEST,
                -32000,
                "Bad Request: Mcp-Session-Id header is required",
            ))),
        }
    }

    /// The client's address: from the trusted proxy's header when
    /// [`HttpOptions::client_address_header`](super::HttpOptions::client_address_header) names
    /// one (the last address of a list), else the connection's peer (`peer`, or a
    /// [`super::ClientAddr`] in the request's extensions).
    pub(super) fn client_of<B>(&self, req: &Request<B>, peer: Option<super::ClientAddr>) -> Option<std::net::IpAddr> {
        if let Some(name) = &self.shared.options.client_address_header {
            let v = req.headers().get_all(name.as_str()).iter().filter_map(|v| v.to_str().ok()).next_back()?;
            let last = v.rsplit(',').next()?.trim();
            // `1.2.3.4`, `[::1]`, or either with a port.
            let host = last.strip_prefix('[').and_then(|r| r.split_once(']')).map_or(last, |(h, _)| h);
            return host.parse().ok().or_else(|| {
                let (h, _port) = host.rsplit_once(':')?;
                h.parse().ok()
            });
        }
        peer.or_else(|| req.extensions().get::<super::ClientAddr>().copied()).map(|c| c.0)
    }

    /// A request's body (`headers` are its headers), whole, within the size and time limits.
    pub(super) async fn read_body<B>(&self, headers: &http::HeaderMap, body: B) -> std::result::Result<Bytes, Refused>
    where
        B: Body,
        B::Error: Into<BoxError>,
    {
        let max = self.shared.options.max_body;
        if let Some(len) = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok()) {
            if len > max as u64 {
                return Err(Box::new(too_large(max)));
            }
        }
        let read = Limited::new(body, max).collect();
        let read = match self.shared.options.body_read_timeout {
            Some(t) => match tokio::time::timeout(t, read).await {
                Ok(r) => r,
                Err(_) => return Err(Box::new(super::reply::body_timeout(t))),
            },
            None => read.await,
        };
        match read {
            Ok(c) => Ok(c.to_bytes()),
            Err(e) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => Err(Box::new(too_large(max))),
            Err(e) => {
                let why = format!("Parse error: reading the body failed: {e}");
                Err(Box::new(error_reply(StatusCode::BAD_REQUEST, -32700, why)))
            }
        }
    }

    pub(super) fn check_content_type<B>(req: &Request<B>) -> std::result::Result<(), Refused> {
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reply takes the request's header map once nothing else holds the origin: the same
    /// headers, in a map with the request's room.
    #[test]
    fn replies_take_the_request_header_map() {
        let request = || {
            let mut h = http::HeaderMap::new();
            for n in 0..10 {
                h.insert(header::HeaderName::from_bytes(format!("x-h{n}").as_bytes()).unwrap(), "v".parse().unwrap());
            }
            Arc::new(Origin { headers: h, ..Default::default() })
        };
        let reply = || {
            let mut r = Reply::new(HttpBody::Full(None));
            r.headers_mut().insert(header::CONTENT_TYPE, "application/json".parse().unwrap());
            r.headers_mut().append("x-two", "1".parse().unwrap());
            r.headers_mut().append("x-two", "2".parse().unwrap());
            r
        };
        let pairs =
            |r: &Reply| r.headers().iter().map(|(k, v)| format!("{k}: {}", v.to_str().unwrap())).collect::<Vec<_>>();
        let mut r = reply();
        let before = pairs(&r);
        recycle_headers(&mut r, request());
        assert_eq!(pairs(&r), before);
        assert!(r.headers().capacity() >= 10, "{}", r.headers().capacity());
        // A handler still holds the origin: the reply keeps its own map.
        let (mut r, origin) = (reply(), request());
        let _kept = origin.clone();
        recycle_headers(&mut r, origin);
        assert_eq!((pairs(&r), r.headers().capacity() < 10), (before, true));
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
