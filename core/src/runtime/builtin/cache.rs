//! [`ResponseCaching`]: tool results and resource contents kept for a while, per caller.

use super::{Clock, Options};
use crate::catalogue::{ListKind, Registry, RegistryChange};
use crate::engine::{Origin, Outcome, Request};
use crate::runtime::middleware::{Hooks, Middleware};
use crate::store::responses::ResponseStore;
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

/// Keeps successful tool results and resource contents for `ttl` (FastMCP's
/// `ResponseCachingMiddleware`), keyed by the tool's name and arguments (or the resource's
/// URI) and the caller's token subject, so that one caller never reads another's. A tool
/// result with `isError`, an error, a call that runs as a task or asks the client for input
/// is never kept. The cache forgets a tool's results when the tool list changes, a
/// resource's contents when it is updated (`notifications/resources/updated`) or the
/// resource list changes; at most `max_entries` are kept (the oldest go first). With a
/// store ([`ResponseCaching::store_url`]: Redis) the replicas share the answers: one
/// computed on a replica is answered by all, and a change on one forgets for all.
///
/// ```
/// use hypermcp::middleware::ResponseCaching;
/// let server = hypermcp::Server::new("api", "1.0")
///     .middleware(ResponseCaching::new(60_000).tools(["search"]));
/// ```
#[derive(Clone)]
pub struct ResponseCaching {
    ttl_ms: u64,
    /// Only these tools (`None`: every tool).
    tools: Option<HashSet<String>>,
    excluded: HashSet<String>,
    resources: bool,
    max_entries: usize,
    clock: Clock,
    entries: Arc<Mutex<Entries>>,
    /// Where replicas share answers (`None`: this process only).
    shared: Option<Arc<dyn ResponseStore>>,
}

impl std::fmt::Debug for ResponseCaching {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseCaching")
            .field("ttl_ms", &self.ttl_ms)
            .field("tools", &self.tools)
            .field("excluded", &self.excluded)
            .field("resources", &self.resources)
            .field("max_entries", &self.max_entries)
            .field("store", &self.shared.as_ref().map_or_else(|| "memory".to_string(), |s| s.describe()))
            .finish()
    }
}

#[derive(Default)]
struct Entries {
    map: HashMap<Key, (u64, Outcome)>,
    /// Keys in the order they were stored (some may be gone already).
    order: VecDeque<Key>,
    /// Whether the registry's changes reach this cache.
    watching: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    tool: bool,
    /// The tool's name or the resource's URI.
    name: String,
    /// The arguments as JSON text (empty for a resource).
    args: String,
    subject: String,
}

