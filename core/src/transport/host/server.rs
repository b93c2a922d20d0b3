//! [`HostHttpServer`]: the engine's HTTP service, run for a host loop. The server-side twin of
//! [`super::HostStream`].
//!
//! The service runs on the I/O runtime and never calls into the host per message. What the
//! host must act on waits in one queue: the events of sessions (calls, their cancellations,
//! answers to the server's own requests, client notifications), closed sessions, and the
//! response parts of requests served for another HTTP stack. The host is woken (its
//! `wake` callback, from the I/O thread) only when the queue was empty, and takes
//! everything queued at that moment with one [`HostHttpServer::take`]: one wake-up a batch.

use super::options::{host_http_options, server_config, OptionError, TimeUnit};
use super::runtime::io_runtime;
use super::session::HostSession;
use super::tasks::{intercept, Caller, HostTasks, Later};
use crate::catalogue::Registry;
use crate::engine::{Event, State};
use crate::transport::http::server::{bind, serve_with, serving_checks, Dispatcher, HttpService, Session};
use bytes::Bytes;
use http_body_util::BodyExt;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use tokio::sync::oneshot;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What the host takes from [`HostHttpServer::take`].
#[derive(Debug)]
pub enum HostItem {
    /// Events of the session known by `session` (see [`HostHttpServer::session`]), in order.
    /// `Initialized` is left out: the host has nothing to do on it.
    Events {
        /// The session's key.
        session: u64,
        /// Its events.
        events: Vec<Event>,
    },
    /// The session ended (deleted, expired, evicted, disconnected, or a stateless request
    /// answered); its calls in progress were cancelled. Only for sessions whose events the
    /// host was given.
    Closed(u64),
    /// The status and headers of the response to a request served with
    /// [`HostHttpServer::handle`].
    Head {
        /// The request's id.
        request: u64,
        /// HTTP status.
        status: u16,
        /// Header names and values.
        headers: Vec<(String, Vec<u8>)>,
    },
    /// A part of that response's body.
    Chunk {
        /// The request's id.
        request: u64,
        /// The bytes.
        data: Bytes,
    },
    /// The end of that response.
    End(u64),
    /// [`HostHttpServer::stop`] finished: nothing more comes from the listener.
    Stopped,
    /// A request's access token, for the host's own verifier (the `auth` option with
    /// `verify`): answer with [`HostHttpServer::answer_verify`].
    Verify {
        /// The verification's id.
        id: u64,
        /// The token.
        token: String,
    },
}

/// How long a host's verifier may take before the request is refused.
const VERIFY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

type Verdict = Result<crate::auth::server::AuthInfo, String>;

/// The host's own token verifier: each token goes to the host as a [`HostItem::Verify`].
struct HostVerifier(Weak<Shared>);

impl crate::auth::server::TokenVerifier for HostVerifier {
    fn verify<'a>(&'a self, token: &'a str) -> futures_util::future::BoxFuture<'a, Verdict> {
        Box::pin(async move {
            let Some(shared) = self.0.upgrade() else { return Err("the server is shutting down".into()) };
            let id = shared.next_verify.fetch_add(1, Ordering::Relaxed);
            let (tx, rx) = oneshot::channel();
            lock(&shared.verifying).insert(id, tx);
            shared.push(Queued::Item(HostItem::Verify { id, token: token.to_string() }));
            drop(shared);
            match tokio::time::timeout(VERIFY_TIMEOUT, rx).await {
                Ok(Ok(verdict)) => verdict,
                Ok(Err(_)) => Err("the server's token verifier did not answer".into()),
                Err(_) => {
                    if let Some(shared) = self.0.upgrade() {
                        lock(&shared.verifying).remove(&id);
                    }
                    Err("the server's token verifier took too long".into())
                }
            }
        })
    }
}

/// What waits in the queue: session events stay with their session until taken.
enum Queued {
    Ready(u64),
    Item(HostItem),
}

