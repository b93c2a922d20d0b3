//! Options of the HTTP client transport: which transport to speak ([`HttpTransport`]), how
//! broken SSE streams are resumed ([`ReconnectPolicy`]), and [`HttpClientOptions`] with the
//! serde helpers that read it from an object of a host language.

use std::time::Duration;

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
    pub(super) fn delay(&self, attempt: u32) -> Duration {
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
    /// PEM file of CA certificates trusted for `https://` besides the system's store (which
    /// honours `SSL_CERT_FILE` and `SSL_CERT_DIR`).
    #[serde(alias = "caFile")]
    pub ca_file: Option<std::path::PathBuf>,
    /// OAuth: on `401` (or `403` with `insufficient_scope`) the client discovers the
    /// authorization server, gets a token and sends the request again (see
    /// [`crate::auth::client`]).
    pub auth: Option<crate::auth::client::OAuthOptions>,
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
            ca_file: None,
            auth: None,
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
            .field("ca_file", &self.ca_file)
            .field("auth", &self.auth)
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
    /// Authorizes with OAuth when the server asks for it.
    pub fn auth(mut self, auth: crate::auth::client::OAuthOptions) -> Self {
        self.auth = Some(auth);
        self
    }
    /// Sets the transport.
    pub fn transport(mut self, transport: HttpTransport) -> Self {
        self.transport = transport;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff() {
        let p = ReconnectPolicy::default();
        assert_eq!(p.delay(0), Duration::from_secs(1));
        assert_eq!(p.delay(1), Duration::from_secs(2));
        assert_eq!(p.delay(4), Duration::from_secs(16));
        assert_eq!(p.delay(5), Duration::from_secs(30));
        assert_eq!(p.delay(100), Duration::from_secs(30));
    }
}
