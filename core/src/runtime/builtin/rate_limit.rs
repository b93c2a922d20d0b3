//! [`RateLimiting`]: token buckets per client, and per tool, in memory or in Redis.

use super::{Clock, Options};
use crate::engine::{Origin, Outcome, Request};
use crate::jsonrpc::{codes, RpcError};
use crate::runtime::middleware::{Hooks, Middleware};
use crate::store::limits::{Bucket, MemoryRates, RateStore};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Limits the requests each client makes (FastMCP's `RateLimitingMiddleware`): a token
/// bucket of `burst_capacity` tokens refilled at `max_requests_per_second`, one a request
/// that reaches the server's code (tool calls, reads, prompts, completions, methods of the
/// server's own; lists are served from the catalogue, unlimited, unless a list hook makes
/// them pass the chain). A tool may have a bucket of its own on top ([`RateLimiting::tool`]).
///
/// The client is who the request's access token names (its subject), else its legacy
/// session, else its address; over stdio, the one client of the connection. With
/// [`RateLimiting::global_limit`] all clients share one bucket. Buckets are kept in this
/// process, or in Redis ([`RateLimiting::store_url`]) so that replicas share them. When the
/// store cannot be reached the request goes through (the failure is logged): a rate limit
/// never takes a server down.
///
/// ```
/// use hypermcp::middleware::RateLimiting;
/// let server = hypermcp::Server::new("api", "1.0")
///     .middleware(RateLimiting::new(10.0).burst_capacity(20.0).tool("search", 1.0, 2.0));
/// ```
#[derive(Clone)]
pub struct RateLimiting {
    bucket: Bucket,
    global: bool,
    tools: HashMap<String, Bucket>,
    store: Arc<dyn RateStore>,
    clock: Clock,
}

impl std::fmt::Debug for RateLimiting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiting")
            .field("bucket", &self.bucket)
            .field("global", &self.global)
            .field("tools", &self.tools)
            .field("store", &self.store.describe())
            .finish()
    }
}

/// When the store last failed (ms): its failures are logged once in ten seconds.
static STORE_FAILED_AT: AtomicU64 = AtomicU64::new(0);

impl RateLimiting {
    /// `max_requests_per_second` a client on average (> 0), in bursts of twice as many
    /// (at least one).
    pub fn new(max_requests_per_second: f64) -> Self {
        let rate = if max_requests_per_second > 0.0 && max_requests_per_second.is_finite() {
            max_requests_per_second
        } else {
            1.0
        };
        RateLimiting {
            bucket: Bucket { rate, burst: (rate * 2.0).max(1.0) },
            global: false,
            tools: HashMap::new(),
            store: Arc::new(MemoryRates::new()),
            clock: super::system_clock(),
        }
    }

    /// Requests a client may make at once (at least one).
    pub fn burst_capacity(mut self, burst: f64) -> Self {
        self.bucket.burst = burst.max(1.0);
        self
    }

    /// One bucket for all clients together.
    pub fn global_limit(mut self, global: bool) -> Self {
        self.global = global;
        self
    }

    /// A bucket of its own for tool `name`, per client: `per_second` calls on average,
    /// `burst` at once (a call takes a token from both buckets).
    pub fn tool(mut self, name: impl Into<String>, per_second: f64, burst: f64) -> Self {
        self.tools.insert(name.into(), Bucket { rate: per_second.max(f64::MIN_POSITIVE), burst: burst.max(1.0) });
        self
    }

    /// Where the buckets are kept: `memory` (this process, the default) or a `redis://`
    /// URL (shared by every replica using it; connected on first use).
    pub fn store_url(mut self, url: &str) -> crate::Result<Self> {
        self.store = crate::store::rates(url).map_err(|e| crate::Error::msg(e.0))?;
        Ok(self)
    }

    /// Where the buckets are kept.
    pub fn store(mut self, store: Arc<dyn RateStore>) -> Self {
        self.store = store;
        self
    }

