//! What an HTTP server accepts: the endpoint, modes, limits and the DNS-rebinding guard.

use super::events::{EventStore, InMemoryEventStore};
use crate::util::units;
use serde::Deserialize;
use std::sync::Arc;
use std::time::Duration;

/// Options of the HTTP transports. `HttpOptions::default()` is a local development server:
/// `/mcp`, sessions, SSE replies, localhost only.
///
/// It deserializes from an object of these fields (snake_case, or camelCase as JavaScript
/// writes them), durations as numbers of seconds (of milliseconds when a binding parses
/// them: see [`crate::transport::host::options`]); the event store is set in code.
#[derive(Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HttpOptions {
    /// The Streamable HTTP endpoint. Default `/mcp`.
    #[serde(deserialize_with = "endpoint_path")]
    pub path: String,
    /// No sessions: every POST stands alone (any replica can serve any request); GET and
    /// DELETE answer 405. Default false.
    pub stateless: bool,
    /// Answer every request with one JSON body, never an SSE stream (messages tied to a
    /// call, like progress, then go to the session's GET stream if one is open). Default false.
    #[serde(alias = "jsonResponse")]
    pub json_response: bool,
    /// Accepted `Host` header values (`name` matches any port, `name:port` one port). Empty:
    /// any host. Default: `localhost`, `127.0.0.1`, `[::1]` (DNS-rebinding protection);
    /// [`serve_http`](super::serve_http) empties it when bound to a non-loopback address.
    #[serde(alias = "allowedHosts")]
    pub allowed_hosts: Vec<String>,
    /// Accepted `Origin` header values (`scheme://host` matches any port). Requests without
    /// `Origin` (non-browser clients) are always accepted. Empty: only same-origin requests
    /// (the Origin's host equals the Host header). Default: the localhost origins.
    #[serde(alias = "allowedOrigins")]
    pub allowed_origins: Vec<String>,
    /// Largest accepted request body in bytes (413 above). Default 4 MiB.
    #[serde(alias = "maxBody")]
    pub max_body: usize,
    /// A session with no request and no open stream for this long is closed. Default 10 min,
    /// or the `HYPERMCP_SESSION_IDLE_TIMEOUT` environment variable (seconds), if set.
    #[serde(alias = "sessionIdleTimeout", deserialize_with = "units::duration")]
    pub session_idle_timeout: Duration,
    /// Most sessions at once; opening one more evicts the longest-idle session without open
    /// streams or calls in progress (503 when there is none). Default 10,000.
    #[serde(alias = "maxSessions")]
    pub max_sessions: usize,
    /// SSE comment sent on idle streams this often. `None`: never. Default 15 s.
    #[serde(alias = "keepAlive", deserialize_with = "units::optional_duration")]
    pub keep_alive: Option<Duration>,
    /// The `retry` (reconnect delay) sent with the priming event of each SSE stream, and
    /// before the server closes a stream early. Default 1 s.
    #[serde(deserialize_with = "units::duration")]
    pub retry: Duration,
    /// A call that has not finished after this long gets an SSE stream instead of a JSON
    /// body (a call that sends progress, logs or requests gets one at once). Default 100 ms.
    #[serde(alias = "jsonWait", deserialize_with = "units::duration")]
    pub json_wait: Duration,
    /// Where SSE events are kept for replay on `Last-Event-ID`. Default: in memory, 512
    /// events per stream.
    #[serde(skip)]
    pub event_store: Arc<dyn EventStore>,
    /// Also serve the legacy HTTP+SSE transport (2024-11-05): `GET sse_path` opens a session
    /// stream, `POST messages_path?sessionId=…` sends to it. Default true.
    #[serde(alias = "legacySse")]
    pub legacy_sse: bool,
    /// Serve the process's counters ([`crate::metrics`]) in the Prometheus text format at
    /// this path (`"/metrics"`), to `GET`, before any authorization: expose it to the network
    /// only where that is fine. Default none.
    #[serde(alias = "metricsPath", deserialize_with = "optional_endpoint_path")]
    pub metrics_path: Option<String>,
    /// The legacy SSE endpoint. Default `/sse`.
    #[serde(alias = "ssePath", deserialize_with = "endpoint_path")]
    pub sse_path: String,
    /// The legacy message endpoint. Default `/messages`.
    #[serde(alias = "messagesPath", deserialize_with = "endpoint_path")]
    pub messages_path: String,
    /// Standalone messages (list changes, updates) kept for a session while it has no GET
    /// stream open. Default 64.
    pub backlog: usize,
    /// Bytes a `subscriptions/listen` stream (2026-07-28) may have waiting for a client that
    /// does not read; past it the subscription is dropped (the client sees its stream end
    /// without a response, and listens again). Default 256 KiB.
    #[serde(alias = "listenerBuffer")]
    pub listener_buffer: usize,
    /// Bytes any other SSE stream (a POST's replies, the GET stream, a legacy HTTP+SSE
    /// connection) may have waiting for a client that does not read. Past it: a resumable
    /// stream drops its connection (the events stay in the event store, and the client resumes
    /// with `Last-Event-ID`); a legacy stream ends with its session (its calls cancelled); and
    /// a legacy POST arriving while its stream holds more than half of it is refused with
    /// 429. One message larger than the limit still goes to a stream that has nothing
    /// waiting. Default 8 MiB.
    #[serde(alias = "streamBuffer")]
    pub stream_buffer: usize,
    /// [`serve_http`](super::serve_http) answers 408 and closes the connection when a request
    /// body has not arrived in full this long after its headers (a client that stalls inside
    /// its body). `None`: never. Default 30 s.
    #[serde(alias = "bodyReadTimeout", deserialize_with = "units::optional_duration")]
    pub body_read_timeout: Option<Duration>,
    /// Most connections [`serve_http`](super::serve_http) serves at once; more wait in the
    /// listen queue until one ends (nothing is refused, the process's file descriptors stay
    /// bounded). `0`: no cap. Default 10,000.
    #[serde(alias = "maxConnections")]
    pub max_connections: usize,
    /// Most sessions one client address may hold. At it, a new session from that address
    /// evicts that address's own longest-idle session (429 when all of them are busy); and at
    /// `max_sessions`, the address holding the most sessions gives one up first, so one
    /// client's flood of `initialize` cannot log everyone else out. `0`: no quota (the
    /// fairness at the cap still holds). Loopback addresses have no quota: behind a proxy on
    /// the same machine every client has its address; set `client_address_header` so that the
    /// quota counts real clients. Default 1,000.
    #[serde(alias = "maxSessionsPerClient")]
    pub max_sessions_per_client: usize,
    /// A header naming the client's address, set by a trusted reverse proxy in front
    /// (`X-Forwarded-For`: its last address; `X-Real-IP`): the address the session quota
    /// counts by. `None`: the connection's peer address. Only set it behind a proxy that
    /// overwrites the header, or a client can pick its own address.
    #[serde(alias = "clientAddressHeader")]
    pub client_address_header: Option<String>,
    /// [`serve_http`](super::serve_http) closes a connection that takes longer than this to
    /// send a request's headers, or stays idle this long between requests (slow-client
    /// protection; at most an eighth longer, as a connection's one timer is moved only when
    /// less than this is left). `None`: never. Default 30 s.
    #[serde(alias = "headerReadTimeout", deserialize_with = "units::optional_duration")]
    pub header_read_timeout: Option<Duration>,
    /// Require an OAuth access token on the MCP endpoints (the server as an OAuth 2.1
    /// resource server; see [`crate::auth::server`]). `None`: no authorization. Default `None`.
    pub auth: Option<crate::auth::server::ResourceServerOptions>,
    /// CORS for browser clients: answer preflight `OPTIONS` requests and add
    /// `Access-Control-Allow-Origin` (the request's `Origin`, once the DNS-rebinding check
    /// allowed it: `allowed_origins`, or same-origin when that list is empty) and
    /// `Access-Control-Expose-Headers` (`Mcp-Session-Id`, `Mcp-Protocol-Version`,
    /// `WWW-Authenticate`, `DPoP-Nonce`) to the answers. Default false.
    pub cors: bool,
    /// A PEM file of the certificate chain to serve HTTPS with (with [`HttpOptions::tls_key`]);
    /// `None`: plain HTTP (behind a TLS-terminating proxy, say).
    #[serde(alias = "tlsCert")]
    pub tls_cert: Option<std::path::PathBuf>,
    /// The PEM file of the certificate's private key (PKCS#8, PKCS#1 or SEC1).
    #[serde(alias = "tlsKey")]
    pub tls_key: Option<std::path::PathBuf>,
    /// Share sessions with the other replicas of this server through a store:
    /// `redis://host:6379/0`. Any replica then serves any request of a session (behind a
    /// load balancer without sticky sessions), and SSE streams resume on any replica.
    /// `None`: sessions live in this process. Default: the `HYPERMCP_STORE` environment
    /// variable, if set.
    pub store: Option<String>,
    /// The store itself, set in code (a [`crate::store::MemoryHub`] replica, or a
    /// [`crate::store::redis::RedisStore`] already connected); it wins over `store`.
    #[serde(skip)]
    pub cluster: Option<Arc<dyn crate::store::ClusterStore>>,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            path: "/mcp".into(),
            stateless: false,
            json_response: false,
            allowed_hosts: LOCAL_HOSTS.iter().map(|s| s.to_string()).collect(),
            allowed_origins: LOCAL_HOSTS.iter().flat_map(|h| [format!("http://{h}"), format!("https://{h}")]).collect(),
            max_body: 4 * 1024 * 1024,
            session_idle_timeout: std::env::var("HYPERMCP_SESSION_IDLE_TIMEOUT")
                .ok()
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s > 0.0)
                .map_or(Duration::from_secs(600), Duration::from_secs_f64),
            max_sessions: 10_000,
            keep_alive: Some(Duration::from_secs(15)),
            retry: Duration::from_secs(1),
            json_wait: Duration::from_millis(100),
            event_store: Arc::new(InMemoryEventStore::new(512)),
            legacy_sse: true,
            metrics_path: None,
            sse_path: "/sse".into(),
            messages_path: "/messages".into(),
            backlog: 64,
            listener_buffer: 256 * 1024,
            stream_buffer: 8 * 1024 * 1024,
            body_read_timeout: Some(Duration::from_secs(30)),
            max_connections: 10_000,
            max_sessions_per_client: 1_000,
            client_address_header: None,
            header_read_timeout: Some(Duration::from_secs(30)),
            tls_cert: None,
            tls_key: None,
            cors: false,
            auth: None,
            store: std::env::var("HYPERMCP_STORE").ok().filter(|s| !s.trim().is_empty()),
            cluster: None,
        }
    }
}

