//! One MCP session served over HTTP: the engine session, the streams its messages are
//! routed to, and the calls its dispatcher runs. No task of its own: whoever touches it (a
//! POST, a handler finishing on any thread, a timer) locks it, acts, and routes what the
//! engine wrote to the stream each message belongs to.

use super::stream::{Detach, Kind, Mode, Stream};
use super::table::Shared;
use crate::catalogue::RegistryChange;
use crate::engine::{
    Event, InputAnswer, KeyMap, OutboundId, Outcome, RequestKey, RequestOptions, Route, ServerSession,
};
use crate::jsonrpc::RpcError;
use crate::protocol::{ClientCapabilities, Implementation, LoggingLevel, ProtocolVersion};
use crate::runtime::{Answer, Command, CommandSink, PeerInfo};
use bytes::Bytes;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::Waker;
use std::time::Instant;
use tokio::sync::oneshot;

/// Runs user code for the sessions of an [`HttpService`](super::HttpService): the Rust
/// handlers of a server's [`Runtime`](crate::runtime::Runtime), or a host language's loop
/// (Python, Node).
///
/// Called from tokio threads with no lock held. Answers go back through the
/// [`Session`] methods ([`Session::complete`], [`Session::progress`], …), from any thread.
pub trait Dispatcher: Send + Sync + 'static {
    /// Events of `session` that need user code, in order: [`Event::Invoke`] (run the
    /// handler, then [`Session::complete`]), [`Event::Cancelled`], and for requests sent
    /// with [`Session::request`], [`Event::Response`] / [`Event::Progress`] carrying the id
    /// that call returned; also [`Event::Initialized`] and client notifications.
    fn events(&self, session: &Arc<Session>, events: Vec<Event>);
    /// The session ended (deleted, expired, evicted, disconnected, or a stateless request
    /// finished). Its calls in progress were cancelled first.
    fn closed(&self, _session: &Arc<Session>) {}
    /// The task runtime of the server, if it runs tasks: replicas with a store share it
    /// ([`crate::runtime::tasks::TaskRuntime::share_store`]).
    fn task_runtime(&self) -> Option<Arc<crate::runtime::tasks::TaskRuntime>> {
        None
    }
}

/// Who waits for the answer to a request the server sent.
enum Waiter {
    Rust(oneshot::Sender<Result<Answer, RpcError>>),
    Host(u64),
}

pub(crate) struct Inner {
    pub engine: ServerSession,
    peer: Option<Arc<PeerInfo>>,
    /// The stream each request being served answers on.
    key_stream: KeyMap<RequestKey, Arc<Stream>>,
    /// Streams a client may resume (open, or finished but not fully delivered).
    pub streams: KeyMap<u64, Arc<Stream>>,
    pub get_stream: Option<Arc<Stream>>,
    /// The stream of the input being handled (its answers go there).
    pub input: Option<Arc<Stream>>,
    /// Legacy HTTP+SSE: the one stream everything goes to.
    pub legacy: Option<Arc<Stream>>,
    /// Standalone messages waiting for a GET stream.
    backlog: VecDeque<Bytes>,
    next_stream: u64,
    waiters: KeyMap<OutboundId, Waiter>,
    host_ids: KeyMap<u64, OutboundId>,
    next_host_id: u64,
    timer: Option<Instant>,
    pub closed: bool,
    /// Replicas share this session: standalone messages with no GET stream open here go to
    /// the store's queue (for the replica that holds or next opens one), not the backlog.
    clustered: bool,
}

type ValueSender = oneshot::Sender<Result<Answer, RpcError>>;

/// Work collected under the lock, done after it is released.
#[derive(Default)]
pub(crate) struct After {
    wakers: Vec<Waker>,
    events: Vec<Event>,
    replies: Vec<(ValueSender, Result<Answer, RpcError>)>,
    timer: Option<Instant>,
    /// A stream's reader fell too far behind: the session ends.
    close: bool,
    /// Standalone messages for the store's queue (replicas).
    queued: Vec<Bytes>,
}