/// A session the host was given events of, with the events it has not taken yet.
pub(crate) struct Announced {
    pub session: Arc<Session>,
    pending: Mutex<VecDeque<Event>>,
}

impl Announced {
    pub fn pop(&self) -> Option<Event> {
        lock(&self.pending).pop_front()
    }
}

struct Shared {
    queue: Mutex<Vec<Queued>>,
    wake: Box<dyn Fn() + Send + Sync>,
    sessions: Mutex<Sessions>,
    /// Tokens the host is verifying, by id.
    verifying: Mutex<HashMap<u64, oneshot::Sender<Verdict>>>,
    next_verify: AtomicU64,
    /// The server's task runtime, when it runs tasks.
    tasks: Mutex<Option<Arc<HostTasks>>>,
    /// The server's built-in middleware, when it has some.
    gate: Mutex<Option<Arc<super::HostMiddleware>>>,
}

#[derive(Default)]
struct Sessions {
    by_key: HashMap<u64, Arc<Announced>>,
    /// Sessions whose `Closed` item was taken: forgotten at the next take, so that the host
    /// can still look them up while it handles the batch that closed them.
    closing: Vec<u64>,
}

impl Shared {
    fn push(&self, item: Queued) {
        let first = {
            let mut q = lock(&self.queue);
            q.push(item);
            q.len() == 1
        };
        if first {
            (self.wake)();
        }
    }
}

/// The key the host knows a session by: stable while the session is announced (the table
/// holds it until its `Closed` item has been taken).
pub(crate) fn key_of(session: &Arc<Session>) -> u64 {
    Arc::as_ptr(session) as usize as u64
}

/// An HTTP session as the task runtime answers its calls.
pub(crate) struct HttpCaller<'a>(pub &'a Arc<Session>);

impl Caller for HttpCaller<'_> {
    fn complete(&mut self, key: crate::engine::RequestKey, outcome: crate::engine::Outcome) {
        self.0.complete(key, outcome);
    }

    fn client_info(&self) -> Option<crate::protocol::Implementation> {
        self.0.peer_info().client.clone()
    }

    fn later(&mut self, key: crate::engine::RequestKey) -> Option<Later> {
        let session = Arc::downgrade(self.0);
        Some(Later {
            sink: crate::runtime::Sink::Session(session.clone() as _),
            peer: self.0.peer_info(),
            finish: Box::new(move |outcome| {
                if let Some(s) = session.upgrade() {
                    s.complete(key, outcome);
                }
            }),
        })
    }
}

/// Weak: the announced sessions hold the service's sessions, which hold the dispatcher; a
/// strong reference back would keep a dropped server alive.
struct HostDispatcher(Weak<Shared>);

impl Dispatcher for HostDispatcher {
    fn task_runtime(&self) -> Option<Arc<crate::runtime::tasks::TaskRuntime>> {
        let shared = self.0.upgrade()?;
        let tasks = lock(&shared.tasks).clone();
        tasks.map(|t| t.runtime().clone())
    }

    fn events(&self, session: &Arc<Session>, mut events: Vec<Event>) {
        // The host has nothing to do on "initialized": a session that only initializes never
        // wakes it.
        events.retain(|e| !matches!(e, Event::Initialized));
        // A host that went away runs nothing more.
        let Some(shared) = self.0.upgrade() else { return };
        let key = key_of(session);
        // The built-in middleware admits calls first (or answers them); a call it admits on
        // the I/O runtime comes back through `admitted`.
        let gate = lock(&shared.gate).clone();
        if let Some(gate) = gate {
            let mut caller = HttpCaller(session);
            events = events
                .into_iter()
                .filter_map(|ev| {
                    let call = match &ev {
                        Event::Invoke(inv) => Some(inv.key),
                        _ => None,
                    };
                    let deferred = || {
                        let (weak, key) = (Arc::downgrade(session), call?);
                        let dispatcher = HostDispatcher(self.0.clone());
                        let refuse_to = weak.clone();
                        Some(super::gate::Deferred {
                            deliver: Box::new(move |ev| {
                                if let Some(s) = weak.upgrade() {
                                    dispatcher.admitted(&s, vec![ev]);
                                }
                            }),
                            answer: Box::new(move |outcome| {
                                if let Some(s) = refuse_to.upgrade() {
                                    s.complete(key, outcome);
                                }
                            }),
                        })
                    };
                    gate.admit(key, ev, &mut caller, deferred)
                })
                .collect();
        }
        self.admitted(session, events);
    }

