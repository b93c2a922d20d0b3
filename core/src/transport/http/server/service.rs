//! [`HttpService`], the HTTP service of one MCP server: building it, its hyper and tower
//! `Service` impls, and [`HttpService::handle`], which routes each request by path and
//! method to the Streamable HTTP endpoint or the legacy HTTP+SSE transport.

use super::dispatch;
use super::guard;
use super::options::HttpOptions;
use super::reply::{error_reply, plain};
use super::request::header_str;
use super::session::{Dispatcher, Session};
use super::stream::HttpBody;
use super::table::Shared;
use crate::catalogue::Registry;
use crate::engine::ServerConfig;
use crate::runtime::Serves;
use http::{header, HeaderValue, Method, Request, Response, StatusCode};
use http_body::Body;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::task::Poll;

/// The HTTP service of one MCP server: Streamable HTTP on [`HttpOptions::path`] and the
/// legacy HTTP+SSE transport beside it. Cheap to clone.
///
/// Mount it in hyper (`hyper::service::Service`) or axum/tower (`tower_service::Service`),
/// or call [`HttpService::handle`] from any HTTP stack.
#[derive(Clone)]
pub struct HttpService {
    pub(super) shared: Arc<Shared>,
}

impl std::fmt::Debug for HttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpService").field("options", &self.shared.options).finish_non_exhaustive()
    }
}

