//! OAuth 2.1 authorization (spec "Authorization", 2025-03-26 to 2026-07-28).
//!
//! - [`challenge`]: the `WWW-Authenticate` challenges of RFC 9110 / RFC 6750 (parsed by the
//!   client, written by the server);
//! - [`client`]: the client flows. The flow logic here does no I/O: every HTTP exchange it
//!   needs is described as an [`HttpRequest`](client::HttpRequest) and performed by the
//!   driver's [`Fetch`](client::Fetch) (the engine's HTTP client transport supplies one), so
//!   the flows are tested against scripted exchanges as well as real servers;
//! - [`server`]: the resource server's side: Protected Resource Metadata, the challenges of a
//!   refusal, and token verification (JWT against a JWKS, introspection, or the app's own).

pub mod challenge;
pub mod client;
pub mod server;

/// Seconds since the Unix epoch (token lifetimes, JWT claims).
pub(crate) fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}
