//! What replicas of one HTTP server share about legacy sessions and the messages they pass
//! each other: [`SessionRecord`] (what any replica needs to serve a session's POST), the
//! [`ClusterStore`] trait (records, resumable events, one bus), [`BusMessage`], and
//! [`MemoryHub`], the in-memory implementation (replicas in one process share a hub).
//! No I/O here: the Redis implementation is [`super::redis`].

use crate::catalogue::visibility::{Rules, VisibilityChange};
use bytes::Bytes;
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};

/// A legacy session as every replica sees it: enough to rebuild its engine session on a
/// replica that has never seen it, after `initialize` was answered by another.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SessionRecord {
    /// The negotiated revision (`2025-11-25`, …).
    pub version: String,
    /// `notifications/initialized` arrived (before it: `initialize` answered).
    pub operating: bool,
    /// The client's capabilities, as it sent them.
    pub capabilities: Value,
    /// The client's `clientInfo`.
    pub client_info: Value,
    /// The level of `logging/setLevel`, if the client sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<String>,
    /// The resources it subscribed to (`resources/subscribe`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub subscriptions: Vec<String>,
    /// The session's own visibility rules (`ctx.enable_components`, ...).
    #[serde(default, skip_serializing_if = "Rules::is_empty")]
    pub visibility: Rules,
}

impl SessionRecord {
    /// What a replica that knew `old` and now has `self` makes of `current`, the record as
    /// the store holds it: the fields it changed are taken from it, the others kept from
    /// `current` (another replica may have changed them meanwhile); subscriptions are
    /// added and removed one by one. How concurrent changes through several replicas all
    /// survive.
    pub fn merged_into(&self, old: &SessionRecord, current: &SessionRecord) -> SessionRecord {
        let mut out = current.clone();
        if self.version != old.version {
            out.version = self.version.clone();
        }
        if self.operating != old.operating {
            out.operating = self.operating || current.operating;
        }
        if self.capabilities != old.capabilities {
            out.capabilities = self.capabilities.clone();
        }
        if self.client_info != old.client_info {
            out.client_info = self.client_info.clone();
        }
        if self.log_level != old.log_level {
            out.log_level = self.log_level.clone();
        }
        if self.visibility != old.visibility {
            out.visibility = self.visibility.clone();
        }
        for added in self.subscriptions.iter().filter(|u| !old.subscriptions.contains(u)) {
            if !out.subscriptions.contains(added) {
                out.subscriptions.push(added.clone());
            }
        }
        out.subscriptions.retain(|u| self.subscriptions.contains(u) || !old.subscriptions.contains(u));
        out.subscriptions.sort_unstable();
        out
    }
}

/// Why a shared store failed: what the client is told (a JSON-RPC error, or an HTTP status)
/// and the operator logs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClusterError(pub String);

impl std::fmt::Display for ClusterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the shared session store is unavailable: {}", self.0)
    }
}

impl std::error::Error for ClusterError {}

/// Where a bus message goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// One replica (by its [`ClusterStore::replica`] number).
    Replica(u32),
    /// Every replica but the sender.
    All,
}

/// What replicas tell each other. Sessions are named by id; the bus has one channel per
/// replica and one for all, never one per session.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "t", rename_all = "snake_case")]
pub enum BusMessage {
    /// The session was deleted (or found expired): replicas holding it close their copy.
    Closed {
        /// The session.
        session: String,
    },
    /// The session's record changed (log level, subscriptions, initialized): replicas
    /// holding a copy apply it.
    Updated {
        /// The session.
        session: String,
        /// The record as it is now.
        record: SessionRecord,
    },
    /// Messages a client POSTed for this replica: answers to the requests it sent (their
    /// ids say which replica sent them).
    Deliver {
        /// The session.
        session: String,
        /// The JSON-RPC message (one response or error) as the client sent it, in JSON.
        message: String,
    },
    /// Messages for the session's GET stream were queued in the store: the replica holding
    /// that stream takes them.
    Queued {
        /// The session.
        session: String,
    },
    /// The server's catalogue changed on the sending replica (a list, a resource, a task):
    /// each replica tells the sessions it holds that must hear of it, claiming each session
    /// first so that a client hears of one change once.
    Registry {
        /// The change's cluster-wide id (`<replica>.<n>`).
        id: String,
        /// The change.
        change: crate::catalogue::RegistryChange,
    },
    /// A caller without a session (a token's subject) changed what it sees: replicas keep
    /// its rules for its next requests and tell its `subscriptions/listen` streams of the
    /// lists it now sees differently.
    View {
        /// The subject.
        subject: String,
        /// Its rules as they are now.
        rules: Rules,
        /// The lists it sees differently.
        lists: Vec<crate::catalogue::ListKind>,
    },
    /// A client cancelled a request of its own: whichever replica runs it stops it.
    Cancel {
        /// The session.
        session: String,
        /// The `notifications/cancelled` message as the client sent it, in JSON.
        message: String,
    },
}

