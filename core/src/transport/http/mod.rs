//! MCP over HTTP: Streamable HTTP (revisions 2025-03-26 and later) and the legacy HTTP+SSE
//! transport (2024-11-05).
//!
//! - [`server`]: an HTTP service that serves a [`crate::Server`] (or a host-language
//!   dispatcher) on one endpoint, mountable in hyper or axum, and [`serve_http`].
//! - [`client`]: the Streamable HTTP client transport, with a fallback to the legacy
//!   HTTP+SSE transport, exposed as a newline-delimited byte stream pair so that
//!   [`crate::Client::connect`] (and host-driven sessions) run over it unchanged;
//!   [`crate::Client::http`] is the shortcut; [`crate::transport::host`] runs both for a
//!   host loop (bindings).
//!
//! Plain `http://` only: this build has no TLS.

pub mod client;
pub mod server;
pub(crate) mod sse;

pub use client::{HttpClientOptions, HttpTransport};
pub use server::{serve_http, ClientAddr, EventStore, HttpOptions, HttpService, InMemoryEventStore};
