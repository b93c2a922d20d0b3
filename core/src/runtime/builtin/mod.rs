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
//! and their checks are written once. Wherever they are added, they run at the edge of the
//! server's code ([`Builtins`]): a call is admitted before any middleware of the server's
//! own sees it, and timed and logged around all of it, in every language (no future or
//! frame of a chain per built-in).

mod cache;
mod observe;
mod rate_limit;

use cache::CacheKey;
pub use cache::ResponseCaching;
use observe::{Line, Timer};
pub use observe::{Logging, Timing};
pub use rate_limit::RateLimiting;

use super::middleware::Middleware;
use crate::engine::{Origin, Outcome, Request};
use serde_json::Value;
use std::sync::{Arc, RwLock};

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
    /// [`ResponseCaching`].
    ResponseCaching(ResponseCaching),
}

impl Builtin {
    /// As a link of a Rust server's chain.
    pub fn into_middleware(self) -> Arc<dyn Middleware> {
        match self {
            Builtin::RateLimiting(m) => m,
            Builtin::Timing(m) => Arc::new(m),
            Builtin::Logging(m) => Arc::new(m),
            Builtin::ResponseCaching(m) => Arc::new(m),
        }
    }
}

/// The built-in middleware `kind` (`rate_limiting`, `timing`, `logging`,
/// `response_caching`) configured by
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
        "response_caching" => Builtin::ResponseCaching(ResponseCaching::from_options(&opts)?),
        _ => {
            return Err(format!(
                "no built-in middleware is called {kind:?}: rate_limiting, timing, logging or response_caching"
            ))
        }
    })
}

/// The built-ins of one server, in the order they were added, run at the edge of its code:
/// the runtime's invocation path for a Rust server, the host session for Python and Node.
#[derive(Debug, Default)]
pub struct Builtins {
    links: RwLock<Arc<Vec<Builtin>>>,
}

impl Builtins {
    /// Adds one after the others; a cache forgets what changes of `registry` make stale.
    pub fn add(&self, link: Builtin, registry: Option<&crate::catalogue::Registry>) {
        if let (Builtin::ResponseCaching(c), Some(r)) = (&link, registry) {
            c.watch(r);
        }
        let mut links = self.links.write().unwrap_or_else(|e| e.into_inner());
        let mut more = Vec::clone(&links);
        more.push(link);
        *links = Arc::new(more);
    }

    /// The built-ins now.
    pub fn snapshot(&self) -> Arc<Vec<Builtin>> {
        self.links.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.links.read().unwrap_or_else(|e| e.into_inner()).is_empty()
    }
}

/// Whether `request` reaches a server's code (what the built-ins see: calls, reads, prompts,
/// completions, lists that pass middleware, methods of the server's own).
pub(crate) fn reaches_user_code(request: &Request) -> bool {
    matches!(
        request,
        Request::CallTool { .. }
            | Request::ReadResource { .. }
            | Request::GetPrompt { .. }
            | Request::Complete(_)
            | Request::Custom { .. }
            | Request::List { .. }
    )
}

/// Whether `inv`'s answer must not come from (or go to) the cache: a call that runs as a
/// task, or a 2026-07-28 round that carries the client's answers to input requests (its
/// result depends on them).
pub(crate) fn uncacheable(inv: &crate::engine::Invocation) -> bool {
    inv.task.is_some() || inv.context.as_ref().is_some_and(|c| c.input_responses.is_some())
}

/// Whether every rate limit and cache among `links` answers at once (buckets and answers
/// in this process).
pub(crate) fn all_local(links: &[Builtin]) -> bool {
    links.iter().all(|l| match l {
        Builtin::RateLimiting(r) => r.is_local(),
        Builtin::ResponseCaching(c) => c.is_local(),
        _ => true,
    })
}

/// The refusal of the first rate limit among `links` that refuses `request` (from
/// `origin`), when all of them answer at once ([`all_local`]).
pub(crate) fn refused_now(links: &[Builtin], request: &Request, origin: Option<&Origin>) -> Option<Outcome> {
    limits(links).find_map(|limit| futures_util::FutureExt::now_or_never(limit.admit(request, origin)).flatten())
}

