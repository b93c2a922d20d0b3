//! The driver of the OAuth flows' HTTP exchanges ([`HttpFetch`]): one connection per
//! exchange (they are few), TLS with the transport's trust settings, answers read within a
//! size and time limit, redirects handed back (never followed).

use super::pool::Pool;
use super::response::read_limited;
use super::tls::Tls;
use super::url::Target;
use crate::auth::client::url::is_loopback_host;
use crate::auth::client::{Fetch, HttpRequest, HttpResponse};
use bytes::Bytes;
use futures_util::future::BoxFuture;
use http::header::{HeaderName, HeaderValue, HOST, USER_AGENT};
use http::{Method, Request};
use http_body_util::Full;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// The largest answer an OAuth endpoint may send.
const MAX_BODY: usize = 1024 * 1024;
/// How long one exchange may take.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(30);

/// Performs the OAuth flows' HTTP exchanges for the HTTP client transport. `http://` is
/// refused except on loopback addresses (the spec requires HTTPS for authorization servers).
#[derive(Debug, Clone)]
pub struct HttpFetch {
    ca_file: Option<PathBuf>,
    connect_timeout: Duration,
}

impl HttpFetch {
    /// A fetcher trusting the system's store plus `ca_file`.
    pub fn new(ca_file: Option<PathBuf>, connect_timeout: Duration) -> HttpFetch {
        HttpFetch { ca_file, connect_timeout }
    }

    async fn exchange(&self, req: HttpRequest) -> Result<HttpResponse, String> {
        let t = Target::parse(&req.url)?;
        if !t.tls && !is_loopback_host(&t.host) {
            return Err(format!(
                "refusing {} over plain http://: OAuth endpoints must use https:// (http:// is allowed on loopback only)",
                req.url
            ));
        }
        let tls = if t.tls { Some(Tls::new(&t.host, self.ca_file.as_deref())?) } else { None };
        let pool = Arc::new(Pool::new(t.host.clone(), t.port, self.connect_timeout, tls));
        let mut r = Request::new(Full::new(Bytes::from(req.body)));
        *r.method_mut() = Method::from_bytes(req.method.as_bytes()).map_err(|e| e.to_string())?;
        *r.uri_mut() = t.path.parse().map_err(|e| format!("invalid URL {}: {e}", req.url))?;
        let h = r.headers_mut();
        h.insert(HOST, t.authority.clone());
        h.insert(USER_AGENT, HeaderValue::from_static(concat!("hypermcp/", env!("CARGO_PKG_VERSION"))));
        for (n, v) in &req.headers {
            let n = HeaderName::from_bytes(n.as_bytes()).map_err(|_| format!("invalid header name {n:?}"))?;
            let v = HeaderValue::from_str(v).map_err(|_| format!("invalid value of the header {n}"))?;
            h.append(n, v);
        }
        let (resp, lease) = pool.send(r).await.map_err(|e| e.to_string())?;
        let status = resp.status().as_u16();
        let headers = resp
            .headers()
            .iter()
            .filter_map(|(n, v)| Some((n.as_str().to_string(), v.to_str().ok()?.to_string())))
            .collect();
        let mut body = resp.into_body();
        let body = read_limited(&mut body, MAX_BODY).await?;
        drop(lease);
        Ok(HttpResponse { status, headers, body: body.to_vec() })
    }
}

impl Fetch for HttpFetch {
    fn fetch(&self, req: HttpRequest) -> BoxFuture<'_, Result<HttpResponse, String>> {
        Box::pin(async move {
            let url = req.url.clone();
            match tokio::time::timeout(EXCHANGE_TIMEOUT, self.exchange(req)).await {
                Ok(r) => r,
                Err(_) => Err(format!("{url} did not answer within {EXCHANGE_TIMEOUT:?}")),
            }
        })
    }
}
