//! [`HostTasks`]: the task runtime (`io.modelcontextprotocol/tasks`) of a Python or Node
//! server. Every rule of tasks lives in [`crate::server::tasks::TaskRuntime`], shared with
//! Rust servers; this hands the host the handlers to run.
//!
//! A task's handler belongs to the server, not to the connection that started it: it goes
//! on when that connection (or the stateless HTTP request) ends. So the handlers of tasks
//! run on a session of their own, the *task session* ([`HostSession::tasks`]): its events
//! are the tool calls to run as tasks (`task` field: the task's id), the answers to their
//! input requests (`response`) and their cancellations (`cancelled`); the host completes
//! them, reports progress and asks for input with the same methods as on any session. The
//! host drives it like an HTTP server: `wake` says when [`HostSession::poll_event`] has
//! something.
//!
//! Client sessions given the runtime ([`HostSession::set_tasks`],
//! [`super::HostHttpServer::set_tasks`]) hand it what is the runtime's: a call that starts
//! as a task (answered with the task at once, its handler moved to the task session);
//! `tasks/get`, `tasks/update` and `tasks/cancel`, and at 2025-11-25 `tasks/list` and
//! `tasks/result` (answered when the task ends, meanwhile sending the task's input requests
//! to the client on its behalf: a stream session takes that late answer through its inbox,
//! see [`super::late`]); and a handler's `start_task` (a tool that decides per call).

use super::runtime::io_runtime;
use super::session::HostSession;
use crate::engine::{Event, InputAnswer, Invocation, OutboundId, Outcome, Request, RequestKey, TaskOp, TaskPlan};
use crate::jsonrpc::RpcError;
use crate::runtime::tasks::{owner_of, TaskBinding, TaskOptions, TaskRuntime};
use crate::runtime::{Answer, CancelState, Command, Context, PeerInfo, Sink};
use futures_util::FutureExt;
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard};

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs a store operation to its end. The in-memory store is ready at once; another one
/// (over the network) is waited for on the I/O runtime, from the host's thread or from the
/// I/O thread itself.
fn resolve<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    {
        let _rt = io_runtime().enter();
        if let Some(v) = (&mut fut).now_or_never() {
            return v;
        }
    }
    let on_io_thread = std::thread::current().name().is_some_and(|n| n.starts_with("hypermcp-io"));
    if on_io_thread {
        tokio::task::block_in_place(|| tokio::runtime::Handle::current().block_on(fut))
    } else {
        io_runtime().block_on(fut)
    }
}

/// What a client session (stream or HTTP) offers the task runtime for the calls it takes.
pub(crate) trait Caller {
    /// Answers call `key` now.
    fn complete(&mut self, key: RequestKey, outcome: Outcome);
    /// The client's name and version, as its session knows them.
    fn client_info(&self) -> Option<crate::protocol::Implementation>;
    /// What answering call `key` later takes (a `tasks/result` waits for its task): where
    /// its context sends requests, what it knows of the client, and how the answer gets to
    /// the session. `None` when the session cannot be answered later.
    fn later(&mut self, key: RequestKey) -> Option<Later>;
}

/// See [`Caller::later`].
pub(crate) struct Later {
    pub sink: Sink,
    pub peer: Arc<PeerInfo>,
    pub finish: Box<dyn FnOnce(Outcome) + Send>,
}

/// What a client session (stream or HTTP) does with an event before the host sees it: the
/// task runtime `tasks`, if the server runs one, takes what is its own; without one, task
/// requests are refused. Returns the event the host is to handle, if any.
pub(crate) fn intercept(tasks: Option<&HostTasks>, session: u64, ev: Event, caller: &mut dyn Caller) -> Option<Event> {
    match (tasks, ev) {
        (Some(tasks), ev) => tasks.take(session, ev, caller),
        (None, Event::Invoke(inv)) if matches!(inv.request, Request::Task(_)) => {
            caller.complete(
                inv.key,
                Outcome::Error(RpcError::method_not_found("tasks (this server runs no task runtime)")),
            );
            None
        }
        (None, ev) => Some(ev),
    }
}

/// A call that may still become a task (a tool in manual mode): what creating its task needs.
struct Allowed {
    inv: Invocation,
    owner: Option<String>,
}

