//! Shared pieces of the MCP load generators: `loadgen` (stdio) and `httpload`
//! (Streamable HTTP).
//!
//! - [`request`]: cheap formatting of `tools/call` requests.
//! - [`check`]: validation of JSON-RPC responses.
//! - [`stats`]: percentiles, medians and report lines.
//! - [`http`]: a minimal HTTP/1.1 keep-alive client (Content-Length, chunked and
//!   `text/event-stream` bodies) for `httpload`.
//! - [`async_http`]: the same client over tokio, for `httpload`'s event-driven engine.
//! - [`listen`]: `subscriptions/listen` fan-out, for `httpload --listeners` and
//!   `loadgen --listeners`.
//! - [`procfs`]: the resident memory of a process tree.

pub mod async_http;
pub mod check;
pub mod http;
pub mod listen;
pub mod procfs;
pub mod request;
pub mod stats;