/// A session of an HTTP server. Bindings keep an `Arc<Session>` per connection object and
/// answer through its methods.
pub struct Session {
    id: Option<Arc<str>>,
    pub(crate) shared: Arc<Shared>,
    inner: Mutex<Inner>,
    /// Milliseconds since the server's epoch at the last request or disconnect.
    pub(crate) last_seen: AtomicU64,
    /// Rust handlers running for this session (the built-in dispatcher).
    pub(crate) tasks: Mutex<KeyMap<RequestKey, super::dispatch::Running>>,
    /// Registered as a `subscriptions/listen` session ([`Shared::add_listener`]).
    pub(crate) listening: std::sync::atomic::AtomicBool,
    /// With a shared store: the engine's record changes last saved, and when the record's
    /// time-to-live was last renewed (ms since the server's epoch).
    pub(crate) record_saved: AtomicU64,
    pub(crate) store_touched: AtomicU64,
    /// The record as the store last held it to this replica's knowledge (what its changes
    /// are merged from).
    pub(crate) known: Mutex<Option<crate::store::SessionRecord>>,
    /// The address of the client that opened it (what the per-client quota counts by).
    client: std::sync::OnceLock<std::net::IpAddr>,
    /// Entered the session table (counted as opened, so its end is counted too).
    pub(crate) admitted: std::sync::atomic::AtomicBool,
    /// Without a session id: the token subject of the request's caller, whose own rules of
    /// visibility it serves and changes.
    pub(crate) subject: std::sync::OnceLock<Arc<str>>,
    me: Weak<Session>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("id", &self.id).finish_non_exhaustive()
    }
}

impl Session {
    pub(crate) fn new(shared: &Arc<Shared>, id: Option<Arc<str>>) -> Arc<Session> {
        if id.is_none() {
            // Counted until closed (stateless sessions close when their POST is answered).
            shared.stateless_live.fetch_add(1, Ordering::AcqRel);
        }
        let engine = ServerSession::new(shared.config.clone(), shared.registry.clone());
        Arc::new_cyclic(|me| Session {
            id,
            shared: shared.clone(),
            inner: Mutex::new(Inner {
                engine,
                peer: None,
                key_stream: KeyMap::default(),
                streams: KeyMap::default(),
                get_stream: None,
                input: None,
                legacy: None,
                backlog: VecDeque::new(),
                next_stream: 1,
                waiters: KeyMap::default(),
                host_ids: KeyMap::default(),
                next_host_id: 1,
                timer: None,
                closed: false,
                clustered: false,
            }),
            last_seen: AtomicU64::new(shared.now_ms()),
            tasks: Mutex::new(KeyMap::default()),
            listening: std::sync::atomic::AtomicBool::new(false),
            record_saved: AtomicU64::new(0),
            store_touched: AtomicU64::new(0),
            known: Mutex::new(None),
            client: std::sync::OnceLock::new(),
            admitted: std::sync::atomic::AtomicBool::new(false),
            subject: std::sync::OnceLock::new(),
            me: me.clone(),
        })
    }

    /// The address of the client that opened the session, when known.
    pub fn client(&self) -> Option<std::net::IpAddr> {
        self.client.get().copied()
    }

    /// Sets the client's address (once, before the session joins the table).
    pub(crate) fn set_client(&self, client: Option<std::net::IpAddr>) {
        if let Some(c) = client {
            let _ = self.client.set(c);
        }
    }

    /// The `Mcp-Session-Id` (`None` in stateless mode).
    pub fn id(&self) -> Option<&str> {
        self.id.as_deref()
    }

    pub(crate) fn store_key(&self) -> Arc<str> {
        self.id.clone().unwrap_or_else(|| Arc::from(""))
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn touch(&self) {
        self.last_seen.store(self.shared.now_ms(), Ordering::Relaxed);
    }

    /// Runs `f` on the locked session, routes what the engine wrote, then (unlocked) wakes
    /// streams, answers Rust waiters, arms the timer and hands events to the dispatcher.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> R {
        let mut after = After::default();
        let r = {
            let mut g = self.lock();
            let r = f(&mut g);
            g.route(&self.shared, &mut after);
            r
        };
        self.finish(after);
        r
    }

    fn finish(&self, after: After) {
        for w in after.wakers {
            w.wake();
        }
        for (tx, result) in after.replies {
            let _ = tx.send(result);
        }
        if let Some(at) = after.timer {
            self.arm_timer(at);
        }
        if !after.events.is_empty() {
            if let Some(me) = self.me.upgrade() {
                self.shared.dispatcher.events(&me, after.events);
            }
        }
        if after.close {
            if let Some(id) = &self.id {
                self.shared.remove_session(id);
            }
            self.close_because("its client stopped reading its event stream (stream_buffer)");
        }
        if !after.queued.is_empty() {
            if let (Some(c), Some(id)) = (self.shared.cluster.get(), &self.id) {
                for m in after.queued {
                    c.out.send(super::cluster::Out::Queue(id.clone(), m));
                }
            }
        }
    }