    fn closed(&self, session: &Arc<Session>) {
        let Some(shared) = self.0.upgrade() else { return };
        let key = key_of(session);
        if lock(&shared.sessions).by_key.contains_key(&key) {
            shared.push(Queued::Item(HostItem::Closed(key)));
        }
    }
}

impl HostDispatcher {
    /// Hands the host `events` of `session` that the built-in middleware admitted.
    fn admitted(&self, session: &Arc<Session>, mut events: Vec<Event>) {
        let Some(shared) = self.0.upgrade() else { return };
        let key = key_of(session);
        // What is the task runtime's never reaches the host's handlers.
        let tasks = lock(&shared.tasks).clone();
        let mut caller = HttpCaller(session);
        events = events.into_iter().filter_map(|ev| intercept(tasks.as_deref(), key, ev, &mut caller)).collect();
        if events.is_empty() {
            return;
        }
        let first = {
            let mut sessions = lock(&shared.sessions);
            let announced = match sessions.by_key.get(&key) {
                Some(a) => a.clone(),
                // Late events of a session already gone: nobody will run them.
                None if session.state() == State::Closed => return,
                None => {
                    let a = Arc::new(Announced { session: session.clone(), pending: Mutex::new(VecDeque::new()) });
                    sessions.by_key.insert(key, a.clone());
                    a
                }
            };
            let mut pending = lock(&announced.pending);
            let first = pending.is_empty();
            pending.extend(events);
            first
        };
        if first {
            shared.push(Queued::Ready(key));
        }
    }
}

/// The HTTP server of one host-language `Server` (see the module docs).
pub struct HostHttpServer {
    shared: Arc<Shared>,
    service: Mutex<HttpService>,
    stop: Mutex<Option<oneshot::Sender<()>>>,
    /// Requests served with `handle` whose response is still streaming.
    requests: Mutex<HashMap<u64, tokio::task::AbortHandle>>,
    next_request: AtomicU64,
}

impl std::fmt::Debug for HostHttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostHttpServer").field("sessions", &self.session_count()).finish_non_exhaustive()
    }
}

impl HostHttpServer {
    /// A server of `registry` described by `config` (see
    /// [`super::options::ServerOptions`]) with the HTTP `options` (see
    /// [`crate::transport::http::HttpOptions`]), durations in `unit`. `wake` is called (from
    /// the I/O thread) when [`HostHttpServer::take`] has something after having had nothing.
    pub fn new(
        config: Value,
        registry: Arc<Registry>,
        options: Value,
        unit: TimeUnit,
        wake: impl Fn() + Send + Sync + 'static,
    ) -> Result<Self, OptionError> {
        let config = server_config(config, unit)?;
        let (mut options, host_verifies) = host_http_options(options, unit)?;
        let shared = Arc::new(Shared {
            queue: Mutex::new(Vec::new()),
            wake: Box::new(wake),
            sessions: Mutex::new(Sessions::default()),
            verifying: Mutex::new(HashMap::new()),
            next_verify: AtomicU64::new(1),
            tasks: Mutex::new(None),
            gate: Mutex::new(None),
        });
        if let (true, Some(auth)) = (host_verifies, options.auth.as_mut()) {
            auth.verifier = Some(Arc::new(HostVerifier(Arc::downgrade(&shared))));
        }
        let dispatcher = Arc::new(HostDispatcher(Arc::downgrade(&shared)));
        let service = HttpService::with_dispatcher(Arc::new(config), registry, dispatcher, options);
        Ok(HostHttpServer {
            shared,
            service: Mutex::new(service),
            stop: Mutex::new(None),
            requests: Mutex::new(HashMap::new()),
            next_request: AtomicU64::new(1),
        })
    }