#[derive(Default)]
struct State {
    events: VecDeque<Event>,
    /// The handlers running as tasks, by their key on the task session.
    running: HashMap<u64, Arc<TaskBinding>>,
    /// Calls that may become tasks, by (client session, key).
    allowed: HashMap<(u64, u64), Allowed>,
    /// `tasks/result` calls waiting for their task, by (client session, key).
    waiting: HashMap<(u64, u64), Arc<CancelState>>,
    /// The input requests of tasks in flight: outbound id → the task session's key.
    inputs: HashMap<i64, u64>,
    next_key: u64,
    next_out: i64,
}

struct Inner {
    state: Mutex<State>,
    wake: Box<dyn Fn() + Send + Sync>,
}

impl Inner {
    fn push(&self, ev: Event) {
        let first = {
            let mut st = lock(&self.state);
            st.events.push_back(ev);
            st.events.len() == 1
        };
        if first {
            (self.wake)();
        }
    }
}

/// The task runtime of a host-language server (see the module docs).
pub struct HostTasks {
    runtime: Arc<TaskRuntime>,
    inner: Arc<Inner>,
}

impl std::fmt::Debug for HostTasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostTasks").field("running", &lock(&self.inner.state).running.len()).finish_non_exhaustive()
    }
}

impl HostTasks {
    /// A runtime keeping tasks as `options` say, telling the sessions of `registry` what
    /// changes (`notifications/tasks`). `wake` is called (from any thread) when the task
    /// session has events after having had none.
    pub fn new(
        options: TaskOptions,
        registry: Arc<crate::catalogue::Registry>,
        wake: impl Fn() + Send + Sync + 'static,
    ) -> Arc<Self> {
        Arc::new(HostTasks {
            runtime: TaskRuntime::new(options, registry),
            inner: Arc::new(Inner { state: Mutex::new(State::default()), wake: Box::new(wake) }),
        })
    }

    /// The rules and the store of these tasks.
    pub fn runtime(&self) -> &Arc<TaskRuntime> {
        &self.runtime
    }

    /// Handlers running as tasks.
    pub fn running(&self) -> usize {
        lock(&self.inner.state).running.len()
    }

    pub(crate) fn poll_event(&self) -> Option<Event> {
        lock(&self.inner.state).events.pop_front()
    }

    /// What a client session does with an event before the host sees it: the runtime takes
    /// what is its own, answering calls through `caller`. Returns the event the host is to
    /// handle, if any.
    fn take(&self, session: u64, ev: Event, caller: &mut dyn Caller) -> Option<Event> {
        match ev {
            Event::Invoke(mut inv) => match (&inv.request, inv.task.take()) {
                (Request::Task(TaskOp::Result { task_id }), _) => {
                    let task_id = task_id.clone();
                    match caller.later(inv.key) {
                        Some(later) => self.wait_result(session, &inv, task_id, later),
                        None => caller.complete(
                            inv.key,
                            Outcome::Error(RpcError::internal(
                                "this session cannot wait for a task's result (its host gave it no waker)",
                            )),
                        ),
                    }
                    None
                }
                (Request::Task(op), _) => {
                    let owner = owner_of(inv.origin.as_deref());
                    let outcome = match resolve(self.runtime.answer(op.clone(), owner)) {
                        Ok(v) => Outcome::Json(v),
                        Err(e) => Outcome::Error(e),
                    };
                    caller.complete(inv.key, outcome);
                    None
                }
                (Request::CallTool { .. }, Some(TaskPlan::Start)) => {
                    let key = inv.key;
                    let owner = owner_of(inv.origin.as_deref());
                    caller.complete(key, self.start(inv, owner));
                    None
                }
                (Request::CallTool { .. }, Some(TaskPlan::Allowed)) => {
                    let owner = owner_of(inv.origin.as_deref());
                    lock(&self.inner.state).allowed.insert((session, inv.key.0), Allowed { inv: inv.clone(), owner });
                    Some(Event::Invoke(inv))
                }
                (_, plan) => {
                    inv.task = plan;
                    Some(Event::Invoke(inv))
                }
            },
            Event::Cancelled { key, reason } => {
                let mut st = lock(&self.inner.state);
                // A tasks/result the client gave up on (the host never saw it).
                if let Some(cancel) = st.waiting.remove(&(session, key.0)) {
                    drop(st);
                    cancel.cancel();
                    return None;
                }
                st.allowed.remove(&(session, key.0));
                Some(Event::Cancelled { key, reason })
            }
            other => Some(other),
        }
    }

