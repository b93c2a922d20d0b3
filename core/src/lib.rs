//! # hypermcp
//!
//! A fast, complete [Model Context Protocol](https://modelcontextprotocol.io) engine.
//!
//! - [`engine`]: the sans-IO session state machines (server and client) for every legacy
//!   revision (2024-11-05 to 2025-11-25): bytes in, events and bytes out, time passed in.
//! - [`Server`] and [`Client`]: the async Rust API on tokio, over stdio, a child process or
//!   any byte stream.
//! - [`http`]: the Streamable HTTP client transport (with the legacy HTTP+SSE fallback) as a
//!   byte stream pair; [`Client::http`] connects over it.
//! - [`protocol`]: the wire types, revisions and per-revision edge conversions;
//!   [`jsonrpc`]: framing, parsing and error codes.
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

pub mod client;
pub mod engine;
mod error;
pub mod http;
pub mod jsonrpc;
pub mod protocol;
pub mod server;
pub mod transport;
pub mod util;

pub use client::{CallOptions, Client, ClientOptions};
pub use error::{Error, Result};
pub use jsonrpc::{RequestId, RpcError};
pub use protocol::*;
pub use server::{Context, IntoToolResult, ResourceRequest, Server};
