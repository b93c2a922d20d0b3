//! Parsing one JSON-RPC message (or batch) into borrowed envelopes, with the error that
//! JSON-RPC 2.0 prescribes for each kind of bad input.

use super::{RequestId, RpcError};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// Deepest nesting of arrays and objects accepted in a message.
pub const MAX_DEPTH: usize = 128;

/// A parsed message: the fields of a JSON-RPC object, borrowed from the input.
#[derive(Debug)]
pub struct Envelope<'a> {
    /// The id (`None` for a notification).
    pub id: Option<RequestId>,
    /// The method, for requests and notifications.
    pub method: Option<Cow<'a, str>>,
    /// Raw `params`.
    pub params: Option<&'a RawValue>,
    /// Raw `result`, for responses.
    pub result: Option<&'a RawValue>,
    /// The `error` object, for error responses.
    pub error: Option<RpcError>,
}

/// What one line or body held.
#[derive(Debug)]
pub enum Incoming<'a> {
    /// One message.
    Single(Envelope<'a>),
    /// A batch: the raw elements, each to be parsed with [`parse_message`].
    Batch(Vec<&'a RawValue>),
}

/// A message that could not be accepted, and the error response it deserves (`id` is the
/// request's id when it could be read, else the response goes out with `id: null`).
#[derive(Debug)]
pub struct ParseFailure {
    /// The request id, if it could be recovered.
    pub id: Option<RequestId>,
    /// The error to answer with.
    pub error: RpcError,
}

#[derive(Deserialize)]
struct RawEnvelope<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// Keeps an explicit `null` as `Some("null")` (plain `Option` would fold it into "absent").
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue>::deserialize(d).map(Some)
}

/// A JSON string, borrowed from the input when it holds no escape. (serde's own `Cow<str>`
/// always makes a copy: an allocation for every method name and key read that way.)
pub(crate) struct JsonStr<'de>(pub(crate) Cow<'de, str>);

impl<'de> Deserialize<'de> for JsonStr<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(s))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(s.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, s: String) -> Result<Self::Value, E> {
                Ok(Cow::Owned(s))
            }
        }
        d.deserialize_str(V).map(JsonStr)
    }
}

/// The string `raw` holds (borrowed when it has no escape); `None` when it is not a string.
pub(crate) fn json_str(raw: &RawValue) -> Option<Cow<'_, str>> {
    serde_json::from_str::<JsonStr<'_>>(raw.get()).ok().map(|s| s.0)
}

fn fail(id: Option<RequestId>, error: RpcError) -> ParseFailure {
    ParseFailure { id, error }
}

/// The number of `[` and `{` bytes, eight at a time: `[` is 0x5B and `{` 0x7B, so with bit
/// 0x20 set both are 0x7B; a byte is counted when its XOR with 0x7B is zero (an exact
/// zero-byte count, no false positives from borrows).
fn openers(bytes: &[u8]) -> usize {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let chunks = bytes.chunks_exact(8);
    let tail = chunks.remainder().iter().filter(|&&b| b | 0x20 == b'{').count();
    chunks.fold(tail, |n, c| {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let y = (w | 0x2020_2020_2020_2020) ^ 0x7b7b_7b7b_7b7b_7b7b;
        // A byte's high bit ends up set exactly when the byte of y was zero.
        n + (!(((y & LOW7) + LOW7) | y | LOW7)).count_ones() as usize
    })
}

/// Checks that arrays/objects nest no deeper than [`MAX_DEPTH`]. Strings are skipped.
fn depth_ok(bytes: &[u8]) -> bool {
    // Nesting never exceeds the number of `[` and `{` bytes, and almost every message has
    // fewer than MAX_DEPTH of them: counting them costs about one instruction a byte, where
    // the walk below costs several.
    if openers(bytes) <= MAX_DEPTH {
        return true;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return false;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        i += 1;
    }
    true
}