fn lock(m: &Mutex<Entries>) -> std::sync::MutexGuard<'_, Entries> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl ResponseCaching {
    /// Every tool's results and every resource's contents, for `ttl_ms` milliseconds.
    pub fn new(ttl_ms: u64) -> Self {
        ResponseCaching {
            ttl_ms: ttl_ms.max(1),
            tools: None,
            excluded: HashSet::new(),
            resources: true,
            max_entries: 10_000,
            clock: super::system_clock(),
            entries: Arc::default(),
            shared: None,
        }
    }

    /// Answers kept where the replicas share them: `memory` (this process, the default) or
    /// a `redis://` URL (connected on first use). Give replicas of one server one database,
    /// and other servers others: entries are named by tool and resource. In Redis an entry
    /// lasts its TTL by Redis's clock, and `max_entries` does not apply (the TTL bounds them).
    pub fn store_url(mut self, url: &str) -> crate::Result<Self> {
        self.shared = match url {
            "memory" => None,
            _ => Some(crate::store::responses::responses(url).map_err(|e| crate::Error::msg(e.0))?),
        };
        Ok(self)
    }

    /// Answers kept in `store`, shared by the replicas that use it.
    pub fn store(mut self, store: Arc<dyn ResponseStore>) -> Self {
        self.shared = Some(store);
        self
    }

    /// Whether answers are kept in this process only (looked up without I/O).
    pub(crate) fn is_local(&self) -> bool {
        self.shared.is_none()
    }

    /// Only these tools' results.
    pub fn tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.tools = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Never these tools' results.
    pub fn excluded_tools<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.excluded = names.into_iter().map(Into::into).collect();
        self
    }

    /// Whether resource contents are kept too (default true).
    pub fn resources(mut self, on: bool) -> Self {
        self.resources = on;
        self
    }

    /// Entries kept at most (default 10,000).
    pub fn max_entries(mut self, n: usize) -> Self {
        self.max_entries = n.max(1);
        self
    }

    /// The clock (milliseconds since the epoch) entries expire by.
    pub fn clock(mut self, clock: impl Fn() -> u64 + Send + Sync + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// Entries kept now (the expired ones included until they are met).
    pub fn len(&self) -> usize {
        lock(&self.entries).map.len()
    }

    /// Whether none is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(super) fn from_options(o: &Options<'_>) -> Result<Self, String> {
        o.only(&["ttl", "tools", "excludedTools", "resources", "maxEntries", "store"])?;
        let ttl = o.positive("ttl")?.ok_or_else(|| o.wrong("ttl", "given (milliseconds)"))?;
        let mut m = ResponseCaching::new(ttl as u64);
        if let Some(t) = o.names("tools")? {
            m = m.tools(t);
        }
        if let Some(t) = o.names("excludedTools")? {
            m = m.excluded_tools(t);
        }
        m.resources = o.flag("resources")?.unwrap_or(true);
        if let Some(n) = o.positive("maxEntries")? {
            m.max_entries = n as usize;
        }
        if let Some(url) = o.text("store")? {
            m = m.store_url(url).map_err(|e| e.to_string())?;
        }
        Ok(m)
    }

    /// Forgets what `change` makes stale, from now on (once per cache).
    pub(crate) fn watch(&self, registry: &Registry) {
        if std::mem::replace(&mut lock(&self.entries).watching, true) {
            return;
        }
        let entries: Weak<Mutex<Entries>> = Arc::downgrade(&self.entries);
        let shared = self.shared.clone();
        registry.add_listener(move |change| {
            let Some(entries) = entries.upgrade() else { return };
            if let Some(store) = &shared {
                match change {
                    RegistryChange::ListChanged(ListKind::Tools) => store.forget("t"),
                    RegistryChange::ListChanged(ListKind::Resources | ListKind::ResourceTemplates) => store.forget("r"),
                    RegistryChange::ResourceUpdated(uri) => store.forget(&format!("u:{uri}")),
                    _ => {}
                }
            }
            let mut e = lock(&entries);
            match change {
                RegistryChange::ListChanged(ListKind::Tools) => e.map.retain(|k, _| !k.tool),
                RegistryChange::ListChanged(ListKind::Resources | ListKind::ResourceTemplates) => {
                    e.map.retain(|k, _| k.tool)
                }
                RegistryChange::ResourceUpdated(uri) => e.map.retain(|k, _| k.tool || k.name != *uri),
                _ => {}
            }
        });
    }

    /// The key of `request`, when its answer may be kept.
    fn key(&self, request: &Request, origin: Option<&Origin>, uncacheable: bool) -> Option<Key> {
        let subject = || origin.and_then(|o| o.auth.as_ref()).and_then(|a| a.subject.clone()).unwrap_or_default();
        match request {
            Request::CallTool { name, arguments } if !uncacheable => {
                if self.excluded.contains(name) || self.tools.as_ref().is_some_and(|t| !t.contains(name)) {
                    return None;
                }
                let args = serde_json::to_string(arguments).ok()?;
                Some(Key { tool: true, name: name.clone(), args, subject: subject() })
            }
            Request::ReadResource { uri, .. } if self.resources && !uncacheable => {
                Some(Key { tool: false, name: uri.clone(), args: String::new(), subject: subject() })
            }
            _ => None,
        }
    }

    /// The answer kept for `request`, if fresh; else the key to keep its answer under (none
    /// for a request whose answer is never kept, or `uncacheable`).
    pub(crate) fn lookup(
        &self,
        request: &Request,
        origin: Option<&Origin>,
        uncacheable: bool,
    ) -> Option<Result<Outcome, CacheKey>> {
        let key = self.key(request, origin, uncacheable)?;
        if self.shared.is_some() {
            // Asked of the store by [`ResponseCaching::fetch`], where the call is admitted.
            return Some(Err(CacheKey { key, generations: Arc::default() }));
        }
        let now = (self.clock)();
        let mut e = lock(&self.entries);
        match e.map.get(&key) {
            Some((expires, outcome)) if *expires > now => Some(Ok(outcome.clone())),
            Some(_) => {
                e.map.remove(&key);
                Some(Err(CacheKey { key, generations: Arc::default() }))
            }
            None => Some(Err(CacheKey { key, generations: Arc::default() })),
        }
    }

    /// The answer the store keeps for `key` (none without a store, or when it cannot be
    /// reached: the call is then computed, and the failure logged).
    pub(crate) async fn fetch(&self, key: &CacheKey) -> Option<Outcome> {
        let store = self.shared.as_ref()?;
        let (generations, found) = match store.get(&key.key.entry(), &key.key.scopes()).await {
            Ok(r) => r,
            Err(e) => {
                let now = crate::util::unix_ms();
                let last = FETCH_FAILED_AT.load(Ordering::Relaxed);
                if now.saturating_sub(last) >= 10_000 && FETCH_FAILED_AT.swap(now, Ordering::Relaxed) == last {
                    let store = store.describe();
                    tracing::warn!(target: "hypermcp::session", store, error = %e.0, "response cache store failed: answers are computed meanwhile");
                }
                return None;
            }
        };
        let _ = key.generations.set(generations);
        let found = found?;
        let (tag, body) = found.split_first()?;
        match tag {
            b't' => serde_json::from_slice(body).ok().map(Outcome::Tool),
            b'r' => serde_json::from_slice(body).ok().map(Outcome::Resource),
            _ => None,
        }
    }

    /// Keeps `outcome` under `key` when it may be kept.
    pub(crate) fn keep(&self, key: CacheKey, outcome: &Outcome) {
        let keep = match outcome {
            Outcome::Tool(r) => r.is_error != Some(true),
            Outcome::Resource(_) => true,
            _ => false,
        };
        if !keep {
            return;
        }
        if let Some(store) = &self.shared {
            // Kept under the generations it was looked up under (none: the lookup failed).
            let Some(generations) = key.generations.get() else { return };
            let body = match outcome {
                Outcome::Tool(r) => serde_json::to_vec(r).map(|b| [b"t".as_slice(), &b].concat()),
                Outcome::Resource(r) => serde_json::to_vec(r).map(|b| [b"r".as_slice(), &b].concat()),
                _ => return,
            };
            if let Ok(body) = body {
                store.put(&key.key.entry(), generations, body, self.ttl_ms);
            }
            return;
        }
        let expires = (self.clock)().saturating_add(self.ttl_ms);
        let mut e = lock(&self.entries);
        while e.map.len() >= self.max_entries {
            match e.order.pop_front() {
                Some(old) => drop(e.map.remove(&old)),
                None => break,
            }
        }
        // The queue never holds more than twice the entries (keys met again, or gone).
        if e.order.len() > 2 * self.max_entries {
            let Entries { map, order, .. } = &mut *e;
            order.retain(|k| map.contains_key(k));
        }
        e.order.push_back(key.key.clone());
        e.map.insert(key.key, (expires, outcome.clone()));
    }
}

