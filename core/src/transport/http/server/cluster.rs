//! Replicas of one server sharing a [`ClusterStore`] (the `store` option): any replica
//! serves any request of a legacy session.
//!
//! - A session's record is saved when `initialize` is answered and whenever it changes
//!   (`notifications/initialized`, `logging/setLevel`, `resources/(un)subscribe`); the
//!   change is also told to the other replicas, which update their copies. A replica that
//!   gets a request of a session it has never seen loads the record and restores it. The
//!   record lives as long as the session idle timeout, kept alive by requests (touched at
//!   most every quarter of the timeout by each replica: no store round trip per call).
//! - The ids of the requests a replica sends to clients carry its number (`n << 32`), so a
//!   client's answer POSTed to another replica is forwarded to the one that waits for it;
//!   a client's `notifications/cancelled` goes to every replica (whichever runs the call
//!   stops it).
//! - SSE events are kept in the store too ([`ClusterEvents`]), so a stream is resumed with
//!   `Last-Event-ID` on any replica, the one that sent it gone or not.
//! - DELETE forgets the session everywhere.
//! - A legacy HTTP+SSE session (2024-11-05) lives with its stream: its id names the replica
//!   holding it, and a POST reaching another replica is passed on to that one.

use super::events::{EventStore, InMemoryEventStore};
use super::reply::{error_reply, Reply};
use super::session::Session;
use super::table::Shared;
use super::HttpService;
use crate::catalogue::RegistryChange;
use crate::store::sessions::{BusMessage, ClusterError, ClusterStore, Envelope, Target};
use bytes::Bytes;
use http::StatusCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// How many events of each stream the store keeps for replay.
const KEEP_EVENTS: usize = 512;

/// 503 with a JSON-RPC error naming the store's failure.
pub(super) fn unavailable(e: &ClusterError) -> Reply {
    error_reply(StatusCode::SERVICE_UNAVAILABLE, -32000, format!("Service Unavailable: {e}; retry later"))
}

/// The ids a replica numbers its requests (and streams) from.
pub(super) fn id_base(replica: u32) -> u64 {
    (replica as u64) << 32
}

/// A legacy HTTP+SSE session id naming the replica that holds its stream:
/// `r<replica>x<32 hex digits>`.
pub(super) fn legacy_session_id(replica: u32) -> Arc<str> {
    Arc::from(format!("r{replica}x{}", super::table::new_session_id()))
}

/// The replica a legacy session id names (`None`: not such an id).
pub(super) fn legacy_holder(id: &str) -> Option<u32> {
    let (n, rest) = id.strip_prefix('r')?.split_once('x')?;
    (rest.len() == 32 && rest.bytes().all(|b| b.is_ascii_hexdigit())).then_some(())?;
    n.parse().ok()
}

/// The replica that sent the request a response answers (`None`: not a replica's id).
fn sender_of(id: &serde_json::Value) -> Option<u32> {
    let n = id.as_i64()?;
    (n >> 32 > 0).then_some((n >> 32) as u32)
}

/// What a replica writes to the store in the background, in order (one task drains them).
pub(crate) enum Out {
    /// An SSE event to keep for replay.
    Event(Arc<str>, u64, u64, Bytes),
    /// A message for a session's GET stream, held by another replica or by none.
    Queue(Arc<str>, Bytes),
    /// A catalogue change, for the other replicas.
    Registry(String, RegistryChange),
}

/// Where a replica's SSE events are kept: in this process (what replays a stream this
/// replica holds) and, written behind in order, in the shared store (what another replica
/// replays after this one is gone).
pub(crate) struct ClusterEvents {
    pub(super) local: InMemoryEventStore,
    out: Writer,
}

/// The sending end of the background writer.
#[derive(Clone)]
pub(crate) struct Writer {
    tx: tokio::sync::mpsc::Sender<Out>,
    dropped: Arc<AtomicU64>,
}

impl Writer {
    /// Hands `out` to the writer. The queue is bounded (16,384): past it the store has fallen
    /// far behind (or is unreachable for long), and what does not fit is dropped with a log
    /// line, never buffered without bound.
    pub(crate) fn send(&self, out: Out) {
        if self.tx.try_send(out).is_err() && self.dropped.fetch_add(1, Ordering::Relaxed).is_multiple_of(1024) {
            eprintln!(
                "hypermcp: the session store falls behind: {} writes dropped (SSE events kept on this replica only, GET-stream messages lost)",
                self.dropped.load(Ordering::Relaxed)
            );
        }
    }
}

