//! The session table of one HTTP server ([`Shared`], what all its sessions share): admitting
//! sessions within the cap (evicting the longest idle), forwarding registry changes to every
//! session, sweeping idle sessions; and fresh session ids.

use super::options::HttpOptions;
use super::session::{Dispatcher, Session};
use crate::catalogue::{ListenerId, Registry, RegistryChange};
use crate::engine::ServerConfig;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

/// What every session of one HTTP server shares.
pub(crate) struct Shared {
    pub options: HttpOptions,
    /// The OAuth resource server (the `auth` option).
    pub guard: Option<super::guard::Guard>,
    pub config: Arc<ServerConfig>,
    pub registry: Arc<Registry>,
    pub dispatcher: Arc<dyn Dispatcher>,
    epoch: Instant,
    sessions: Mutex<Table>,
    /// The runtime the service runs on (timers and handler tasks go there).
    pub runtime: OnceLock<tokio::runtime::Handle>,
    sweeper: OnceLock<()>,
    /// The one registry listener of the service (it forwards changes to every session).
    listener: Mutex<Option<ListenerId>>,
    /// Stateless sessions alive (each is one POST being answered).
    pub stateless_live: AtomicUsize,
    /// The open `subscriptions/listen` requests (2026-07-28), by address: not in the session
    /// table, yet registry changes must reach them. A request's session while it is being
    /// handled; its [`LeanListener`] once acknowledged.
    listeners: Mutex<HashMap<usize, Listening>>,
    /// The replicas' shared store, once joined (the `store` option).
    pub(super) cluster: OnceLock<super::cluster::Cluster>,
    /// Held while connecting to the store.
    pub(super) connecting: tokio::sync::Mutex<()>,
    /// The own visibility rules of callers without a session, by token subject.
    pub(super) views: super::views::Views,
}

impl Drop for Shared {
    fn drop(&mut self) {
        let id = self.listener.get_mut().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(id) = id {
            self.registry.remove_listener(id);
        }
    }
}

impl Shared {
    /// The table of a new service, with the service's one registry listener.
    pub(super) fn new(
        options: HttpOptions,
        config: Arc<ServerConfig>,
        registry: Arc<Registry>,
        dispatcher: Arc<dyn Dispatcher>,
    ) -> Arc<Shared> {
        let guard = options.auth.as_ref().map(super::guard::Guard::new);
        let shared = Arc::new(Shared {
            guard,
            options,
            config,
            registry,
            dispatcher,
            epoch: Instant::now(),
            sessions: Mutex::new(Table::default()),
            runtime: OnceLock::new(),
            sweeper: OnceLock::new(),
            listener: Mutex::new(None),
            stateless_live: AtomicUsize::new(0),
            listeners: Mutex::new(HashMap::new()),
            cluster: OnceLock::new(),
            connecting: tokio::sync::Mutex::new(()),
            views: Default::default(),
        });
        // One listener for the whole service (not one per session): a change reaches every
        // session in the table.
        let weak = Arc::downgrade(&shared);
        let id = shared.registry.add_listener(move |c: &RegistryChange| {
            if let Some(sh) = weak.upgrade() {
                sh.registry_changed(c);
            }
        });
        *shared.listener.lock().unwrap_or_else(|e| e.into_inner()) = Some(id);
        shared
    }

    /// Called on every request: takes the runtime the service runs on (the first time), and
    /// starts the task that sweeps idle sessions (once; not in stateless mode).
    pub(super) fn start(self: &Arc<Self>) {
        let sh = self;
        if sh.runtime.get().is_none() {
            if let Ok(h) = tokio::runtime::Handle::try_current() {
                let _ = sh.runtime.set(h);
            }
        }
        if !sh.options.stateless && sh.sweeper.set(()).is_ok() {
            let weak = Arc::downgrade(sh);
            let period =
                (sh.options.session_idle_timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(30));
            if let Some(rt) = sh.runtime.get() {
                rt.spawn(async move {
                    loop {
                        tokio::time::sleep(period).await;
                        match weak.upgrade() {
                            Some(sh) => sh.sweep(),
                            None => return,
                        }
                    }
                });
            }
        }
    }

