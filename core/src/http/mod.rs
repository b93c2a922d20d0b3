//! The HTTP transports: Streamable HTTP (revisions 2025-03-26 and later) and the legacy
//! HTTP+SSE transport (2024-11-05).
//!
//! - [`server`]: an HTTP service that serves a [`crate::Server`] (or a host-language
//!   dispatcher) on one endpoint, mountable in hyper or axum, and [`serve_http`].

pub mod server;

pub use server::{serve_http, EventStore, HttpOptions, HttpService, InMemoryEventStore};
