//! Counters an operator can read: sessions, streams, requests, errors by kind, HTTP refusals
//! by status, evictions, clients losing their server. Process-wide (every server and client
//! of the process adds to them), kept in relaxed atomics (a few nanoseconds where they are
//! counted), read with [`snapshot`] or as Prometheus text ([`prometheus`]; an HTTP server
//! serves it at [`crate::http::HttpOptions::metrics_path`] when set), with the duration
//! histograms of the timing middleware ([`durations`]).

pub mod durations;

use serde::Serialize;
use std::sync::atomic::{AtomicU64, Ordering};

/// One counter.
#[derive(Debug, Default)]
pub(crate) struct Counter(AtomicU64);

impl Counter {
    const fn new() -> Self {
        Counter(AtomicU64::new(0))
    }
    pub(crate) fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    pub(crate) fn dec(&self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
    pub(crate) fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

pub(crate) static SESSIONS_OPENED: Counter = Counter::new();
pub(crate) static SESSIONS_CLOSED: Counter = Counter::new();
pub(crate) static SESSIONS_EVICTED: Counter = Counter::new();
pub(crate) static SESSIONS_IDLE_EXPIRED: Counter = Counter::new();
pub(crate) static STREAMS_OPEN: Counter = Counter::new();
pub(crate) static STREAMS_OVERFLOWED: Counter = Counter::new();
pub(crate) static REQUESTS: Counter = Counter::new();
pub(crate) static CONNECTIONS_LIMITED: Counter = Counter::new();
pub(crate) static CLIENT_LOST: Counter = Counter::new();
pub(crate) static CLIENT_RECONNECTS: Counter = Counter::new();

/// The JSON-RPC error codes counted on their own (any other: `other`).
const CODES: [(i32, &str); 14] = {
    use crate::jsonrpc::codes::*;
    [
        (PARSE_ERROR, "parse_error"),
        (INVALID_REQUEST, "invalid_request"),
        (METHOD_NOT_FOUND, "method_not_found"),
        (INVALID_PARAMS, "invalid_params"),
        (INTERNAL_ERROR, "internal_error"),
        (RESOURCE_NOT_FOUND, "resource_not_found"),
        (REQUEST_TIMEOUT, "request_timeout"),
        (REQUEST_CANCELLED, "request_cancelled"),
        (CONNECTION_CLOSED, "connection_closed"),
        (URL_ELICITATION_REQUIRED, "url_elicitation_required"),
        (HEADER_MISMATCH, "header_mismatch"),
        (MISSING_REQUIRED_CLIENT_CAPABILITY, "missing_client_capability"),
        (UNSUPPORTED_PROTOCOL_VERSION, "unsupported_protocol_version"),
        (RATE_LIMITED, "rate_limited"),
    ]
};
static ERRORS: [Counter; CODES.len() + 1] = [const { Counter::new() }; CODES.len() + 1];

/// The HTTP statuses of refusals counted on their own (any other: `other`).
const STATUSES: [u16; 12] = [400, 401, 403, 404, 405, 406, 408, 409, 413, 415, 429, 503];
static REFUSED: [Counter; STATUSES.len() + 1] = [const { Counter::new() }; STATUSES.len() + 1];

/// An error response sent, by its JSON-RPC code.
pub(crate) fn error_sent(code: i32) {
    let i = CODES.iter().position(|(c, _)| *c == code).unwrap_or(CODES.len());
    ERRORS[i].inc();
}

/// An HTTP request refused with `status`.
pub(crate) fn refused(status: u16) {
    let i = STATUSES.iter().position(|s| *s == status).unwrap_or(STATUSES.len());
    REFUSED[i].inc();
}

/// A client's connection changed (`disconnected`, `reconnecting`, `reconnected`, `failed`):
/// counted, and said in the engine's log (target `hypermcp::client`). The Rust client calls
/// it; the bindings' clients too.
pub fn client_event(event: &str, reason: &str) {
    match event {
        "disconnected" => {
            CLIENT_LOST.inc();
            tracing::warn!(target: "hypermcp::client", reason, "the server went away");
        }
        "reconnected" => {
            CLIENT_RECONNECTS.inc();
            tracing::info!(target: "hypermcp::client", "connected to the server again");
        }
        "failed" => tracing::error!(target: "hypermcp::client", reason, "gave up reconnecting to the server"),
        _ => tracing::info!(target: "hypermcp::client", event, reason, "reconnecting to the server"),
    }
}

/// The counters at one moment.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Metrics {
    /// HTTP sessions opened (stateful ones: each `initialize`, each legacy SSE connection).
    pub sessions_opened: u64,
    /// HTTP sessions ended (deleted, expired, evicted, their stream gone, shutdown).
    pub sessions_closed: u64,
    /// HTTP sessions open now.
    pub sessions_active: u64,
    /// Sessions evicted to make room for new ones (at the cap, or a client's quota).
    pub sessions_evicted: u64,
    /// Sessions closed after their idle timeout.
    pub sessions_idle_expired: u64,
    /// SSE streams open now (POST answers, GET streams, legacy and listen streams).
    pub streams_open: u64,
    /// Streams dropped because their client did not read them (`stream_buffer`).
    pub streams_overflowed: u64,
    /// JSON-RPC requests received (by servers and by clients, from their peer).
    pub requests: u64,
    /// JSON-RPC error responses sent, by kind (`parse_error`, `invalid_request`,
    /// `method_not_found`, `invalid_params`, `internal_error`, `resource_not_found`,
    /// `request_timeout`, `request_cancelled`, `connection_closed` (-32000, also a server's own
    /// errors), `url_elicitation_required`, `header_mismatch`, `missing_client_capability`,
    /// `unsupported_protocol_version`, `rate_limited`, `other`).
    pub errors: std::collections::BTreeMap<String, u64>,
    /// HTTP requests refused, by status (`"413"`, `"429"`..., `other`).
    pub http_refused: std::collections::BTreeMap<String, u64>,
    /// Times a server stopped accepting connections for a while at `max_connections`.
    pub connections_limited: u64,
    /// Clients that lost their server (its connection ended, or a ping went unanswered).
    pub client_lost: u64,
    /// Clients that connected again under their reconnect policy.
    pub client_reconnects: u64,
}

/// The counters now.
pub fn snapshot() -> Metrics {
    let errors = CODES
        .iter()
        .map(|(_, n)| n.to_string())
        .chain(std::iter::once("other".to_string()))
        .zip(ERRORS.iter().map(Counter::get))
        .collect();
    let http_refused = STATUSES
        .iter()
        .map(|s| s.to_string())
        .chain(std::iter::once("other".to_string()))
        .zip(REFUSED.iter().map(Counter::get))
        .collect();
    let opened = SESSIONS_OPENED.get();
    let closed = SESSIONS_CLOSED.get();
    Metrics {
        sessions_opened: opened,
        sessions_closed: closed,
        sessions_active: opened.saturating_sub(closed),
        sessions_evicted: SESSIONS_EVICTED.get(),
        sessions_idle_expired: SESSIONS_IDLE_EXPIRED.get(),
        streams_open: STREAMS_OPEN.get(),
        streams_overflowed: STREAMS_OVERFLOWED.get(),
        requests: REQUESTS.get(),
        errors,
        http_refused,
        connections_limited: CONNECTIONS_LIMITED.get(),
        client_lost: CLIENT_LOST.get(),
        client_reconnects: CLIENT_RECONNECTS.get(),
    }
}

/// The counters in the Prometheus text format (version 0.0.4), names prefixed `hypermcp_`.
pub fn prometheus() -> String {
    use std::fmt::Write;
    let m = snapshot();
    let mut out = String::with_capacity(2048);
    let mut one = |name: &str, kind: &str, help: &str, value: u64| {
        let _ = writeln!(out, "# HELP hypermcp_{name} {help}\n# TYPE hypermcp_{name} {kind}\nhypermcp_{name} {value}");
    };
    one("sessions_opened_total", "counter", "HTTP sessions opened.", m.sessions_opened);
    one("sessions_closed_total", "counter", "HTTP sessions ended.", m.sessions_closed);
    one("sessions_active", "gauge", "HTTP sessions open now.", m.sessions_active);
    one("sessions_evicted_total", "counter", "Sessions evicted to make room.", m.sessions_evicted);
    one("sessions_idle_expired_total", "counter", "Sessions closed after their idle timeout.", m.sessions_idle_expired);
    one("streams_open", "gauge", "SSE streams open now.", m.streams_open);
    one("streams_overflowed_total", "counter", "Streams dropped: their client did not read.", m.streams_overflowed);
    one("requests_total", "counter", "JSON-RPC requests received.", m.requests);
    one(
        "connections_limited_total",
        "counter",
        "Times max_connections held new connections back.",
        m.connections_limited,
    );
    one("client_lost_total", "counter", "Clients that lost their server.", m.client_lost);
    one("client_reconnects_total", "counter", "Clients that connected again.", m.client_reconnects);
    let _ = writeln!(out, "# HELP hypermcp_errors_total JSON-RPC error responses sent, by kind.");
    let _ = writeln!(out, "# TYPE hypermcp_errors_total counter");
    for (kind, n) in &m.errors {
        let _ = writeln!(out, "hypermcp_errors_total{{kind=\"{kind}\"}} {n}");
    }
    let _ = writeln!(out, "# HELP hypermcp_http_refused_total HTTP requests refused, by status.");
    let _ = writeln!(out, "# TYPE hypermcp_http_refused_total counter");
    for (status, n) in &m.http_refused {
        let _ = writeln!(out, "hypermcp_http_refused_total{{status=\"{status}\"}} {n}");
    }
    durations::write(&mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_by_kind_and_writes_prometheus_text() {
        let before = snapshot();
        error_sent(-32601);
        error_sent(12345);
        refused(413);
        refused(599);
        let after = snapshot();
        let delta = |m: &std::collections::BTreeMap<String, u64>,
                     b: &std::collections::BTreeMap<String, u64>,
                     k: &str| { m[k] - b[k] };
        assert!(delta(&after.errors, &before.errors, "method_not_found") >= 1);
        assert!(delta(&after.errors, &before.errors, "other") >= 1);
        assert!(delta(&after.http_refused, &before.http_refused, "413") >= 1);
        assert!(delta(&after.http_refused, &before.http_refused, "other") >= 1);
        let text = prometheus();
        assert!(text.contains("# TYPE hypermcp_requests_total counter\nhypermcp_requests_total "), "{text}");
        assert!(text.contains("hypermcp_errors_total{kind=\"method_not_found\"} "), "{text}");
        assert!(text.contains("hypermcp_http_refused_total{status=\"413\"} "), "{text}");
    }
}
