//! The HTTP entry points of a [`Server`]: its service to mount in an app, and
//! [`Server::serve_http`], which runs it on a socket.

use super::Server;
use crate::error::Result;
use crate::http::server::{bind, serve_http, shutdown_signal, HttpOptions, HttpService};

impl Server {
    /// The HTTP service of this server, to mount in a hyper or axum app.
    pub fn http_service(&self, options: HttpOptions) -> HttpService {
        HttpService::new(self, options)
    }

    /// Serves Streamable HTTP at `/mcp` (and legacy SSE at `/sse`) on `addr` with default
    /// options until SIGINT or SIGTERM, then shuts down gracefully. Run it on the
    /// multi-thread runtime: with many connections a `current_thread` runtime's one thread
    /// is bound by kernel wake-ups (about 3x fewer calls/s measured on 2 vCPUs).
    pub async fn serve_http(&self, addr: impl tokio::net::ToSocketAddrs) -> Result<()> {
        self.serve_http_with(addr, HttpOptions::default()).await
    }

    /// [`Self::serve_http`] with options.
    pub async fn serve_http_with(&self, addr: impl tokio::net::ToSocketAddrs, options: HttpOptions) -> Result<()> {
        let mut options = options;
        let listener = bind(addr, &mut options).await?;
        serve_http(self.http_service(options), listener, shutdown_signal()).await
    }
}