/// A message received from the bus, with its sender.
#[derive(Clone, Debug)]
pub struct Envelope {
    /// The sending replica.
    pub from: u32,
    /// What it says.
    pub message: BusMessage,
}

/// The events of a stream, `(seq, data)`, oldest first.
pub type Events = Vec<(u64, Bytes)>;

/// Called with each message the bus delivers to this replica (from a task of the store's
/// own: it must not block).
pub type Receiver = Arc<dyn Fn(Envelope) + Send + Sync>;

/// What replicas of one HTTP server share: session records, the events of their SSE
/// streams, and a bus. One value per replica (it knows its own number).
///
/// Every call may fail with [`ClusterError`] when the backend is unreachable; callers turn
/// that into a clear error for the request that needed it and go on.
pub trait ClusterStore: Send + Sync + 'static {
    /// This replica's number, unique among the replicas sharing the store (it prefixes the
    /// ids of the requests this replica sends to clients, so answers find their way back).
    fn replica(&self) -> u32;
    /// What the store is, for logs and errors (`redis://host:6379/0`, `memory`).
    fn describe(&self) -> String;
    /// A session's record (`None`: unknown, deleted or expired).
    fn load(&self, session: &str) -> BoxFuture<'_, Result<Option<SessionRecord>, ClusterError>>;
    /// Stores a session's record, to expire after `ttl` without a [`ClusterStore::touch`]:
    /// a new session's (`old` is `None`), or the changes from `old` to `record` merged
    /// atomically into what the store holds ([`SessionRecord::merged_into`]). Returns the
    /// record as stored, or `None` when the session is gone (deleted, expired).
    fn save(
        &self,
        session: &str,
        old: Option<&SessionRecord>,
        record: &SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Option<SessionRecord>, ClusterError>>;
    /// Keeps a session alive for `ttl` more; false when it is gone.
    fn touch(&self, session: &str, ttl: Duration) -> BoxFuture<'_, Result<bool, ClusterError>>;
    /// Forgets a session: its record and its events.
    fn remove(&self, session: &str) -> BoxFuture<'_, Result<(), ClusterError>>;
    /// Keeps event `seq` of stream `stream` of `session`, at most `keep` events a stream,
    /// for `ttl`.
    fn store_event(
        &self,
        session: &str,
        stream: u64,
        seq: u64,
        data: Bytes,
        keep: usize,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), ClusterError>>;
    /// The events of a stream after `after`, oldest first; `None` when some are missing
    /// (dropped or expired: the client cannot resume without a gap).
    fn replay(&self, session: &str, stream: u64, after: u64) -> BoxFuture<'_, Result<Option<Events>, ClusterError>>;
    /// Queues a message for the session's GET stream (at most `cap` kept, the oldest dropped)
    /// for whichever replica holds or next opens that stream.
    fn queue(
        &self,
        session: &str,
        message: Bytes,
        cap: usize,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), ClusterError>>;
    /// Takes every queued message of a session, oldest first (atomically: two replicas never
    /// take the same message).
    fn take_queued(&self, session: &str) -> BoxFuture<'_, Result<Vec<Bytes>, ClusterError>>;
    /// Claims each key for `ttl`: true for the keys no one claimed before (how replicas agree
    /// on which of them tells a session of a change).
    fn claim(&self, keys: Vec<String>, ttl: Duration) -> BoxFuture<'_, Result<Vec<bool>, ClusterError>>;
    /// Sends `message` to `to`.
    fn publish(&self, to: Target, message: &BusMessage) -> BoxFuture<'_, Result<(), ClusterError>>;
    /// Where messages for this replica go (set once, when its server starts).
    fn set_receiver(&self, receiver: Receiver);
    /// The task store the replicas share (tasks extension), if this store keeps tasks.
    fn task_store(&self) -> Option<Arc<dyn super::tasks::TaskStore>> {
        None
    }
    /// The own visibility rules of a caller without a session (a token's subject, at
    /// 2026-07-28 or over stateless HTTP): empty when it has none.
    fn load_view(&self, subject: &str) -> BoxFuture<'_, Result<Rules, ClusterError>>;
    /// Applies `change` to a subject's rules atomically (changes made at once through
    /// several replicas all survive), keeping them for `ttl`; returns the rules before and
    /// after. Rules that end empty are forgotten.
    fn change_view(
        &self,
        subject: &str,
        change: &VisibilityChange,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(Rules, Rules), ClusterError>>;
}

/// The in-memory [`ClusterStore`]: replicas in one process share a hub, each with its own
/// [`MemoryHub::replica`] handle. What a single process needs to run several services as
/// one cluster (and what the tests of the cluster logic run on, beside Redis).
#[derive(Default)]
pub struct MemoryHub {
    inner: Mutex<HubInner>,
    receivers: RwLock<HashMap<u32, Receiver>>,
    tasks: std::sync::OnceLock<Arc<super::tasks::MemoryTaskStore>>,
}

type KeptEvents = (VecDeque<(u64, Bytes)>, Instant);

#[derive(Default)]
struct HubInner {
    next_replica: u32,
    records: HashMap<String, (SessionRecord, Instant)>,
    /// By session and stream: the kept events, and when they expire.
    events: HashMap<(String, u64), KeptEvents>,
    queued: HashMap<String, (VecDeque<Bytes>, Instant)>,
    claims: HashMap<String, Instant>,
    views: HashMap<String, (Rules, Instant)>,
}

impl std::fmt::Debug for MemoryHub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryHub").finish_non_exhaustive()
    }
}

