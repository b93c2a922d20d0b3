//! Validation of response lines.
//!
//! The fast path deserializes a line into a map of borrowed keys to borrowed
//! raw JSON values: the whole line is still validated as JSON, but no value
//! tree is built. Lines that the fast path cannot borrow (keys with escape
//! sequences) fall back to a full `serde_json::Value` parse.
//!
//! The `tools/list` and `resources/read` checks ([`classify_expect`]) read a line in one
//! pass with typed visitors that only count the tools and measure the text: a 1 MiB answer
//! is scanned once and nothing of it is copied.

use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt;

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

/// What the result of a successful response must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    /// A tool call: any result that is not `"isError": true` (see [`classify`]).
    Call,
    /// `tools/list`: `result.tools` is an array of exactly this many entries.
    Tools(usize),
    /// `resources/read`: `result.contents[0].text` is a string of this many bytes.
    TextBytes(usize),
}

/// Classifies one line (without its newline) as [`classify`] does, checking the result
/// against `expect`. In `floor` mode only the id is checked, whatever `expect` says.
pub fn classify_expect(line: &[u8], floor: bool, expect: Expect) -> Reply {
    if floor || expect == Expect::Call {
        return classify(line, floor);
    }
    // (A derived struct would also accept an array.)
    if line.trim_ascii_start().first() != Some(&b'{') {
        return Reply::Bad(None, format!("not a JSON object: {}", shorten(&String::from_utf8_lossy(line))));
    }
    let msg: SizedMessage<'_> = match serde_json::from_slice(line) {
        Ok(m) => m,
        Err(e) => {
            let text = shorten(&String::from_utf8_lossy(line));
            return match serde_json::from_slice::<de::IgnoredAny>(line) {
                Ok(_) => Reply::Bad(None, format!("unexpected message shape ({e}): {text}")),
                Err(e) => Reply::Bad(None, format!("invalid JSON ({e}): {text}")),
            };
        }
    };
    if msg.method.is_some() && msg.result.is_none() && msg.error.is_none() {
        return Reply::Message;
    }
    let id = match msg.id.map(|raw| raw.get().parse::<u64>().map_err(|_| raw.get())) {
        Some(Ok(id)) => id,
        Some(Err(raw)) => return Reply::Bad(None, format!("id is not a non-negative integer: {}", shorten(raw))),
        None => return Reply::Bad(None, format!("message without id: {}", shorten(&String::from_utf8_lossy(line)))),
    };
    if let Some(err) = msg.error {
        return Reply::Bad(Some(id), format!("error response: {}", shorten(err.get())));
    }
    let Some(result) = msg.result else {
        return Reply::Bad(Some(id), "response has neither result nor error".into());
    };
    let problem = match (expect, result) {
        (_, SizedResult::NotObject) => Some("result is not an object".to_owned()),
        (Expect::Tools(want), SizedResult::Object { tools, .. }) => match tools {
            Some(Len::Array(n)) if n == want => None,
            Some(Len::Array(n)) => Some(format!("result.tools has {n} entries, expected {want}")),
            _ => Some("result.tools is not an array".to_owned()),
        },
        (Expect::TextBytes(want), SizedResult::Object { first_text, .. }) => match first_text {
            Some(FirstText::Text(n)) if n == want => None,
            Some(FirstText::Text(n)) => Some(format!("result.contents[0].text is {n} bytes, expected {want}")),
            Some(FirstText::Empty) => Some("result.contents is empty".to_owned()),
            Some(FirstText::NoText) => Some("result.contents[0] has no text string".to_owned()),
            None => Some("result.contents is not an array".to_owned()),
        },
        (Expect::Call, _) => unreachable!("handled by classify"),
    };
    match problem {
        None => Reply::Ok(id),
        Some(p) => Reply::Bad(Some(id), p),
    }
}

/// A response as [`classify_expect`] reads it: the result is not kept, only measured.
#[derive(serde::Deserialize)]
struct SizedMessage<'a> {
    #[serde(borrow, default)]
    id: Option<&'a RawValue>,
    #[serde(default)]
    method: Option<IgnoredAny>,
    #[serde(borrow, default)]
    error: Option<&'a RawValue>,
    #[serde(default)]
    result: Option<SizedResult>,
}