    /// The clock (milliseconds since the epoch) buckets refill by.
    pub fn clock(mut self, clock: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    pub(super) fn from_options(o: &Options<'_>) -> Result<Self, String> {
        o.only(&["maxRequestsPerSecond", "burstCapacity", "globalLimit", "tools", "store"])?;
        let rate = o.positive("maxRequestsPerSecond")?.ok_or_else(|| o.wrong("maxRequestsPerSecond", "given"))?;
        let mut m = RateLimiting::new(rate);
        if let Some(b) = o.positive("burstCapacity")? {
            m = m.burst_capacity(b);
        }
        m = m.global_limit(o.flag("globalLimit")?.unwrap_or(false));
        match o.get("tools") {
            None => {}
            Some(serde_json::Value::Object(tools)) => {
                for (name, v) in tools {
                    let Some(t) = v.as_object() else {
                        return Err(o.wrong(&format!("tools[{name:?}]"), "an object"));
                    };
                    let inner = Options { kind: o.kind, map: t };
                    inner.only(&["maxRequestsPerSecond", "burstCapacity"])?;
                    let rate = inner
                        .positive("maxRequestsPerSecond")?
                        .ok_or_else(|| o.wrong(&format!("tools[{name:?}].maxRequestsPerSecond"), "given"))?;
                    let burst = inner.positive("burstCapacity")?.unwrap_or((rate * 2.0).max(1.0));
                    m = m.tool(name.clone(), rate, burst);
                }
            }
            Some(_) => return Err(o.wrong("tools", "an object of tool names to their limits")),
        }
        if let Some(url) = o.text("store")? {
            m.store = crate::store::rates(url).map_err(|e| e.0)?;
        }
        Ok(m)
    }

    /// The bucket key of the client that sent a request from `origin`.
    fn client(&self, origin: Option<&Origin>) -> String {
        if self.global {
            return "global".into();
        }
        let who = match origin {
            Some(o) => match (o.auth.as_ref().and_then(|a| a.subject.as_deref()), &o.session_id, o.client_address) {
                (Some(sub), _, _) => format!("sub:{sub}"),
                (None, Some(s), _) => format!("session:{s}"),
                (None, None, Some(a)) => format!("addr:{a}"),
                (None, None, None) => "local".into(),
            },
            None => "local".into(),
        };
        short(who)
    }

    /// Whether [`RateLimiting::admit`] answers at once (buckets in this process).
    pub(crate) fn is_local(&self) -> bool {
        self.store.is_local()
    }

    /// Whether `request`, from `origin`, may go on (`None`), else the error that refuses it.
    pub(crate) async fn admit(&self, request: &Request, origin: Option<&Origin>) -> Option<Outcome> {
        let client = self.client(origin);
        if let Some(wait) = self.take(&client, self.bucket).await {
            return Some(refused(wait, if self.global { "server" } else { "client" }));
        }
        if let Request::CallTool { name, .. } = request {
            if let Some(bucket) = self.tools.get(name) {
                let key = short(format!("tool:{name}:{client}"));
                if let Some(wait) = self.take(&key, *bucket).await {
                    return Some(refused(wait, &format!("tool {name}")));
                }
            }
        }
        None
    }

    /// Takes a token from `key`'s bucket: the wait when refused (none when the store failed).
    async fn take(&self, key: &str, bucket: Bucket) -> Option<u64> {
        let now = (self.clock)();
        match self.store.take(key, bucket, now).await {
            Ok(wait) => wait,
            Err(e) => {
                let last = STORE_FAILED_AT.load(Ordering::Relaxed);
                if now.saturating_sub(last) >= 10_000 && STORE_FAILED_AT.swap(now, Ordering::Relaxed) == last {
                    let store = self.store.describe();
                    tracing::warn!(target: "hypermcp::session", store, error = %e.0, "rate limit store failed: requests go through unlimited meanwhile");
                }
                None
            }
        }
    }
}

/// A key no longer than 200 bytes (a long subject is hashed).
fn short(key: String) -> String {
    match crate::store::short_key(&key) {
        std::borrow::Cow::Borrowed(_) => key,
        std::borrow::Cow::Owned(hashed) => hashed,
    }
}

/// The error of a refused request.
fn refused(wait_ms: u64, what: &str) -> Outcome {
    let secs = wait_ms as f64 / 1000.0;
    Outcome::Error(
        RpcError::new(codes::RATE_LIMITED, format!("Rate limit exceeded ({what}): retry in {secs:.3} s"))
            .with_data(serde_json::json!({ "retryAfterMs": wait_ms, "limit": what })),
    )
}

impl Middleware for RateLimiting {
    /// Runs at the edge of the server's code, not in the chain (see [`super::Builtins`]).
    fn hooks(&self) -> Hooks {
        Hooks::NONE
    }

    fn builtin(&self) -> Option<super::Builtin> {
        Some(super::Builtin::RateLimiting(Arc::new(self.clone())))
    }
}
