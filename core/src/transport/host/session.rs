//! [`HostSession`]: one server session as a host loop drives it, wherever its bytes go.
//!
//! Over stdio or in memory the host owns the byte stream: it feeds what it reads, writes
//! what [`HostSession::take_output`] gives and calls [`HostSession::handle_timeout`] when
//! [`HostSession::next_timeout`] says. Over HTTP the engine's HTTP service owns the bytes
//! and the timers: such a session never has output or a deadline for the host, and its
//! events reach the host through [`super::HostHttpServer::take`] (or, between two takes,
//! [`HostSession::poll_event`]). Either way the host runs the same code: poll events, run
//! handlers, complete them, flush.

use super::gate::{Deferred, HostMiddleware};
use super::late::{Inbox, Item};
use super::server::Announced;
use super::server::HttpCaller;
use super::tasks::{intercept, Caller, HostTasks, Later};
use crate::catalogue::{ListenerId, Registry, RegistryChange};
use crate::engine::{
    Event, InputAnswer, KeyMap, OutboundId, Outcome, RequestKey, RequestOptions, ServerConfig, ServerSession, State,
};
use crate::jsonrpc::RpcError;
use crate::protocol::{ClientCapabilities, Implementation, LoggingLevel, ProtocolVersion};
use crate::runtime::{Answer, PeerInfo, Sink};
use serde_json::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// One server session driven by a host loop (see the module docs).
pub struct HostSession {
    place: Place,
    /// The server's task runtime, when it runs tasks.
    tasks: Option<Arc<HostTasks>>,
    /// What reaches a stream session from other threads, once the host gave a waker.
    late: Option<Late>,
    /// The server's built-in middleware, when it has some.
    gate: Option<Arc<HostMiddleware>>,
}

/// See [`super::late`].
struct Late {
    inbox: Arc<Inbox>,
    /// The requests the task runtime sent the client through this session (the input
    /// requests of a task a `tasks/result` waits for), by id: who waits for the answer.
    waiters: KeyMap<OutboundId, oneshot::Sender<Result<Answer, RpcError>>>,
    /// Tells the inbox of task changes (`notifications/tasks/status`).
    listener: Option<(Arc<Registry>, ListenerId)>,
    /// Calls the built-in middleware admitted late, for the host.
    admitted: std::collections::VecDeque<Event>,
}

impl Late {
    fn stop_listening(&mut self) {
        if let Some((registry, id)) = self.listener.take() {
            registry.remove_listener(id);
        }
    }
}

impl Drop for HostSession {
    fn drop(&mut self) {
        if let Some(late) = &mut self.late {
            late.stop_listening();
        }
        // A stream session dropped without `close`: its waits end (its id may be reused).
        if let (Place::Stream(_), Some(t)) = (&self.place, &self.tasks) {
            t.session_ended(self.uid());
        }
        if let (Place::Stream(_), Some(g)) = (&self.place, &self.gate) {
            g.session_ended(self.uid());
        }
    }
}

/// A session as the task runtime answers its calls.
struct SessionCaller<'a>(&'a mut HostSession);

impl Caller for SessionCaller<'_> {
    fn complete(&mut self, key: RequestKey, outcome: Outcome) {
        self.0.complete(key, outcome);
    }

    fn client_info(&self) -> Option<Implementation> {
        self.0.client_info()
    }

    fn later(&mut self, key: RequestKey) -> Option<Later> {
        match &self.0.place {
            Place::Http(a) => HttpCaller(&a.session).later(key),
            Place::Stream(s) => {
                let inbox = Arc::downgrade(&self.0.late.as_ref()?.inbox);
                Some(Later {
                    sink: Sink::Session(inbox.clone() as _),
                    peer: Arc::new(PeerInfo::of(s)),
                    finish: Box::new(move |outcome| {
                        if let Some(inbox) = inbox.upgrade() {
                            inbox.push(Item::Complete(key, outcome));
                        }
                    }),
                })
            }
            Place::Tasks(_) => None,
        }
    }
}

