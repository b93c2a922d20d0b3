//! The middleware hypermcp ships, run in the engine (no user code in them, so Python and
//! Node configure them and never see a call pass):
//!
//! - [`RateLimiting`]: a token bucket per client (its token's subject, else its legacy
//!   session, else its address), and per tool if asked; in memory or shared by replicas
//!   through Redis; a refused request gets [`RATE_LIMITED`](crate::jsonrpc::codes::RATE_LIMITED)
//!   with `data.retryAfterMs`;
//! - [`Timing`]: duration histograms per method and per tool on the Prometheus endpoint;
//! - [`Logging`]: one structured line per request (method, name, duration, outcome,
//!   session, client), formatted here and handed to the host's logger in batches.
//!
//! The bindings build them from a JSON configuration ([`from_config`]) so that the options
//! and their checks are written once. They run where the server's Rust middleware runs:
//! around the host's chain, outermost in the order they were added.

mod observe;
mod rate_limit;

pub(crate) use observe::{Line, Timer};
pub use observe::{Logging, Timing};
pub use rate_limit::RateLimiting;

use super::middleware::Middleware;
use serde_json::Value;
use std::sync::Arc;

/// The wall clock a built-in reads, in milliseconds since the epoch (injectable: tests hand
/// a clock of their own).
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// The system clock.
pub(crate) fn system_clock() -> Clock {
    Arc::new(crate::util::unix_ms)
}

/// A built-in, as [`parse`] makes it.
#[derive(Debug, Clone)]
pub enum Builtin {
    /// [`RateLimiting`].
    RateLimiting(Arc<RateLimiting>),
    /// [`Timing`].
    Timing(Timing),
    /// [`Logging`].
    Logging(Logging),
}

impl Builtin {
    /// As a link of a Rust server's chain.
    pub fn into_middleware(self) -> Arc<dyn Middleware> {
        match self {
            Builtin::RateLimiting(m) => m,
            Builtin::Timing(m) => Arc::new(m),
            Builtin::Logging(m) => Arc::new(m),
        }
    }
}

/// The built-in middleware `kind` (`rate_limiting`, `timing`, `logging`) configured by
/// `config` (a JSON object of its options, in camelCase: see each type). Fails with a
/// message naming the option that is wrong.
pub fn from_config(kind: &str, config: &Value) -> Result<Arc<dyn Middleware>, String> {
    parse(kind, config).map(Builtin::into_middleware)
}

/// [`from_config`], as the [`Builtin`] itself (what a host server keeps).
pub fn parse(kind: &str, config: &Value) -> Result<Builtin, String> {
    let empty = serde_json::Map::new();
    let options = match config {
        Value::Object(m) => m,
        Value::Null => &empty,
        _ => return Err(format!("the options of the {kind} middleware must be an object")),
    };
    let opts = Options { kind, map: options };
    Ok(match kind {
        "rate_limiting" => Builtin::RateLimiting(Arc::new(RateLimiting::from_options(&opts)?)),
        "timing" => Builtin::Timing(Timing::from_options(&opts)?),
        "logging" => Builtin::Logging(Logging::from_options(&opts)?),
        _ => return Err(format!("no built-in middleware is called {kind:?}: rate_limiting, timing or logging")),
    })
}

/// The options of one built-in, read with the checks and messages they all share.
pub(crate) struct Options<'a> {
    kind: &'a str,
    map: &'a serde_json::Map<String, Value>,
}

impl Options<'_> {
    /// Fails on an option `known` does not name.
    fn only(&self, known: &[&str]) -> Result<(), String> {
        match self.map.keys().find(|k| !known.contains(&k.as_str())) {
            Some(k) => {
                Err(format!("the {} middleware has no option {k:?} (its options: {})", self.kind, known.join(", ")))
            }
            None => Ok(()),
        }
    }

    fn get(&self, name: &str) -> Option<&Value> {
        self.map.get(name).filter(|v| !v.is_null())
    }

    fn wrong(&self, name: &str, what: &str) -> String {
        format!("the {} middleware's {name} must be {what}", self.kind)
    }

    /// A number > 0.
    fn positive(&self, name: &str) -> Result<Option<f64>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) if n > 0.0 && n.is_finite() => Ok(Some(n)),
                _ => Err(self.wrong(name, "a number above 0")),
            },
        }
    }

    fn flag(&self, name: &str) -> Result<Option<bool>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(self.wrong(name, "true or false")),
        }
    }

    fn text(&self, name: &str) -> Result<Option<&str>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(self.wrong(name, "a string")),
        }
    }

    fn names(&self, name: &str) -> Result<Option<Vec<String>>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Array(a)) => a
                .iter()
                .map(|v| v.as_str().map(str::to_string).ok_or_else(|| self.wrong(name, "a list of strings")))
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(_) => Err(self.wrong(name, "a list of strings")),
        }
    }
}
