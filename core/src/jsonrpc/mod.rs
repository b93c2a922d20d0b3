//! JSON-RPC 2.0: ids, error objects and codes, envelope parsing, response writing and the
//! newline framing used by stdio.
//!
//! Parsing borrows from the input: the method is a `&str` into the line and `params`, `result`
//! and `error` stay raw JSON until the engine knows what type they should be.

mod codec;
mod error;
pub(crate) mod fastser;
mod id;
pub(crate) use id::write_i64;
pub(crate) mod message;
pub(crate) mod validate;

pub use codec::{Frame, LineCodec, DEFAULT_MAX_MESSAGE_SIZE};
pub use error::{codes, RpcError};
pub use id::RequestId;
pub use message::{parse_message, Envelope, Incoming, ParseFailure};
pub use validate::RawJson;

/// Appends `{"jsonrpc":"2.0","id":<id>,"result":<result>}` to `out` (no newline).
pub fn write_result_raw(out: &mut Vec<u8>, id: &RequestId, result: &[u8]) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    id.write_json(out);
    out.extend_from_slice(b",\"result\":");
    out.extend_from_slice(result);
    out.push(b'}');
}

/// Appends a result response whose `result` is serialised from `value`.
pub fn write_result<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, id: &RequestId, value: &T) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    id.write_json(out);
    out.extend_from_slice(b",\"result\":");
    if fastser::to_writer(out, value).is_err() {
        // Serialising our own types cannot fail except for non-string map keys, which the
        // types here never have; keep the message well formed regardless.
        out.extend_from_slice(b"{}");
    }
    out.push(b'}');
}

/// Appends an error response; `id` is `None` for errors about messages whose id is unknown.
pub fn write_error(out: &mut Vec<u8>, id: Option<&RequestId>, error: &RpcError) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        Some(id) => id.write_json(out),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"error\":");
    let _ = fastser::to_writer(out, error);
    out.push(b'}');
}

/// Appends a request `{"jsonrpc":"2.0","id":..,"method":..,"params":..}`.
pub fn write_request<T: serde::Serialize + ?Sized>(
    out: &mut Vec<u8>,
    id: &RequestId,
    method: &str,
    params: Option<&T>,
) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    id.write_json(out);
    write_method_params(out, method, params);
}

/// Appends a notification `{"jsonrpc":"2.0","method":..,"params":..}`.
pub fn write_notification<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, method: &str, params: Option<&T>) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\"");
    write_method_params(out, method, params);
}

fn write_method_params<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, method: &str, params: Option<&T>) {
    out.extend_from_slice(b",\"method\":");
    fastser::write_str(out, method);
    if let Some(p) = params {
        out.extend_from_slice(b",\"params\":");
        if fastser::to_writer(out, p).is_err() {
            out.extend_from_slice(b"{}");
        }
    }
    out.push(b'}');
}
