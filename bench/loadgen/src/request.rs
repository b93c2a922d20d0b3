//! Cheap formatting of request lines.
//!
//! Every request line of a run is the same except for its id, so the JSON is
//! split once into a prefix and a suffix and a line is produced by copying
//! the prefix, writing the id's decimal digits and copying the suffix: no
//! allocation and no JSON serialization per request.

use std::io::Write;
use std::time::Instant;

/// The `initialize` request (id 0), newline-terminated.
pub const INITIALIZE: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},\"clientInfo\":{\"name\":\"loadgen\",\"version\":\"0.1\"}}}\n";

/// The stateless revision `Requests::modern` speaks.
pub const MODERN_VERSION: &str = "2026-07-28";

/// The `notifications/initialized` notification, newline-terminated.
pub const INITIALIZED: &[u8] = b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";

/// Pre-split request line (`tools/call`, `tools/list` or `resources/read`).
#[derive(Debug, Clone)]
pub struct Requests {
    prefix: Vec<u8>,
    suffix: Vec<u8>,
}

impl Requests {
    /// Prepares lines calling `tool` with `{"text": text}`.
    pub fn new(tool: &str, text: &str) -> Self {
        // serde_json escapes the strings correctly; this runs once.
        let tool = serde_json::to_string(tool).expect("string serializes");
        let text = serde_json::to_string(text).expect("string serializes");
        Requests {
            prefix: b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec(),
            suffix: format!(
                ",\"method\":\"tools/call\",\"params\":{{\"name\":{tool},\"arguments\":{{\"text\":{text}}}}}}}\n"
            )
            .into_bytes(),
        }
    }

    /// Prepares 2026-07-28 lines calling `tool` with `{"text": text}`: the request carries
    /// its revision, the client's capabilities and identity in `_meta` (no handshake).
    pub fn modern(tool: &str, text: &str) -> Self {
        let text = serde_json::to_string(text).expect("string serializes");
        Self::modern_call(tool, &format!("{{\"text\":{text}}}"), "{}")
    }

    /// Prepares 2026-07-28 lines calling `tool` with `arguments` and declaring
    /// `capabilities` (both JSON objects, as text).
    pub fn modern_call(tool: &str, arguments: &str, capabilities: &str) -> Self {
        let tool = serde_json::to_string(tool).expect("string serializes");
        Requests {
            prefix: b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec(),
            suffix: format!(
                ",\"method\":\"tools/call\",\"params\":{{\"name\":{tool},\"arguments\":{arguments},{}}}}}\n",
                modern_meta(capabilities)
            )
            .into_bytes(),
        }
    }

    /// Prepares `tools/list` lines (no cursor).
    pub fn list() -> Self {
        Requests { prefix: b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec(), suffix: b",\"method\":\"tools/list\"}\n".to_vec() }
    }

    /// Prepares `resources/read` lines of `uri`.
    pub fn read(uri: &str) -> Self {
        let uri = serde_json::to_string(uri).expect("string serializes");
        Requests {
            prefix: b"{\"jsonrpc\":\"2.0\",\"id\":".to_vec(),
            suffix: format!(",\"method\":\"resources/read\",\"params\":{{\"uri\":{uri}}}}}\n").into_bytes(),
        }
    }

    /// Length in bytes of the line for `id` (including the newline).
    pub fn line_len(&self, id: u64) -> usize {
        self.prefix.len() + decimal(id, &mut [0; 20]).len() + self.suffix.len()
    }

    /// Appends the newline-terminated request line with this id to `out`.
    #[inline]
    pub fn push(&self, out: &mut Vec<u8>, id: u64) {
        out.extend_from_slice(&self.prefix);
        out.extend_from_slice(decimal(id, &mut [0; 20]));
        out.extend_from_slice(&self.suffix);
    }
}

/// The client capabilities of the MRTR scenario: form elicitation.
pub const ELICITATION_CAPABILITIES: &str = "{\"elicitation\":{\"form\":{}}}";

/// The `"_meta"` member of a 2026-07-28 request (no braces around it).
fn modern_meta(capabilities: &str) -> String {
    format!(
        "\"_meta\":{{\"io.modelcontextprotocol/protocolVersion\":\"{MODERN_VERSION}\",\
         \"io.modelcontextprotocol/clientCapabilities\":{capabilities},\
         \"io.modelcontextprotocol/clientInfo\":{{\"name\":\"loadgen\",\"version\":\"0.1\"}}}}"
    )
}

