//! Validation of response lines.
//!
//! The fast path deserializes a line into a map of borrowed keys to borrowed
//! raw JSON values: the whole line is still validated as JSON, but no value
//! tree is built. Lines that the fast path cannot borrow (keys with escape
//! sequences) fall back to a full `serde_json::Value` parse.

use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;

/// What a line read from the child turned out to be.
#[derive(Debug, PartialEq, Eq)]
pub enum Reply {
    /// A message from the server that is not a response (it has a
    /// `method`): a notification or a server-to-client request. Skipped.
    Message,
    /// A successful response (or, in floor mode, an echoed line) with this id.
    Ok(u64),
    /// A failed or malformed response; the id if one could be read.
    Bad(Option<u64>, String),
}

/// The parts of a message that matter, from either parsing path.
struct Fields {
    /// `None`: no id; `Some(Err)`: the raw id text, not a non-negative integer.
    id: Option<Result<u64, String>>,
    has_method: bool,
    /// The raw `error` member, if any.
    error: Option<String>,
    /// `None`: no `result`; `Some(is_error)`: a result, and whether it is an
    /// object with `"isError": true`.
    result: Option<bool>,
}

type Borrowed<'a> = BTreeMap<&'a str, &'a RawValue>;

fn shorten(s: &str) -> String {
    const MAX: usize = 200;
    if s.len() <= MAX {
        return s.to_owned();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", &s[..end])
}

fn fields_fast(obj: &Borrowed<'_>) -> Fields {
    Fields {
        id: obj.get("id").map(|raw| {
            let text = raw.get();
            text.parse::<u64>().map_err(|_| text.to_owned())
        }),
        has_method: obj.contains_key("method"),
        error: obj.get("error").map(|raw| raw.get().to_owned()),
        result: obj.get("result").map(|raw| {
            let text = raw.get();
            if !text.starts_with('{') {
                return false;
            }
            match serde_json::from_str::<Borrowed<'_>>(text) {
                Ok(res) => res.get("isError").is_some_and(|v| v.get() == "true"),
                Err(_) => {
                    serde_json::from_str::<Value>(text).is_ok_and(|v| v.get("isError") == Some(&Value::Bool(true)))
                }
            }
        }),
    }
}

fn fields_slow(v: &Value) -> Option<Fields> {
    let obj = v.as_object()?;
    Some(Fields {
        id: obj.get("id").map(|id| id.as_u64().ok_or_else(|| id.to_string())),
        has_method: obj.contains_key("method"),
        error: obj.get("error").map(Value::to_string),
        result: obj.get("result").map(|r| r.get("isError") == Some(&Value::Bool(true))),
    })
}

/// Classifies one line (without its newline).
///
/// In `floor` mode the line is an echo of our own request: it only has to be
/// JSON with an integer id. Otherwise it must be a JSON-RPC response with an
/// integer id and a `result` that is not `"isError": true`.
pub fn classify(line: &[u8], floor: bool) -> Reply {
    let fields = match serde_json::from_slice::<Borrowed<'_>>(line) {
        Ok(obj) => fields_fast(&obj),
        Err(_) => match serde_json::from_slice::<Value>(line) {
            Ok(v) => match fields_slow(&v) {
                Some(f) => f,
                None => {
                    return Reply::Bad(None, format!("not a JSON object: {}", shorten(&String::from_utf8_lossy(line))))
                }
            },
            Err(e) => {
                return Reply::Bad(None, format!("invalid JSON ({e}): {}", shorten(&String::from_utf8_lossy(line))))
            }
        },
    };
    if !floor && fields.has_method && fields.result.is_none() && fields.error.is_none() {
        return Reply::Message;
    }
    let id = match fields.id {
        Some(Ok(id)) => id,
        Some(Err(raw)) => return Reply::Bad(None, format!("id is not a non-negative integer: {}", shorten(&raw))),
        None => return Reply::Bad(None, format!("message without id: {}", shorten(&String::from_utf8_lossy(line)))),
    };
    if floor {
        return Reply::Ok(id);
    }
    if let Some(err) = fields.error {
        return Reply::Bad(Some(id), format!("error response: {}", shorten(&err)));
    }
    match fields.result {
        None => Reply::Bad(Some(id), "response has neither result nor error".into()),
        Some(true) => Reply::Bad(
            Some(id),
            format!("tool result has \"isError\": true: {}", shorten(&String::from_utf8_lossy(line))),
        ),
        Some(false) => Reply::Ok(id),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(s: &str) -> Reply {
        classify(s.as_bytes(), false)
    }

    #[test]
    fn ok_responses() {
        assert_eq!(
            c(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}"#),
            Reply::Ok(7)
        );
        assert_eq!(c(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[],"isError":false}}"#), Reply::Ok(7));
        assert_eq!(c(r#" {"id":0,"result":{}} "#), Reply::Ok(0));
        // Escaped key forces the slow path.
        assert_eq!(c(r#"{"i\u0064":3,"result":{"isError":false}}"#), Reply::Ok(3));
        assert_eq!(c(r#"{"id":3,"result":{"is\u0045rror":false}}"#), Reply::Ok(3));
    }

    #[test]
    fn failures() {
        assert!(matches!(c(r#"{"id":7,"result":{"content":[],"isError":true}}"#), Reply::Bad(Some(7), _)));
        assert!(matches!(c(r#"{"id":3,"result":{"is\u0045rror":true}}"#), Reply::Bad(Some(3), _)));
        assert!(matches!(c(r#"{"i\u0064":3,"result":{"isError":true}}"#), Reply::Bad(Some(3), _)));
        assert!(matches!(c(r#"{"id":7,"error":{"code":-32601,"message":"nope"}}"#), Reply::Bad(Some(7), _)));
        assert!(matches!(c(r#"{"id":7}"#), Reply::Bad(Some(7), _)));
        assert!(matches!(c(r#"{"id":"7","result":{}}"#), Reply::Bad(None, _)));
        assert!(matches!(c(r#"{"id":7.5,"result":{}}"#), Reply::Bad(None, _)));
        assert!(matches!(c(r#"{"id":-1,"result":{}}"#), Reply::Bad(None, _)));
        assert!(matches!(c(r#"{"result":{}}"#), Reply::Bad(None, _)));
        assert!(matches!(c(r#"{"id":7,"result":{}"#), Reply::Bad(None, _)));
        assert!(matches!(c("[1,2]"), Reply::Bad(None, _)));
        assert!(matches!(c("hello"), Reply::Bad(None, _)));
    }

    #[test]
    fn server_messages_are_skipped() {
        assert_eq!(c(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#), Reply::Message);
        assert_eq!(c(r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#), Reply::Message);
    }

    #[test]
    fn floor_checks_only_the_id() {
        let line =
            br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}"#;
        assert_eq!(classify(line, true), Reply::Ok(42));
        assert!(matches!(classify(b"garbage", true), Reply::Bad(None, _)));
    }
}
