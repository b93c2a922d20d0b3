//! How a 2026-07-28 result is written: `resultType`, caching hints and the server's
//! identity in front of the members of cached bytes or of a serialized value.

use crate::jsonrpc::fastser;
use crate::protocol::{meta_keys, CacheHints, Meta};
use serde_json::Value;

/// Writes a result response whose `result` object is `fields` (JSON members, without
/// braces) followed by the members of the object `body`: how modern results get
/// `resultType`, caching hints and `_meta` in front of cached or serialized bytes.
pub(crate) fn write_stamped(out: &mut Vec<u8>, id: &crate::jsonrpc::RequestId, fields: &[u8], body: &[u8]) {
    open_result(out, id, fields);
    let rest = body.strip_prefix(b"{").unwrap_or(body);
    if rest.first() != Some(&b'}') {
        out.push(b',');
    }
    out.extend_from_slice(rest);
    out.push(b'}');
}

/// The answer up to the result's first members: `{"jsonrpc":"2.0","id":ID,"result":{FIELDS`.
fn open_result(out: &mut Vec<u8>, id: &crate::jsonrpc::RequestId, fields: &[u8]) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    id.write_json(out);
    out.extend_from_slice(b",\"result\":{");
    out.extend_from_slice(fields);
}

/// [`write_stamped`] of a value serialized straight into `out` (no copy of its own): the
/// value's opening brace becomes the separator after `fields`.
pub(super) fn write_result_stamped<T: serde::Serialize + ?Sized>(
    out: &mut Vec<u8>,
    id: &crate::jsonrpc::RequestId,
    fields: &[u8],
    value: &T,
) {
    open_result(out, id, fields);
    let start = out.len();
    let written = fastser::to_writer(out, value).is_ok();
    match out.get(start..start + 2) {
        Some([b'{', b'}']) => out.truncate(start),
        Some([b'{', _]) if written => {
            out[start] = b',';
            out.pop(); // its closing brace; the result's comes below
        }
        _ => out.truncate(start), // not an object (never a result): the fields alone
    }
    out.extend_from_slice(b"}}");
}

/// The members a modern result starts with: `resultType`, caching hints when the result is
/// cacheable, and `_meta` with the server's identity (`identity` is its JSON, or empty).
pub(crate) fn stamp(hints: Option<CacheHints>, identity: &[u8]) -> Vec<u8> {
    let mut s = b"\"resultType\":\"complete\"".to_vec();
    if let Some(h) = hints {
        s.extend_from_slice(
            format!(",\"ttlMs\":{},\"cacheScope\":\"{}\"", h.ttl_ms, h.cache_scope.as_str()).as_bytes(),
        );
    }
    if !identity.is_empty() {
        s.extend_from_slice(b",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":");
        s.extend_from_slice(identity);
        s.push(b'}');
    }
    s
}

/// `_meta` with the server's identity added.
pub(crate) fn identify(meta: &mut Option<Meta>, identity: &Value) {
    if !identity.is_null() {
        meta.get_or_insert_with(Default::default).insert(meta_keys::SERVER_INFO.into(), identity.clone());
    }
}
