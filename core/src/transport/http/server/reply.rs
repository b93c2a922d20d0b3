//! The replies the service makes up itself: JSON-RPC error bodies, plain text, the head of
//! an SSE stream, and the `Mcp-Session-Id` header.

use super::session::Session;
use super::stream::{HttpBody, SseBody};
use crate::jsonrpc::{self, RpcError};
use bytes::Bytes;
use http::{header, HeaderValue, Response, StatusCode};

/// A reply of the service.
pub(super) type Reply = Response<HttpBody>;
/// A refusal: the reply to send instead (boxed: a `Result` stays small).
pub(super) type Refused = Box<Reply>;

pub(super) fn not_found() -> Reply {
    error_reply(StatusCode::NOT_FOUND, -32001, "Session not found")
}

/// Counts and logs a request refused with `status` (limits hit at info, a full server at
/// warn, the rest at debug).
pub(super) fn refused(status: StatusCode, why: &str) {
    crate::metrics::refused(status.as_u16());
    let status = status.as_u16();
    match status {
        503 => tracing::warn!(target: "hypermcp::http", status, reason = why, "request refused"),
        408 | 413 | 429 => tracing::info!(target: "hypermcp::http", status, reason = why, "request refused"),
        _ => tracing::debug!(target: "hypermcp::http", status, reason = why, "request refused"),
    }
}

/// An error reply with a JSON-RPC error body (`id: null`).
pub(super) fn error_reply(status: StatusCode, code: i32, message: impl Into<String>) -> Reply {
    let message = message.into();
    refused(status, &message);
    crate::metrics::error_sent(code);
    let mut body = Vec::new();
    jsonrpc::write_error(&mut body, None, &RpcError::new(code, message));
    let mut r = Response::new(HttpBody::Full(Some(body.into())));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

pub(super) fn plain(status: StatusCode, text: &'static str) -> Reply {
    refused(status, text);
    let mut r = Response::new(HttpBody::Full(Some(Bytes::from_static(text.as_bytes()))));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; charset=utf-8"));
    r
}

pub(super) fn set_session_header(r: &mut Reply, session: &Session) {
    if let Some(v) = session.id().and_then(|id| HeaderValue::from_str(id).ok()) {
        r.headers_mut().insert("mcp-session-id", v);
    }
}

pub(super) fn sse_reply(body: SseBody) -> Reply {
    let mut r = Response::new(HttpBody::Sse(body));
    let h = r.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache, no-transform"));
    h.insert("x-accel-buffering", HeaderValue::from_static("no"));
    r
}

pub(super) fn too_many_sessions(max: usize) -> Reply {
    error_reply(
        StatusCode::SERVICE_UNAVAILABLE,
        -32000,
        format!("Service Unavailable: the server has its maximum of {max} sessions, all in use"),
    )
}

/// The 413 reply. The rest of the body is never read, so the connection cannot carry another
/// request: it says so (`Connection: close`) instead of leaving the client to find a reset.
pub(super) fn too_large(max: usize) -> Reply {
    let mut r = error_reply(
        StatusCode::PAYLOAD_TOO_LARGE,
        -32600,
        format!("Payload Too Large: the body exceeds the limit of {max} bytes"),
    );
    r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// The 429 reply to a client over one of its quotas, with `Retry-After` (seconds).
pub(super) fn too_many(message: String, retry_after_secs: u64) -> Reply {
    let mut r = error_reply(StatusCode::TOO_MANY_REQUESTS, -32000, format!("Too Many Requests: {message}"));
    r.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs.max(1)));
    r
}

/// The 408 reply to a body that did not arrive in time; the connection closes (the rest of
/// the body is never read).
pub(super) fn body_timeout(after: std::time::Duration) -> Reply {
    let mut r = error_reply(
        StatusCode::REQUEST_TIMEOUT,
        -32000,
        format!("Request Timeout: the request body did not arrive within {} ms", after.as_millis()),
    );
    r.headers_mut().insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}
