//! The client's half of the 2026-07-28 revision: the era a client runs in, the per-request
//! `_meta` it sends, the multi round-trip calls it drives (an `input_required` result is
//! answered through the client's own sampling, elicitation and roots handlers, then the
//! request is retried with the answers and the echoed `requestState`), and the cache of
//! results the server marked with `ttlMs`.

use super::{OutboundId, RequestKey, RequestOptions};
use crate::catalogue::headers::header_params;
use crate::jsonrpc::{codes, RpcError};
use crate::protocol::meta_keys;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

/// Which revisions a client speaks, and how it finds out what the server speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ClientMode {
    /// Probe with `server/discover` and fall back to `initialize` when the server is legacy
    /// (`basic/versioning.mdx`, "Backward Compatibility"). The default.
    #[default]
    Auto,
    /// 2026-07-28 only: a legacy server is an error.
    Modern,
    /// The `initialize` handshake only (2025-11-25 and earlier).
    Legacy,
}

impl ClientMode {
    /// The mode's name (`auto`, `modern`, `legacy`).
    pub const fn as_str(self) -> &'static str {
        match self {
            ClientMode::Auto => "auto",
            ClientMode::Modern => "modern",
            ClientMode::Legacy => "legacy",
        }
    }
}

impl std::str::FromStr for ClientMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(ClientMode::Auto),
            "modern" => Ok(ClientMode::Modern),
            "legacy" => Ok(ClientMode::Legacy),
            other => Err(format!("unknown client mode {other:?} (expected \"auto\", \"modern\" or \"legacy\")")),
        }
    }
}

impl std::fmt::Display for ClientMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether `e` is one of the errors only a modern server sends: such an answer to the probe
/// identifies a modern server, anything else a legacy one.
pub(crate) fn is_modern_error(e: &RpcError) -> bool {
    matches!(
        e.code,
        codes::UNSUPPORTED_PROTOCOL_VERSION | codes::HEADER_MISMATCH | codes::MISSING_REQUIRED_CLIENT_CAPABILITY
    )
}

/// The versions an `UnsupportedProtocolVersionError` lists.
pub(crate) fn supported_versions(e: &RpcError) -> Vec<String> {
    e.data
        .as_ref()
        .and_then(|d| d.get("supported"))
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// Merges `meta` into `params._meta` (params become an object if they were absent).
pub(crate) fn with_meta(params: Option<Value>, meta: &Map<String, Value>) -> Result<Value, RpcError> {
    let mut params = match params {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err(RpcError::invalid_params("params must be an object")),
    };
    let slot = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    let Value::Object(existing) = slot else {
        return Err(RpcError::invalid_params("params._meta must be an object"));
    };
    for (k, v) in meta {
        existing.entry(k.clone()).or_insert_with(|| v.clone());
    }
    Ok(Value::Object(params))
}

/// Drops the tools whose `x-mcp-header` annotations are invalid from a `tools/list` result
/// (a client MUST NOT call them; one bad tool does not hide the others). Returns the names
/// dropped, with why.
pub(crate) fn drop_invalid_tools(result: &mut Value) -> Vec<(String, String)> {
    let mut dropped = Vec::new();
    if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
        tools.retain(|t| {
            let schema = t.get("inputSchema").unwrap_or(&Value::Null);
            match header_params(schema) {
                Ok(_) => true,
                Err(why) => {
                    let name = t.get("name").and_then(Value::as_str).unwrap_or("?").to_string();
                    dropped.push((name, why));
                    false
                }
            }
        });
    }
    dropped
}

/// Takes out of a modern result what only the protocol needs (`resultType: "complete"`, the
/// cache hints the client honours itself, the server's identity stamp), so that results read
/// the same in both eras.
pub(crate) fn strip_plumbing(result: &mut Value) {
    let Value::Object(m) = result else { return };
    if m.get("resultType").and_then(Value::as_str) == Some("complete") {
        m.remove("resultType");
    }
    // A task's `ttlMs` is its time-to-live, not a caching hint.
    if !m.contains_key("taskId") {
        m.remove("ttlMs");
        m.remove("cacheScope");
    }
    strip_meta_key(m, meta_keys::SERVER_INFO);
}

/// Removes `key` from `m._meta`, and `_meta` itself when that leaves it empty.
pub(crate) fn strip_meta_key(m: &mut Map<String, Value>, key: &str) {
    if let Some(Value::Object(meta)) = m.get_mut("_meta") {
        meta.remove(key);
        if meta.is_empty() {
            m.remove("_meta");
        }
    }
}