enum Place {
    /// The host reads and writes the bytes.
    Stream(Box<ServerSession>),
    /// The engine's HTTP service does.
    Http(Arc<Announced>),
    /// The handlers of tasks ([`HostTasks`]).
    Tasks(Arc<HostTasks>),
}

impl std::fmt::Debug for HostSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.place {
            Place::Stream(_) => "stream",
            Place::Http(_) => "http",
            Place::Tasks(_) => "tasks",
        };
        f.debug_struct("HostSession").field("kind", &kind).field("state", &self.state()).finish()
    }
}

/// Why input cannot be fed to a session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotAStream;

impl std::fmt::Display for NotAStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an HTTP session reads its messages from HTTP requests, not from the host")
    }
}

impl std::error::Error for NotAStream {}

impl HostSession {
    /// A session over a byte stream the host owns (stdio, in memory).
    pub fn new(config: Arc<ServerConfig>, registry: Arc<Registry>) -> Self {
        HostSession {
            place: Place::Stream(Box::new(ServerSession::new(config, registry))),
            tasks: None,
            late: None,
            gate: None,
        }
    }

    pub(crate) fn http(
        announced: Arc<Announced>,
        tasks: Option<Arc<HostTasks>>,
        gate: Option<Arc<HostMiddleware>>,
    ) -> Self {
        HostSession { place: Place::Http(announced), tasks, late: None, gate }
    }

    /// Runs the server's built-in middleware around this session's calls (`None`, or one
    /// with no link: none). A stream session with limits kept in Redis needs a waker
    /// ([`HostSession::set_waker`]): their calls reach the host once admitted.
    pub fn set_middleware(&mut self, gate: Option<Arc<HostMiddleware>>) {
        self.gate = gate.filter(|g| !g.is_empty());
    }

    /// The session the handlers of `tasks` run on (see [`HostTasks`]).
    pub(crate) fn tasks(tasks: Arc<HostTasks>) -> Self {
        HostSession { place: Place::Tasks(tasks), tasks: None, late: None, gate: None }
    }

    /// Lets the server's task runtime take what is its own in this session: calls that run
    /// as tasks, and the requests about tasks (without one, they are answered -32601).
    pub fn set_tasks(&mut self, tasks: Option<Arc<HostTasks>>) {
        if !matches!(self.place, Place::Tasks(_)) {
            self.tasks = tasks;
        }
    }

    /// Gives a stream session the function that wakes its host (called from any thread)
    /// when something reached the session from elsewhere: the host then polls it
    /// ([`HostSession::poll_event`]) and writes what it queued. A session of a server that
    /// runs tasks needs one: a 2025-11-25 `tasks/result` is answered when its task ends,
    /// and a session is told of the tasks it created as they change. False (nothing to do)
    /// for an HTTP session or the task session.
    pub fn set_waker(&mut self, wake: impl Fn() + Send + Sync + 'static) -> bool {
        let Place::Stream(s) = &self.place else { return false };
        if let Some(late) = &mut self.late {
            late.stop_listening();
        }
        let inbox = Arc::new(Inbox::new(wake));
        let registry = s.registry().clone();
        let weak = Arc::downgrade(&inbox);
        let id = registry.add_listener(move |change| {
            if let (RegistryChange::TaskChanged { .. }, Some(inbox)) = (change, weak.upgrade()) {
                inbox.push(Item::Change(change.clone()));
            }
        });
        self.late = Some(Late {
            inbox,
            waiters: KeyMap::default(),
            listener: Some((registry, id)),
            admitted: Default::default(),
        });
        true
    }

    /// Whether the open session owes its client an answer the task runtime gives later (a
    /// `tasks/result` waiting for its task), or has such an answer not yet polled: a host
    /// whose loop ends when nothing else holds it (Node) keeps it alive meanwhile.
    pub fn awaits_late(&self) -> bool {
        let Some(late) = &self.late else { return false };
        if self.state() == State::Closed {
            return false;
        }
        late.inbox.has_items() || self.tasks.as_ref().is_some_and(|t| t.waits_for(self.uid()))
    }

