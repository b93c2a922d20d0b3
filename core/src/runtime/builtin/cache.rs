//! [`ResponseCaching`]: tool results and resource contents kept for a while, per caller.

use super::{Clock, Options};
use crate::catalogue::{ListKind, Registry, RegistryChange};
use crate::engine::{Origin, Outcome, Request};
use crate::runtime::middleware::{Hooks, Middleware};
use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, Weak};

/// Keeps successful tool results and resource contents for `ttl` (FastMCP's
/// `ResponseCachingMiddleware`), keyed by the tool's name and arguments (or the resource's
/// URI) and the caller's token subject, so that one caller never reads another's. A tool
/// result with `isError`, an error, a call that runs as a task or asks the client for input
/// is never kept. The cache forgets a tool's results when the tool list changes, a
/// resource's contents when it is updated (`notifications/resources/updated`) or the
/// resource list changes; at most `max_entries` are kept (the oldest go first).
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
}

impl std::fmt::Debug for ResponseCaching {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResponseCaching")
            .field("ttl_ms", &self.ttl_ms)
            .field("tools", &self.tools)
            .field("excluded", &self.excluded)
            .field("resources", &self.resources)
            .field("max_entries", &self.max_entries)
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
        }
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
        o.only(&["ttl", "tools", "excludedTools", "resources", "maxEntries"])?;
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
        Ok(m)
    }

    /// Forgets what `change` makes stale, from now on (once per cache).
    pub(crate) fn watch(&self, registry: &Registry) {
        if std::mem::replace(&mut lock(&self.entries).watching, true) {
            return;
        }
        let entries: Weak<Mutex<Entries>> = Arc::downgrade(&self.entries);
        registry.add_listener(move |change| {
            let Some(entries) = entries.upgrade() else { return };
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
        let now = (self.clock)();
        let mut e = lock(&self.entries);
        match e.map.get(&key) {
            Some((expires, outcome)) if *expires > now => Some(Ok(outcome.clone())),
            Some(_) => {
                e.map.remove(&key);
                Some(Err(CacheKey(key)))
            }
            None => Some(Err(CacheKey(key))),
        }
    }

    /// Keeps `outcome` under `key` when it may be kept.
    pub(crate) fn store(&self, key: CacheKey, outcome: &Outcome) {
        let keep = match outcome {
            Outcome::Tool(r) => r.is_error != Some(true),
            Outcome::Resource(_) => true,
            _ => false,
        };
        if !keep {
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
        e.order.push_back(key.0.clone());
        e.map.insert(key.0, (expires, outcome.clone()));
    }
}

/// Where a call's answer is to be kept ([`ResponseCaching::lookup`]).
#[derive(Debug)]
pub(crate) struct CacheKey(Key);

impl Middleware for ResponseCaching {
    /// Runs at the edge of the server's code, not in the chain (see [`super::Builtins`]).
    fn hooks(&self) -> Hooks {
        Hooks::NONE
    }

    fn builtin(&self) -> Option<super::Builtin> {
        Some(super::Builtin::ResponseCaching(self.clone()))
    }
}
