//! Drivers: what moves a session's bytes.
//!
//! - tokio drivers for Rust programs: a session over any byte stream (`driver`), this
//!   process's stdin/stdout ([`stdio`]), a spawned child process ([`child`]) and in-memory
//!   pairs ([`duplex`]);
//! - [`http`]: Streamable HTTP and the legacy HTTP+SSE transport, server and client;
//! - [`host`]: the adapters a binding drives from a host language's own event loop (Python's
//!   asyncio, Node's): sessions wherever their bytes go, the HTTP server's batched work
//!   queue and the HTTP client's byte stream, and the option parsing every binding shares;
//! - [`skills_dir`]: a directory of skills read from disk.

pub mod child;
pub(crate) mod driver;
pub mod duplex;
pub mod host;
pub mod http;
pub mod skills_dir;
pub mod stdio;