/// When the store last failed a lookup (ms): logged once in ten seconds.
static FETCH_FAILED_AT: AtomicU64 = AtomicU64::new(0);

/// Where a call's answer is to be kept ([`ResponseCaching::lookup`]).
#[derive(Debug, Clone)]
pub(crate) struct CacheKey {
    key: Key,
    /// With a store: the generations of its scopes when it was looked up.
    generations: Arc<OnceLock<String>>,
}

impl Key {
    /// Its name in a store: a digest of all it is made of.
    fn entry(&self) -> String {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        for part in [if self.tool { "t" } else { "r" }, &self.name, &self.args, &self.subject] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.finalize().iter().map(|b| format!("{b:02x}")).collect()
    }

    /// The scopes it is forgotten with.
    fn scopes(&self) -> Vec<String> {
        if self.tool {
            vec!["t".into()]
        } else {
            vec!["r".into(), format!("u:{}", self.name)]
        }
    }
}

impl Middleware for ResponseCaching {
    /// Runs at the edge of the server's code, not in the chain (see [`super::Builtins`]).
    fn hooks(&self) -> Hooks {
        Hooks::NONE
    }

    fn builtin(&self) -> Option<super::Builtin> {
        Some(super::Builtin::ResponseCaching(self.clone()))
    }
}