    /// Where SSE events are kept: the shared store's events once joined, else the option.
    pub(super) fn event_store(&self) -> Arc<dyn super::events::EventStore> {
        match self.cluster.get() {
            Some(c) => c.events.clone(),
            None => self.options.event_store.clone(),
        }
    }

    pub fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    pub(super) fn sessions(&self) -> std::sync::MutexGuard<'_, Table> {
        self.sessions.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn remove_session(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions().remove(id)
    }

    pub(super) fn session(&self, id: &str) -> Option<Arc<Session>> {
        self.sessions().get(id).cloned()
    }

    /// The session to evict to make room: the longest idle of `candidates` without open
    /// streams or calls in progress. Called with the sessions table locked (lock order:
    /// table, then session).
    fn idlest<'a>(candidates: impl Iterator<Item = &'a Arc<Session>>) -> Option<Arc<Session>> {
        let mut by_age: Vec<(u64, &Arc<Session>)> =
            candidates.map(|s| (s.last_seen.load(Ordering::Relaxed), s)).collect();
        by_age.sort_unstable_by_key(|(seen, _)| *seen);
        by_age.into_iter().map(|(_, s)| s).find(|s| !s.busy()).cloned()
    }

    /// Makes room for one more session of `client`: at its quota, evicts its longest-idle
    /// session; at the cap, one of the client holding the most sessions (else the longest
    /// idle of all). Fails when the sessions that could go are all busy.
    pub(super) fn make_room(&self, client: Option<IpAddr>) -> Result<(), Full> {
        self.reserve(None, client)
    }

    /// Adds a new session to the table, evicting as [`Self::make_room`] does (concurrent
    /// initializes may have filled the room made before).
    pub(super) fn admit(&self, session: &Arc<Session>) -> Result<(), Full> {
        if session.id().is_none() {
            return Err(Full::Server(self.options.max_sessions));
        }
        self.reserve(Some(session), session.client())
    }

    /// Evicts sessions until the table has room, then inserts `session` if given (under the
    /// same lock as the last check).
    fn reserve(&self, session: Option<&Arc<Session>>, client: Option<IpAddr>) -> Result<(), Full> {
        let quota = self.options.max_sessions_per_client;
        // Loopback clients (tests, benchmarks, a local proxy that does not name the client)
        // have no quota.
        let quota_of = client.filter(|c| quota > 0 && !c.is_loopback());
        loop {
            let victim = {
                let mut t = self.sessions();
                let over_quota = quota_of.is_some_and(|c| t.count(c) >= quota);
                if !over_quota && t.len() < self.options.max_sessions {
                    if let Some((s, id)) = session.and_then(|s| Some((s, s.id()?))) {
                        t.insert(Arc::from(id), s.clone());
                    }
                    return Ok(());
                }
                let v = if over_quota {
                    let mine = t.values().filter(|s| s.client() == client);
                    Self::idlest(mine).ok_or(Full::Client(quota))?
                } else {
                    // The client holding the most sessions gives one up first.
                    let top = t.per_client.iter().max_by_key(|(_, n)| **n).map(|(c, _)| *c);
                    top.and_then(|c| Self::idlest(t.values().filter(|s| s.client() == Some(c))))
                        .or_else(|| Self::idlest(t.values()))
                        .ok_or(Full::Server(self.options.max_sessions))?
                };
                if let Some(id) = v.id() {
                    t.remove(id);
                }
                v
            };
            crate::metrics::SESSIONS_EVICTED.inc();
            victim.close_because("evicted to make room for a new session");
        }
    }

    fn listeners(&self) -> std::sync::MutexGuard<'_, HashMap<usize, Listening>> {
        self.listeners.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers the session of a `subscriptions/listen` request; false when the server has
    /// its maximum of listeners ([`ServerConfig::max_listeners`]).
    pub(super) fn add_listener(&self, session: &Arc<Session>) -> bool {
        let mut l = self.listeners();
        if l.len() >= self.config.max_listeners {
            return false;
        }
        l.insert(Arc::as_ptr(session) as usize, Listening::Session(Arc::downgrade(session)));
        session.listening.store(true, Ordering::Release);
        true
    }

    /// Forgets a listener (its session closed, or it opened no subscription).
    pub(crate) fn remove_listener(&self, session: &Session) {
        self.listeners().remove(&(session as *const Session as usize));
    }

    /// Keeps `lean` in the place of `session` (whose subscription it took).
    pub(super) fn keep_lean(&self, session: &Session, lean: Arc<LeanListener>) {
        let mut l = self.listeners();
        l.remove(&(session as *const Session as usize));
        session.listening.store(false, Ordering::Release);
        l.insert(Arc::as_ptr(&lean) as usize, Listening::Lean(lean));
    }

    /// Every listener, forgotten.
    pub(super) fn take_listeners(&self) -> Vec<Listener> {
        self.listeners().drain().filter_map(|(_, l)| l.upgrade()).collect()
    }

    /// The acknowledged listen streams of the caller `subject`.
    pub(super) fn listeners_of(&self, subject: &str) -> Vec<Listener> {
        let l = self.listeners();
        l.values()
            .filter(|l| matches!(l, Listening::Lean(l) if l.subject.as_deref() == Some(subject)))
            .filter_map(Listening::upgrade)
            .collect()
    }

    /// Open `subscriptions/listen` streams.
    pub(super) fn listener_count(&self) -> usize {
        self.listeners().len()
    }

    /// Tells every listener of `change`: the sessions through their engine, the lean ones
    /// directly (those whose reader fell too far behind are dropped).
    pub(super) fn tell_listeners(&self, change: &RegistryChange) {
        let all: Vec<Listener> = self.listeners().values().filter_map(Listening::upgrade).collect();
        let mut wakers = Vec::new();
        let mut gone = Vec::new();
        for l in all {
            match l {
                Listener::Session(s) => s.with(|i| {
                    if !i.closed {
                        i.engine.registry_changed(change);
                    }
                }),
                Listener::Lean(l) => {
                    if !l.tell(change, &mut wakers) {
                        gone.push(Arc::as_ptr(&l) as usize);
                    }
                }
            }
        }
        if !gone.is_empty() {
            let mut l = self.listeners();
            for k in gone {
                l.remove(&k);
            }
        }
        for w in wakers {
            w.wake();
        }
    }

    /// Forwards a registry change (list_changed, resource updates) to every session, and to
    /// every listener.
    fn registry_changed(self: &Arc<Self>, change: &RegistryChange) {
        // Replicas: every replica's sessions and listeners hear of it, each session once.
        if self.change_made(change) {
            return;
        }
        self.tell_listeners(change);
        let all: Vec<Arc<Session>> = self.sessions().values().cloned().collect();
        for s in all {
            s.with(|i| {
                if !i.closed {
                    i.engine.registry_changed(change);
                }
            });
        }
    }

    /// Closes sessions idle for longer than the timeout.
    pub(super) fn sweep(&self) {
        let idle = self.options.session_idle_timeout.as_millis() as u64;
        let now = self.now_ms();
        let expired: Vec<Arc<Session>> = {
            let mut map = self.sessions();
            let ids: Vec<Arc<str>> = map
                .iter()
                .filter(|(_, s)| {
                    now.saturating_sub(s.last_seen.load(std::sync::atomic::Ordering::Relaxed)) > idle && !s.busy()
                })
                .map(|(k, _)| k.clone())
                .collect();
            ids.iter().filter_map(|k| map.remove(k)).collect()
        };
        for s in expired {
            crate::metrics::SESSIONS_IDLE_EXPIRED.inc();
            s.close_because("idle timeout");
        }
    }
}

