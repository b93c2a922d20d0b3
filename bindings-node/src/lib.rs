//! The native half of the Node package: handles to the engine's sans-IO sessions and
//! registry. Protocol payloads cross as JSON text (V8's `JSON.parse` builds objects faster
//! than property-by-property construction from native code). stdio needs no runtime and no
//! thread: Node's own streams feed the sessions. HTTP is served by the engine on one I/O
//! thread (`http.rs`) that hands calls to Node's loop in batches.
#![deny(unsafe_code)]

mod bridge;
mod client;
mod errors;
mod http;
mod http_client;
mod server;

use napi_derive::napi;

/// The engine version.
#[napi]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_string()
}

/// Protocol revisions this release speaks.
#[napi]
pub fn protocol_versions() -> Vec<String> {
    hypermcp::ProtocolVersion::LEGACY.iter().map(|v| v.as_str().to_string()).collect()
}