    fn arm_timer(&self, at: Instant) {
        let Some(rt) = self.shared.runtime.get() else { return };
        let me = self.me.clone();
        rt.spawn(async move {
            tokio::time::sleep_until(at.into()).await;
            if let Some(s) = me.upgrade() {
                s.with(|i| {
                    if i.timer == Some(at) {
                        i.timer = None;
                    }
                    i.engine.handle_timeout(Instant::now());
                });
            }
        });
    }

    /// Numbers this session's requests to the client and its streams apart from those of
    /// the other replicas (see [`super::cluster`]).
    pub(crate) fn number_apart(&self, inner: &mut Inner, replica: u32) {
        let base = super::cluster::id_base(replica);
        inner.engine.set_request_id_base(base as i64 + 1);
        inner.next_stream = inner.next_stream.max(base + 1);
        inner.clustered = self.id.is_some();
    }

    /// Opens a stream of this session.
    pub(crate) fn open_stream(&self, inner: &mut Inner, kind: Kind, expected: usize) -> Arc<Stream> {
        let id = inner.next_stream;
        inner.next_stream += 1;
        let ids = self.id.is_some() && kind != Kind::Legacy;
        let s = Stream::new(id, kind, self.store_key(), ids, self.shared.event_store(), expected);
        s.lock().limit = self.shared.options.stream_buffer;
        if ids {
            inner.streams.insert(id, s.clone());
            // Bound what a session keeps for resumption: drop the oldest finished streams.
            if inner.streams.len() > MAX_STREAMS {
                let mut done: Vec<u64> = inner
                    .streams
                    .iter()
                    .filter(|(_, s)| {
                        let q = s.lock();
                        q.finished && !q.attached
                    })
                    .map(|(k, _)| *k)
                    .collect();
                done.sort_unstable();
                for k in done.into_iter().take(inner.streams.len() - MAX_STREAMS) {
                    inner.streams.remove(&k);
                    self.shared.event_store().forget_stream(&self.store_key(), k);
                }
            }
        }
        s
    }

    /// A stream another replica sent (its events replayed from the shared store), going on
    /// here as this session's standalone stream.
    pub(crate) fn resume_stream(&self, inner: &mut Inner, id: u64, events: &[(u64, Bytes)]) -> Arc<Stream> {
        let s = Stream::new(id, Kind::Get, self.store_key(), true, self.shared.event_store(), usize::MAX);
        {
            let mut q = s.lock();
            q.limit = self.shared.options.stream_buffer;
            for (n, data) in events {
                q.frames.extend_from_slice(format!("id: {id}-{n}\ndata: ").as_bytes());
                q.frames.extend_from_slice(data);
                q.frames.extend_from_slice(b"\n\n");
                // Kept here too (the store has them): a reconnect to this replica replays them.
                if let Some(c) = self.shared.cluster.get() {
                    super::events::EventStore::store(&c.events.local, &s.session, id, *n, data);
                }
            }
            q.seq = events.last().map_or(0, |(n, _)| *n);
        }
        inner.streams.insert(id, s.clone());
        s
    }

    /// Whether the session has open streams or calls in progress (it is not idle).
    pub(crate) fn busy(&self) -> bool {
        let g = self.lock();
        g.engine.in_flight() > 0 || g.streams.values().any(|s| s.lock().attached) || g.legacy.is_some()
    }

    /// Ends the session: calls in progress are cancelled, streams end. Later calls of
    /// every method see `closed` and do nothing (a handler completing after this is ignored,
    /// a request that looked the session up just before gets 404).
    pub fn close(&self) {
        self.close_because("closed");
    }

