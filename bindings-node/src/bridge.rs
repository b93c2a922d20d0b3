//! Events and payloads as JSON text.

use hypermcp::engine::{Event, Invocation};
use serde_json::{json, Value};

/// The common event encodings (both sides); `None` for `Invoke`, which each side encodes.
pub fn common_event(ev: &Event) -> Option<Value> {
    Some(match ev {
        Event::Invoke(_) => return None,
        Event::Cancelled { key, reason } => json!(["cancelled", key.0, reason]),
        Event::Response { id, result } => match result {
            Ok(v) => json!(["response", id.0, true, v]),
            Err(e) => json!(["response", id.0, false, e]),
        },
        Event::Progress { id, progress, total, message } => json!(["progress", id.0, progress, total, message]),
        Event::Initialized => json!(["initialized"]),
        Event::Notification { method, params } => json!(["notification", method, params]),
    })
}

/// `[kind, key, id, progressToken, meta, ...rest]`.
pub fn invocation(kind: &str, inv: &Invocation, rest: Vec<Value>) -> Value {
    let mut v = vec![
        Value::from(kind),
        Value::from(inv.key.0),
        inv.id.to_value(),
        inv.progress_token.as_ref().map(|t| t.to_value()).unwrap_or(Value::Null),
        inv.meta.clone().map(Value::Object).unwrap_or(Value::Null),
    ];
    v.extend(rest);
    Value::Array(v)
}

/// Parses JSON text from JS, naming what it was for errors.
pub fn parse<T: serde::de::DeserializeOwned>(text: &str, what: &str) -> napi::Result<T> {
    serde_json::from_str(text).map_err(|e| napi::Error::from_reason(format!("invalid {what}: {e}")))
}