/// One request the client sent in the modern era, tracked so that an `input_required`
/// answer can be served and the request retried under the caller's id.
pub(crate) struct ModernCall {
    /// The id the caller waits on (the first attempt's).
    pub caller: OutboundId,
    pub method: String,
    /// The params of the first attempt (with `_meta`, without `inputResponses`/`requestState`).
    pub params: Value,
    pub opts: RequestOptions,
    /// Rounds answered so far.
    pub rounds: u32,
    /// The input requests of the current round still unanswered (input key by request key).
    pub awaiting: HashMap<RequestKey, String>,
    /// The answers of the current round.
    pub answers: Map<String, Value>,
    /// The `requestState` to echo.
    pub state: Option<String>,
    /// When the first attempt was sent (a followed task's deadline counts from it).
    pub started: Instant,
    /// The tools are being listed for this call (see [`Relist`]); `None` before and after.
    pub relist: Option<Relist>,
    /// The tools were listed for it once already (a second `-32020` is its answer).
    pub relisted: bool,
}

/// A `tools/call` refused with `-32020` (header mismatch) before this client knew the tool's
/// `x-mcp-header` parameters: the tools are listed (each page's answer teaches the HTTP
/// transport which parameters to mirror), then the call is sent once more.
pub(crate) struct Relist {
    /// Pages of `tools/list` asked for so far.
    pub pages: u32,
    /// The refusal, the call's answer if listing fails.
    pub refusal: RpcError,
}

/// The most pages of `tools/list` read to learn a tool's header parameters.
pub(crate) const RELIST_PAGES: u32 = 64;

/// Results the server said may be reused (`ttlMs` > 0), by method and target, bounded.
#[derive(Default)]
pub(crate) struct ResultCache {
    entries: HashMap<String, (Instant, Value)>,
    order: VecDeque<String>,
}

/// Entries kept at most: the lists (one per page) and the most recently read resources.
const CACHE_ENTRIES: usize = 256;

impl ResultCache {
    /// The cache key of a request, if its result may be cached: list pages by cursor,
    /// resource reads by URI.
    pub fn key(method: &str, params: Option<&Value>) -> Option<String> {
        let field = |name: &str| params.and_then(|p| p.get(name)).and_then(Value::as_str).unwrap_or("");
        match method {
            "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" => {
                Some(format!("{method}\n{}", field("cursor")))
            }
            "resources/read" => Some(format!("{method}\n{}", field("uri"))),
            _ => None,
        }
    }

    pub fn get(&mut self, key: &str, now: Instant) -> Option<Value> {
        match self.entries.get(key) {
            Some((until, v)) if *until > now => Some(v.clone()),
            Some(_) => {
                self.entries.remove(key);
                None
            }
            None => None,
        }
    }

    /// Keeps `result` for its `ttlMs`, if it has one.
    pub fn put(&mut self, key: String, result: &Value, now: Instant) {
        let ttl = result.get("ttlMs").and_then(Value::as_u64).unwrap_or(0);
        if ttl == 0 {
            self.entries.remove(&key);
            return;
        }
        let until = now + Duration::from_millis(ttl.min(24 * 3600 * 1000));
        if self.entries.insert(key.clone(), (until, result.clone())).is_none() {
            self.order.push_back(key);
        }
        while self.entries.len() > CACHE_ENTRIES {
            let Some(old) = self.order.pop_front() else { break };
            self.entries.remove(&old);
        }
        if self.order.len() > CACHE_ENTRIES * 2 {
            let live: HashSet<&String> = self.entries.keys().collect();
            self.order.retain(|k| live.contains(k));
        }
    }

    /// Forgets what a notification says changed.
    pub fn invalidate(&mut self, notification: &str, params: Option<&Value>) {
        let prefix = match notification {
            "notifications/tools/list_changed" => "tools/list\n".to_string(),
            "notifications/prompts/list_changed" => "prompts/list\n".to_string(),
            "notifications/resources/list_changed" => {
                self.entries.retain(|k, _| !k.starts_with("resources/templates/list\n"));
                "resources/list\n".to_string()
            }
            "notifications/resources/updated" => {
                let uri = params.and_then(|p| p.get("uri")).and_then(Value::as_str).unwrap_or("");
                self.entries.remove(&format!("resources/read\n{uri}"));
                return;
            }
            _ => return,
        };
        self.entries.retain(|k, _| !k.starts_with(&prefix));
    }