    /// [`Session::close`], saying why (in the engine's log, when the session was open).
    pub fn close_because(&self, why: &'static str) {
        let mut wakers = Vec::new();
        // What closing writes (the responses that end `subscriptions/listen` streams) is
        // routed to its streams before they end.
        let first = self.with(|i| {
            if i.closed {
                return false;
            }
            i.closed = true;
            i.engine.close();
            true
        });
        if first && self.admitted.load(Ordering::Relaxed) {
            crate::metrics::SESSIONS_CLOSED.inc();
            if let Some(id) = &self.id {
                tracing::info!(target: "hypermcp::http", session = %id, reason = why, "session closed");
            }
        }
        self.with(|i| {
            if !first {
                return;
            }
            // Under the same lock as `closed`: no stream can be opened after this.
            for s in i.streams.values().chain(i.get_stream.iter()).chain(i.legacy.iter()) {
                s.finish(&mut wakers);
            }
            for s in i.key_stream.values() {
                s.finish(&mut wakers);
            }
            i.streams = KeyMap::default();
            i.key_stream = KeyMap::default();
            i.get_stream = None;
            i.legacy = None;
            i.input = None;
            i.backlog = VecDeque::new();
        });
        for w in wakers {
            w.wake();
        }
        if !first {
            return;
        }
        if self.id.is_some() {
            self.shared.event_store().forget_session(&self.store_key());
        } else {
            self.shared.stateless_live.fetch_sub(1, Ordering::AcqRel);
            if self.listening.swap(false, Ordering::AcqRel) {
                self.shared.remove_listener(self);
            }
        }
        if let Some(me) = self.me.upgrade() {
            self.shared.dispatcher.closed(&me);
        }
    }

    /// Forgets standalone streams nobody reads (a new GET stream replaces them).
    pub(crate) fn forget_get_streams(&self, inner: &mut Inner) {
        let stale: Vec<u64> = inner
            .streams
            .iter()
            .filter(|(_, s)| s.kind == Kind::Get && !s.lock().attached)
            .map(|(id, _)| *id)
            .collect();
        for id in stale {
            if let Some(s) = inner.streams.remove(&id) {
                s.finish(&mut Vec::new());
                self.shared.event_store().forget_stream(&self.store_key(), id);
            }
        }
    }

    // ---- what handlers do (any thread) ------------------------------------------------

    /// Completes a call with its outcome.
    pub fn complete(&self, key: RequestKey, outcome: Outcome) {
        self.with(|i| i.engine.complete(key, outcome));
    }

    /// Reports progress on a call; `Ok(false)` when the client asked for none.
    pub fn progress(
        &self,
        key: RequestKey,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<bool, RpcError> {
        self.with(|i| i.engine.progress(key, progress, total, message))
    }

    /// Sends a log message (tied to a call when `related` is set); false when the client's
    /// level filters it out.
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: Value, related: Option<RequestKey>) -> bool {
        self.with(|i| i.engine.log(level, logger, data, related))
    }

    /// Sends a request to the client; its answer comes as [`Event::Response`] with the id
    /// returned here (and progress as [`Event::Progress`]).
    pub fn request(&self, method: &str, params: Option<Value>, opts: &RequestOptions) -> Result<u64, RpcError> {
        self.with(|i| {
            let id = i.engine.request(method, params, opts, Instant::now())?;
            let host = i.next_host_id;
            i.next_host_id += 1;
            i.waiters.insert(id, Waiter::Host(host));
            i.host_ids.insert(host, id);
            Ok(host)
        })
    }