impl std::fmt::Debug for HttpOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpOptions")
            .field("path", &self.path)
            .field("stateless", &self.stateless)
            .field("json_response", &self.json_response)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("allowed_origins", &self.allowed_origins)
            .field("max_body", &self.max_body)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("max_sessions", &self.max_sessions)
            .field("keep_alive", &self.keep_alive)
            .field("json_wait", &self.json_wait)
            .field("legacy_sse", &self.legacy_sse)
            .field("listener_buffer", &self.listener_buffer)
            .field("stream_buffer", &self.stream_buffer)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("max_connections", &self.max_connections)
            .field("max_sessions_per_client", &self.max_sessions_per_client)
            .field("client_address_header", &self.client_address_header)
            .field("tls_cert", &self.tls_cert)
            .field("cors", &self.cors)
            .field("store", &self.store.as_deref().map(|_| "(set)"))
            .field("auth", &self.auth)
            .finish_non_exhaustive()
    }
}

/// A path option: it starts with `/`.
fn endpoint_path<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let p = String::deserialize(d)?;
    if !p.starts_with('/') {
        return Err(serde::de::Error::custom(format!("expected a path starting with \"/\", got {p:?}")));
    }
    Ok(p)
}

fn optional_endpoint_path<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Option::<String>::deserialize(d)? {
        None => Ok(None),
        Some(p) if p.starts_with('/') => Ok(Some(p)),
        Some(p) => Err(serde::de::Error::custom(format!("expected a path starting with \"/\", got {p:?}"))),
    }
}