    /// Answers `tasks/result` (2025-11-25) once task `task_id` ends, on the I/O runtime:
    /// meanwhile the task's input requests go to the client on this call's behalf.
    fn wait_result(&self, session: u64, inv: &Invocation, task_id: String, later: Later) {
        let key = inv.key;
        let owner = owner_of(inv.origin.as_deref());
        let cancel = Arc::new(CancelState::default());
        lock(&self.inner.state).waiting.insert((session, key.0), cancel.clone());
        let ctx = Context::new(inv, later.sink, later.peer, cancel);
        let (runtime, inner, finish) = (self.runtime.clone(), Arc::downgrade(&self.inner), later.finish);
        io_runtime().spawn(async move {
            let outcome = match runtime.result(&task_id, owner, &ctx).await {
                Ok(v) => Outcome::Json(v),
                Err(e) => Outcome::Error(e),
            };
            // The answer is on its way to the session before the wait ends: whoever asks
            // `waits_for` in between finds one or the other.
            finish(outcome);
            if let Some(inner) = inner.upgrade() {
                lock(&inner.state).waiting.remove(&(session, key.0));
            }
        });
    }

    /// A client session completed (or dropped) call `key`: it can no longer become a task.
    pub(crate) fn call_ended(&self, session: u64, key: RequestKey) {
        let mut st = lock(&self.inner.state);
        if !st.allowed.is_empty() {
            st.allowed.remove(&(session, key.0));
        }
    }

    /// Whether a call of client session `session` waits for a task (`tasks/result`).
    pub(crate) fn waits_for(&self, session: u64) -> bool {
        lock(&self.inner.state).waiting.keys().any(|(s, _)| *s == session)
    }

    /// A client session ended: its calls can no longer become tasks, and its waits for
    /// tasks' results stop (the tasks go on).
    pub fn session_ended(&self, session: u64) {
        let stopped: Vec<Arc<CancelState>> = {
            let mut st = lock(&self.inner.state);
            st.allowed.retain(|(s, _), _| *s != session);
            let keys: Vec<(u64, u64)> = st.waiting.keys().filter(|(s, _)| *s == session).copied().collect();
            keys.iter().filter_map(|k| st.waiting.remove(k)).collect()
        };
        for c in stopped {
            c.cancel();
        }
    }

    /// Creates the task of `inv` and hands its handler to the task session; the outcome
    /// answers the call (the created task, or why there is none).
    fn start(&self, inv: Invocation, owner: Option<String>) -> Outcome {
        match self.create(&inv, owner) {
            Ok((created, id, key)) => {
                self.inner.push(Event::Invoke(Invocation {
                    key: RequestKey(key),
                    task: Some(TaskPlan::Running(id.as_str().into())),
                    ..inv
                }));
                Outcome::TaskCreated(created)
            }
            Err(e) => Outcome::Error(e),
        }
    }

    /// Turns call `key` of client session `session` into a task (its handler asked to):
    /// the call is answered with the task, and the handler goes on as the task's, under the
    /// returned key of the task session. `None` when the call cannot become a task (the
    /// tool is not in manual mode, the client did not declare tasks, or it already ended).
    pub(crate) fn adopt(
        &self,
        session: u64,
        key: RequestKey,
        complete: &mut dyn FnMut(RequestKey, Outcome),
    ) -> Result<Option<(String, u64)>, RpcError> {
        let Some(Allowed { inv, owner }) = lock(&self.inner.state).allowed.remove(&(session, key.0)) else {
            return Ok(None);
        };
        match self.create(&inv, owner) {
            Ok((created, id, task_key)) => {
                complete(key, Outcome::TaskCreated(created));
                Ok(Some((id, task_key)))
            }
            Err(e) => Err(e),
        }
    }

