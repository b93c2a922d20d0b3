//! # hypermcp
//!
//! A fast, complete [Model Context Protocol](https://modelcontextprotocol.io) engine.
//!
//! The floors, each built on the ones before it:
//! - [`jsonrpc`]: framing, parsing and error codes; [`protocol`]: the wire types, revisions
//!   and per-revision edge conversions;
//! - [`catalogue`]: what a server offers (the registry, cached list pages, URI templates,
//!   argument validation);
//! - [`engine`]: the sans-IO session state machines (server and client) for every legacy
//!   revision (2024-11-05 to 2025-11-25): bytes in, events and bytes out, time passed in;
//! - [`transport`]: the drivers: stdio, child processes, in-memory pairs, [`http`]
//!   (Streamable HTTP and legacy HTTP+SSE, server and client), and the [`transport::host`]
//!   adapters the Python and Node bindings drive;
//! - [`trace`] (W3C trace context in `_meta`), [`log`] and [`metrics`]: what operators see;
//! - [`Server`] and [`Client`]: the async Rust API on tokio, over stdio, a child process,
//!   any byte stream or HTTP.
//!
//! ```no_run
//! use hypermcp::{CallToolResult, Server, Tool};
//! use serde_json::json;
//!
//! #[tokio::main(flavor = "current_thread")]
//! async fn main() -> hypermcp::Result<()> {
//!     let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
//!     Server::new("echo", "1.0.0")
//!         .tool(Tool::new("echo").description("Echo text back").input_schema(schema), |args, _ctx| async move {
//!             CallToolResult::text(args["text"].as_str().unwrap_or_default())
//!         })
//!         .serve_stdio()
//!         .await
//! }
//! ```
#![forbid(unsafe_code)]

pub mod auth;
pub mod catalogue;
#[cfg(feature = "cli")]
pub mod cli;
pub mod client;
pub mod engine;
mod error;
#[doc(hidden)]
pub mod fuzzing;
pub mod jsonrpc;
pub mod log;
pub mod metrics;
pub mod protocol;
pub mod runtime;
pub mod server;
pub mod store;
pub mod trace;
pub mod transport;
mod util;

/// The middleware hypermcp ships ([`RateLimiting`](middleware::RateLimiting),
/// [`Timing`](middleware::Timing), [`Logging`](middleware::Logging)); write your own with
/// [`runtime::Middleware`].
pub use runtime::builtin as middleware;
pub use transport::http;

pub use catalogue::visibility::{Component, Filter};
pub use catalogue::ScopeTarget;
pub use client::{CallOptions, Client, ClientOptions, ConnectionEvent, Subscription, TaskHandle, ToolCall};
pub use engine::{ClientMode, InputRequired, RequestContext};
pub use error::{Error, Result};
pub use jsonrpc::{RequestId, RpcError};
pub use protocol::*;
pub use server::{Context, IntoToolResult, ResourceRequest, Server};