/// A body's error, as hyper and tower pass it.
pub(super) type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl HttpService {
    /// A service running the Rust handlers of `server` (a [`crate::Server`]).
    pub fn new(server: &impl Serves, options: HttpOptions) -> HttpService {
        let runtime = server.runtime().clone();
        let (config, registry) = (Arc::new(runtime.config()), runtime.registry().clone());
        Self::with_dispatcher(config, registry, Arc::new(dispatch::RustDispatcher { server: runtime }), options)
    }

    /// A service whose calls go to `dispatcher` (how the Python and Node bindings serve).
    pub fn with_dispatcher(
        config: Arc<ServerConfig>,
        registry: Arc<Registry>,
        dispatcher: Arc<dyn Dispatcher>,
        options: HttpOptions,
    ) -> HttpService {
        HttpService { shared: Shared::new(options, config, registry, dispatcher) }
    }

    /// The same server with other options (a new service: no sessions are shared).
    pub fn with_options(&self, options: HttpOptions) -> HttpService {
        let sh = &self.shared;
        Self::with_dispatcher(sh.config.clone(), sh.registry.clone(), sh.dispatcher.clone(), options)
    }

    /// The options in force.
    pub fn options(&self) -> &HttpOptions {
        &self.shared.options
    }

    /// How many sessions are open.
    pub fn session_count(&self) -> usize {
        self.shared.sessions().len()
    }

    /// Open `subscriptions/listen` streams (2026-07-28).
    pub fn listener_count(&self) -> usize {
        self.shared.listener_count()
    }

    /// Calls in progress over all sessions (in stateless mode: requests being answered).
    pub fn in_flight(&self) -> usize {
        let sessions: Vec<Arc<Session>> = self.shared.sessions().values().cloned().collect();
        let stateful: usize = sessions.iter().map(|s| s.lock().engine.in_flight()).sum();
        stateful + self.shared.stateless_live.load(Ordering::Acquire)
    }

    /// Closes every session (their calls are cancelled, their streams end) and every
    /// `subscriptions/listen` stream (each answered first: its graceful end).
    pub fn close_all(&self) {
        let all: Vec<Arc<Session>> = self.shared.sessions().drain();
        for s in all {
            s.close_because("the server is shutting down");
        }
        self.close_listeners();
    }

    /// Ends every open `subscriptions/listen` stream (2026-07-28) with its response, the
    /// server's graceful end of a subscription; clients listen again to resume.
    pub fn close_listeners(&self) {
        let mut wakers = Vec::new();
        for l in self.shared.take_listeners() {
            match l {
                super::table::Listener::Session(s) => s.close(),
                super::table::Listener::Lean(l) => l.end(&mut wakers),
            }
        }
        for w in wakers {
            w.wake();
        }
    }

    /// Closes sessions idle past the timeout now (a background task also does this).
    pub fn sweep(&self) {
        self.shared.sweep();
    }

    /// Answers one HTTP request (the client's address, when the app knows it, in its
    /// extensions as a [`super::ClientAddr`]).
    pub async fn handle<B>(&self, req: Request<B>) -> Response<HttpBody>
    where
        B: Body,
        B::Error: Into<BoxError>,
    {
        self.handle_from(req, None).await
    }

    /// [`HttpService::handle`] of a request from `peer` (our own connections' address,
    /// handed over directly rather than in the request's extensions, which cost three
    /// allocations a request).
    pub(super) async fn handle_from<B>(&self, req: Request<B>, peer: Option<super::ClientAddr>) -> Response<HttpBody>
    where
        B: Body,
        B::Error: Into<BoxError>,
    {
        self.shared.start();
        // A service mounted in an app of its own (not started by serve_http) joins its store
        // on its first request.
        if self.shared.options.store.is_some() && self.shared.cluster.get().is_none() && !self.shared.options.stateless
        {
            if let Err(e) = self.connect_store().await {
                return error_reply(StatusCode::SERVICE_UNAVAILABLE, -32000, format!("Service Unavailable: {e}"));
            }
        }
        let o = &self.shared.options;
        let host = header_str(&req, header::HOST).or_else(|| req.uri().authority().map(|a| a.as_str()));
        if let Err(why) = o.check_dns_rebinding(host, header_str(&req, header::ORIGIN)) {
            return error_reply(StatusCode::FORBIDDEN, -32000, format!("Forbidden: {why}"));
        }
        let origin = if o.cors { header_str(&req, header::ORIGIN).map(str::to_string) } else { None };
        let path = req.uri().path();
        if o.metrics_path.as_deref() == Some(path) && req.method() == Method::GET {
            let mut r = Response::new(HttpBody::Full(Some(crate::metrics::prometheus().into())));
            r.headers_mut()
                .insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain; version=0.0.4; charset=utf-8"));
            return r;
        }
        let served = path == o.path || o.legacy_paths().is_some_and(|(sse, messages)| path == sse || path == messages);
        if o.cors
            && (served || self.shared.guard.as_ref().is_some_and(|g| g.serves_metadata(path)))
            && req.method() == Method::OPTIONS
        {
            return cors::preflight(origin.as_deref(), &req);
        }
        let mut auth = None;
        if let Some(guard) = &self.shared.guard {
            let refused = if req.method() == Method::GET && guard.serves_metadata(path) {
                Some(guard.metadata_reply())
            } else if served {
                match guard.admit(guard::Head { headers: req.headers(), method: req.method(), uri: req.uri() }).await {
                    Ok(info) => {
                        auth = Some(info);
                        None
                    }
                    Err(r) => Some(r),
                }
            } else {
                None
            };
            if let Some(mut r) = refused {
                if let Some(origin) = origin.as_deref() {
                    cors::decorate(origin, &mut r);
                }
                return r;
            }
        }
        let mut resp = if path == o.path {
            match *req.method() {
                Method::POST => self.post(req, auth, peer).await,
                Method::GET => self.get(req).await,
                Method::DELETE => self.delete(req).await,
                _ => {
                    let mut r = error_reply(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method not allowed");
                    r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
                    r
                }
            }
        } else if o.legacy_paths().is_some_and(|(sse, _)| path == sse) {
            if req.method() == Method::GET {
                self.legacy_get(self.client_of(&req, peer))
            } else {
                let mut r = error_reply(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method not allowed");
                r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET"));
                r
            }
        } else if o.legacy_paths().is_some_and(|(_, messages)| path == messages) {
            if req.method() == Method::POST {
                self.legacy_post(req, auth, peer).await
            } else {
                let mut r = error_reply(StatusCode::METHOD_NOT_ALLOWED, -32000, "Method not allowed");
                r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
                r
            }
        } else {
            plain(StatusCode::NOT_FOUND, "Not Found")
        };
        if let Some(origin) = origin.as_deref() {
            cors::decorate(origin, &mut resp);
        }
        resp
    }
}

/// CORS (the `cors` option): preflight answers and the headers added to every answer. Only
/// origins the DNS-rebinding check let through get here.
mod cors {
    use super::HttpBody;
    use http::header::{self, HeaderValue};
    use http::{Request, Response, StatusCode};

    /// The headers a browser client may send (plus any `Mcp-Param-*` it asks for).
    const ALLOW_HEADERS: &str = "Content-Type, Accept, Authorization, DPoP, Mcp-Session-Id, Mcp-Protocol-Version, Mcp-Method, Mcp-Name, Last-Event-ID";
    /// The headers a browser client may read.
    const EXPOSE_HEADERS: &str = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate, DPoP-Nonce";

    /// The answer to a preflight `OPTIONS` request.
    pub(super) fn preflight<B>(origin: Option<&str>, req: &Request<B>) -> Response<HttpBody> {
        let mut r = Response::new(HttpBody::Full(None));
        *r.status_mut() = StatusCode::NO_CONTENT;
        let Some(origin) = origin else { return r };
        let h = r.headers_mut();
        if let Ok(v) = HeaderValue::from_str(origin) {
            h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        }
        h.insert(header::VARY, HeaderValue::from_static("Origin"));
        h.insert(header::ACCESS_CONTROL_ALLOW_METHODS, HeaderValue::from_static("GET, POST, DELETE, OPTIONS"));
        // The requested headers are allowed when they are ours or tool parameters (Mcp-Param-*).
        let params: Vec<&str> = req
            .headers()
            .get(header::ACCESS_CONTROL_REQUEST_HEADERS)
            .and_then(|v| v.to_str().ok())
            .into_iter()
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .filter(|n| n.len() > 10 && n[..10].eq_ignore_ascii_case("mcp-param-"))
            .collect();
        let allow = if params.is_empty() {
            ALLOW_HEADERS.to_string()
        } else {
            format!("{ALLOW_HEADERS}, {}", params.join(", "))
        };
        if let Ok(v) = HeaderValue::from_str(&allow) {
            h.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, v);
        }
        h.insert(header::ACCESS_CONTROL_MAX_AGE, HeaderValue::from_static("600"));
        r
    }

    /// Adds the CORS headers to an answer for `origin`.
    pub(super) fn decorate(origin: &str, resp: &mut Response<HttpBody>) {
        let h = resp.headers_mut();
        if let Ok(v) = HeaderValue::from_str(origin) {
            h.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, v);
        }
        h.append(header::VARY, HeaderValue::from_static("Origin"));
        h.insert(header::ACCESS_CONTROL_EXPOSE_HEADERS, HeaderValue::from_static(EXPOSE_HEADERS));
    }
}

impl<B> hyper::service::Service<Request<B>> for HttpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<HttpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = std::result::Result<Response<HttpBody>, Infallible>> + Send>>;

    fn call(&self, req: Request<B>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.handle(req).await) })
    }
}

impl<B> tower_service::Service<Request<B>> for HttpService
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<HttpBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = std::result::Result<Response<HttpBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut std::task::Context<'_>) -> Poll<std::result::Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: Request<B>) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { Ok(this.handle(req).await) })
    }
}