    /// Creates the task of `inv` (resolves once the store holds it) and gives it a key on
    /// the task session: returns the created task's fields, its id and that key.
    fn create(
        &self,
        inv: &Invocation,
        owner: Option<String>,
    ) -> Result<(serde_json::Map<String, Value>, String, u64), RpcError> {
        let Request::CallTool { name, .. } = &inv.request else {
            return Err(RpcError::internal("only tool calls run as tasks"));
        };
        let tool = name.clone();
        let rec = resolve(self.runtime.create(&tool, owner.clone(), Arc::new(CancelState::default())))
            .map_err(|e| RpcError::internal(e.to_string()))?;
        let binding = Arc::new(TaskBinding::hosted(self.runtime.clone(), tool, owner, rec.id.clone()));
        let key = {
            let mut st = lock(&self.inner.state);
            st.next_key += 1;
            let key = st.next_key;
            st.running.insert(key, binding);
            key
        };
        // Cancelled or expired: the handler is told, and the task is no longer its (what it
        // reports or returns from now on is dropped; a cancelled handler never completes).
        let inner = Arc::downgrade(&self.inner);
        self.runtime.on_stop(
            &rec.id,
            Box::new(move || {
                let Some(inner) = inner.upgrade() else { return };
                {
                    let mut st = lock(&inner.state);
                    st.running.remove(&key);
                    st.inputs.retain(|_, k| *k != key);
                }
                inner.push(Event::Cancelled { key: RequestKey(key), reason: Some("the task was cancelled".into()) });
            }),
        );
        Ok((rec.created(), rec.id, key))
    }

    fn binding(&self, key: RequestKey) -> Option<Arc<TaskBinding>> {
        lock(&self.inner.state).running.get(&key.0).cloned()
    }

    // ---- the task session's side (see `HostSession::tasks`) --------------------------------

    /// A task's handler ended: its outcome becomes the task's result.
    pub(crate) fn complete(&self, key: RequestKey, outcome: Outcome) {
        let Some(b) = lock(&self.inner.state).running.remove(&key.0) else { return };
        let Some(id) = b.task_id().map(str::to_string) else { return };
        resolve(b.runtime().finish(&id, b.tool(), outcome));
    }

    /// Progress of a task: its status message.
    pub(crate) fn progress(&self, key: RequestKey, progress: f64, total: Option<f64>, message: Option<&str>) -> bool {
        let Some(b) = self.binding(key) else { return false };
        let (reply, _) = tokio::sync::oneshot::channel();
        let _rt = io_runtime().enter();
        b.send(Command::Progress { key, progress, total, message: message.map(str::to_string), reply });
        true
    }

    /// An input request of a task (`inputRequests`, answered with `tasks/update`): its
    /// answer comes as an [`Event::Response`] with the returned id.
    pub(crate) fn request_input(
        &self,
        key: RequestKey,
        input_key: Option<&str>,
        method: &str,
        params: Option<Value>,
        opts: &crate::engine::RequestOptions,
    ) -> Result<InputAnswer, RpcError> {
        let b = self.binding(key).ok_or_else(|| RpcError::internal("the task is no longer running"))?;
        let id = {
            let mut st = lock(&self.inner.state);
            st.next_out += 1;
            let id = st.next_out;
            st.inputs.insert(id, key.0);
            id
        };
        let (reply, rx) = tokio::sync::oneshot::channel();
        let _rt = io_runtime().enter();
        b.send(Command::Request {
            key,
            input_key: input_key.map(str::to_string),
            method: method.to_string(),
            params,
            opts: opts.clone(),
            reply,
        });
        let inner = Arc::downgrade(&self.inner);
        io_runtime().spawn(async move {
            let result = match rx.await {
                Ok(Ok(Answer::Value(v))) => Ok(v),
                Ok(Ok(Answer::Required)) => Err(RpcError::internal("a task's input cannot be required by a retry")),
                Ok(Err(e)) => Err(e),
                Err(_) => Err(RpcError::internal("the task ended before its input came")),
            };
            if let Some(inner) = inner.upgrade() {
                let wanted = lock(&inner.state).inputs.remove(&id).is_some();
                if wanted {
                    inner.push(Event::Response { id: OutboundId(id), result });
                }
            }
        });
        Ok(InputAnswer::Sent(OutboundId(id)))
    }

    /// The handler stopped waiting for input `id`.
    pub(crate) fn forget_input(&self, id: i64) -> bool {
        lock(&self.inner.state).inputs.remove(&id).is_some()
    }

    /// The task session (see the module docs).
    pub fn session(self: &Arc<Self>) -> HostSession {
        HostSession::tasks(self.clone())
    }
}