impl MemoryHub {
    /// A new hub.
    pub fn new() -> Arc<MemoryHub> {
        Arc::new(MemoryHub::default())
    }

    /// A replica's handle on the hub (each gets the next number).
    pub fn replica(self: &Arc<Self>) -> Arc<MemoryReplica> {
        let mut g = self.lock();
        g.next_replica += 1;
        Arc::new(MemoryReplica { hub: self.clone(), number: g.next_replica })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HubInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records held (expired ones are not counted).
    pub fn record_count(&self) -> usize {
        let now = Instant::now();
        self.lock().records.values().filter(|(_, until)| *until > now).count()
    }

    fn expire(g: &mut HubInner, now: Instant) {
        g.records.retain(|_, (_, until)| *until > now);
        g.events.retain(|_, (_, until)| *until > now);
        g.queued.retain(|_, (_, until)| *until > now);
        g.claims.retain(|_, until| *until > now);
        g.views.retain(|_, (_, until)| *until > now);
    }
}

/// One replica's handle on a [`MemoryHub`].
pub struct MemoryReplica {
    hub: Arc<MemoryHub>,
    number: u32,
}

impl std::fmt::Debug for MemoryReplica {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryReplica").field("number", &self.number).finish()
    }
}

impl ClusterStore for MemoryReplica {
    fn replica(&self) -> u32 {
        self.number
    }

    fn describe(&self) -> String {
        "memory".into()
    }

