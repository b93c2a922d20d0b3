//! MCP over HTTP.
//!
//! - [`client`]: the Streamable HTTP client transport (revisions 2025-03-26 and later), with
//!   a fallback to the legacy HTTP+SSE transport (2024-11-05), exposed as a newline-delimited
//!   byte stream pair so that [`crate::Client::connect`] (and host-driven sessions) run over
//!   it unchanged; [`crate::Client::http`] is the shortcut.
//!
//! Plain `http://` only: this build has no TLS.

pub mod client;
mod sse;