const LOCAL_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "[::1]"];

/// Splits `host[:port]` (IPv6 in brackets).
fn split_host(s: &str) -> (&str, Option<&str>) {
    if let Some(rest) = s.strip_prefix('[') {
        if let Some(end) = rest.find(']') {
            let host = &s[..end + 2];
            let port = s[end + 2..].strip_prefix(':');
            return (host, port);
        }
        return (s, None);
    }
    match s.rsplit_once(':') {
        Some((h, p)) if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) => (h, Some(p)),
        _ => (s, None),
    }
}

/// Whether `value` (`host[:port]`) matches one pattern (`host` = any port).
fn host_matches(pattern: &str, value: &str) -> bool {
    split_matches(split_host(pattern), split_host(value))
}

/// [`host_matches`] of a pattern and a value already split.
fn split_matches((ph, pp): (&str, Option<&str>), (vh, vp): (&str, Option<&str>)) -> bool {
    ph.eq_ignore_ascii_case(vh) && (pp.is_none() || pp == vp)
}

impl HttpOptions {
    /// These options with sessions shared through the store at `url` (`redis://host:6379/0`):
    /// replicas of a server behind a load balancer then serve any request of any session.
    ///
    /// ```no_run
    /// # async fn run(server: hypermcp::Server) -> hypermcp::Result<()> {
    /// use hypermcp::http::HttpOptions;
    /// let options = HttpOptions::default().with_store("redis://127.0.0.1:6379/0");
    /// server.serve_http_with(("0.0.0.0", 8001), options).await
    /// # }
    /// ```
    pub fn with_store(mut self, url: impl Into<String>) -> Self {
        self.store = Some(url.into());
        self
    }