/// Starts the writer of `shared`'s replica: events, queued messages and changes go to the
/// store in the order they were made.
fn start_writer(
    shared: Weak<Shared>,
    store: Arc<dyn ClusterStore>,
    ttl: Duration,
    backlog: usize,
    rt: &tokio::runtime::Handle,
) -> Writer {
    let (tx, mut rx) = tokio::sync::mpsc::channel::<Out>(16_384);
    rt.spawn(async move {
        let mut failing = false;
        while let Some(out) = rx.recv().await {
            let r = match out {
                Out::Event(session, stream, seq, data) => store.store_event(&session, stream, seq, data, KEEP_EVENTS, ttl).await,
                Out::Queue(session, msg) => {
                    let r = match store.queue(&session, msg, backlog, ttl).await {
                        Ok(()) => store.publish(Target::All, &BusMessage::Queued { session: session.to_string() }).await,
                        Err(e) => Err(e),
                    };
                    // This replica may have opened the stream meanwhile.
                    if let Some(sh) = shared.upgrade() {
                        sh.deliver_queued(&session);
                    }
                    r
                }
                Out::Registry(id, change) => store.publish(Target::All, &BusMessage::Registry { id, change }).await,
            };
            match r {
                Ok(()) if failing => {
                    failing = false;
                    eprintln!("hypermcp: the session store is reachable again");
                }
                Ok(()) => {}
                Err(e) if !failing => {
                    failing = true;
                    eprintln!("hypermcp: a write to the session store failed (further failures are not logged until it recovers): {e}");
                }
                Err(_) => {}
            }
        }
    });
    Writer { tx, dropped: Arc::new(AtomicU64::new(0)) }
}

impl EventStore for ClusterEvents {
    fn store(&self, session: &str, stream: u64, seq: u64, data: &Bytes) {
        self.local.store(session, stream, seq, data);
        if !session.is_empty() {
            self.out.send(Out::Event(Arc::from(session), stream, seq, data.clone()));
        }
    }

    fn replay(&self, session: &str, stream: u64, after: u64) -> Option<Vec<(u64, Bytes)>> {
        self.local.replay(session, stream, after)
    }

    fn forget_stream(&self, session: &str, stream: u64) {
        self.local.forget_stream(session, stream);
    }

    fn forget_session(&self, session: &str) {
        self.local.forget_session(session);
    }
}

/// A replica's link to the shared store.
pub(crate) struct Cluster {
    pub store: Arc<dyn ClusterStore>,
    pub events: Arc<ClusterEvents>,
    pub out: Writer,
    /// Changes this replica made (the `<n>` of their ids).
    changes: AtomicU64,
}

/// How long a claim on telling a session of a change is kept.
const CLAIM_TTL: Duration = Duration::from_secs(300);

impl Shared {
    /// Joins the replicas sharing `store`: its bus messages come here, SSE events go there.
    pub(crate) fn join(self: &Arc<Self>, store: Arc<dyn ClusterStore>, rt: &tokio::runtime::Handle) -> bool {
        let weak: Weak<Shared> = Arc::downgrade(self);
        let out =
            start_writer(weak.clone(), store.clone(), self.options.session_idle_timeout, self.options.backlog, rt);
        let events = Arc::new(ClusterEvents { local: InMemoryEventStore::new(KEEP_EVENTS), out: out.clone() });
        store.set_receiver(Arc::new(move |env: Envelope| {
            if let Some(sh) = weak.upgrade() {
                sh.on_bus(env);
            }
        }));
        self.cluster.set(Cluster { store, events, out, changes: AtomicU64::new(0) }).is_ok()
    }

    /// A message from another replica.
    fn on_bus(self: &Arc<Self>, env: Envelope) {
        match env.message {
            BusMessage::Closed { session } => {
                if let Some(s) = self.remove_session(&session) {
                    s.close();
                }
            }
            BusMessage::Updated { session, record } => {
                if let Some(s) = self.session(&session) {
                    s.with(|i| {
                        if !i.closed {
                            if let Err(e) = i.engine.restore(&record) {
                                eprintln!(
                                    "hypermcp: session {session}: an update from replica {} was refused: {e}",
                                    env.from
                                );
                            }
                        }
                    });
                    s.record_saved.store(s.lock().engine.record_changes(), Ordering::Release);
                    *lock(&s.known) = Some(record);
                }
            }
            BusMessage::Deliver { session, message } | BusMessage::Cancel { session, message } => {
                if let Some(s) = self.session(&session) {
                    s.with(|i| {
                        if !i.closed {
                            i.engine.handle_message(message.as_bytes(), Instant::now());
                        }
                    });
                }
            }
            BusMessage::Queued { session } => self.deliver_queued(&session),
            BusMessage::Registry { id, change } => self.apply_change(id, change),
            BusMessage::View { subject, rules, lists } => self.view_told(&subject, rules, &lists),
        }
    }

