//! Engine errors for JS: a thrown `Error` whose message is the JSON of the JSON-RPC error
//! object, prefixed so `errors.js` can turn it into an `McpError` with the same code.

use hypermcp::RpcError;

/// The prefix `errors.js` looks for.
pub const PREFIX: &str = "hypermcp-rpc:";

/// An `RpcError` as a throwable error.
pub fn rpc_err(e: &RpcError) -> napi::Error {
    napi::Error::from_reason(format!("{PREFIX}{}", serde_json::to_string(e).unwrap_or_default()))
}

/// A refused definition.
pub fn definition_err(e: impl std::fmt::Display) -> napi::Error {
    napi::Error::from_reason(e.to_string())
}