/// Why a new session found no room.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Full {
    /// The server has its maximum of sessions, all in use.
    Server(usize),
    /// The client has its quota of sessions, all in use.
    Client(usize),
}

impl Full {
    /// The reply: 503 for a full server, 429 for a client at its quota.
    pub(super) fn reply(self) -> super::reply::Reply {
        match self {
            Full::Server(max) => super::reply::too_many_sessions(max),
            Full::Client(quota) => super::reply::too_many(
                format!(
                    "this client address has its maximum of {quota} sessions, all in use; close one (DELETE) first"
                ),
                1,
            ),
        }
    }
}

/// The session table: sessions by id, and how many each client address holds.
#[derive(Default)]
pub(crate) struct Table {
    map: HashMap<Arc<str>, Arc<Session>>,
    per_client: HashMap<IpAddr, usize>,
}

impl std::ops::Deref for Table {
    type Target = HashMap<Arc<str>, Arc<Session>>;
    fn deref(&self) -> &Self::Target {
        &self.map
    }
}

impl Table {
    /// Sessions held by `client`.
    pub fn count(&self, client: IpAddr) -> usize {
        self.per_client.get(&client).copied().unwrap_or(0)
    }

    pub fn insert(&mut self, id: Arc<str>, s: Arc<Session>) {
        if !s.admitted.swap(true, std::sync::atomic::Ordering::Relaxed) {
            crate::metrics::SESSIONS_OPENED.inc();
            let client = s.client().map_or_else(|| "-".to_string(), |c| c.to_string());
            tracing::info!(target: "hypermcp::http", session = %id, client = %client, "session opened");
        }
        if let Some(c) = s.client() {
            *self.per_client.entry(c).or_default() += 1;
        }
        if let Some(old) = self.map.insert(id, s) {
            self.uncount(&old);
        }
    }

