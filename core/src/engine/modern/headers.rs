//! The request metadata headers of 2026-07-28 over HTTP (`MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name`, `Mcp-Param-{Name}`): what the transport read, and the checks of
//! them against the body (-32020 where they disagree).

use crate::catalogue::ToolEntry;
use crate::jsonrpc::message::json_str_text;
use crate::jsonrpc::{codes, RpcError};
use crate::protocol::{Era, ProtocolVersion};
use serde_json::Value;

/// What the HTTP transport read from a request's headers, for the engine to check against
/// the body (2026-07-28, "Request Metadata"). Values are as received (Base64 sentinels
/// still encoded).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestHeaders {
    /// `MCP-Protocol-Version`.
    pub protocol_version: Option<String>,
    /// `Mcp-Method`.
    pub method: Option<String>,
    /// `Mcp-Name`.
    pub name: Option<String>,
    /// `Mcp-Param-{Name}` headers: the name part (as sent) and the value.
    pub params: Vec<(String, String)>,
}

/// -32020: a header does not match the body, or a required one is missing.
pub fn header_mismatch(detail: impl std::fmt::Display) -> RpcError {
    RpcError::new(codes::HEADER_MISMATCH, format!("Header mismatch: {detail}"))
}

/// Decodes a header value that may use the Base64 sentinel (`=?base64?…?=`); a plain value
/// is borrowed.
pub(crate) fn decode_header_value(v: &str) -> Option<std::borrow::Cow<'_, str>> {
    match v.strip_prefix("=?base64?").and_then(|rest| rest.strip_suffix("?=")) {
        Some(b64) => {
            crate::util::base64_decode_strict(b64).and_then(|bytes| String::from_utf8(bytes).ok()).map(Into::into)
        }
        None => Some(v.into()),
    }
}

/// The value `Mcp-Name` mirrors for `method` (`params.name` or `params.uri`).
pub(super) fn name_field(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

/// `Mcp-Method` and `Mcp-Name` against the body.
pub(super) fn check_standard_headers(method: &str, named: Option<&str>, h: &RequestHeaders) -> Result<(), RpcError> {
    match &h.method {
        None => return Err(header_mismatch("the Mcp-Method header is missing")),
        Some(m) if m != method => {
            return Err(header_mismatch(format!("Mcp-Method header {m:?} does not match body method {method:?}")))
        }
        Some(_) => {}
    }
    let Some(field) = name_field(method) else { return Ok(()) };
    // A name that is not a string: the handler reports it.
    let Some(body) = named.and_then(json_str_text) else {
        return Ok(());
    };
    match &h.name {
        None => Err(header_mismatch("the Mcp-Name header is missing")),
        Some(raw) => match decode_header_value(raw) {
            None => Err(header_mismatch(format!("Mcp-Name header {raw:?} is not valid Base64 UTF-8"))),
            Some(name) if name != body => {
                Err(header_mismatch(format!("Mcp-Name header value {name:?} does not match body {field} {body:?}")))
            }
            Some(_) => Ok(()),
        },
    }
}

/// `Mcp-Param-{Name}` headers of a `tools/call` against its arguments, for the parameters
/// the tool's input schema annotates with `x-mcp-header`.
pub(crate) fn check_param_headers(tool: &ToolEntry, arguments: &Value, h: &RequestHeaders) -> Result<(), RpcError> {
    for p in tool.header_params() {
        let sent = h.params.iter().find(|(n, _)| n.eq_ignore_ascii_case(&p.header)).map(|(_, v)| v.as_str());
        let value = p.path.iter().try_fold(arguments, |v, key| v.get(key)).filter(|v| !v.is_null());
        match (value, sent) {
            (None, None) => {}
            (None, Some(_)) => {
                return Err(header_mismatch(format!("Mcp-Param-{} header sent for an absent argument", p.header)))
            }
            (Some(_), None) => return Err(header_mismatch(format!("the Mcp-Param-{} header is missing", p.header))),
            (Some(v), Some(raw)) => {
                let Some(text) = decode_header_value(raw) else {
                    return Err(header_mismatch(format!("Mcp-Param-{} header is not valid Base64 UTF-8", p.header)));
                };
                let matches = match v {
                    Value::String(s) => *s == text,
                    Value::Bool(b) => text == if *b { "true" } else { "false" },
                    Value::Number(n) => text.parse::<f64>().ok().is_some_and(|x| Some(x) == n.as_f64()),
                    _ => false,
                };
                if !matches {
                    return Err(header_mismatch(format!(
                        "Mcp-Param-{} header value {text:?} does not match the argument {v}",
                        p.header
                    )));
                }
            }
        }
    }
    Ok(())
}

impl RequestHeaders {
    /// Whether `MCP-Protocol-Version` names a revision of the stateless era.
    pub fn declares_modern(&self) -> bool {
        self.protocol_version
            .as_deref()
            .and_then(|v| v.parse::<ProtocolVersion>().ok())
            .is_some_and(|v| v.era() == Era::Modern)
    }
}