/// What `result` holds: `tools` counted, `contents[0].text` measured.
enum SizedResult {
    NotObject,
    Object { tools: Option<Len>, first_text: Option<FirstText> },
}

/// The length of an array (entries) or a string (bytes).
enum Len {
    Array(usize),
    Str(usize),
    Other,
}

/// What `contents` starts with (`None` around it: not an array).
enum FirstText {
    Empty,
    NoText,
    Text(usize),
}

/// Reads and drops whatever follows in a map or a sequence.
fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

/// Implements the visits of scalars for a visitor whose value for "anything else" is `$other`.
macro_rules! other_scalars {
    ($other:expr) => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
    };
}

impl<'de> Deserialize<'de> for Len {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Len;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            other_scalars!(Len::Other);
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Len, E> {
                Ok(Len::Str(v.len()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Len, A::Error> {
                let mut n = 0;
                while seq.next_element::<IgnoredAny>()?.is_some() {
                    n += 1;
                }
                Ok(Len::Array(n))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Len, A::Error> {
                drain_map(map).map(|()| Len::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// `contents[0]`: `Some(bytes)` of its `text` string, `None` without one.
struct ItemText(Option<usize>);

impl<'de> Deserialize<'de> for ItemText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ItemText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            other_scalars!(ItemText(None));
            fn visit_str<E: de::Error>(self, _: &str) -> Result<ItemText, E> {
                Ok(ItemText(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<ItemText, A::Error> {
                drain_seq(seq).map(|()| ItemText(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ItemText, A::Error> {
                let mut text = None;
                while let Some(key) = map.next_key::<Key>()? {
                    if key.0 == "text" {
                        // A `text` that is not a string counts as no text.
                        text = match map.next_value::<Len>()? {
                            Len::Str(n) => Some(n),
                            _ => None,
                        };
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(ItemText(text))
            }
        }
        d.deserialize_any(V)
    }
}

/// `contents`, whatever it is: `None` when it is not an array.
struct MaybeFirstText(Option<FirstText>);

impl<'de> Deserialize<'de> for MaybeFirstText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = MaybeFirstText;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            other_scalars!(MaybeFirstText(None));
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(MaybeFirstText(None))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let first = match seq.next_element::<ItemText>()? {
                    None => FirstText::Empty,
                    Some(ItemText(None)) => FirstText::NoText,
                    Some(ItemText(Some(n))) => FirstText::Text(n),
                };
                drain_seq(seq).map(|()| MaybeFirstText(Some(first)))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                drain_map(map).map(|()| MaybeFirstText(None))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for SizedResult {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = SizedResult;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            other_scalars!(SizedResult::NotObject);
            fn visit_str<E: de::Error>(self, _: &str) -> Result<SizedResult, E> {
                Ok(SizedResult::NotObject)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<SizedResult, A::Error> {
                drain_seq(seq).map(|()| SizedResult::NotObject)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SizedResult, A::Error> {
                let (mut tools, mut first_text) = (None, None);
                while let Some(key) = map.next_key::<Key>()? {
                    match &*key.0 {
                        "tools" => tools = Some(map.next_value::<Len>()?),
                        "contents" => first_text = map.next_value::<MaybeFirstText>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(SizedResult::Object { tools, first_text })
            }
        }
        d.deserialize_any(V)
    }
}

/// An object key, borrowed when it has no escapes.
struct Key<'de>(std::borrow::Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(v.into()))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(v.to_owned().into()))
            }
        }
        d.deserialize_str(V)
    }
}

/// The first round of a 2026-07-28 multi round-trip call (response `id`): an
/// `input_required` result whose `inputRequests` are all `elicitation/create`. Returns
/// their keys and the `requestState` to echo, if any.
pub fn input_required(message: &[u8], id: u64) -> Result<(Vec<String>, Option<String>), String> {
    // Read typed, borrowing the strings and skipping the requests' params: a value tree of
    // the whole answer cost more than the rest of the client's work on it.
    #[derive(serde::Deserialize)]
    struct Message<'a> {
        id: Option<u64>,
        #[serde(borrow)]
        result: Option<Result_<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Result_<'a> {
        #[serde(rename = "resultType", borrow)]
        result_type: Option<std::borrow::Cow<'a, str>>,
        #[serde(rename = "inputRequests", borrow)]
        input_requests: Option<BTreeMap<std::borrow::Cow<'a, str>, Request<'a>>>,
        #[serde(rename = "requestState", default, deserialize_with = "string_or_other")]
        request_state: Option<String>,
    }
    #[derive(serde::Deserialize)]
    struct Request<'a> {
        #[serde(borrow)]
        method: Option<std::borrow::Cow<'a, str>>,
    }
    /// `requestState` when a string (anything else counts as none, as before).
    fn string_or_other<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::String(s) => Some(s),
            _ => None,
        })
    }
    let whole = || match serde_json::from_slice::<Value>(message) {
        Ok(v) => shorten(&v.to_string()),
        Err(_) => shorten(&String::from_utf8_lossy(message)),
    };
    let m: Message = match serde_json::from_slice(message) {
        Ok(m) => m,
        Err(e) => {
            // Not the shape read here (say, a member of another type): the value's own words.
            return match serde_json::from_slice::<Value>(message) {
                Err(e) => Err(format!("invalid JSON ({e})")),
                Ok(_) => Err(format!("unexpected answer ({e}): {}", whole())),
            };
        }
    };
    if m.id != Some(id) {
        return Err(format!("not the response to {id}: {}", shorten(&String::from_utf8_lossy(message))));
    }
    let result = m.result.ok_or_else(|| format!("no result: {}", whole()))?;
    if result.result_type.as_deref() != Some("input_required") {
        return Err(format!("expected resultType input_required: {}", whole()));
    }
    let requests = result.input_requests.filter(|r| !r.is_empty());
    let requests = requests.ok_or_else(|| format!("no inputRequests: {}", whole()))?;
    if let Some((k, _)) = requests.iter().find(|(_, r)| r.method.as_deref() != Some("elicitation/create")) {
        return Err(format!("input request {k:?} is not an elicitation: {}", whole()));
    }
    Ok((requests.into_keys().map(|k| k.into_owned()).collect(), result.request_state))
}

#[cfg(test)]
mod tests {
    #[test]
    fn input_required_rounds() {
        let first = br#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","inputRequests":{"name":{"method":"elicitation/create","params":{}}},"requestState":"s1"}}"#;
        assert_eq!(input_required(first, 4), Ok((vec!["name".to_string()], Some("s1".to_string()))));
        let stateless = br#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"elicitation/create"}}}}"#;
        assert_eq!(input_required(stateless, 4), Ok((vec!["a".to_string()], None)));
        for (bad, why) in [
            (&br#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"input_required"}}"#[..], "not the response"),
            (br#"{"jsonrpc":"2.0","id":4,"result":{"content":[]}}"#, "expected resultType"),
            (br#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","inputRequests":{}}}"#, "no inputRequests"),
            (br#"{"jsonrpc":"2.0","id":4,"result":{"resultType":"input_required","inputRequests":{"r":{"method":"roots/list"}}}}"#, "not an elicitation"),
            (br#"{"jsonrpc":"2.0","id":4,"error":{"code":-32021,"message":"no"}}"#, "no result"),
            (b"nope", "invalid JSON"),
        ] {
            let err = input_required(bad, 4).unwrap_err();
            assert!(err.contains(why), "{err}");
        }
    }

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

    fn list(line: &str, n: usize) -> Reply {
        classify_expect(line.as_bytes(), false, Expect::Tools(n))
    }

    fn read(line: &str, n: usize) -> Reply {
        classify_expect(line.as_bytes(), false, Expect::TextBytes(n))
    }

    #[test]
    fn tools_list_counts_entries() {
        let tools: Vec<String> =
            (0..50).map(|i| format!(r#"{{"name":"tool_{i:02}","inputSchema":{{"type":"object"}}}}"#)).collect();
        let line = format!(r#"{{"jsonrpc":"2.0","id":9,"result":{{"tools":[{}]}}}}"#, tools.join(","));
        assert_eq!(list(&line, 50), Reply::Ok(9));
        assert!(matches!(list(&line, 49), Reply::Bad(Some(9), m) if m.contains("50 entries, expected 49")));
        assert_eq!(list(r#"{"id":1,"result":{"nextCursor":"x","tools":[]}}"#, 0), Reply::Ok(1));
        assert!(
            matches!(list(r#"{"id":1,"result":{"tools":{}}}"#, 0), Reply::Bad(Some(1), m) if m.contains("not an array"))
        );
        assert!(matches!(list(r#"{"id":1,"result":{"tools":"abc"}}"#, 3), Reply::Bad(Some(1), _)));
        assert!(matches!(list(r#"{"id":1,"result":{}}"#, 0), Reply::Bad(Some(1), _)));
        assert!(matches!(list(r#"{"id":1,"result":[1]}"#, 1), Reply::Bad(Some(1), m) if m.contains("not an object")));
        // Escaped keys are read too.
        assert_eq!(list(r#"{"i\u0064":2,"result":{"t\u006fols":[1,2]}}"#, 2), Reply::Ok(2));
    }

    #[test]
    fn resources_read_measures_the_text() {
        let text = "0123456789abcdef".repeat(64);
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":4,"result":{{"contents":[{{"uri":"bench://blob","mimeType":"text/plain","text":"{text}"}}]}}}}"#
        );
        assert_eq!(read(&line, 1024), Reply::Ok(4));
        assert!(matches!(read(&line, 1025), Reply::Bad(Some(4), m) if m.contains("1024 bytes, expected 1025")));
        // The length is of the decoded text: "\n" is one byte, "é" two.
        assert_eq!(read(r#"{"id":5,"result":{"contents":[{"text":"a\nb\u00e9"}]}}"#, 5), Reply::Ok(5));
        assert!(
            matches!(read(r#"{"id":5,"result":{"contents":[]}}"#, 0), Reply::Bad(Some(5), m) if m.contains("empty"))
        );
        assert!(matches!(
            read(r#"{"id":5,"result":{"contents":[{"blob":"AAAA"}]}}"#, 3),
            Reply::Bad(Some(5), m) if m.contains("no text")
        ));
        assert!(matches!(read(r#"{"id":5,"result":{"contents":[{"text":[1,2,3]}]}}"#, 3), Reply::Bad(Some(5), _)));
        assert!(matches!(read(r#"{"id":5,"result":{"contents":{"text":"abc"}}}"#, 3), Reply::Bad(Some(5), _)));
        // Only the first part counts.
        assert_eq!(read(r#"{"id":6,"result":{"contents":[{"text":"abc"},{"text":"x"},7]}}"#, 3), Reply::Ok(6));
    }

    #[test]
    fn sized_checks_share_the_rules() {
        for e in [Expect::Tools(1), Expect::TextBytes(1)] {
            let c = |s: &str| classify_expect(s.as_bytes(), false, e);
            assert_eq!(c(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#), Reply::Message);
            assert!(matches!(c(r#"{"id":7,"error":{"code":-32601,"message":"nope"}}"#), Reply::Bad(Some(7), _)));
            assert!(matches!(c(r#"{"id":7}"#), Reply::Bad(Some(7), _)));
            assert!(matches!(c(r#"{"id":"7","result":{}}"#), Reply::Bad(None, _)));
            assert!(matches!(c(r#"{"result":{}}"#), Reply::Bad(None, _)));
            assert!(matches!(c(r#"{"id":7,"result":{}"#), Reply::Bad(None, m) if m.starts_with("invalid JSON")));
            assert!(matches!(c("[1,2]"), Reply::Bad(None, _)));
            // Floor mode checks only the id.
            assert_eq!(classify_expect(br#"{"id":3,"method":"tools/list"}"#, true, e), Reply::Ok(3));
        }
        assert_eq!(classify_expect(br#"{"id":3,"result":{}}"#, false, Expect::Call), Reply::Ok(3));
    }
}
