//! A strict JSON check of a message that reads the JSON-RPC envelope on the way: one pass
//! over the bytes (strings eight bytes at a time) that costs about half of serde_json's own
//! pass, which reads the envelope into raw values and parses every token of the params
//! through its generic machinery, then of the nesting check that had to come before it.
//!
//! It accepts exactly what serde_json accepts when it reads a value without keeping it
//! (RFC 8259: no comments, no trailing commas, numbers without leading zeros, strings
//! without control characters and with valid escapes, any `\uXXXX` of four hex digits), and
//! every envelope it reads, serde_json reads the same. Anything it does not take (invalid
//! JSON, nesting past [`MAX_DEPTH`], a member name with an escape, a member twice) it
//! leaves to serde_json, which answers as it always did: the fast path never decides an
//! error.

use super::message::MAX_DEPTH;
use std::ops::Range;

/// The text of one JSON value that has been checked (by this module or by serde_json):
/// a message's `params` or `result`, handed around without being parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RawJson<'a>(&'a str);

impl<'a> RawJson<'a> {
    /// The value's JSON text.
    pub fn get(&self) -> &'a str {
        self.0
    }

    /// Text this module checked.
    fn checked(text: &'a str) -> Self {
        RawJson(text)
    }
}

impl<'a> From<&'a serde_json::value::RawValue> for RawJson<'a> {
    fn from(raw: &'a serde_json::value::RawValue) -> Self {
        RawJson(raw.get())
    }
}

/// The members of a JSON-RPC object, as checked JSON text.
#[derive(Default, Debug, Clone, Copy)]
pub(crate) struct Fields<'a> {
    pub(crate) jsonrpc: Option<RawJson<'a>>,
    pub(crate) id: Option<RawJson<'a>>,
    pub(crate) method: Option<RawJson<'a>>,
    pub(crate) params: Option<RawJson<'a>>,
    pub(crate) result: Option<RawJson<'a>>,
    pub(crate) error: Option<RawJson<'a>>,
}

/// Checks that `text` is one JSON object and reads its JSON-RPC members; `None` when it
/// is not, or is anything the fast path leaves to serde_json (see the module's note).
pub(crate) fn envelope(text: &str) -> Option<Fields<'_>> {
    let b = text.as_bytes();
    let mut f = Fields::default();
    let open = ws(b, 0);
    if b.get(open) != Some(&b'{') {
        return None;
    }
    let end = object(b, open, 1, |key, escaped, value| {
        if escaped {
            return None;
        }
        let slot = match &b[key] {
            b"jsonrpc" => &mut f.jsonrpc,
            b"id" => &mut f.id,
            b"method" => &mut f.method,
            b"params" => &mut f.params,
            b"result" => &mut f.result,
            b"error" => &mut f.error,
            _ => return Some(()),
        };
        if slot.is_some() {
            return None;
        }
        // In bounds and on character boundaries: both ends are ASCII bytes of the text.
        *slot = Some(RawJson::checked(text.get(value)?));
        Some(())
    })?;
    (ws(b, end) == b.len()).then_some(f)
}

/// Whether `text` is one valid JSON value (whitespace around it allowed), nested at most
/// [`MAX_DEPTH`] deep.
#[cfg(test)]
pub(crate) fn is_valid(text: &str) -> bool {
    let b = text.as_bytes();
    value(b, ws(b, 0), 0).is_some_and(|end| ws(b, end) == b.len())
}

/// Asserts that the envelope this module reads from `text` (when it reads one) is what
/// serde_json reads: the same members, the same texts. For the fuzz target and the tests.
pub(crate) fn assert_agrees_with_serde(text: &str) {
    let Some(f) = envelope(text) else { return };
    let members: std::collections::BTreeMap<std::borrow::Cow<'_, str>, &serde_json::value::RawValue> =
        serde_json::from_str(text)
            .unwrap_or_else(|e| panic!("the fast path took what serde_json refuses ({e}): {text}"));
    for (key, got) in [
        ("jsonrpc", f.jsonrpc),
        ("id", f.id),
        ("method", f.method),
        ("params", f.params),
        ("result", f.result),
        ("error", f.error),
    ] {
        assert_eq!(got.map(|r| r.get()), members.get(key).map(|r| r.get()), "{key} of {text}");
    }
}

/// The index of the first byte at or after `i` that is not JSON whitespace.
pub(crate) fn ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