    fn load(&self, session: &str) -> BoxFuture<'_, Result<Option<SessionRecord>, ClusterError>> {
        let mut g = self.hub.lock();
        MemoryHub::expire(&mut g, Instant::now());
        let r = g.records.get(session).map(|(r, _)| r.clone());
        Box::pin(std::future::ready(Ok(r)))
    }

    fn save(
        &self,
        session: &str,
        old: Option<&SessionRecord>,
        record: &SessionRecord,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Option<SessionRecord>, ClusterError>> {
        let now = Instant::now();
        let mut g = self.hub.lock();
        MemoryHub::expire(&mut g, now);
        let stored = match (old, g.records.get(session)) {
            (None, _) => Some(record.clone()),
            (Some(old), Some((current, _))) => Some(record.merged_into(old, current)),
            (Some(_), None) => None,
        };
        if let Some(r) = &stored {
            g.records.insert(session.to_string(), (r.clone(), now + ttl));
        }
        Box::pin(std::future::ready(Ok(stored)))
    }

    fn touch(&self, session: &str, ttl: Duration) -> BoxFuture<'_, Result<bool, ClusterError>> {
        let now = Instant::now();
        let mut g = self.hub.lock();
        MemoryHub::expire(&mut g, now);
        let alive = match g.records.get_mut(session) {
            Some((_, until)) => {
                *until = now + ttl;
                true
            }
            None => false,
        };
        if alive {
            for ((s, _), (_, until)) in g.events.iter_mut() {
                if s == session {
                    *until = now + ttl;
                }
            }
        }
        Box::pin(std::future::ready(Ok(alive)))
    }

    fn remove(&self, session: &str) -> BoxFuture<'_, Result<(), ClusterError>> {
        let mut g = self.hub.lock();
        g.records.remove(session);
        g.events.retain(|(s, _), _| s != session);
        g.queued.remove(session);
        Box::pin(std::future::ready(Ok(())))
    }

    fn store_event(
        &self,
        session: &str,
        stream: u64,
        seq: u64,
        data: Bytes,
        keep: usize,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), ClusterError>> {
        let mut g = self.hub.lock();
        let e = g.events.entry((session.to_string(), stream)).or_insert_with(|| (VecDeque::new(), Instant::now()));
        e.1 = Instant::now() + ttl;
        e.0.push_back((seq, data));
        while e.0.len() > keep.max(1) {
            e.0.pop_front();
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn replay(&self, session: &str, stream: u64, after: u64) -> BoxFuture<'_, Result<Option<Events>, ClusterError>> {
        let mut g = self.hub.lock();
        MemoryHub::expire(&mut g, Instant::now());
        let r = match g.events.get(&(session.to_string(), stream)) {
            None => (after == 0).then(Vec::new),
            Some((q, _)) => replay_from(q.iter().cloned(), after),
        };
        Box::pin(std::future::ready(Ok(r)))
    }

    fn queue(
        &self,
        session: &str,
        message: Bytes,
        cap: usize,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), ClusterError>> {
        let mut g = self.hub.lock();
        let e = g.queued.entry(session.to_string()).or_insert_with(|| (VecDeque::new(), Instant::now()));
        e.1 = Instant::now() + ttl;
        e.0.push_back(message);
        while e.0.len() > cap.max(1) {
            e.0.pop_front();
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn take_queued(&self, session: &str) -> BoxFuture<'_, Result<Vec<Bytes>, ClusterError>> {
        let mut g = self.hub.lock();
        MemoryHub::expire(&mut g, Instant::now());
        let q = g.queued.remove(session).map(|(q, _)| q.into_iter().collect()).unwrap_or_default();
        Box::pin(std::future::ready(Ok(q)))
    }

    fn claim(&self, keys: Vec<String>, ttl: Duration) -> BoxFuture<'_, Result<Vec<bool>, ClusterError>> {
        let now = Instant::now();
        let mut g = self.hub.lock();
        MemoryHub::expire(&mut g, now);
        let won = keys
            .into_iter()
            .map(|k| match g.claims.entry(k) {
                std::collections::hash_map::Entry::Occupied(_) => false,
                std::collections::hash_map::Entry::Vacant(v) => {
                    v.insert(now + ttl);
                    true
                }
            })
            .collect();
        Box::pin(std::future::ready(Ok(won)))
    }

    fn publish(&self, to: Target, message: &BusMessage) -> BoxFuture<'_, Result<(), ClusterError>> {
        let receivers: Vec<Receiver> = {
            let r = self.hub.receivers.read().unwrap_or_else(|e| e.into_inner());
            match to {
                Target::Replica(n) => r.get(&n).cloned().into_iter().collect(),
                Target::All => r.iter().filter(|(n, _)| **n != self.number).map(|(_, f)| f.clone()).collect(),
            }
        };
        if let (Target::Replica(n), true) = (to, receivers.is_empty()) {
            return Box::pin(std::future::ready(Err(ClusterError(format!("replica {n} is gone")))));
        }
        for f in receivers {
            f(Envelope { from: self.number, message: message.clone() });
        }
        Box::pin(std::future::ready(Ok(())))
    }

    fn task_store(&self) -> Option<Arc<dyn super::tasks::TaskStore>> {
        let t = self.hub.tasks.get_or_init(|| Arc::new(super::tasks::MemoryTaskStore::new(10_000)));
        Some(t.clone())
    }

    fn set_receiver(&self, receiver: Receiver) {
        self.hub.receivers.write().unwrap_or_else(|e| e.into_inner()).insert(self.number, receiver);
    }

    fn load_view(&self, subject: &str) -> BoxFuture<'_, Result<Rules, ClusterError>> {
        let mut g = self.hub.lock();
        MemoryHub::expire(&mut g, Instant::now());
        let r = g.views.get(subject).map(|(r, _)| r.clone()).unwrap_or_default();
        Box::pin(std::future::ready(Ok(r)))
    }

    fn change_view(
        &self,
        subject: &str,
        change: &VisibilityChange,
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(Rules, Rules), ClusterError>> {
        let now = Instant::now();
        let mut g = self.hub.lock();
        MemoryHub::expire(&mut g, now);
        let old = g.views.get(subject).map(|(r, _)| r.clone()).unwrap_or_default();
        let r = change.apply(&old).map_err(ClusterError).map(|new| {
            if new.is_empty() {
                g.views.remove(subject);
            } else {
                g.views.insert(subject.to_string(), (new.clone(), now + ttl));
            }
            (old, new)
        });
        Box::pin(std::future::ready(r))
    }
}