    /// Asks the client for input on behalf of the call `key`, in either era (see
    /// [`ServerSession::request_input`]): a legacy request is sent ([`InputAnswer::Sent`]
    /// carries the id its [`Event::Response`] will have); a modern call is answered from
    /// what the client sent, or needs the input first.
    pub fn request_input(
        &self,
        key: RequestKey,
        input_key: Option<&str>,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<InputAnswer, RpcError> {
        self.with(|i| match i.engine.request_input(key, input_key, method, params, opts, Instant::now())? {
            InputAnswer::Sent(id) => {
                let host = i.next_host_id;
                i.next_host_id += 1;
                i.waiters.insert(id, Waiter::Host(host));
                i.host_ids.insert(host, id);
                Ok(InputAnswer::Sent(OutboundId(host as i64)))
            }
            other => Ok(other),
        })
    }

    /// Cancels a request sent with [`Session::request`].
    pub fn cancel_request(&self, host_id: u64, reason: Option<&str>) -> bool {
        self.with(|i| match i.host_ids.remove(&host_id) {
            Some(id) => {
                i.waiters.remove(&id);
                i.engine.cancel_request(id, reason)
            }
            None => false,
        })
    }

    /// Tells the client a URL-mode elicitation finished.
    pub fn elicitation_complete(&self, elicitation_id: &str) -> Result<(), RpcError> {
        self.with(|i| i.engine.elicitation_complete(elicitation_id))
    }

    /// Closes the SSE connection a call is answering on, with a `retry` hint; the client
    /// resumes it with `GET` and `Last-Event-ID` and gets the rest (SSE polling). False
    /// when the call has no resumable stream.
    pub fn close_stream(&self, key: RequestKey) -> bool {
        let mut wakers = Vec::new();
        let done = {
            let g = self.lock();
            g.key_stream.get(&key).is_some_and(|s| s.hang_up(self.shared.options.retry, &mut wakers))
        };
        for w in wakers {
            w.wake();
        }
        done
    }

    /// Applies a registry change (a resource update the host reports for this session).
    pub fn registry_changed(&self, change: &RegistryChange) {
        self.with(|i| i.engine.registry_changed(change));
    }

    /// The session's lifecycle state.
    pub fn state(&self) -> crate::engine::State {
        self.lock().engine.state()
    }

    /// Calls in progress.
    pub fn in_flight(&self) -> usize {
        self.lock().engine.in_flight()
    }

    /// The client's name and version (after `initialize`).
    pub fn client_info(&self) -> Option<Implementation> {
        self.lock().engine.client_info().cloned()
    }

    /// The client's capabilities.
    pub fn client_capabilities(&self) -> ClientCapabilities {
        self.lock().engine.client_capabilities().clone()
    }

    /// The negotiated revision.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.lock().engine.protocol_version()
    }

    /// The level the client asked logs to be filtered at.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.lock().engine.log_level()
    }

    /// What Rust handler contexts know about the client.
    pub(crate) fn peer_info(&self) -> Arc<PeerInfo> {
        let mut g = self.lock();
        if let Some(p) = &g.peer {
            return p.clone();
        }
        let p = Arc::new(PeerInfo::of(&g.engine));
        if p.protocol_version.is_some() {
            g.peer = Some(p.clone());
        }
        p
    }

    /// Changes what this session's caller sees (`ctx.enable_components`, ...); `then` gets
    /// the outcome once the session's record (or, for a request without a session, its
    /// caller's rules) is where the replicas share it (when they do), so the call's answer
    /// never outruns the change.
    pub fn change_visibility(
        &self,
        change: &crate::catalogue::visibility::VisibilityChange,
        then: impl FnOnce(Result<(), RpcError>) + Send + 'static,
    ) {
        if let (None, Some(subject), Some(me)) = (&self.id, self.subject.get(), self.me.upgrade()) {
            return self.shared.change_view(&me, subject.clone(), change, then);
        }
        let r = self.with(|i| self.visibility_in(i, change));
        self.once_saved(r, then);
    }

    fn visibility_in(
        &self,
        i: &mut Inner,
        change: &crate::catalogue::visibility::VisibilityChange,
    ) -> Result<(), RpcError> {
        match self.id {
            Some(_) if !i.closed => i.engine.change_visibility(change).map(drop).map_err(RpcError::invalid_params),
            Some(_) => Err(RpcError::invalid_request("the session is closed")),
            None => Err(crate::catalogue::visibility::no_caller()),
        }
    }

    fn once_saved(&self, r: Result<(), RpcError>, then: impl FnOnce(Result<(), RpcError>) + Send + 'static) {
        let (Ok(()), Some(_), Some(rt), Some(me)) =
            (&r, self.shared.cluster.get(), self.shared.runtime.get(), self.me.upgrade())
        else {
            return then(r);
        };
        rt.spawn(async move {
            let service = super::HttpService { shared: me.shared.clone() };
            let saved = service.save_record(&me, true).await.map_err(|_| {
                RpcError::internal("the shared session store is unavailable: the change of visibility was not saved")
            });
            then(saved);
        });
    }

    /// Applies a Rust handler context's command.
    pub(crate) fn apply(&self, cmd: Command) -> Result<(), ()> {
        let mut replies = Vec::new();
        self.with(|i| {
            if i.closed {
                return Err(());
            }
            match cmd {
                Command::Progress { key, progress, total, message, reply } => {
                    replies.push(Reply::Progress(reply, i.engine.progress(key, progress, total, message.as_deref())));
                }
                Command::Log { level, logger, data, related } => {
                    i.engine.log(level, logger.as_deref(), data, related);
                }
                Command::Request { key, input_key, method, params, opts, reply } => {
                    match i.engine.request_input(key, input_key.as_deref(), &method, params, &opts, Instant::now()) {
                        Ok(InputAnswer::Sent(id)) => {
                            i.waiters.insert(id, Waiter::Rust(reply));
                        }
                        Ok(InputAnswer::Answered(v)) => replies.push(Reply::Value(reply, Ok(Answer::Value(v)))),
                        Ok(InputAnswer::Required) => replies.push(Reply::Value(reply, Ok(Answer::Required))),
                        Err(e) => replies.push(Reply::Value(reply, Err(e))),
                    }
                }
                Command::ElicitationComplete(id) => {
                    let _ = i.engine.elicitation_complete(&id);
                }
                Command::CloseStream(key) => {
                    if let Some(s) = i.key_stream.get(&key) {
                        let mut w = Vec::new();
                        s.hang_up(self.shared.options.retry, &mut w);
                        replies.push(Reply::Wake(w));
                    }
                }
                Command::Visibility { change, reply } => replies.push(Reply::Visibility(reply, change)),
            }
            Ok(())
        })?;
        for r in replies {
            match r {
                Reply::Progress(tx, v) => {
                    let _ = tx.send(v);
                }
                Reply::Value(tx, v) => {
                    let _ = tx.send(v);
                }
                Reply::Wake(ws) => ws.into_iter().for_each(Waker::wake),
                Reply::Visibility(tx, change) => self.change_visibility(&change, move |v| drop(tx.send(v))),
            }
        }
        Ok(())
    }
}