/// The retry of a 2026-07-28 `tools/call` of `tool` (no arguments) that answers each
/// elicitation of `keys` with `accept` and `{"name": name}`, echoing `state` if any.
pub fn mrtr_retry(out: &mut Vec<u8>, id: u64, tool: &str, keys: &[String], state: Option<&str>, name: &str) {
    // Written straight into `out` (no value tree), members in the order serde_json's map
    // wrote them: arguments, inputResponses, name, requestState.
    let string = |out: &mut Vec<u8>, s: &str| serde_json::to_writer(&mut *out, s).expect("a string serializes");
    let mut digits = [0u8; 20];
    out.clear();
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(decimal(id, &mut digits));
    out.extend_from_slice(b",\"method\":\"tools/call\",\"params\":{\"arguments\":{},\"inputResponses\":{");
    let mut sorted: Vec<&String> = keys.iter().collect();
    sorted.sort_unstable();
    sorted.dedup();
    for (i, k) in sorted.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        string(out, k);
        out.extend_from_slice(b":{\"action\":\"accept\",\"content\":{\"name\":");
        string(out, name);
        out.extend_from_slice(b"}}");
    }
    out.extend_from_slice(b"},\"name\":");
    string(out, tool);
    if let Some(state) = state {
        out.extend_from_slice(b",\"requestState\":");
        string(out, state);
    }
    static META: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| modern_meta(ELICITATION_CAPABILITIES));
    out.push(b',');
    out.extend_from_slice(META.as_bytes());
    out.extend_from_slice(b"}}");
}

/// A 2026-07-28 `subscriptions/listen` request for `notifications/tools/list_changed`.
pub fn listen_request(id: u64) -> Vec<u8> {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"subscriptions/listen\",\"params\":{{\"notifications\":{{\"toolsListChanged\":true}},{}}}}}",
        modern_meta("{}")
    )
    .into_bytes()
}

/// Writes `n` in decimal into the end of `buf` and returns the digits.
#[inline]
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

/// Generates `n` request lines into a buffered sink and returns
/// `(lines per second, bytes per second)`: shows that the generator is not
/// the bottleneck.
pub fn gen_bench(req: &Requests, n: u64) -> (f64, f64) {
    let mut sink = std::io::BufWriter::with_capacity(1 << 16, std::io::sink());
    let mut line = Vec::with_capacity(256);
    let mut bytes = 0u64;
    let start = Instant::now();
    for id in 1..=n {
        line.clear();
        req.push(&mut line, id);
        bytes += line.len() as u64;
        sink.write_all(&line).expect("sink never fails");
    }
    sink.flush().expect("sink never fails");
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    (n as f64 / secs, bytes as f64 / secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_matches_serde() {
        let r = Requests::new("echo", "hello");
        let mut out = Vec::new();
        r.push(&mut out, 42);
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello\"}}}\n"
        );
        assert_eq!(r.line_len(42), out.len());
    }

    #[test]
    fn escapes_and_ids() {
        let r = Requests::new("to\"ol", "a\nb\\c");
        for id in [0, 1, 9, 10, 99, 100, 12345, u64::MAX] {
            let mut out = Vec::new();
            r.push(&mut out, id);
            assert_eq!(out.last(), Some(&b'\n'));
            let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
            assert_eq!(v["id"].as_u64(), Some(id));
            assert_eq!(v["params"]["name"], "to\"ol");
            assert_eq!(v["params"]["arguments"]["text"], "a\nb\\c");
        }
    }

    #[test]
    fn list_and_read_lines() {
        let mut out = Vec::new();
        Requests::list().push(&mut out, 3);
        assert_eq!(out, b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}\n");
        assert_eq!(Requests::list().line_len(3), out.len());
        out.clear();
        let r = Requests::read("bench://blob?\"x\"");
        r.push(&mut out, 12);
        assert_eq!(r.line_len(12), out.len());
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], 12);
        assert_eq!(v["method"], "resources/read");
        assert_eq!(v["params"]["uri"], "bench://blob?\"x\"");
    }

    #[test]
    fn modern_lines() {
        let mut out = Vec::new();
        Requests::modern("echo", "hi").push(&mut out, 7);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["params"]["arguments"]["text"], "hi");
        assert_eq!(v["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"], MODERN_VERSION);
        out.clear();
        Requests::modern_call("ask", "{}", ELICITATION_CAPABILITIES).push(&mut out, 8);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            v["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["elicitation"]["form"],
            serde_json::json!({})
        );
        mrtr_retry(&mut out, 9, "ask", &["a".into(), "b".into()], Some("s\"1"), "Ada");
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], 9);
        assert_eq!(v["params"]["inputResponses"]["b"]["content"]["name"], "Ada");
        assert_eq!(v["params"]["requestState"], "s\"1");
        assert_eq!(v["params"]["_meta"]["io.modelcontextprotocol/clientInfo"]["name"], "loadgen");
        mrtr_retry(&mut out, 10, "ask", &["a".into()], None, "Ada");
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert!(v["params"].get("requestState").is_none());
        let v: serde_json::Value = serde_json::from_slice(&listen_request(3)).unwrap();
        assert_eq!(v["params"]["notifications"]["toolsListChanged"], true);
    }

    #[test]
    fn fixed_lines_are_json() {
        for line in [INITIALIZE, INITIALIZED] {
            assert_eq!(line.last(), Some(&b'\n'));
            let v: serde_json::Value = serde_json::from_slice(line).unwrap();
            assert_eq!(v["jsonrpc"], "2.0");
        }
    }
}