/// Parses one message or batch.
pub fn parse_message(bytes: &[u8]) -> Result<Incoming<'_>, ParseFailure> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            return Err(fail(None, RpcError::parse_error(format!("invalid UTF-8 at byte {}", e.valid_up_to()))));
        }
    };
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace()).copied();
    if !depth_ok(bytes) {
        return Err(fail(None, RpcError::parse_error(format!("nesting deeper than {MAX_DEPTH} levels"))));
    }
    match first {
        Some(b'{') => parse_object_str(text).map(Incoming::Single),
        Some(b'[') => match serde_json::from_str::<Vec<&RawValue>>(text) {
            Ok(items) if items.is_empty() => Err(fail(None, RpcError::invalid_request("empty batch"))),
            Ok(items) => Ok(Incoming::Batch(items)),
            Err(e) => Err(classify(e)),
        },
        _ => match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Ok(_) => Err(fail(None, RpcError::invalid_request("a message must be a JSON object or array"))),
            Err(e) => Err(classify(e)),
        },
    }
}

fn classify(e: serde_json::Error) -> ParseFailure {
    use serde_json::error::Category;
    match e.classify() {
        Category::Data => fail(None, RpcError::invalid_request(e)),
        _ => fail(None, RpcError::parse_error(e)),
    }
}