impl Drop for MemoryReplica {
    fn drop(&mut self) {
        self.hub.receivers.write().unwrap_or_else(|e| e.into_inner()).remove(&self.number);
    }
}

/// The events after `after` from a stream's kept events (oldest first), or `None` when the
/// first kept one is not the one right after `after` (a gap).
pub(crate) fn replay_from(events: impl Iterator<Item = (u64, Bytes)>, after: u64) -> Option<Vec<(u64, Bytes)>> {
    let mut out = Vec::new();
    let mut first = true;
    for (seq, data) in events {
        if first && seq > after + 1 {
            return None;
        }
        first = false;
        if seq > after {
            out.push((seq, data));
        }
    }
    if first && after > 0 {
        // Nothing kept at all: the stream's events expired.
        return None;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<T>(f: BoxFuture<'_, T>) -> T {
        futures_util::FutureExt::now_or_never(f).expect("the memory hub never waits")
    }

    #[test]
    fn records_expire_and_bus_reaches_others() {
        let hub = MemoryHub::new();
        let (a, b) = (hub.replica(), hub.replica());
        assert_ne!(a.replica(), b.replica());
        let rec = SessionRecord { version: "2025-11-25".into(), ..Default::default() };
        block(a.save("s", None, &rec, Duration::from_secs(60))).unwrap();
        assert_eq!(block(b.load("s")).unwrap(), Some(rec.clone()));
        block(a.save("t", None, &rec, Duration::from_millis(1))).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert_eq!(block(b.load("t")).unwrap(), None);
        assert!(!block(b.touch("t", Duration::from_secs(1))).unwrap());
        assert_eq!(hub.record_count(), 1);

        let got = Arc::new(Mutex::new(Vec::new()));
        let g = got.clone();
        b.set_receiver(Arc::new(move |e: Envelope| g.lock().unwrap().push((e.from, e.message))));
        let own = got.clone();
        a.set_receiver(Arc::new(move |e: Envelope| own.lock().unwrap().push((0, e.message))));
        let m = BusMessage::Closed { session: "s".into() };
        block(a.publish(Target::All, &m)).unwrap();
        // Sent to all but the sender.
        assert_eq!(*got.lock().unwrap(), vec![(a.replica(), m.clone())]);
        block(b.remove("s")).unwrap();
        assert_eq!(block(a.load("s")).unwrap(), None);
    }

    #[test]
    fn concurrent_changes_through_two_replicas_both_survive() {
        let hub = MemoryHub::new();
        let (a, b) = (hub.replica(), hub.replica());
        let base = SessionRecord { version: "2025-11-25".into(), operating: true, ..Default::default() };
        block(a.save("s", None, &base, Duration::from_secs(60))).unwrap();
        // A subscribes while B, not yet told, sets the log level: both changes stay.
        let on_a = SessionRecord { subscriptions: vec!["file:///x".into()], ..base.clone() };
        let on_b = SessionRecord { log_level: Some("error".into()), ..base.clone() };
        block(a.save("s", Some(&base), &on_a, Duration::from_secs(60))).unwrap();
        let stored = block(b.save("s", Some(&base), &on_b, Duration::from_secs(60))).unwrap().unwrap();
        assert_eq!(stored.subscriptions, vec!["file:///x".to_string()]);
        assert_eq!(stored.log_level.as_deref(), Some("error"));
        // An unsubscribe through B removes only what B removed.
        let off_b = SessionRecord { subscriptions: vec![], ..stored.clone() };
        let on_a2 = SessionRecord { subscriptions: vec!["file:///x".into(), "file:///y".into()], ..stored.clone() };
        block(a.save("s", Some(&stored), &on_a2, Duration::from_secs(60))).unwrap();
        let last = block(b.save("s", Some(&stored), &off_b, Duration::from_secs(60))).unwrap().unwrap();
        assert_eq!(last.subscriptions, vec!["file:///y".to_string()]);
        // A change to a deleted session does not bring it back.
        block(a.remove("s")).unwrap();
        assert_eq!(block(b.save("s", Some(&last), &base, Duration::from_secs(60))).unwrap(), None);
        assert_eq!(block(a.load("s")).unwrap(), None);
    }

    #[test]
    fn events_replay_with_gaps_detected() {
        let hub = MemoryHub::new();
        let a = hub.replica();
        for i in 1..=3 {
            block(a.store_event("s", 7, i, Bytes::from(format!("e{i}")), 2, Duration::from_secs(60))).unwrap();
        }
        assert_eq!(block(a.replay("s", 7, 0)).unwrap(), None);
        let r = block(a.replay("s", 7, 1)).unwrap().unwrap();
        assert_eq!(r.iter().map(|(n, _)| *n).collect::<Vec<_>>(), vec![2, 3]);
        assert_eq!(block(a.replay("s", 8, 0)).unwrap(), Some(vec![]));
        assert_eq!(block(a.replay("s", 8, 4)).unwrap(), None);
    }

    #[test]
    fn queues_are_taken_once_and_claims_won_once() {
        let hub = MemoryHub::new();
        let (a, b) = (hub.replica(), hub.replica());
        for i in 0..3 {
            block(a.queue("s", Bytes::from(format!("m{i}")), 2, Duration::from_secs(60))).unwrap();
        }
        assert_eq!(block(b.take_queued("s")).unwrap(), vec![Bytes::from("m1"), Bytes::from("m2")]);
        assert!(block(a.take_queued("s")).unwrap().is_empty());
        let keys = vec!["c1:s".to_string(), "c1:t".to_string()];
        assert_eq!(block(a.claim(keys.clone(), Duration::from_secs(60))).unwrap(), vec![true, true]);
        assert_eq!(block(b.claim(keys, Duration::from_secs(60))).unwrap(), vec![false, false]);
    }

    #[test]
    fn bus_messages_are_tagged_json() {
        let m = BusMessage::Updated { session: "s".into(), record: SessionRecord::default() };
        let j = serde_json::to_string(&m).unwrap();
        assert!(j.starts_with("{\"t\":\"updated\""), "{j}");
        assert_eq!(serde_json::from_str::<BusMessage>(&j).unwrap(), m);
    }
}