enum Reply {
    Progress(oneshot::Sender<Result<bool, RpcError>>, Result<bool, RpcError>),
    Value(oneshot::Sender<Result<Answer, RpcError>>, Result<Answer, RpcError>),
    Wake(Vec<Waker>),
    Visibility(oneshot::Sender<Result<(), RpcError>>, crate::catalogue::visibility::VisibilityChange),
}

/// Most streams a session keeps for resumption.
const MAX_STREAMS: usize = 64;

impl Inner {
    /// Lets go of the stream of the input being handled and of what routes to it (a
    /// listener takes it over: the session's end no longer ends it).
    pub(crate) fn release_input(&mut self) {
        self.key_stream = KeyMap::default();
        self.input = None;
    }

    /// Routes every message the engine wrote, then collects its events.
    fn route(&mut self, shared: &Shared, after: &mut After) {
        while let Some(t) = self.engine.poll_transmit() {
            let msg = Bytes::from(t.bytes);
            if let Some(l) = &self.legacy {
                if l.push(msg, false, &mut after.wakers).is_err() && l.lock().overflowed {
                    // A legacy client that does not read its stream: the session ends (its
                    // stream is its only way out).
                    after.close = true;
                }
                continue;
            }
            let (stream, answer) = match t.route {
                Route::Reply(k) => (self.key_stream.remove(&k), true),
                // A request the engine keeps open without a handler (`subscriptions/listen`)
                // says so first while its input is being handled: it answers on that stream.
                Route::Related(k) => match self.key_stream.get(&k) {
                    Some(s) => (Some(s.clone()), false),
                    None => {
                        let s = self.input.clone();
                        if let Some(s) = &s {
                            self.key_stream.insert(k, s.clone());
                        }
                        (s, false)
                    }
                },
                Route::Answer => (self.input.clone(), true),
                Route::Standalone => (None, false),
            };
            let rest = match stream {
                Some(s) => {
                    let rest = s.push(msg, answer, &mut after.wakers).err();
                    if rest.is_some() && s.lock().overflowed {
                        after.close = true;
                        continue;
                    }
                    if answer && !self.key_stream.is_empty() && s.kind == Kind::Post && s.lock().finished {
                        // A batch's answer: the other calls it carried point at this stream.
                        self.key_stream.retain(|_, k| !Arc::ptr_eq(k, &s));
                    }
                    rest
                }
                None => Some(msg),
            };
            if let Some(msg) = rest {
                if !answer {
                    self.standalone(msg, shared.options.backlog, after);
                }
            }
        }
        while let Some(ev) = self.engine.poll_event() {
            match ev {
                Event::Invoke(ref inv) => {
                    let s = self.input.clone().or_else(|| self.legacy.clone());
                    if let Some(s) = s {
                        self.key_stream.insert(inv.key, s);
                    }
                    after.events.push(ev);
                }
                Event::Cancelled { key, .. } => {
                    if let Some(s) = self.key_stream.remove(&key) {
                        s.forgo_answer(&mut after.wakers);
                    }
                    after.events.push(ev);
                }
                Event::Response { id, result } => match self.waiters.remove(&id) {
                    Some(Waiter::Rust(tx)) => after.replies.push((tx, result.map(Answer::Value))),
                    Some(Waiter::Host(h)) => {
                        self.host_ids.remove(&h);
                        after.events.push(Event::Response { id: OutboundId(h as i64), result });
                    }
                    None => {}
                },
                Event::Progress { id, progress, total, message } => {
                    if let Some(Waiter::Host(h)) = self.waiters.get(&id) {
                        after.events.push(Event::Progress { id: OutboundId(*h as i64), progress, total, message });
                    }
                }
                Event::Initialized | Event::Notification { .. } | Event::Lost { .. } => after.events.push(ev),
            }
        }
        if let Some(d) = self.engine.next_deadline() {
            if self.timer.is_none_or(|t| d < t) {
                self.timer = Some(d);
                after.timer = Some(d);
            }
        }
        // The input was handled: later answers go by their keys.
        self.input = None;
    }