    /// Applies what reached a stream session from elsewhere (see [`HostSession::set_waker`]).
    fn drain_late(&mut self) {
        let (Some(late), Place::Stream(s)) = (&mut self.late, &mut self.place) else { return };
        for item in late.inbox.take() {
            match item {
                Item::Command(c) => crate::transport::driver::apply(s, c, &mut late.waiters),
                Item::Complete(key, outcome) => s.complete(key, outcome),
                Item::Change(change) => s.registry_changed(&change),
                Item::Admitted(ev) => late.admitted.push_back(ev),
            }
        }
    }

    /// Whether this is the session of a task runtime.
    pub fn is_tasks(&self) -> bool {
        matches!(self.place, Place::Tasks(_))
    }

    /// What the task runtime knows this session by.
    fn uid(&self) -> u64 {
        match &self.place {
            Place::Stream(s) => &**s as *const ServerSession as usize as u64,
            Place::Http(a) => super::server::key_of(&a.session),
            Place::Tasks(_) => 0,
        }
    }

    fn stream(&mut self) -> Result<&mut ServerSession, NotAStream> {
        match &mut self.place {
            Place::Stream(s) => Ok(s),
            Place::Http(_) | Place::Tasks(_) => Err(NotAStream),
        }
    }

    /// Runs `f` on the engine session (an HTTP session's under its lock, routing what it
    /// wrote to the session's streams); `None` on the task session, which has none.
    fn engine<R>(&mut self, f: impl FnOnce(&mut ServerSession) -> R) -> Option<R> {
        match &mut self.place {
            Place::Stream(s) => Some(f(s)),
            Place::Http(a) => Some(a.session.with(|i| f(&mut i.engine))),
            Place::Tasks(_) => None,
        }
    }

    /// Reads the engine session.
    fn look<R>(&self, f: impl FnOnce(&ServerSession) -> R) -> Option<R> {
        match &self.place {
            Place::Stream(s) => Some(f(s)),
            Place::Http(a) => Some(f(&a.session.lock().engine)),
            Place::Tasks(_) => None,
        }
    }

    // ---- bytes and time -------------------------------------------------------------------

    /// Feeds bytes read from the stream.
    pub fn feed(&mut self, data: &[u8]) -> Result<(), NotAStream> {
        self.stream()?.feed(data, Instant::now());
        Ok(())
    }

    /// Handles one complete message.
    pub fn handle_message(&mut self, data: &[u8]) -> Result<(), NotAStream> {
        self.stream()?.handle_message(data, Instant::now());
        Ok(())
    }

    /// The client's input ended: requests to it fail; calls in progress may still answer.
    pub fn input_closed(&mut self) {
        self.engine(|s| s.input_closed());
    }

