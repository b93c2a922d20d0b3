//! Reading the server's responses: the media type, a whole body within a limit, draining a
//! body to reuse its connection, and the short explanation of an error reply.

use super::pool::Lease;
use bytes::{Bytes, BytesMut};
use http::header::CONTENT_TYPE;
use http::{Response, StatusCode};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use serde_json::Value;
use std::time::Duration;

/// How much of an error body is read, and how long that may take.
const SNIPPET_BYTES: usize = 8 * 1024;
const SNIPPET_WAIT: Duration = Duration::from_secs(2);
/// Bodies drained (to reuse the connection) when their content is not needed.
const DRAIN_BYTES: usize = 64 * 1024;

pub(super) fn media_type(resp: &Response<Incoming>) -> String {
    resp.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|v| v.trim().to_ascii_lowercase())
        .unwrap_or_default()
}

/// Reads a whole body of at most `limit` bytes.
pub(super) async fn read_limited(body: &mut Incoming, limit: usize) -> std::result::Result<Bytes, String> {
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
pub(super) async fn drain(mut body: Incoming, lease: Lease) {
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
pub(super) async fn snippet(mut body: Incoming) -> String {
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

pub(super) fn status_text(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(r) => format!("HTTP {} {r}", status.as_u16()),
        None => format!("HTTP {}", status.as_u16()),
    }
}
