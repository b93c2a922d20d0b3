//! W3C Trace Context and Baggage in a request's `_meta` (the keys `traceparent`,
//! `tracestate` and `baggage`, reserved by 2026-07-28 and used the same way by the
//! OpenTelemetry conventions for MCP at every revision).
//!
//! [`TraceContext::from_meta`] reads them as <https://www.w3.org/TR/trace-context/> and
//! <https://www.w3.org/TR/baggage/> say: a `traceparent` that is not valid is ignored (and
//! its `tracestate` with it), an invalid `tracestate` is dropped on its own, baggage members
//! that do not parse are skipped. Handlers get the result as `ctx.trace_context()` (Rust),
//! `ctx.trace_context` (Python) and `ctx.traceContext` (Node); [`TraceContext::to_meta`] gives
//! the keys to send on with a request of one's own, so a trace goes on through a server that
//! calls another.
//!
//! ```
//! use hypermcp::trace::TraceContext;
//! let meta = serde_json::json!({
//!     "traceparent": "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
//!     "baggage": "userId=alice,region=eu%20west"
//! });
//! let tc = TraceContext::from_meta(meta.as_object().unwrap()).unwrap();
//! assert_eq!(tc.trace_id, "0af7651916cd43dd8448eb211c80319c");
//! assert!(tc.sampled());
//! assert_eq!(tc.baggage_items(), vec![("userId".into(), "alice".into()), ("region".into(), "eu west".into())]);
//! ```

use crate::protocol::Meta;
use serde_json::Value;

/// The `_meta` key of the W3C `traceparent`.
pub const TRACEPARENT: &str = "traceparent";
/// The `_meta` key of the W3C `tracestate`.
pub const TRACESTATE: &str = "tracestate";
/// The `_meta` key of the W3C `baggage`.
pub const BAGGAGE: &str = "baggage";

/// Most `tracestate` list members (W3C Trace Context, 3.3.1.1).
const MAX_TRACESTATE_MEMBERS: usize = 32;
/// Most bytes of a `baggage` value (W3C Baggage, 3.3.1) and most members.
const MAX_BAGGAGE_BYTES: usize = 8192;
const MAX_BAGGAGE_MEMBERS: usize = 64;

/// The trace a request belongs to, as its caller sent it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceContext {
    /// The `traceparent` to send on, at version `00` (a later version's extra fields are
    /// dropped, as the W3C recommendation asks of a version-00 implementation).
    pub traceparent: String,
    /// The trace's id: 32 lower-case hex digits, not all zero.
    pub trace_id: String,
    /// The caller's span id (the parent of whatever this request does): 16 hex digits.
    pub parent_id: String,
    /// The trace flags (bit 0: sampled).
    pub flags: u8,
    /// The vendors' `tracestate`, when the caller sent a valid one.
    pub tracestate: Option<String>,
    /// The `baggage` value as received, when it is within the W3C limits.
    pub baggage: Option<String>,
}

impl TraceContext {
    /// The trace context of a request's `_meta`: `None` without a valid `traceparent`.
    pub fn from_meta(meta: &Meta) -> Option<TraceContext> {
        let text = |key: &str| meta.get(key).and_then(Value::as_str);
        Self::parse(text(TRACEPARENT)?, text(TRACESTATE), text(BAGGAGE))
    }

    /// The trace context of the three values (as the W3C headers of the same names).
    pub fn parse(traceparent: &str, tracestate: Option<&str>, baggage: Option<&str>) -> Option<TraceContext> {
        let (trace_id, parent_id, flags) = parse_traceparent(traceparent.trim_matches([' ', '\t']))?;
        Some(TraceContext {
            traceparent: format!("00-{trace_id}-{parent_id}-{flags:02x}"),
            trace_id: trace_id.to_string(),
            parent_id: parent_id.to_string(),
            flags,
            tracestate: tracestate.and_then(valid_tracestate),
            baggage: baggage.filter(|b| b.len() <= MAX_BAGGAGE_BYTES && !b.trim().is_empty()).map(str::to_string),
        })
    }