/// The end of the value at `i`, inside `depth` arrays and objects.
fn value(b: &[u8], i: usize, depth: usize) -> Option<usize> {
    match *b.get(i)? {
        b'"' => string(b, i).map(|(end, _)| end),
        b'{' if depth < MAX_DEPTH => object(b, i, depth + 1, |_, _, _| Some(())),
        b'[' if depth < MAX_DEPTH => array(b, i, depth + 1),
        b't' => literal(b, i, b"true"),
        b'f' => literal(b, i, b"false"),
        b'n' => literal(b, i, b"null"),
        b'-' | b'0'..=b'9' => number(b, i),
        _ => None,
    }
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    b[i..].starts_with(word).then_some(i + word.len())
}

/// The end of the object at `i` (at `depth`), each member handed to `on_member`: its key
/// between the quotes, whether the key holds an escape, and its value's bytes; `None` from
/// it stops the check (the text is left to serde_json).
fn object(
    b: &[u8],
    i: usize,
    depth: usize,
    mut on_member: impl FnMut(Range<usize>, bool, Range<usize>) -> Option<()>,
) -> Option<usize> {
    let mut j = ws(b, i + 1);
    if b.get(j) == Some(&b'}') {
        return Some(j + 1);
    }
    loop {
        if b.get(j) != Some(&b'"') {
            return None;
        }
        let (key_end, escaped) = string(b, j)?;
        let key = j + 1..key_end - 1;
        j = ws(b, key_end);
        if b.get(j) != Some(&b':') {
            return None;
        }
        let start = ws(b, j + 1);
        let end = if &b[key.clone()] == b"_meta" { meta_value(b, start, depth)? } else { value(b, start, depth)? };
        on_member(key, escaped, start..end)?;
        j = ws(b, end);
        match b.get(j)? {
            b',' => j = ws(b, j + 1),
            b'}' => return Some(j + 1),
            _ => return None,
        }
    }
}

/// The last `_meta` object checked on this thread, and the deepest it may be met again at.
struct LastMeta {
    bytes: Vec<u8>,
    depth: usize,
}

thread_local! {
    static LAST_META: std::cell::RefCell<LastMeta> =
        const { std::cell::RefCell::new(LastMeta { bytes: Vec::new(), depth: 0 }) };
}

/// Most bytes of a `_meta` object kept for [`meta_value`].
const MAX_KEPT_META: usize = 4096;

/// The end of a `_meta` member's value at `i` (at `depth`), as [`value`] finds it. A client
/// sends the same `_meta` with every request (a 2026-07-28 one: its revision, capabilities
/// and identity), so the last object checked on this thread is kept: a value that starts
/// with those very bytes is that object (in valid text an object ends at its own closing
/// brace), and is taken with one comparison instead of a second check. Met no deeper than
/// it was checked, it also keeps within [`MAX_DEPTH`]. Anything else is checked as any
/// value is, and kept in its place.
fn meta_value(b: &[u8], i: usize, depth: usize) -> Option<usize> {
    let known = LAST_META.with(|m| {
        let m = m.borrow();
        (!m.bytes.is_empty() && depth <= m.depth && b[i..].starts_with(&m.bytes)).then(|| i + m.bytes.len())
    });
    if known.is_some() {
        return known;
    }
    let end = value(b, i, depth)?;
    if b[i] == b'{' && end - i <= MAX_KEPT_META {
        LAST_META.with(|m| {
            let mut m = m.borrow_mut();
            m.bytes.clear();
            m.bytes.extend_from_slice(&b[i..end]);
            m.depth = depth;
        });
    }
    Some(end)
}

fn array(b: &[u8], i: usize, depth: usize) -> Option<usize> {
    let mut j = ws(b, i + 1);
    if b.get(j) == Some(&b']') {
        return Some(j + 1);
    }
    loop {
        j = ws(b, value(b, j, depth)?);
        match b.get(j)? {
            b',' => j = ws(b, j + 1),
            b']' => return Some(j + 1),
            _ => return None,
        }
    }
}

/// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
fn number(b: &[u8], i: usize) -> Option<usize> {
    let digits = |mut j: usize| {
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        j
    };
    let mut j = i + usize::from(b[i] == b'-');
    j = match b.get(j)? {
        b'0' => j + 1,
        b'1'..=b'9' => digits(j + 1),
        _ => return None,
    };
    if b.get(j) == Some(&b'.') {
        let end = digits(j + 1);
        if end == j + 1 {
            return None;
        }
        j = end;
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        j += 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let end = digits(j);
        if end == j {
            return None;
        }
        j = end;
    }
    Some(j)
}

/// The end of the string whose opening quote is at `i` (just past its closing quote), and
/// whether it holds an escape.
fn string(b: &[u8], i: usize) -> Option<(usize, bool)> {
    let (mut j, mut escaped) = (i + 1, false);
    loop {
        let k = special(b, j)?;
        match b[k] {
            b'"' => return Some((k + 1, escaped)),
            b'\\' => {
                escaped = true;
                j = match b.get(k + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => k + 2,
                    b'u' if b.get(k + 2..k + 6)?.iter().all(u8::is_ascii_hexdigit) => k + 6,
                    _ => return None,
                };
            }
            _ => return None, // a control character
        }
    }
}