/// Says the log line of a request a rate limit refused before it began (the line of the
/// first [`Logging`] among `links`, if any; `client` names the client).
pub(crate) fn say_refused(
    links: &[Builtin],
    request: &Request,
    origin: Option<&Origin>,
    client: impl FnOnce() -> Option<String>,
    refused: &Outcome,
) {
    let logging = links.iter().find_map(|l| match l {
        Builtin::Logging(l) => Some(l),
        _ => None,
    });
    if let Some(line) = logging.and_then(|l| l.start(request, origin, client)) {
        line.emit(refused, false);
    }
}

/// The rate limits among `links`, in order.
pub(crate) fn limits(links: &[Builtin]) -> impl Iterator<Item = &RateLimiting> {
    links.iter().filter_map(|l| match l {
        Builtin::RateLimiting(r) => Some(&**r),
        _ => None,
    })
}

/// What `links` note of a call once admitted: its timer, its log line (`client` names the
/// client, asked only when a line is said), and where its answer is kept, or the answer
/// kept already (`uncacheable`: see [`uncacheable`]).
pub(crate) fn begin(
    links: &[Builtin],
    request: &Request,
    origin: Option<&Origin>,
    uncacheable: bool,
    client: impl FnOnce() -> Option<String>,
) -> Noted {
    let mut noted = Noted::default();
    let mut client = Some(client);
    for link in links {
        match link {
            Builtin::ResponseCaching(c) if noted.cache.is_none() && noted.hit.is_none() => {
                match c.lookup(request, origin, uncacheable) {
                    Some(Ok(hit)) => noted.hit = Some(hit),
                    Some(Err(key)) => noted.cache = Some((c.clone(), key)),
                    None => {}
                }
            }
            Builtin::Timing(_) if noted.timer.is_none() => noted.timer = Some(Timer::start(request)),
            Builtin::Logging(l) if noted.line.is_none() => {
                if let Some(client) = client.take() {
                    noted.line = l.start(request, origin, client);
                }
            }
            _ => {}
        }
    }
    noted
}

/// What the built-ins note of one call until it ends.
#[derive(Debug, Default)]
pub(crate) struct Noted {
    timer: Option<Timer>,
    line: Option<Line>,
    cache: Option<(ResponseCaching, CacheKey)>,
    hit: Option<Outcome>,
    /// Answered from the cache.
    cached: bool,
}

impl Noted {
    /// Whether nothing is noted (no timing, no line to say, nothing to keep).
    pub(crate) fn is_empty(&self) -> bool {
        self.timer.is_none() && self.line.is_none() && self.cache.is_none() && self.hit.is_none()
    }

    /// The answer kept for the call, when the cache has one (the call is answered with it:
    /// [`Noted::end`] it with that answer).
    pub(crate) fn take_hit(&mut self) -> Option<Outcome> {
        let hit = self.hit.take();
        self.cached |= hit.is_some();
        hit
    }

    /// What a cache whose answers are in a store must be asked: the answer for this call,
    /// looked up with [`Remote::fetch`] where the call is admitted (the I/O runtime).
    pub(crate) fn remote(&self) -> Option<Remote> {
        self.cache.as_ref().filter(|(c, _)| !c.is_local()).map(|(c, k)| Remote(c.clone(), k.clone()))
    }

    /// The call was answered from the cache with `hit`: it ends (nothing to keep).
    pub(crate) fn end_hit(mut self, hit: &Outcome) {
        self.cache = None;
        self.cached = true;
        self.end(hit);
    }

    /// The call was refused (a rate limit): its line is said, nothing timed or kept.
    pub(crate) fn end_refused(mut self, refused: &Outcome) {
        self.cache = None;
        self.timer = None;
        self.end(refused);
    }

    /// The call ended with `outcome`.
    pub(crate) fn end(self, outcome: &Outcome) {
        if let Some(t) = self.timer {
            t.stop();
        }
        if let Some(l) = self.line {
            l.emit(outcome, self.cached);
        }
        if let Some((cache, key)) = self.cache {
            cache.keep(key, outcome);
        }
    }
}

/// A lookup of a shared cache ([`Noted::remote`]).
pub(crate) struct Remote(ResponseCaching, CacheKey);

impl Remote {
    /// The answer the store keeps for the call, if any.
    pub(crate) async fn fetch(&self) -> Option<Outcome> {
        self.0.fetch(&self.1).await
    }
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
