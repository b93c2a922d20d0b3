//! The HTTP exchanges of the flows, described: an [`HttpRequest`] goes to the driver's
//! [`Fetch`], which performs it and hands back the [`HttpResponse`].

use futures_util::future::BoxFuture;
use serde::de::DeserializeOwned;

/// A request the flow needs sent. Redirects are not followed by the fetcher: a `3xx` is
/// handed back as it is.
#[derive(Debug, Clone)]
pub struct HttpRequest {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// An absolute `https://` URL (`http://` only on loopback).
    pub url: String,
    /// Extra headers (`Content-Type`, `Accept`, `Authorization`, `DPoP`...).
    pub headers: Vec<(String, String)>,
    /// The body (empty for `GET`).
    pub body: Vec<u8>,
}

impl HttpRequest {
    /// `GET url` accepting JSON.
    pub fn get_json(url: impl Into<String>) -> HttpRequest {
        HttpRequest {
            method: "GET",
            url: url.into(),
            headers: vec![("Accept".into(), "application/json".into())],
            body: Vec::new(),
        }
    }

    /// `POST url` with a form body (`application/x-www-form-urlencoded`).
    pub fn post_form(url: impl Into<String>, pairs: &[(&str, &str)]) -> HttpRequest {
        let mut ser = form_urlencoded::Serializer::new(String::new());
        for (k, v) in pairs {
            ser.append_pair(k, v);
        }
        HttpRequest {
            method: "POST",
            url: url.into(),
            headers: vec![
                ("Content-Type".into(), "application/x-www-form-urlencoded".into()),
                ("Accept".into(), "application/json".into()),
            ],
            body: ser.finish().into_bytes(),
        }
    }

    /// `POST url` with a JSON body.
    pub fn post_json(url: impl Into<String>, body: &serde_json::Value) -> HttpRequest {
        HttpRequest {
            method: "POST",
            url: url.into(),
            headers: vec![
                ("Content-Type".into(), "application/json".into()),
                ("Accept".into(), "application/json".into()),
            ],
            body: body.to_string().into_bytes(),
        }
    }

    /// Adds a header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> HttpRequest {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Adds pairs to a form body.
    pub fn form_pairs(mut self, pairs: &[(&str, &str)]) -> HttpRequest {
        let mut ser = form_urlencoded::Serializer::new(String::from_utf8_lossy(&self.body).into_owned());
        for (k, v) in pairs {
            ser.append_pair(k, v);
        }
        self.body = ser.finish().into_bytes();
        self
    }

    /// Adds `Authorization: Basic` credentials (RFC 6749 §2.3.1: both parts form-encoded
    /// first).
    pub fn basic_auth(self, id: &str, secret: &str) -> HttpRequest {
        let enc = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let credentials = crate::util::base64_encode(format!("{}:{}", enc(id), enc(secret)).as_bytes());
        self.header("Authorization", format!("Basic {credentials}"))
    }
}

/// An answer, or why there is none: `{what}: {error}` when it did not come, `{what} was
/// refused (HTTP n): {error: description}` when it is an error.
pub(crate) fn refused(what: &str, resp: Result<HttpResponse, String>) -> Result<HttpResponse, String> {
    let resp = resp.map_err(|e| format!("{what}: {e}"))?;
    if !resp.ok() {
        return Err(format!("{what} was refused (HTTP {}): {}", resp.status, resp.oauth_error()));
    }
    Ok(resp)
}

/// What came back.
#[derive(Debug, Clone, Default)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The headers (names lower-case).
    pub headers: Vec<(String, String)>,
    /// The body (read up to the fetcher's limit).
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The first value of a header.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Every value of a header.
    pub fn headers_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers.iter().filter(move |(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Whether the status is 2xx.
    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The body as JSON of type `T`.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, String> {
        serde_json::from_slice(&self.body).map_err(|e| format!("the answer is not the expected JSON: {e}"))
    }

    /// An OAuth error body's `error: error_description` (RFC 6749 §5.2), else the start of
    /// the body.
    pub fn oauth_error(&self) -> String {
        #[derive(serde::Deserialize)]
        struct E {
            error: String,
            #[serde(default)]
            error_description: Option<String>,
        }
        if let Ok(e) = serde_json::from_slice::<E>(&self.body) {
            return match e.error_description {
                Some(d) if !d.is_empty() => format!("{}: {d}", e.error),
                _ => e.error,
            };
        }
        let text = String::from_utf8_lossy(&self.body);
        let text: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
        text.chars().take(300).collect()
    }
}

/// Performs the flows' HTTP exchanges (the engine's HTTP client supplies one; tests script
/// their own).
pub trait Fetch: Send + Sync {
    /// Sends `req` and reads the answer; `Err` when no answer came (unreachable, TLS, timeout).
    fn fetch(&self, req: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, String>>;
}