    /// Whether the caller records this trace (flag bit 0).
    pub fn sampled(&self) -> bool {
        self.flags & 1 == 1
    }

    /// The baggage's entries, in order, values percent-decoded (members that do not parse
    /// and their properties are left out; at most 64).
    pub fn baggage_items(&self) -> Vec<(String, String)> {
        self.baggage.as_deref().map(parse_baggage).unwrap_or_default()
    }

    /// The same trace with `parent_id` as the caller: what a participant that made a span
    /// of its own (id `span_id`, 16 hex digits, not all zero) sends on. `None` for an id
    /// that is not one.
    pub fn child(&self, span_id: &str) -> Option<TraceContext> {
        if !is_hex(span_id, 16) || is_zero(span_id) {
            return None;
        }
        Some(TraceContext {
            traceparent: format!("00-{}-{span_id}-{:02x}", self.trace_id, self.flags),
            parent_id: span_id.to_string(),
            ..self.clone()
        })
    }

    /// The `_meta` keys that carry it on: `traceparent`, and `tracestate` and `baggage` when
    /// there are.
    pub fn to_meta(&self) -> Meta {
        let mut meta = Meta::new();
        meta.insert(TRACEPARENT.into(), Value::String(self.traceparent.clone()));
        if let Some(s) = &self.tracestate {
            meta.insert(TRACESTATE.into(), Value::String(s.clone()));
        }
        if let Some(b) = &self.baggage {
            meta.insert(BAGGAGE.into(), Value::String(b.clone()));
        }
        meta
    }

    /// A JSON object of it for hosts: its fields (camelCase), `sampled`, and `baggageItems`
    /// (the decoded baggage as an object; a later duplicate wins).
    pub fn to_host_json(&self) -> Value {
        let mut v = serde_json::to_value(self).unwrap_or_default();
        if let Some(o) = v.as_object_mut() {
            o.insert("sampled".into(), Value::Bool(self.sampled()));
            let items: serde_json::Map<String, Value> =
                self.baggage_items().into_iter().map(|(k, v)| (k, Value::String(v))).collect();
            o.insert("baggageItems".into(), Value::Object(items));
        }
        v
    }
}

fn is_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

fn is_zero(s: &str) -> bool {
    s.bytes().all(|b| b == b'0')
}

/// `version-traceid-parentid-flags` (W3C Trace Context, 3.2.2 and 4.3 for later versions).
fn parse_traceparent(s: &str) -> Option<(&str, &str, u8)> {
    if s.len() < 55 || !s.is_ascii() {
        return None;
    }
    let version = &s[..2];
    if !is_hex(version, 2) || version == "ff" {
        return None;
    }
    // Version 00 is exactly 55 characters; a later one may add fields after a dash.
    if (version == "00" && s.len() != 55) || (s.len() > 55 && s.as_bytes()[55] != b'-') {
        return None;
    }
    let b = s.as_bytes();
    if b[2] != b'-' || b[35] != b'-' || b[52] != b'-' {
        return None;
    }
    let (trace_id, parent_id, flags) = (&s[3..35], &s[36..52], &s[53..55]);
    if !is_hex(trace_id, 32) || is_zero(trace_id) || !is_hex(parent_id, 16) || is_zero(parent_id) || !is_hex(flags, 2) {
        return None;
    }
    let flags = u8::from_str_radix(flags, 16).ok()?;
    Some((trace_id, parent_id, flags))
}