    /// Binds `host:port` (port 0: any free one) and starts serving on the I/O runtime;
    /// returns the bound address. Blocks while binding. A [`HostItem::Stopped`] follows
    /// [`HostHttpServer::stop`].
    pub fn listen(&self, host: &str, port: u16) -> crate::Result<SocketAddr> {
        let mut slot = lock(&self.stop);
        if slot.is_some() {
            return Err(crate::Error::msg("the server is already listening"));
        }
        let rt = io_runtime();
        let mut service = lock(&self.service);
        let mut options = service.options().clone();
        // Bad TLS files fail here, not later in the serving task.
        let tls = serving_checks(&options)?;
        let listener = rt.block_on(bind((host, port), &mut options)).map_err(|e| {
            let shown = if host.contains(':') { format!("[{host}]:{port}") } else { format!("{host}:{port}") };
            crate::Error::msg(format!("cannot listen on {shown}: {e}"))
        })?;
        let local = listener.local_addr()?;
        // `bind` opens the DNS-rebinding lists on a non-loopback address left at the defaults.
        if options.allowed_hosts != service.options().allowed_hosts
            || options.allowed_origins != service.options().allowed_origins
        {
            *service = service.with_options(options);
        }
        let service = service.clone();
        // A store that cannot be reached is an error here, before anything is served.
        rt.block_on(service.connect_store())?;
        let (tx, rx) = oneshot::channel::<()>();
        *slot = Some(tx);
        let shared = self.shared.clone();
        rt.spawn(async move {
            serve_with(service, listener, tls, async {
                let _ = rx.await;
            })
            .await;
            shared.push(Queued::Item(HostItem::Stopped));
        });
        Ok(local)
    }

    /// Stops accepting, lets calls in progress finish (10 s at most), closes every session;
    /// [`HostItem::Stopped`] follows. False when not listening.
    pub fn stop(&self) -> bool {
        match lock(&self.stop).take() {
            Some(tx) => tx.send(()).is_ok(),
            None => false,
        }
    }

    /// Closes every session now: their calls are cancelled, their streams end.
    pub fn close_all(&self) {
        let service = lock(&self.service).clone();
        service.close_all();
    }

    /// The HTTP options in force.
    pub fn options(&self) -> crate::transport::http::HttpOptions {
        lock(&self.service).options().clone()
    }

    /// Open sessions.
    pub fn session_count(&self) -> usize {
        lock(&self.service).session_count()
    }

    /// Everything queued since the last take.
    pub fn take(&self) -> Vec<HostItem> {
        let queued = std::mem::take(&mut *lock(&self.shared.queue));
        let mut sessions = lock(&self.shared.sessions);
        for key in std::mem::take(&mut sessions.closing) {
            sessions.by_key.remove(&key);
        }
        let mut items = Vec::with_capacity(queued.len());
        for q in queued {
            match q {
                Queued::Ready(key) => {
                    let Some(a) = sessions.by_key.get(&key) else { continue };
                    let events: Vec<Event> = lock(&a.pending).drain(..).collect();
                    if !events.is_empty() {
                        items.push(HostItem::Events { session: key, events });
                    }
                }
                Queued::Item(HostItem::Closed(key)) => {
                    if let Some(t) = &*lock(&self.shared.tasks) {
                        t.session_ended(key);
                    }
                    if let Some(g) = &*lock(&self.shared.gate) {
                        g.session_ended(key);
                    }
                    sessions.closing.push(key);
                    items.push(HostItem::Closed(key));
                }
                Queued::Item(HostItem::End(id)) => {
                    lock(&self.requests).remove(&id);
                    items.push(HostItem::End(id));
                }
                Queued::Item(item) => items.push(item),
            }
        }
        items
    }