    pub fn remove(&mut self, id: &str) -> Option<Arc<Session>> {
        let s = self.map.remove(id)?;
        self.uncount(&s);
        Some(s)
    }

    /// Every session, taken out.
    pub fn drain(&mut self) -> Vec<Arc<Session>> {
        self.per_client.clear();
        self.map.drain().map(|(_, s)| s).collect()
    }

    fn uncount(&mut self, s: &Session) {
        if let Some(c) = s.client() {
            if let Some(n) = self.per_client.get_mut(&c) {
                *n -= 1;
                if *n == 0 {
                    self.per_client.remove(&c);
                }
            }
        }
    }
}

/// A fresh unguessable session id: 128 random bits in hex.
pub(super) fn new_session_id() -> Arc<str> {
    let mut b = [0u8; 16];
    if getrandom::fill(&mut b).is_err() {
        // No OS randomness: fall back to time and address entropy hashed per process.
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default().as_nanos());
        let a = h.finish().to_le_bytes();
        let mut h2 = std::collections::hash_map::RandomState::new().build_hasher();
        h2.write(&a);
        b[..8].copy_from_slice(&a);
        b[8..].copy_from_slice(&h2.finish().to_le_bytes());
    }
    let mut s = String::with_capacity(32);
    for x in b {
        s.push_str(&format!("{x:02x}"));
    }
    Arc::from(s)
}

/// An entry of the listener table.
pub(super) enum Listening {
    /// A `subscriptions/listen` request being handled: its session.
    Session(Weak<Session>),
    /// An acknowledged one.
    Lean(Arc<LeanListener>),
}

/// A listener, alive.
pub(super) enum Listener {
    Session(Arc<Session>),
    Lean(Arc<LeanListener>),
}

impl Listening {
    fn upgrade(&self) -> Option<Listener> {
        match self {
            Listening::Session(w) => w.upgrade().map(Listener::Session),
            Listening::Lean(l) => Some(Listener::Lean(l.clone())),
        }
    }
}

/// An acknowledged `subscriptions/listen` stream of the 2026-07-28 revision: its
/// subscription, taken out of the request's session (which then ends), and the stream it
/// is sent on. An idle listener costs this, its stream and its connection.
pub(crate) struct LeanListener {
    pub listen: crate::engine::DetachedListen,
    pub stream: Arc<super::stream::Stream>,
    pub shared: Weak<Shared>,
    /// The token subject of the caller that opened it (told of its own changes of view).
    pub subject: Option<Arc<str>>,
}

impl LeanListener {
    /// Sends `change` when the subscription asked for it. False when the stream is gone
    /// (ended, or its reader fell too far behind and it was dropped).
    pub(super) fn tell(&self, change: &RegistryChange, wakers: &mut Vec<std::task::Waker>) -> bool {
        let Some(msg) = self.listen.notification(change) else { return true };
        self.stream.push(msg.into(), false, wakers).is_ok()
    }

    /// Ends the subscription with its answer (the server's graceful close).
    pub(super) fn end(&self, wakers: &mut Vec<std::task::Waker>) {
        let _ = self.stream.push(self.listen.end().into(), true, wakers);
        self.stream.finish(wakers);
    }
}

impl super::stream::Detach for LeanListener {
    fn detached(&self, _stream: &Arc<super::stream::Stream>, _delivered: bool) {
        if let Some(sh) = self.shared.upgrade() {
            sh.listeners().remove(&(self as *const LeanListener as usize));
        }
    }
}