/// The `tracestate` when every list member is well formed, keys are unique and there are
/// at most 32 (empty members are allowed and skipped); else `None` (W3C Trace Context, 3.3).
fn valid_tracestate(s: &str) -> Option<String> {
    let mut keys: Vec<&str> = Vec::new();
    let mut members = Vec::new();
    for member in s.split(',') {
        let member = member.trim_matches([' ', '\t']);
        if member.is_empty() {
            continue;
        }
        let (key, value) = member.split_once('=')?;
        if !valid_state_key(key) || !valid_state_value(value) || keys.contains(&key) {
            return None;
        }
        keys.push(key);
        members.push(member);
    }
    if members.is_empty() || members.len() > MAX_TRACESTATE_MEMBERS {
        return None;
    }
    Some(members.join(","))
}

fn key_char(b: u8) -> bool {
    b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'_' | b'-' | b'*' | b'/')
}

/// `simple-key` or `tenant-id@system-id`.
fn valid_state_key(key: &str) -> bool {
    let b = key.as_bytes();
    match key.split_once('@') {
        None => !b.is_empty() && b.len() <= 256 && b[0].is_ascii_lowercase() && b.iter().all(|&c| key_char(c)),
        Some((tenant, system)) => {
            let (t, s) = (tenant.as_bytes(), system.as_bytes());
            !t.is_empty()
                && t.len() <= 241
                && (t[0].is_ascii_lowercase() || t[0].is_ascii_digit())
                && t.iter().all(|&c| key_char(c))
                && !s.is_empty()
                && s.len() <= 14
                && s[0].is_ascii_lowercase()
                && s.iter().all(|&c| key_char(c))
        }
    }
}

/// Up to 256 printable ASCII characters but `,` and `=`, not ending in a space.
fn valid_state_value(value: &str) -> bool {
    let b = value.as_bytes();
    !b.is_empty()
        && b.len() <= 256
        && b.iter().all(|&c| (0x20..=0x7e).contains(&c) && c != b',' && c != b'=')
        && b[b.len() - 1] != b' '
}

/// A `tchar` of RFC 9110 (a baggage key is a token).
fn token_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// The value characters of W3C Baggage (`baggage-octet`), `%` included for escapes.
fn baggage_char(b: u8) -> bool {
    matches!(b, 0x21 | 0x23..=0x2b | 0x2d..=0x3a | 0x3c..=0x5b | 0x5d..=0x7e)
}