    /// The next event for the host.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.drain_late();
        loop {
            // A call admitted late has passed the gate already.
            let (ev, admitted) = match self.late.as_mut().and_then(|l| l.admitted.pop_front()) {
                Some(ev) => (ev, true),
                None => (
                    match &mut self.place {
                        Place::Stream(s) => s.poll_event(),
                        Place::Http(a) => a.pop(),
                        Place::Tasks(t) => return t.poll_event(),
                    }?,
                    false,
                ),
            };
            // (An HTTP session's events passed the gate in the service's dispatcher.)
            let ev = match (&self.gate, admitted, &self.place) {
                (Some(gate), false, Place::Stream(_)) => {
                    let (gate, uid) = (gate.clone(), self.uid());
                    let inbox = self.late.as_ref().map(|l| Arc::downgrade(&l.inbox));
                    let ev_key = match &ev {
                        Event::Invoke(inv) => Some(inv.key),
                        _ => None,
                    };
                    let later = move || {
                        let (inbox, key) = (inbox?, ev_key?);
                        let refuse_to = inbox.clone();
                        Some(Deferred {
                            deliver: Box::new(move |ev| {
                                if let Some(i) = inbox.upgrade() {
                                    i.push(Item::Admitted(ev));
                                }
                            }),
                            answer: Box::new(move |outcome| {
                                if let Some(i) = refuse_to.upgrade() {
                                    i.push(Item::Complete(key, outcome));
                                }
                            }),
                        })
                    };
                    match gate.admit(uid, ev, &mut SessionCaller(self), later) {
                        Some(ev) => ev,
                        None => continue,
                    }
                }
                _ => ev,
            };
            // Answers to the task runtime's own requests go to it.
            let ev = match (ev, &mut self.late) {
                (Event::Response { id, result }, Some(late)) => match late.waiters.remove(&id) {
                    Some(tx) => {
                        let _ = tx.send(result.map(Answer::Value));
                        continue;
                    }
                    None => Event::Response { id, result },
                },
                (Event::Progress { id, .. }, Some(late)) if late.waiters.contains_key(&id) => continue,
                (ev, _) => ev,
            };
            // What is the task runtime's never reaches the host's handlers.
            let tasks = self.tasks.clone();
            let uid = self.uid();
            if let Some(ev) = intercept(tasks.as_deref(), uid, ev, &mut SessionCaller(self)) {
                return Some(ev);
            }
        }
    }

    /// Appends what is queued for the peer, newline-delimited, to `dst` (nothing over HTTP:
    /// the service writes to the session's streams itself).
    pub fn take_output(&mut self, dst: &mut Vec<u8>) {
        if let Place::Stream(s) = &mut self.place {
            s.take_output(dst);
        }
    }

    /// Whether [`HostSession::take_output`] has something.
    pub fn has_output(&self) -> bool {
        match &self.place {
            Place::Stream(s) => s.has_output(),
            Place::Http(_) | Place::Tasks(_) => false,
        }
    }

    /// How long until [`HostSession::handle_timeout`] is due (never over HTTP: the service
    /// runs the session's timers).
    pub fn next_timeout(&self) -> Option<Duration> {
        match &self.place {
            Place::Stream(s) => s.next_deadline().map(|d| d.saturating_duration_since(Instant::now())),
            Place::Http(_) | Place::Tasks(_) => None,
        }
    }

    /// Expires timed-out requests.
    pub fn handle_timeout(&mut self) {
        self.engine(|s| s.handle_timeout(Instant::now()));
    }

    // ---- what handlers do -----------------------------------------------------------------

    /// Completes a call with its outcome (ignored when the call was cancelled).
    pub fn complete(&mut self, key: RequestKey, outcome: Outcome) {
        if let Place::Tasks(t) = &self.place {
            t.complete(key, outcome);
            return;
        }
        if let Some(t) = &self.tasks {
            t.call_ended(self.uid(), key);
        }
        if let Some(g) = &self.gate {
            g.finished(self.uid(), key, &outcome);
        }
        self.engine(|s| s.complete(key, outcome));
    }

    /// Completes a call whose handler the host does not have (removed while the call was on
    /// its way): `kind` is `tool`, `resource` or `prompt`, `name` its name (or URI). The error
    /// is the one the engine answers an unknown name with, the same in every language.
    pub fn complete_missing(&mut self, key: RequestKey, kind: &str, name: &str) -> Result<(), String> {
        let error = match kind {
            "tool" => RpcError::unknown_tool(name),
            "resource" => RpcError::resource_not_found(name),
            "prompt" => RpcError::unknown_prompt(name),
            other => return Err(format!("complete_missing: no handler kind {other:?} (tool, resource, prompt)")),
        };
        self.complete(key, Outcome::Error(error));
        Ok(())
    }

    /// Completes a call whose handler failed unexpectedly (an exception the host did not
    /// mean the client to read): `kind` is `tool`, `resource`, `prompt`, `completion`,
    /// `method` or `list`, `name` what it names, `error` the failure's message, `detail` its
    /// traceback. The engine answers as the server's `mask_error_details` says (see
    /// [`crate::engine::failure()`]).
    pub fn complete_failure(
        &mut self,
        key: RequestKey,
        kind: &str,
        name: &str,
        error: &str,
        detail: Option<&str>,
    ) -> Result<(), String> {
        let what = crate::engine::Failed::parse(kind, name)?;
        let mask = match &self.place {
            Place::Tasks(t) => t.runtime().masks_errors(),
            _ => self.look(|s| s.masks_errors()).unwrap_or(false),
        };
        self.complete(key, crate::engine::failure(what, error, detail, mask));
        Ok(())
    }

    /// Turns call `key` into a task (its handler decided to, `ctx.start_task()`): the call
    /// is answered with the task; the handler goes on as the task's, under the returned key
    /// of the task session. `None` when the call cannot become a task (its tool is not in
    /// manual mode, its client did not declare tasks, or it already ended).
    pub fn start_task(&mut self, key: RequestKey) -> Result<Option<(String, RequestKey)>, RpcError> {
        let Some(tasks) = self.tasks.clone() else { return Ok(None) };
        let uid = self.uid();
        let gate = self.gate.clone();
        let adopted = tasks.adopt(uid, key, &mut |key, outcome| {
            if let Some(g) = &gate {
                g.finished(uid, key, &outcome);
            }
            self.engine(|s| s.complete(key, outcome));
        })?;
        Ok(adopted.map(|(id, k)| (id, RequestKey(k))))
    }

    /// Reports progress on a call; `Ok(false)` when the client asked for none.
    pub fn progress(
        &mut self,
        key: RequestKey,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<bool, RpcError> {
        match &self.place {
            Place::Tasks(t) => Ok(t.progress(key, progress, total, message)),
            _ => self.engine(|s| s.progress(key, progress, total, message)).unwrap_or(Ok(false)),
        }
    }

    /// Sends a log message (tied to a call when `related` is set); false when the client's
    /// level filters it out.
    /// A task's handler logs nowhere: the spec sends no log notification for a task.
    pub fn log(&mut self, level: LoggingLevel, logger: Option<&str>, data: Value, related: Option<RequestKey>) -> bool {
        self.engine(|s| s.log(level, logger, data, related)).unwrap_or(false)
    }

    /// Sends a request to the client; its answer comes as [`Event::Response`] with the id
    /// returned here.
    pub fn request(&mut self, method: &str, params: Option<Value>, opts: &RequestOptions) -> Result<i64, RpcError> {
        match &mut self.place {
            Place::Stream(s) => s.request(method, params, opts, Instant::now()).map(|id| id.0),
            Place::Http(a) => a.session.request(method, params, opts).map(|id| id as i64),
            Place::Tasks(_) => Err(RpcError::invalid_request(format!(
                "a task has no connection to send {method} on: ask for input with elicit, sample or list_roots \
                 (they become the task's input requests)"
            ))),
        }
    }

    /// Asks the client for input on behalf of the call `key`, in either era: a legacy
    /// request is sent ([`InputAnswer::Sent`] carries the id its [`Event::Response`] will
    /// have, as [`HostSession::request`] returns it); a 2026-07-28 call is answered from
    /// what the client sent, or needs the input first ([`InputAnswer::Required`]: the host
    /// stops the handler and completes the call with [`Outcome::InputRequired`]).
    pub fn request_input(
        &mut self,
        key: RequestKey,
        input_key: Option<&str>,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
    ) -> Result<InputAnswer, RpcError> {
        match &mut self.place {
            Place::Stream(s) => s.request_input(key, input_key, method, params, opts, Instant::now()),
            Place::Http(a) => a.session.request_input(key, input_key, method, params, opts),
            Place::Tasks(t) => t.request_input(key, input_key, method, params, opts),
        }
    }

    /// Stops waiting for a request sent with [`HostSession::request`] and tells the client.
    pub fn cancel_request(&mut self, id: i64, reason: Option<&str>) -> bool {
        match &mut self.place {
            Place::Stream(s) => s.cancel_request(OutboundId(id), reason),
            Place::Http(a) => a.session.cancel_request(id as u64, reason),
            Place::Tasks(t) => t.forget_input(id),
        }
    }

    /// Tells the client a URL-mode elicitation finished.
    pub fn elicitation_complete(&mut self, elicitation_id: &str) -> Result<(), RpcError> {
        self.engine(|s| s.elicitation_complete(elicitation_id)).unwrap_or_else(|| {
            Err(RpcError::invalid_request("a task has no connection to tell of a finished elicitation"))
        })
    }

    /// Answers a list that passed the host's middleware with the entries to send: the
    /// engine pages them.
    pub fn complete_list(&mut self, key: RequestKey, items: Vec<Value>) {
        self.complete(key, Outcome::Listed(items));
    }

    /// Changes what this session's caller sees (`ctx.enable_components`, ...): a stream's
    /// connection or a legacy HTTP session; a stateless request or a task has no caller
    /// to change the view of. With replicas, the session's record is saved meanwhile.
    pub fn change_visibility(
        &mut self,
        change: &crate::catalogue::visibility::VisibilityChange,
    ) -> Result<(), RpcError> {
        match &mut self.place {
            Place::Stream(s) => s.change_visibility(change).map(drop).map_err(RpcError::invalid_params),
            Place::Http(a) => {
                let (tx, rx) = std::sync::mpsc::channel();
                a.session.change_visibility(change, move |r| drop(tx.send(r)));
                // Answered at once unless the record is being saved to the shared store: then
                // that goes on, and the change itself is made.
                rx.try_recv().unwrap_or(Ok(()))
            }
            Place::Tasks(_) => Err(RpcError::invalid_request(
                "a task has no caller whose view it could change: change visibility before the call becomes a task",
            )),
        }
    }

    /// Closes the SSE connection a call answers on, so the client resumes it (SSE polling).
    /// False when the call has no such stream (always, over stdio).
    pub fn close_stream(&mut self, key: RequestKey) -> bool {
        match &self.place {
            Place::Stream(_) | Place::Tasks(_) => false,
            Place::Http(a) => a.session.close_stream(key),
        }
    }

    /// Applies a registry change to this session (an HTTP service applies them to its
    /// sessions itself).
    pub fn registry_changed(&mut self, change: &RegistryChange) {
        self.engine(|s| s.registry_changed(change));
    }

    /// Ends the session: calls in progress are cancelled.
    /// (Tasks outlive every session: closing the task session does nothing.)
    pub fn close(&mut self) {
        if let Some(t) = &self.tasks {
            t.session_ended(self.uid());
        }
        if let Some(g) = &self.gate {
            g.session_ended(self.uid());
        }
        if let Some(late) = &mut self.late {
            late.stop_listening();
        }
        match &mut self.place {
            Place::Stream(s) => s.close(),
            Place::Http(a) => a.session.close(),
            Place::Tasks(_) => {}
        }
    }

    // ---- what it knows --------------------------------------------------------------------

    /// The `Mcp-Session-Id` of an HTTP session with one.
    pub fn session_id(&self) -> Option<String> {
        match &self.place {
            Place::Stream(_) | Place::Tasks(_) => None,
            Place::Http(a) => a.session.id().map(str::to_string),
        }
    }

    /// Lifecycle state.
    /// (The task session is always operating.)
    pub fn state(&self) -> State {
        self.look(|s| s.state()).unwrap_or(State::Operating)
    }

    /// The negotiated revision (tasks: 2026-07-28, whose extension they are; each call's
    /// own context says the rest).
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.look(|s| s.protocol_version()).unwrap_or(Some(ProtocolVersion::V2026_07_28))
    }

    /// The client's name and version.
    pub fn client_info(&self) -> Option<Implementation> {
        self.look(|s| s.client_info().cloned()).flatten()
    }

    /// The client's capabilities.
    pub fn client_capabilities(&self) -> ClientCapabilities {
        self.look(|s| s.client_capabilities().clone()).unwrap_or_default()
    }

    /// The level the client asked logs to be filtered at.
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.look(|s| s.log_level()).flatten()
    }

    /// Calls in progress (on the task session: handlers running as tasks).
    pub fn in_flight(&self) -> usize {
        match &self.place {
            Place::Tasks(t) => t.running(),
            _ => self.look(|s| s.in_flight()).unwrap_or(0),
        }
    }
}