/// Parses one JSON-RPC object (a batch element, or a whole message) from text already
/// known to be UTF-8: serde_json then does not check every field's bytes again (a third of
/// the cost of parsing a small request).
pub fn parse_object_str(text: &str) -> Result<Envelope<'_>, ParseFailure> {
    let raw: RawEnvelope<'_> = match serde_json::from_str(text) {
        Ok(r) => r,
        Err(e) => {
            // Valid JSON of the wrong shape (an array element that is not an object, a
            // duplicate field) is an Invalid Request; broken JSON a Parse error.
            return Err(classify(e));
        }
    };
    let id = match raw.id {
        None => None,
        // An error response about a message whose id could not be read: JSON-RPC gives it
        // `id: null`. It is a response, never to be answered.
        Some(r) if r.get() == "null" && raw.method.is_none() && raw.error.is_some() => None,
        Some(r) => match RequestId::from_raw(r.get()) {
            Some(id) => Some(id),
            None => {
                let why = if r.get() == "null" {
                    "id must be a string or an integer, not null"
                } else {
                    "id must be a string or an integer"
                };
                return Err(fail(None, RpcError::invalid_request(why)));
            }
        },
    };
    if raw.jsonrpc.map(|j| j.get()) != Some("\"2.0\"") {
        return Err(fail(id, RpcError::invalid_request("\"jsonrpc\" must be exactly \"2.0\"")));
    }
    let method = match raw.method {
        None => None,
        Some(m) => match json_str(m) {
            Some(m) => Some(m),
            None => return Err(fail(id, RpcError::invalid_request("\"method\" must be a string"))),
        },
    };
    if let Some(p) = raw.params {
        let c = p.get().as_bytes().first();
        if method.is_some() && c != Some(&b'{') && c != Some(&b'[') {
            return Err(fail(id, RpcError::invalid_request("\"params\" must be an object or array")));
        }
    }
    let error = match raw.error {
        None => None,
        Some(e) => match serde_json::from_str::<RpcError>(e.get()) {
            Ok(e) => Some(e),
            Err(_) => return Err(fail(id, RpcError::invalid_request("malformed error object"))),
        },
    };
    match (&method, raw.result.is_some() || error.is_some()) {
        (Some(_), true) => {
            Err(fail(id, RpcError::invalid_request("a message cannot have both method and result/error")))
        }
        (None, false) => Err(fail(id, RpcError::invalid_request("missing \"method\""))),
        (None, true) if id.is_none() && error.is_none() => {
            Err(fail(None, RpcError::invalid_request("response without id")))
        }
        _ => Ok(Envelope { id, method, params: raw.params, result: raw.result, error }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jsonrpc::codes;

    fn code(input: &str) -> (i32, Option<RequestId>) {
        let f = parse_message(input.as_bytes()).err().unwrap_or_else(|| panic!("should fail: {input}"));
        (f.error.code, f.id)
    }

    #[test]
    fn classifies_bad_input() {
        assert_eq!(code("{\"jsonrpc\":\"2.0\",\"id\":").0, codes::PARSE_ERROR);
        assert_eq!(code("not json").0, codes::PARSE_ERROR);
        assert_eq!(code("42"), (codes::INVALID_REQUEST, None));
        assert_eq!(code("[]"), (codes::INVALID_REQUEST, None));
        assert_eq!(
            code("{\"jsonrpc\":\"1.0\",\"id\":2,\"method\":\"ping\"}"),
            (codes::INVALID_REQUEST, Some(2.into()))
        );
        assert_eq!(code("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}"), (codes::INVALID_REQUEST, None));
        assert_eq!(code("{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}"), (codes::INVALID_REQUEST, None));
        assert_eq!(code("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":7}"), (codes::INVALID_REQUEST, Some(3.into())));
        assert_eq!(code("{\"jsonrpc\":\"2.0\",\"id\":3}"), (codes::INVALID_REQUEST, Some(3.into())));
        let deep = "[".repeat(10_000) + &"]".repeat(10_000);
        assert_eq!(code(&deep), (codes::PARSE_ERROR, None));
        let deep_obj = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{}1{}}}",
            "[".repeat(500),
            "]".repeat(500)
        );
        assert_eq!(code(&deep_obj).0, codes::PARSE_ERROR);
        assert_eq!(parse_message(b"\xff\xfe").err().unwrap().error.code, codes::PARSE_ERROR);
        assert_eq!(
            parse_message(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}").err().unwrap().error.code,
            codes::PARSE_ERROR
        );
    }

    #[test]
    fn openers_counts_every_bracket_and_brace() {
        for len in 0..40 {
            for pos in 0..len {
                for (b, want) in [(b'[', 1), (b'{', 1), (b']', 0), (b'}', 0), (b'a', 0), (0xdb, 0), (0xfb, 0)] {
                    let mut v = vec![b'x'; len];
                    v[pos] = b;
                    assert_eq!(openers(&v), want, "{v:?}");
                }
            }
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(openers(&all), 2);
        assert_eq!(openers(b"[[{{x{[[]"), 7);
    }

    #[test]
    fn nesting_limit_counts_levels_not_brackets() {
        // `{` plus n - 1 arrays around the params value: n levels.
        let nested = |n: usize| {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{}{}}}",
                "[".repeat(n - 1),
                "]".repeat(n - 1)
            )
        };
        assert!(parse_message(nested(MAX_DEPTH).as_bytes()).is_ok());
        assert_eq!(parse_message(nested(MAX_DEPTH + 1).as_bytes()).err().unwrap().error.code, codes::PARSE_ERROR);
        // More brackets than MAX_DEPTH, but inside a string or side by side: two levels deep.
        let in_string =
            format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{{\"t\":\"{}\"}}}}", "[{".repeat(300));
        assert!(parse_message(in_string.as_bytes()).is_ok());
        let side_by_side =
            format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":[{}[]]}}", "[],".repeat(300));
        assert!(parse_message(side_by_side.as_bytes()).is_ok());
    }

    #[test]
    fn parses_messages() {
        let m = parse_message(br#"{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"a":1}}"#).unwrap();
        let Incoming::Single(e) = m else { panic!() };
        assert_eq!(e.id, Some("x".into()));
        assert_eq!(e.method.as_deref(), Some("tools/call"));
        assert_eq!(e.params.unwrap().get(), "{\"a\":1}");
        let m = parse_message(br#"[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"result":{}}]"#).unwrap();
        let Incoming::Batch(items) = m else { panic!() };
        assert_eq!(items.len(), 2);
        let e = parse_object_str(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"m"}}"#).unwrap();
        assert_eq!(e.error.unwrap().code, -1);
    }
}