/// The index of the first byte at or after `j` that a string cannot hold as it is: `"`,
/// `\` or a control character (below 0x20). Eight bytes at a time: a byte's high bit is
/// set in `found` when it matches; a borrow can set the high bit of a later byte too, never
/// of an earlier one, so the lowest bit set is the first match.
pub(crate) fn special(b: &[u8], mut j: usize) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    while let Some(c) = b.get(j..j + 8) {
        let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        let (q, s) = (w ^ (ONES * b'"' as u64), w ^ (ONES * b'\\' as u64));
        let zero = |x: u64| x.wrapping_sub(ONES) & !x;
        let found = (zero(q) | zero(s) | (w.wrapping_sub(ONES * 0x20) & !w)) & HIGH;
        if found != 0 {
            return Some(j + (found.trailing_zeros() / 8) as usize);
        }
        j += 8;
    }
    (j..b.len()).find(|&k| matches!(b[k], b'"' | b'\\' | 0..=0x1f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    fn serde_valid(text: &str) -> bool {
        let mut de = serde_json::Deserializer::from_str(text);
        serde::de::IgnoredAny::deserialize(&mut de).is_ok() && de.end().is_ok()
    }

    /// Hand-picked texts at every rule's edge: the check agrees with serde_json on each.
    #[test]
    fn agrees_with_serde_on_the_edges() {
        let cases = [
            "{}",
            "[]",
            " {} ",
            "{ }",
            "[ ]",
            "\t[\n1\r]\n",
            "0",
            "-0",
            "1",
            "-",
            "01",
            "-01",
            "1.",
            "1.5",
            ".5",
            "1e5",
            "1E+5",
            "1e-5",
            "1e",
            "1e+",
            "1.5e3",
            "-1.5E-3",
            "2.",
            "0.0",
            "00",
            "1x",
            "tru",
            "true",
            "truex",
            "false",
            "null",
            "nul",
            "NaN",
            "Infinity",
            "\"\"",
            "\"a\"",
            "\"a",
            "\"\\\"\"",
            "\"\\\\\"",
            "\"\\/\"",
            "\"\\b\\f\\n\\r\\t\"",
            "\"\\x\"",
            "\"\\u00e9\"",
            "\"\\u00E9\"",
            "\"\\u00g9\"",
            "\"\\u00\"",
            "\"\\ud800\"",
            "\"\\udc00\\ud800\"",
            "\"\t\"",
            "\"\u{1f}\"",
            "\"\u{7f}\"",
            "\"é😀\"",
            "[1,]",
            "[,1]",
            "[1,,2]",
            "[1 2]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{\"a\":}",
            "{a:1}",
            "{\"a\":1 \"b\":2}",
            "{'a':1}",
            "[1]]",
            "[[1]",
            "{\"a\":[}]}",
            "[\"a\\\"]\"]",
            "{\"a\":{\"b\":{\"c\":[1,2,{\"d\":null}]}}}",
            "[1] [2]",
            "/* */ 1",
            "1 // x",
            "[-]",
            "[+1]",
            "[1e5e5]",
            "[0x10]",
            "[1.5.5]",
            "\"\\u12\"",
            "{\"\\u0061\":1}",
            "\u{feff}{}",
            "{\"a\":1}\u{0}",
        ];
        for text in cases {
            assert_eq!(is_valid(text), serde_valid(text), "{text:?}");
        }
    }

    /// Nesting: up to MAX_DEPTH levels checked here, deeper left to serde_json.
    #[test]
    fn nesting_is_bounded() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(is_valid(&deep(MAX_DEPTH)));
        assert!(!is_valid(&deep(MAX_DEPTH + 1)));
        let obj = format!("{}1{}", "{\"a\":".repeat(MAX_DEPTH), "}".repeat(MAX_DEPTH));
        assert!(is_valid(&obj));
    }

    /// A small deterministic generator of JSON-ish text (valid values, then mutated by
    /// byte edits): whatever the check accepts, serde_json accepts, and the other way round
    /// for everything not nested too deep.
    #[test]
    fn agrees_with_serde_on_mutated_messages() {
        let seeds = [
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi \"you\" \\ é"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","n":[1,-2.5e3,true,false,null]}}}"#,
            r#"[{"jsonrpc":"2.0","id":"a","result":{}},{"jsonrpc":"2.0","method":"x","params":[0,{"\u0041":"\ud83d\ude00"}]}]"#,
            r#" { "a" : [ ] , "b" : { } , "c" : "\/\b\f\n\r\t" } "#,
        ];
        let alphabet = b"{}[]:,\"\\ 0123456789.eE+-truefalsnul\tux\x01\x7f";
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut valid = 0;
        for round in 0..20_000 {
            let mut bytes = seeds[round % seeds.len()].as_bytes().to_vec();
            for _ in 0..1 + next() % 3 {
                let at = (next() % bytes.len() as u64) as usize;
                let c = alphabet[(next() % alphabet.len() as u64) as usize];
                match next() % 3 {
                    0 => bytes[at] = c,
                    1 => bytes.insert(at, c),
                    _ => {
                        bytes.remove(at);
                    }
                }
                if bytes.is_empty() {
                    bytes.push(b'0');
                }
            }
            let Ok(text) = std::str::from_utf8(&bytes) else { continue };
            let ours = is_valid(text);
            assert_eq!(ours, serde_valid(text), "{text}");
            valid += usize::from(ours);
            // The envelope's members are what serde_json finds.
            assert_agrees_with_serde(text);
        }
        assert!(valid > 1_000, "the mutations left {valid} valid texts");
    }

    #[test]
    fn the_envelope_is_read_or_left_to_serde() {
        let f = envelope(r#" {"jsonrpc":"2.0","id":7,"method":"m","params":{"a":[1]},"x":{"id":2}} "#).unwrap();
        assert_eq!(f.id.map(|r| r.get()), Some("7"));
        assert_eq!(f.method.map(|r| r.get()), Some("\"m\""));
        assert_eq!(f.params.map(|r| r.get()), Some("{\"a\":[1]}"));
        assert!(f.result.is_none() && f.error.is_none());
        // Left to serde_json: a member twice, a name with an escape, not an object, more after.
        for text in [r#"{"id":1,"id":2}"#, r#"{"\u0069d":1}"#, "[1]", "{} {}", "{\"a\":1"] {
            assert!(envelope(text).is_none(), "{text}");
        }
        assert!(envelope("{}").is_some());
    }

    /// A `_meta` met again is taken by comparison, and the check still agrees with serde_json
    /// on everything around it, on a `_meta` that only starts like the last one, and on depth.
    #[test]
    fn a_meta_met_again_is_compared_not_checked() {
        let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"#;
        let msg = |m: &str, rest: &str| {
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","_meta":{m}}}{rest}}}"#)
        };
        let open = &meta[..meta.len() - 1];
        let cases = [
            msg(meta, ""),
            msg(meta, ""),
            // After the kept object, the rest is checked as ever.
            msg(meta, ",x"),
            msg(meta, r#","y":[1,]"#),
            msg(meta, r#","y":[1,2]"#),
            // Starts like the kept one but is another value (or none).
            msg(open, ""),
            msg(&format!(r#"{open},"z":1}}"#), ""),
            msg(&format!(r#"{open},"z":01}}"#), ""),
            msg(meta, ""),
            msg("[1]", ""),
            msg("{\"a\":\"\u{1}\"}", ""),
            msg(meta, ""),
        ];
        for text in &cases {
            assert_eq!(envelope(text).is_some(), serde_valid(text), "{text}");
            assert_agrees_with_serde(text);
        }
        LAST_META.with(|m| assert_eq!(m.borrow().bytes, meta.as_bytes(), "the last one met is kept"));
        // Kept from a shallow place, it is not taken deeper than MAX_DEPTH allows.
        let nested =
            |inner: usize, m: &str| format!("{}{{\"_meta\":{m}}}{}", "{\"k\":".repeat(inner), "}".repeat(inner));
        let deep = format!("{{\"d\":{}1{}}}", "[".repeat(MAX_DEPTH - 3), "]".repeat(MAX_DEPTH - 3));
        assert!(is_valid(&nested(0, &deep)), "checked at depth 1");
        assert!(!is_valid(&nested(5, &deep)), "too deep once nested further");
        assert!(is_valid(&nested(0, &deep)), "and still taken where it fits");
    }

    /// The eight-at-a-time search finds the first special byte wherever it is.
    #[test]
    fn special_finds_the_first() {
        for len in 0..24 {
            for at in 0..len {
                for c in [b'"', b'\\', 0x00, 0x1f, b'\n'] {
                    let mut v: Vec<u8> = (0..len).map(|i| [b'a', 0x20, 0x7f, 0x80, 0xff, b'!'][i % 6]).collect();
                    v[at] = c;
                    if at + 1 < len {
                        v[at + 1] = 0x01;
                    }
                    assert_eq!(special(&v, 0), Some(at), "{v:?}");
                }
            }
            assert_eq!(special(&vec![0x20; len], 0), None);
            assert_eq!(special(&vec![0xa0; len], 0), None);
        }
    }
}