    /// These options with sessions shared through `store` itself (a connected
    /// [`crate::store::redis::RedisStore`], or a [`crate::store::MemoryHub`] replica for
    /// services in one process); it wins over [`HttpOptions::store`].
    pub fn with_cluster(mut self, store: Arc<dyn crate::store::ClusterStore>) -> Self {
        self.cluster = Some(store);
        self
    }

    /// The legacy HTTP+SSE endpoints `(sse_path, messages_path)`, when they are served
    /// (`legacy_sse` and not `stateless`).
    pub fn legacy_paths(&self) -> Option<(&str, &str)> {
        (self.legacy_sse && !self.stateless).then_some((self.sse_path.as_str(), self.messages_path.as_str()))
    }

    /// Whether a request for `path` is one the service answers (others get 404).
    pub fn serves(&self, path: &str) -> bool {
        path == self.path || self.legacy_paths().is_some_and(|(sse, messages)| path == sse || path == messages)
    }

    /// Checks `Host` and `Origin` against the allow-lists; `Err` says what was refused.
    pub(crate) fn check_dns_rebinding(&self, host: Option<&str>, origin: Option<&str>) -> Result<(), String> {
        if !self.allowed_hosts.is_empty() {
            let Some(h) = host else { return Err("the Host header is missing".into()) };
            // The value split once, not once per pattern.
            let value = split_host(h);
            if !self.allowed_hosts.iter().any(|p| split_matches(split_host(p), value)) {
                return Err(format!("Host header {h:?} is not allowed"));
            }
        }
        let Some(origin) = origin else { return Ok(()) };
        let Some((scheme, rest)) = origin.split_once("://") else {
            return Err(format!("Origin header {origin:?} is not allowed"));
        };
        let ok = if self.allowed_origins.is_empty() {
            host.is_some_and(|h| rest.eq_ignore_ascii_case(h))
        } else {
            self.allowed_origins.iter().any(|p| match p.split_once("://") {
                Some((ps, prest)) => ps.eq_ignore_ascii_case(scheme) && host_matches(prest, rest),
                None => false,
            })
        };
        if ok {
            Ok(())
        } else {
            Err(format!("Origin header {origin:?} is not allowed"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn localhost_defaults() {
        let o = HttpOptions::default();
        assert!(o.check_dns_rebinding(Some("localhost:3000"), None).is_ok());
        assert!(o.check_dns_rebinding(Some("127.0.0.1:9"), Some("http://localhost:3000")).is_ok());
        assert!(o.check_dns_rebinding(Some("[::1]:80"), Some("http://[::1]:80")).is_ok());
        assert!(o.check_dns_rebinding(Some("evil.example.com"), None).is_err());
        assert!(o.check_dns_rebinding(Some("localhost:3000"), Some("http://evil.example.com")).is_err());
        assert!(o.check_dns_rebinding(None, None).is_err());
    }

    #[test]
    fn open_hosts_require_same_origin() {
        let o = HttpOptions { allowed_hosts: vec![], allowed_origins: vec![], ..Default::default() };
        assert!(o.check_dns_rebinding(Some("mcp.example.com"), None).is_ok());
        assert!(o.check_dns_rebinding(Some("mcp.example.com"), Some("https://mcp.example.com")).is_ok());
        assert!(o.check_dns_rebinding(Some("mcp.example.com"), Some("https://evil.example.com")).is_err());
    }

    #[test]
    fn host_patterns() {
        assert!(host_matches("localhost", "localhost:1"));
        assert!(host_matches("localhost:1", "LOCALHOST:1"));
        assert!(!host_matches("localhost:1", "localhost:2"));
        assert!(host_matches("[::1]", "[::1]:8080"));
        assert!(!host_matches("localhost", "localhost.evil.com"));
    }
}