    /// A change made on this replica: told to the others, and applied here.
    pub(super) fn change_made(self: &Arc<Self>, change: &RegistryChange) -> bool {
        let Some(c) = self.cluster.get() else { return false };
        let id = format!("{}.{}", c.store.replica(), c.changes.fetch_add(1, Ordering::Relaxed));
        c.out.send(Out::Registry(id.clone(), change.clone()));
        self.apply_change(id, change.clone());
        true
    }

    /// Applies a change (made here or on another replica): every listen stream here hears
    /// of it; each session that must hear of it hears of it once, from the replica that
    /// claimed it first.
    fn apply_change(self: &Arc<Self>, id: String, change: RegistryChange) {
        self.tell_listeners(&change);
        let sessions: Vec<Arc<Session>> = self.sessions().values().cloned().collect();
        let told: Vec<Arc<Session>> = sessions.into_iter().filter(|s| s.lock().engine.would_notify(&change)).collect();
        if told.is_empty() {
            return;
        }
        let (Some(c), Some(rt)) = (self.cluster.get(), self.runtime.get()) else { return };
        let store = c.store.clone();
        rt.spawn(async move {
            let keys = told.iter().map(|s| format!("{id}:{}", s.id().unwrap_or_default())).collect();
            let won = match store.claim(keys, CLAIM_TTL).await {
                Ok(w) => w,
                Err(e) => {
                    // Better twice than never: every replica tells the session.
                    eprintln!("hypermcp: change {id}: no claim possible ({e}); sessions are told from every replica");
                    vec![true; told.len()]
                }
            };
            for (s, won) in told.iter().zip(won) {
                if won {
                    s.with(|i| {
                        if !i.closed {
                            i.engine.registry_changed(&change);
                        }
                    });
                }
            }
        });
    }

    /// Moves what the store queued for a session's GET stream into it, if that stream is
    /// open here.
    pub(super) fn deliver_queued(self: &Arc<Self>, session: &str) {
        let Some(s) = self.session(session) else { return };
        if !s.lock().get_stream.as_ref().is_some_and(|g| g.lock().attached) {
            return;
        }
        let (Some(c), Some(rt)) = (self.cluster.get(), self.runtime.get()) else { return };
        let (store, out) = (c.store.clone(), c.out.clone());
        let id: Arc<str> = Arc::from(session);
        rt.spawn(async move {
            match store.take_queued(&id).await {
                Ok(msgs) if !msgs.is_empty() => {
                    let back = s.with(|i| i.push_get(msgs));
                    // The stream went away meanwhile: back to the store for the next one.
                    for m in back {
                        out.send(Out::Queue(id.clone(), m));
                    }
                }
                Ok(_) => {}
                Err(e) => eprintln!("hypermcp: session {id}: queued messages not taken yet: {e}"),
            }
        });
    }
}

impl HttpService {
    /// Connects to the store the `store` option names, once (later calls return at once).
    /// [`super::serve_http`] and the bindings call it before serving, so that a store that
    /// cannot be reached is a clear error at start; a service used without it connects on
    /// its first request.
    pub async fn connect_store(&self) -> crate::error::Result<()> {
        let sh = &self.shared;
        if sh.cluster.get().is_some() || sh.options.stateless {
            return Ok(());
        }
        let rt = tokio::runtime::Handle::current();
        let store = match (&sh.options.cluster, &sh.options.store) {
            (Some(s), _) => s.clone(),
            (None, Some(url)) => {
                let _guard = sh.connecting.lock().await;
                if sh.cluster.get().is_some() {
                    return Ok(());
                }
                crate::store::connect(url).await.map_err(|e| crate::error::Error::msg(e.to_string()))?
            }
            (None, None) => return Ok(()),
        };
        // Tasks too: one started through this replica is read, updated and cancelled
        // through any other.
        if let (Some(tasks), Some(runtime)) = (store.task_store(), sh.dispatcher.task_runtime()) {
            runtime.share_store(tasks);
        }
        sh.join(store, &rt);
        Ok(())
    }

    /// The task store of the joined store, if any.
    pub(crate) fn cluster_task_store(&self) -> Option<Arc<dyn crate::store::tasks::TaskStore>> {
        self.shared.cluster.get().and_then(|c| c.store.task_store())
    }