    pub fn clear(&mut self) {
        self.entries.clear();
        self.order.clear();
    }
}

/// The error of a call whose input rounds exceeded the client's bound.
pub(crate) fn too_many_rounds(method: &str, max: u32) -> RpcError {
    RpcError::new(
        codes::INTERNAL_ERROR,
        format!("{method}: the server asked for input more than {max} times (the client's max_input_rounds)"),
    )
}

/// `params` of the `meta_keys` a modern request carries.
pub(crate) fn request_meta(
    version: &str,
    capabilities: &Value,
    info: &Value,
    log_level: Option<&Value>,
) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(meta_keys::PROTOCOL_VERSION.into(), version.into());
    m.insert(meta_keys::CLIENT_CAPABILITIES.into(), capabilities.clone());
    m.insert(meta_keys::CLIENT_INFO.into(), info.clone());
    if let Some(l) = log_level {
        m.insert(meta_keys::LOG_LEVEL.into(), l.clone());
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn meta_is_merged_without_overwriting() {
        let meta = request_meta("2026-07-28", &json!({}), &json!({"name": "c", "version": "1"}), None);
        let p = with_meta(Some(json!({"name": "t", "_meta": {"progressToken": 3}})), &meta).unwrap();
        assert_eq!(p["_meta"]["progressToken"], 3);
        assert_eq!(p["_meta"][meta_keys::PROTOCOL_VERSION], "2026-07-28");
        assert!(with_meta(Some(json!([1])), &meta).is_err());
        assert_eq!(with_meta(None, &meta).unwrap()["_meta"][meta_keys::CLIENT_INFO]["name"], "c");
    }

    #[test]
    fn invalid_header_tools_are_dropped() {
        let mut r = json!({"tools": [
            {"name": "ok", "inputSchema": {"type": "object", "properties": {"r": {"type": "string", "x-mcp-header": "Region"}}}},
            {"name": "bad", "inputSchema": {"type": "object", "properties": {"r": {"type": "number", "x-mcp-header": "Score"}}}},
            {"name": "dup", "inputSchema": {"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "X"}, "b": {"type": "string", "x-mcp-header": "x"}}}}
        ]});
        let dropped: Vec<String> = drop_invalid_tools(&mut r).into_iter().map(|(n, _)| n).collect();
        assert_eq!(dropped, ["bad", "dup"]);
        assert_eq!(r["tools"].as_array().unwrap().len(), 1);
    }

    #[test]
    fn cache_honours_ttl_and_invalidation() {
        let now = Instant::now();
        let mut c = ResultCache::default();
        let k = ResultCache::key("tools/list", None).unwrap();
        c.put(k.clone(), &json!({"tools": [], "ttlMs": 1000}), now);
        assert!(c.get(&k, now + Duration::from_millis(500)).is_some());
        assert!(c.get(&k, now + Duration::from_millis(1500)).is_none());
        c.put(k.clone(), &json!({"tools": [], "ttlMs": 1000}), now);
        c.invalidate("notifications/tools/list_changed", None);
        assert!(c.get(&k, now).is_none());
        let r = ResultCache::key("resources/read", Some(&json!({"uri": "a://b"}))).unwrap();
        c.put(r.clone(), &json!({"contents": [], "ttlMs": 1000}), now);
        c.invalidate("notifications/resources/updated", Some(&json!({"uri": "a://b"})));
        assert!(c.get(&r, now).is_none());
        // No ttl, no entry; the bound holds.
        c.put(k.clone(), &json!({"tools": []}), now);
        assert!(c.get(&k, now).is_none());
        for i in 0..(CACHE_ENTRIES + 10) {
            c.put(format!("resources/read\n{i}"), &json!({"ttlMs": 5}), now);
        }
        assert!(c.entries.len() <= CACHE_ENTRIES);
        assert!(c.order.len() <= CACHE_ENTRIES * 2);
    }

    #[test]
    fn modes_parse() {
        assert_eq!("auto".parse::<ClientMode>().unwrap(), ClientMode::Auto);
        assert_eq!("modern".parse::<ClientMode>().unwrap(), ClientMode::Modern);
        assert!("stateless".parse::<ClientMode>().is_err());
    }
}