fn parse_baggage(s: &str) -> Vec<(String, String)> {
    let mut items = Vec::new();
    for member in s.split(',') {
        if items.len() == MAX_BAGGAGE_MEMBERS {
            break;
        }
        // Properties (after `;`) are metadata of the entry; the entry is what apps read.
        let entry = member.split(';').next().unwrap_or_default();
        let Some((key, value)) = entry.split_once('=') else { continue };
        let (key, value) = (key.trim_matches([' ', '\t']), value.trim_matches([' ', '\t']));
        if key.is_empty() || !key.bytes().all(token_char) || !value.bytes().all(baggage_char) {
            continue;
        }
        items.push((key.to_string(), crate::catalogue::percent_decode(value)));
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TP: &str = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";

    fn meta(v: Value) -> Meta {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn reads_a_traceparent() {
        let tc = TraceContext::from_meta(&meta(json!({ "traceparent": TP }))).unwrap();
        assert_eq!(tc.traceparent, TP);
        assert_eq!(tc.trace_id, "0af7651916cd43dd8448eb211c80319c");
        assert_eq!(tc.parent_id, "00f067aa0ba902b7");
        assert_eq!(tc.flags, 1);
        assert!(tc.sampled());
        assert_eq!(tc.tracestate, None);
        assert_eq!(tc.to_meta(), meta(json!({ "traceparent": TP })));
        let unsampled = TraceContext::parse(&TP.replace("-01", "-00"), None, None).unwrap();
        assert!(!unsampled.sampled());
    }

    #[test]
    fn ignores_what_is_not_a_traceparent() {
        for bad in [
            "",
            "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7",
            "00-0AF7651916CD43DD8448EB211C80319C-00f067aa0ba902b7-01", // upper case
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01", // zero trace id
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01", // zero parent id
            "ff-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01", // version ff
            "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01-x", // 00 has no more
            "01-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01x", // no dash after
            "00_0af7651916cd43dd8448eb211c80319c_00f067aa0ba902b7_01",
            "00-0af7651916cd43dd8448eb211c8031é-00f067aa0ba902b7-01",
            "0g-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
        ] {
            assert_eq!(TraceContext::parse(bad, Some("a=b"), None), None, "{bad}");
        }
        // Not text: ignored.
        assert_eq!(TraceContext::from_meta(&meta(json!({ "traceparent": 7 }))), None);
        assert_eq!(TraceContext::from_meta(&meta(json!({ "tracestate": "a=b" }))), None);
    }

    #[test]
    fn a_later_version_is_read_as_00() {
        let tc = TraceContext::parse(&format!("cc{}-what-comes-next", &TP[2..]), None, None).unwrap();
        assert_eq!(tc.traceparent, TP);
    }

    #[test]
    fn tracestate_is_kept_when_valid() {
        let tc = TraceContext::parse(TP, Some("rojo=00f067aa0ba902b7, congo=t61rcWkgMzE,,tenant@sys=x"), None).unwrap();
        assert_eq!(tc.tracestate.as_deref(), Some("rojo=00f067aa0ba902b7,congo=t61rcWkgMzE,tenant@sys=x"));
        for bad in ["Rojo=1", "rojo", "rojo=1,rojo=2", "a=b=c", "a=", "@sys=1", "t@Sys=1", ""] {
            let tc = TraceContext::parse(TP, Some(bad), None).unwrap();
            assert_eq!(tc.tracestate, None, "{bad}");
        }
        let many = (0..33).map(|i| format!("k{i}=v")).collect::<Vec<_>>().join(",");
        assert_eq!(TraceContext::parse(TP, Some(&many), None).unwrap().tracestate, None);
        let most = (0..32).map(|i| format!("k{i}=v")).collect::<Vec<_>>().join(",");
        assert!(TraceContext::parse(TP, Some(&most), None).unwrap().tracestate.is_some());
    }

    #[test]
    fn baggage_entries_are_decoded() {
        let tc = TraceContext::parse(
            TP,
            None,
            Some("userId=alice, serverNode = DF%2028;prop=1,isProduction=false,bad key=1,noValue,é=1,empty="),
        )
        .unwrap();
        assert_eq!(
            tc.baggage_items(),
            vec![
                ("userId".into(), "alice".into()),
                ("serverNode".into(), "DF 28".into()),
                ("isProduction".into(), "false".into()),
                ("empty".into(), "".into()),
            ]
        );
        let host = tc.to_host_json();
        assert_eq!(host["baggageItems"]["serverNode"], "DF 28");
        assert_eq!(host["sampled"], true);
        assert_eq!(host["traceId"], "0af7651916cd43dd8448eb211c80319c");
        // Too long: dropped whole.
        let long = format!("k={}", "v".repeat(MAX_BAGGAGE_BYTES));
        assert_eq!(TraceContext::parse(TP, None, Some(&long)).unwrap().baggage, None);
        // At most 64 entries read.
        let many = (0..100).map(|i| format!("k{i}=v")).collect::<Vec<_>>().join(",");
        assert_eq!(TraceContext::parse(TP, None, Some(&many)).unwrap().baggage_items().len(), 64);
    }

    #[test]
    fn a_child_keeps_the_trace() {
        let tc = TraceContext::parse(TP, Some("a=b"), Some("k=v")).unwrap();
        let child = tc.child("b7ad6b7169203331").unwrap();
        assert_eq!(child.traceparent, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
        assert_eq!(child.tracestate.as_deref(), Some("a=b"));
        assert_eq!(child.to_meta()["baggage"], "k=v");
        assert_eq!(tc.child("0000000000000000"), None);
        assert_eq!(tc.child("xyz"), None);
    }
}
