//! JSON-RPC error objects and the error codes JSON-RPC and MCP define.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// Error codes used on the wire.
pub mod codes {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i32 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i32 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i32 = -32601;
    /// Invalid method parameters (also: unknown tool or prompt, bad cursor).
    pub const INVALID_PARAMS: i32 = -32602;
    /// Internal error (also: a handler that panicked).
    pub const INTERNAL_ERROR: i32 = -32603;
    /// MCP (2024-11-05 to 2025-11-25): resource not found.
    pub const RESOURCE_NOT_FOUND: i32 = -32002;
    /// MCP 2025-11-25: the request needs a URL-mode elicitation first.
    pub const URL_ELICITATION_REQUIRED: i32 = -32042;
    /// hypermcp: an outbound request timed out (never sent on the wire).
    pub const REQUEST_TIMEOUT: i32 = -32001;
    /// hypermcp: the connection closed before an answer arrived (never sent on the wire).
    pub const CONNECTION_CLOSED: i32 = -32000;
    /// hypermcp: the caller cancelled an outbound request (never sent on the wire).
    pub const REQUEST_CANCELLED: i32 = -32800;
    /// hypermcp: the HTTP client could not get the authorization the server requires (OAuth
    /// failed, or no `auth` option answers its `401`); never sent on the wire.
    pub const UNAUTHORIZED: i32 = -32011;
    /// MCP 2026-07-28: HTTP headers that do not match the body, or are missing.
    pub const HEADER_MISMATCH: i32 = -32020;
    /// MCP 2026-07-28: the request needs a client capability it did not declare.
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// MCP 2026-07-28: the requested protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
    /// hypermcp: the rate limiting middleware refused the request; `data.retryAfterMs`
    /// says when a token comes back.
    pub const RATE_LIMITED: i32 = -32029;
}

/// A JSON-RPC error object: `{code, message, data?}`. Also the error type of handler code
/// that wants to answer with a protocol error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RpcError {
    /// The error code (see [`codes`]).
    pub code: i32,
    /// A short description.
    pub message: String,
    /// Extra information, e.g. which argument was wrong.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl RpcError {
    /// An error with a code and message.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        RpcError { code, message: message.into(), data: None }
    }
    /// Adds `data`.
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
    /// -32700.
    pub fn parse_error(detail: impl fmt::Display) -> Self {
        Self::new(codes::PARSE_ERROR, format!("Parse error: {detail}"))
    }
    /// -32600.
    pub fn invalid_request(detail: impl fmt::Display) -> Self {
        Self::new(codes::INVALID_REQUEST, format!("Invalid Request: {detail}"))
    }
    /// -32601, naming the method.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(codes::METHOD_NOT_FOUND, format!("Method not found: {method}"))
            .with_data(serde_json::json!({ "method": method }))
    }
    /// -32602.
    pub fn invalid_params(detail: impl fmt::Display) -> Self {
        Self::new(codes::INVALID_PARAMS, format!("Invalid params: {detail}"))
    }
    /// -32603.
    pub fn internal(detail: impl fmt::Display) -> Self {
        Self::new(codes::INTERNAL_ERROR, format!("Internal error: {detail}"))
    }
    /// -32002 with the uri in `data`.
    pub fn resource_not_found(uri: &str) -> Self {
        Self::new(codes::RESOURCE_NOT_FOUND, format!("Resource not found: {uri}"))
            .with_data(serde_json::json!({ "uri": uri }))
    }
    /// -32602 for a tool the server does not have, with the name in `data`.
    pub fn unknown_tool(name: &str) -> Self {
        Self::invalid_params(format!("Unknown tool: {name}")).with_data(serde_json::json!({ "name": name }))
    }
    /// -32602 for a prompt the server does not have, with the name in `data`.
    pub fn unknown_prompt(name: &str) -> Self {
        Self::invalid_params(format!("Unknown prompt: {name}")).with_data(serde_json::json!({ "name": name }))
    }
}

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (code {})", self.message, self.code)
    }
}

impl std::error::Error for RpcError {}