    /// The session `id`: this replica's copy, or (with a store) one restored from its record.
    /// `Err`: the reply (404 when unknown, 503 when the store cannot be reached).
    pub(super) async fn lookup(&self, id: &str) -> Result<Arc<Session>, Box<Reply>> {
        let sh = &self.shared;
        if let Some(s) = sh.session(id) {
            s.touch();
            self.keep_alive(&s);
            return Ok(s);
        }
        let Some(c) = sh.cluster.get() else { return Err(Box::new(super::reply::not_found())) };
        let record = match c.store.load(id).await {
            Ok(Some(r)) => r,
            Ok(None) => return Err(Box::new(super::reply::not_found())),
            Err(e) => return Err(Box::new(unavailable(&e))),
        };
        // Another request of the same session may have restored it meanwhile.
        if let Some(s) = sh.session(id) {
            s.touch();
            return Ok(s);
        }
        if let Err(full) = sh.make_room(None) {
            return Err(Box::new(full.reply()));
        }
        let s = Session::new(sh, Some(Arc::from(id)));
        let restored = s.with(|i| {
            i.engine.restore(&record)?;
            s.number_apart(i, c.store.replica());
            Ok::<_, String>(i.engine.record_changes())
        });
        match restored {
            Ok(n) => {
                s.record_saved.store(n, Ordering::Release);
                *lock(&s.known) = Some(record);
            }
            Err(e) => {
                s.close();
                return Err(Box::new(error_reply(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    -32603,
                    format!("Internal error: session {id} cannot be served by this replica: {e}"),
                )));
            }
        }
        s.store_touched.store(sh.now_ms(), Ordering::Relaxed);
        if let Err(full) = sh.admit(&s) {
            s.close();
            return Err(Box::new(full.reply()));
        }
        let s = sh.session(id).unwrap_or(s);
        // An update another replica published while this copy was being made (after the
        // load above, before the copy joined the table) reached no copy here: the record is
        // loaded once more, now that later updates do reach this one. (Seen: a client's
        // `notifications/initialized` on one replica while its GET stream made the copy on
        // another, which then refused to send elicitation/create.)
        match c.store.load(id).await {
            Ok(Some(now)) if lock(&s.known).as_ref() != Some(&now) => {
                let n = s.with(|i| {
                    if let Err(e) = i.engine.restore(&now) {
                        eprintln!("hypermcp: session {id}: its record, loaded again, was refused: {e}");
                    }
                    i.engine.record_changes()
                });
                s.record_saved.store(n, Ordering::Release);
                *lock(&s.known) = Some(now);
            }
            Ok(_) => {}
            Err(e) => return Err(Box::new(unavailable(&e))),
        }
        Ok(s)
    }

    /// Keeps the session's record alive in the store: at most once every quarter of the
    /// idle timeout per replica, in the background. A session found gone is closed here.
    fn keep_alive(&self, s: &Arc<Session>) {
        let sh = &self.shared;
        let (Some(c), Some(id)) = (sh.cluster.get(), s.id()) else { return };
        let now = sh.now_ms();
        let ttl = sh.options.session_idle_timeout;
        let last = s.store_touched.load(Ordering::Relaxed);
        if now.saturating_sub(last) < (ttl.as_millis() as u64) / 4 {
            return;
        }
        if s.store_touched.compare_exchange(last, now, Ordering::AcqRel, Ordering::Relaxed).is_err() {
            return;
        }
        let (store, id, weak) = (c.store.clone(), id.to_string(), Arc::downgrade(s));
        let shared = Arc::downgrade(&self.shared);
        let Some(rt) = sh.runtime.get() else { return };
        rt.spawn(async move {
            if let Ok(false) = store.touch(&id, ttl).await {
                // Deleted through another replica (or expired): gone here too.
                if let (Some(sh), Some(s)) = (shared.upgrade(), weak.upgrade()) {
                    sh.remove_session(&id);
                    s.close();
                }
            }
        });
    }

    /// A new session (its `initialize` answered) joins the cluster: ids apart, record saved.
    pub(super) fn number_new(&self, s: &Arc<Session>) {
        if let Some(c) = self.shared.cluster.get() {
            s.with(|i| s.number_apart(i, c.store.replica()));
        }
    }