    /// The session a [`HostItem`] names, until the take after its [`HostItem::Closed`].
    pub fn session(&self, key: u64) -> Option<HostSession> {
        let tasks = lock(&self.shared.tasks).clone();
        let gate = lock(&self.shared.gate).clone();
        lock(&self.shared.sessions).by_key.get(&key).map(|a| HostSession::http(a.clone(), tasks, gate.clone()))
    }

    /// Runs the server's built-in middleware around every session's calls (see
    /// [`HostSession::set_middleware`]).
    pub fn set_middleware(&self, gate: Option<Arc<super::HostMiddleware>>) {
        *lock(&self.shared.gate) = gate.filter(|g| !g.is_empty());
    }

    /// Lets the server's task runtime take what is its own in every session (see
    /// [`HostSession::set_tasks`]).
    pub fn set_tasks(&self, tasks: Option<Arc<HostTasks>>) {
        // Already serving with a store: the tasks live there too.
        if let (Some(t), Some(store)) = (&tasks, lock(&self.service).cluster_task_store()) {
            t.runtime().share_store(store);
        }
        *lock(&self.shared.tasks) = tasks;
    }

    /// Serves one request that arrived through another HTTP stack (ASGI, `node:http`): returns
    /// its id; the response comes back as [`HostItem::Head`], [`HostItem::Chunk`]s and
    /// [`HostItem::End`].
    pub fn handle<K, V>(
        &self,
        method: &str,
        target: &str,
        headers: impl IntoIterator<Item = (K, V)>,
        body: Vec<u8>,
    ) -> Result<u64, String>
    where
        http::HeaderName: TryFrom<K>,
        <http::HeaderName as TryFrom<K>>::Error: Into<http::Error>,
        http::HeaderValue: TryFrom<V>,
        <http::HeaderValue as TryFrom<V>>::Error: Into<http::Error>,
    {
        let mut req = http::Request::builder().method(method).uri(target);
        for (k, v) in headers {
            req = req.header(k, v);
        }
        let req =
            req.body(http_body_util::Full::new(Bytes::from(body))).map_err(|e| format!("invalid request: {e}"))?;
        let id = self.next_request.fetch_add(1, Ordering::Relaxed);
        let service = lock(&self.service).clone();
        let shared = self.shared.clone();
        let mut requests = lock(&self.requests);
        let task = io_runtime().spawn(async move {
            let resp = service.handle(req).await;
            let (parts, mut body) = resp.into_parts();
            let headers = parts.headers.iter().map(|(k, v)| (k.as_str().to_string(), v.as_bytes().to_vec())).collect();
            shared.push(Queued::Item(HostItem::Head { request: id, status: parts.status.as_u16(), headers }));
            while let Some(frame) = body.frame().await {
                if let Ok(Some(data)) = frame.map(|f| f.into_data().ok()) {
                    if !data.is_empty() {
                        shared.push(Queued::Item(HostItem::Chunk { request: id, data }));
                    }
                }
            }
            shared.push(Queued::Item(HostItem::End(id)));
        });
        requests.insert(id, task.abort_handle());
        Ok(id)
    }

    /// The host's verdict on the token of [`HostItem::Verify`] `id`: the token's claims (a
    /// JSON object: `sub`, `client_id`, `scope`, `exp`...), or why it is refused (the
    /// client sees it in the 401's `error_description`).
    pub fn answer_verify(&self, id: u64, verdict: Result<Value, String>) {
        let Some(tx) = lock(&self.shared.verifying).remove(&id) else { return };
        let verdict = verdict.and_then(|claims| match claims {
            Value::Object(m) => Ok(crate::auth::server::AuthInfo::from_claims(m)),
            other => Err(format!("the server's token verifier returned {other} instead of the token's claims")),
        });
        let _ = tx.send(verdict);
    }

    /// The client of a request served with `handle` went away: its response stops (a call
    /// answering on it keeps running; the client may resume its stream).
    pub fn cancel(&self, request: u64) {
        if let Some(t) = lock(&self.requests).remove(&request) {
            t.abort();
        }
    }
}
