//! Request ids: a string or an integer, never null (MCP forbids null ids).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::sync::Arc;

/// A JSON-RPC request id as MCP allows it: a string or an integer.
///
/// Also used for progress tokens, which have the same shape.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(Arc<str>),
}

impl RequestId {
    /// Parses an id from its raw JSON text; `None` for null, floats, objects and the like.
    pub fn from_raw(raw: &str) -> Option<RequestId> {
        let b = raw.as_bytes();
        match b.first()? {
            b'"' => serde_json::from_str::<String>(raw).ok().map(|s| RequestId::String(s.into())),
            b'-' | b'0'..=b'9' => raw.parse::<i64>().ok().map(RequestId::Number),
            _ => None,
        }
    }

    /// Writes the id as JSON.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        match self {
            RequestId::Number(n) => write_i64(out, *n),
            RequestId::String(s) => {
                super::fastser::write_str(out, s);
            }
        }
    }

    /// The id as a JSON value.
    pub fn to_value(&self) -> serde_json::Value {
        match self {
            RequestId::Number(n) => (*n).into(),
            RequestId::String(s) => serde_json::Value::String(s.to_string()),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.into())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s.into())
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

/// Appends `n` in decimal (JSON's integer form; the HTTP server's lengths too).
pub(crate) fn write_i64(out: &mut Vec<u8>, n: i64) {
    let mut bytes = [0u8; 20];
    let mut i = bytes.len();
    let mut v = n.unsigned_abs();
    loop {
        i -= 1;
        bytes[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    if n < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(&bytes[i..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_writes_ids() {
        for raw in ["0", "-1", "42", "9223372036854775807", "-9223372036854775808", "\"a\\\"b\""] {
            let id = RequestId::from_raw(raw).unwrap();
            let mut out = Vec::new();
            id.write_json(&mut out);
            assert_eq!(std::str::from_utf8(&out).unwrap(), raw);
        }
        for bad in ["null", "1.5", "{}", "[]", "true", ""] {
            assert_eq!(RequestId::from_raw(bad), None, "{bad}");
        }
    }
}