    /// A message for the GET stream, or the backlog while none is open (with replicas, the
    /// store's queue: the stream may be open on another replica).
    fn standalone(&mut self, msg: Bytes, cap: usize, after: &mut After) {
        let msg = match &self.get_stream {
            Some(g) => match g.push(msg, false, &mut after.wakers) {
                Ok(()) => return,
                Err(m) => {
                    self.get_stream = None;
                    m
                }
            },
            None => msg,
        };
        if self.clustered {
            after.queued.push(msg);
        } else {
            self.queue(msg, cap);
        }
    }

    /// Pushes messages taken from the store's queue into the GET stream; gives back those
    /// it could not take (the stream went away).
    pub(crate) fn push_get(&mut self, msgs: Vec<Bytes>) -> Vec<Bytes> {
        let mut wakers = Vec::new();
        let mut back = Vec::new();
        for m in msgs {
            match &self.get_stream {
                Some(g) if back.is_empty() => {
                    if let Err(m) = g.push(m, false, &mut wakers) {
                        self.get_stream = None;
                        back.push(m);
                    }
                }
                _ => back.push(m),
            }
        }
        wakers.into_iter().for_each(Waker::wake);
        back
    }

    fn queue(&mut self, msg: Bytes, cap: usize) {
        if cap == 0 {
            return;
        }
        if self.backlog.len() == cap {
            self.backlog.pop_front();
        }
        self.backlog.push_back(msg);
    }

    /// Opens the GET stream with what waited in the backlog.
    pub fn attach_get(&mut self, s: Arc<Stream>, wakers: &mut Vec<Waker>) {
        for m in std::mem::take(&mut self.backlog) {
            let _ = s.push(m, false, wakers);
        }
        self.get_stream = Some(s);
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let closed = self.inner.get_mut().unwrap_or_else(|e| e.into_inner()).closed;
        if self.id.is_none() && !closed {
            self.shared.stateless_live.fetch_sub(1, Ordering::AcqRel);
        }
        if *self.listening.get_mut() {
            self.shared.remove_listener(self);
        }
    }
}

impl Detach for Session {
    fn detached(&self, stream: &Arc<Stream>, delivered: bool) {
        self.touch();
        let mut g = self.lock();
        if g.get_stream.as_ref().is_some_and(|s| Arc::ptr_eq(s, stream)) {
            g.get_stream = None;
        }
        let legacy = g.legacy.as_ref().is_some_and(|s| Arc::ptr_eq(s, stream));
        // Kept for resumption unless delivered in full, or never an SSE stream (a JSON reply,
        // or a POST the client left before any event id was sent).
        let resumable = !delivered && stream.lock().mode == Mode::Sse;
        if !resumable && g.streams.remove(&stream.id).is_some() {
            self.shared.event_store().forget_stream(&self.store_key(), stream.id);
        }
        drop(g);
        if legacy {
            // The legacy transport's session lives as long as its SSE connection.
            if let Some(id) = &self.id {
                self.shared.remove_session(id);
            }
            self.close_because("its legacy event stream closed");
        } else if self.id.is_none() {
            // A stateless request's session ends with its stream.
            self.close();
        }
    }
}

impl CommandSink for Session {
    fn apply(&self, cmd: Command) -> Result<(), ()> {
        Session::apply(self, cmd)
    }
}