    /// Saves the session's record if it changed since it was last saved: its changes merged
    /// into what the store holds (other replicas may have changed it meanwhile; what they
    /// changed is taken here too), then told to the other replicas. `Err`: the reply (404:
    /// the session was deleted meanwhile; 503: the store failed).
    pub(super) async fn save_record(&self, s: &Arc<Session>, announce: bool) -> Result<(), Box<Reply>> {
        let sh = &self.shared;
        let (Some(c), Some(id)) = (sh.cluster.get(), s.id()) else { return Ok(()) };
        // Every POST comes here: only a changed record is built and saved.
        let (n, record) = {
            let g = s.lock();
            let n = g.engine.record_changes();
            if s.record_saved.load(Ordering::Acquire) == n {
                return Ok(());
            }
            (n, g.engine.record())
        };
        let Some(record) = record else { return Ok(()) };
        let old = lock(&s.known).clone();
        let stored = match c.store.save(id, old.as_ref(), &record, sh.options.session_idle_timeout).await {
            Ok(Some(r)) => r,
            Ok(None) => {
                sh.remove_session(id);
                s.close();
                return Err(Box::new(super::reply::not_found()));
            }
            Err(e) => return Err(Box::new(unavailable(&e))),
        };
        let n = if stored == record {
            n
        } else {
            // Another replica's concurrent change: this copy takes it too.
            s.with(|i| {
                let _ = i.engine.restore(&stored);
                i.engine.record_changes()
            })
        };
        s.record_saved.store(n, Ordering::Release);
        *lock(&s.known) = Some(stored.clone());
        s.store_touched.store(sh.now_ms(), Ordering::Relaxed);
        if announce {
            let m = BusMessage::Updated { session: id.to_string(), record: stored };
            c.store.publish(Target::All, &m).await.map_err(|e| Box::new(unavailable(&e)))?;
        }
        Ok(())
    }

    /// Forwards what in a POST of notifications and responses belongs to other replicas:
    /// answers to their requests (by the replica number in the id), and cancellations (to
    /// all). Returns what this replica handles itself (`None`: all of it).
    pub(super) async fn forward(&self, s: &Arc<Session>, body: &[u8]) -> Result<Option<Vec<u8>>, ClusterError> {
        let sh = &self.shared;
        let (Some(c), Some(id)) = (sh.cluster.get(), s.id()) else { return Ok(None) };
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) else { return Ok(None) };
        let (batch, items) = match v {
            serde_json::Value::Array(a) => (true, a),
            one => (false, vec![one]),
        };
        let me = c.store.replica();
        let mut keep = Vec::new();
        let mut moved = false;
        for m in items {
            let method = m.get("method").and_then(|x| x.as_str());
            if method.is_none() {
                if let Some(r) = m.get("id").and_then(sender_of).filter(|r| *r != me) {
                    let message = BusMessage::Deliver { session: id.to_string(), message: m.to_string() };
                    if let Err(e) = c.store.publish(Target::Replica(r), &message).await {
                        // The replica that asked is gone, and the call that waited with it.
                        eprintln!("hypermcp: session {id}: an answer for replica {r} was not delivered: {e}");
                    }
                    moved = true;
                    continue;
                }
            } else if method == Some("notifications/cancelled") {
                let message = BusMessage::Cancel { session: id.to_string(), message: m.to_string() };
                c.store.publish(Target::All, &message).await?;
            }
            keep.push(m);
        }
        if !moved {
            return Ok(None);
        }
        Ok(Some(match (batch, keep.len()) {
            (_, 0) => Vec::new(),
            (false, _) | (true, 1) => serde_json::to_vec(&keep[0]).unwrap_or_default(),
            (true, _) => serde_json::to_vec(&keep).unwrap_or_default(),
        }))
    }

    /// Passes a message POSTed for a legacy HTTP+SSE session to the replica holding its
    /// stream. `Err`: that replica is gone (the session with it).
    pub(super) async fn pass_legacy(&self, holder: u32, id: &str, body: &[u8]) -> Result<(), ClusterError> {
        let Some(c) = self.shared.cluster.get() else { return Err(ClusterError("no store".into())) };
        let message =
            BusMessage::Deliver { session: id.to_string(), message: String::from_utf8_lossy(body).into_owned() };
        c.store.publish(Target::Replica(holder), &message).await
    }

    /// Replays a stream this replica does not hold from the store (its replica gone, or the
    /// client moved): `None` when the store has no such stream.
    pub(super) async fn replay_elsewhere(
        &self,
        session: &str,
        stream: u64,
        after: u64,
    ) -> Result<Option<crate::store::sessions::Events>, ClusterError> {
        let Some(c) = self.shared.cluster.get() else { return Ok(None) };
        c.store.replay(session, stream, after).await
    }

    /// DELETE: the session ends on every replica.
    pub(super) async fn forget_everywhere(&self, id: &str) -> Result<(), ClusterError> {
        let Some(c) = self.shared.cluster.get() else { return Ok(()) };
        c.store.remove(id).await?;
        c.store.publish(Target::All, &BusMessage::Closed { session: id.to_string() }).await
    }
}
