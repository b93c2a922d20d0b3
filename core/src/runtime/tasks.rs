//! The task runtime of a server (`io.modelcontextprotocol/tasks`,
//! 2026-07-28): tool calls that outlive their request. The state of each task lives in a
//! [`TaskStore`]; this keeps what cannot be stored: each running handler (to cancel it),
//! the handlers waiting for input, and the timers of time-to-live.
//!
//! A call that runs as a task ([`TaskPlan`]) is detached from its session: its handler runs
//! on its own tokio task, reports progress into the task's status message, asks for input
//! through the task's `inputRequests` (answered with `tasks/update`), and its outcome becomes
//! the task's result or error.

use super::context::{Answer, CancelState, Command, Context};
use crate::engine::{Invocation, Outcome, TaskOp, TaskPlan};
use crate::jsonrpc::RpcError;
use crate::protocol::{edge, ProtocolVersion};
use crate::store::tasks::{legacy_task, MemoryTaskStore, StoreError, TaskPatch, TaskRecord, TaskStatus, TaskStore};
use futures_util::future::{AbortHandle, Abortable, BoxFuture};
use futures_util::FutureExt;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;
use tokio::sync::oneshot;

/// How a server keeps tasks.
#[derive(Clone)]
pub struct TaskOptions {
    /// How long a task is kept after it is created (default 1 hour).
    pub ttl: Duration,
    /// How often clients should poll (default 1 s).
    pub poll_interval: Duration,
    /// Most tasks kept at once by the default in-memory store (default 10,000).
    pub max_tasks: usize,
    /// How long a cancelled handler may run on before it is stopped (default 10 s).
    pub cancel_grace: Duration,
    /// Where tasks live (default: this process's memory).
    pub store: Option<Arc<dyn TaskStore>>,
    /// Hide what unexpected failures of the tasks' handlers say, as the server does
    /// ([`crate::engine::ServerConfig::mask_error_details`]).
    pub mask_error_details: bool,
}

impl Default for TaskOptions {
    fn default() -> Self {
        TaskOptions {
            ttl: Duration::from_secs(3600),
            poll_interval: Duration::from_secs(1),
            max_tasks: 10_000,
            cancel_grace: Duration::from_secs(10),
            store: None,
            mask_error_details: false,
        }
    }
}

impl std::fmt::Debug for TaskOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskOptions")
            .field("ttl", &self.ttl)
            .field("poll_interval", &self.poll_interval)
            .field("max_tasks", &self.max_tasks)
            .field("store", &self.store.as_ref().map(|_| "custom"))
            .finish()
    }
}

type Waiter = oneshot::Sender<std::result::Result<Answer, RpcError>>;

/// What this process holds of a running task.
#[derive(Default)]
struct Live {
    cancel: Arc<CancelState>,
    abort: Option<AbortHandle>,
    waiters: HashMap<String, Waiter>,
    /// How a host's handler hears that its task was cancelled (or expired).
    on_stop: Option<Box<dyn FnOnce() + Send>>,
}

/// The tasks of one server.
pub struct TaskRuntime {
    /// Woken on every change this runtime makes (`tasks/result` waits on it).
    changed: tokio::sync::Notify,
    store: std::sync::RwLock<Arc<dyn TaskStore>>,
    /// Other processes (replicas) share the store: what they change there is watched for.
    shared: std::sync::atomic::AtomicBool,
    options: TaskOptions,
    live: Mutex<HashMap<String, Live>>,
    /// Where changes go out (`notifications/tasks` on the listen streams following them).
    registry: Arc<crate::catalogue::Registry>,
}

fn now_ms() -> u64 {
    crate::util::unix_ms()
}

fn rpc_json(e: &RpcError) -> Value {
    let mut v = json!({"code": e.code, "message": e.message});
    if let Some(d) = &e.data {
        v["data"] = d.clone();
    }
    v
}

fn not_found(id: &str) -> RpcError {
    RpcError::invalid_params(format!("Unknown task: {id} (it never existed, expired, or is not yours)"))
        .with_data(json!({ "taskId": id }))
}

/// A new task id: 128 random bits, base64url (the id is all a caller needs: no randomness,
/// no task).
fn new_id() -> Result<String, StoreError> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|e| StoreError::Backend(format!("no system randomness for a task id: {e}")))?;
    Ok(crate::util::base64url_encode(&b))
}

/// Runs `fut` now if it is ready at once (the in-memory store), else on a task.
fn drive(fut: impl std::future::Future<Output = ()> + Send + 'static) {
    let mut fut = Box::pin(fut);
    if (&mut fut).now_or_never().is_none() {
        tokio::spawn(fut);
    }
}

impl TaskRuntime {
    /// Whether what the tasks' handlers' unexpected failures say is hidden from clients.
    pub fn masks_errors(&self) -> bool {
        self.options.mask_error_details
    }

    /// A runtime with these options, telling the sessions of `registry` what changes.
    pub fn new(options: TaskOptions, registry: Arc<crate::catalogue::Registry>) -> Arc<Self> {
        let store = options.store.clone().unwrap_or_else(|| Arc::new(MemoryTaskStore::new(options.max_tasks)));
        Arc::new(TaskRuntime {
            changed: tokio::sync::Notify::new(),
            store: std::sync::RwLock::new(store),
            shared: std::sync::atomic::AtomicBool::new(false),
            options,
            live: Mutex::new(HashMap::new()),
            registry,
        })
    }

    /// Applies `patch` to task `id` and tells the listen streams following it.
    async fn patch(&self, id: &str, patch: TaskPatch) -> Result<Option<TaskRecord>, StoreError> {
        let quiet = matches!(patch, TaskPatch::TakeAnswer(_));
        let r = self.store().update(id, patch).await?;
        if let Some((_, true)) = &r {
            self.changed.notify_waiters();
        }
        if let Some((rec, true)) = &r {
            if !quiet {
                self.registry.notify_task_changed(&rec.id, rec.owner.as_deref(), &rec.detailed());
            }
        }
        Ok(r.map(|(rec, _)| rec))
    }

    /// Its store.
    pub fn store(&self) -> Arc<dyn TaskStore> {
        self.store.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Keeps tasks in `store` from now on, shared with other replicas: a task is then read,
    /// updated and cancelled through any of them. The running handlers of this replica
    /// watch the store (every poll interval) for a cancel or an answer that came through
    /// another. An HTTP server with a store (`store` option) calls this when it starts,
    /// before any task exists.
    pub fn share_store(&self, store: Arc<dyn TaskStore>) {
        *self.store.write().unwrap_or_else(|e| e.into_inner()) = store;
        self.shared.store(true, Ordering::Release);
    }

    /// While task `id` runs here: every poll interval, looks in the shared store for what
    /// another replica did to it (a cancel stops the handler; answers to its input requests
    /// go to the handler's waiting requests).
    fn watch(self: &Arc<Self>, id: String) {
        let rt = Arc::downgrade(self);
        let every = self.options.poll_interval.max(Duration::from_millis(50));
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(rt) = rt.upgrade() else { return };
                let waiting: Vec<String> = match rt.live().get(&id) {
                    Some(l) => l.waiters.keys().cloned().collect(),
                    None => return, // finished or stopped here
                };
                let rec = match rt.store().get(&id).await {
                    Ok(r) => r,
                    Err(_) => continue, // the store is away: look again later
                };
                // Cancelled (or gone) through another replica: the handler stops.
                let Some(rec) = rec.filter(|r| !r.status.is_terminal()) else {
                    rt.stop(&id);
                    return;
                };
                for key in waiting {
                    let Some(v) = rec.input_responses.get(&key) else { continue };
                    let w = rt.live().get_mut(&id).and_then(|l| l.waiters.remove(&key));
                    if let Some(w) = w {
                        let _ = w.send(Ok(Answer::Value(v.clone())));
                        let _ = rt.patch(&id, TaskPatch::TakeAnswer(key)).await;
                    }
                }
            }
        });
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, Live>> {
        self.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Creates a task for a call of `tool` by `owner`; resolves once the store holds it.
    pub(crate) async fn create(
        self: &Arc<Self>,
        tool: &str,
        owner: Option<String>,
        cancel: Arc<CancelState>,
    ) -> Result<TaskRecord, StoreError> {
        let ttl = self.options.ttl.as_millis().max(1) as u64;
        let poll = self.options.poll_interval.as_millis().max(1) as u64;
        let rec = TaskRecord::new(new_id()?, owner, tool.to_string(), now_ms(), ttl, poll);
        self.store().create(rec.clone()).await?;
        self.live().insert(rec.id.clone(), Live { cancel, ..Default::default() });
        if self.shared.load(Ordering::Acquire) {
            self.watch(rec.id.clone());
        }
        // A handler still running when the task expires is stopped.
        let rt = Arc::downgrade(self);
        let id = rec.id.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(ttl)).await;
            if let Some(rt) = rt.upgrade() {
                rt.stop(&id);
            }
        });
        Ok(rec)
    }

    /// Signals the handler of task `id` to stop (`ctx.cancelled()`), and stops it after the
    /// grace period if it has not.
    fn stop(self: &Arc<Self>, id: &str) {
        let Some(live) = self.live().remove(id) else { return };
        live.cancel.cancel();
        if let Some(f) = live.on_stop {
            f();
        }
        if let Some(abort) = live.abort {
            let grace = self.options.cancel_grace;
            tokio::spawn(async move {
                tokio::time::sleep(grace).await;
                abort.abort();
            });
        }
    }

    /// Runs `handler` for task `id` on its own tokio task; its outcome becomes the task's.
    fn spawn_handler(self: &Arc<Self>, id: String, tool: String, handler: BoxFuture<'static, Outcome>) {
        let (abort, reg) = AbortHandle::new_pair();
        if let Some(live) = self.live().get_mut(&id) {
            live.abort = Some(abort);
        }
        let rt = self.clone();
        let fut = Abortable::new(std::panic::AssertUnwindSafe(handler).catch_unwind(), reg);
        tokio::spawn(async move {
            let outcome = match fut.await {
                Err(_aborted) => return,
                Ok(Ok(o)) => o,
                Ok(Err(p)) => {
                    Outcome::Error(RpcError::internal(format!("handler panicked: {}", super::panic_message(p))))
                }
            };
            rt.finish(&id, &tool, outcome).await;
        });
    }

    /// Sets what tells a host's handler that task `id` was cancelled (false when the task
    /// is no longer running).
    pub(crate) fn on_stop(&self, id: &str, f: Box<dyn FnOnce() + Send>) -> bool {
        match self.live().get_mut(id) {
            Some(l) => {
                l.on_stop = Some(f);
                true
            }
            None => false,
        }
    }

    /// Records a handler's outcome as its task's result (a late one, after a cancel, is
    /// dropped: terminal states are final).
    pub(crate) async fn finish(self: &Arc<Self>, id: &str, tool: &str, outcome: Outcome) {
        self.live().remove(id);
        let v = ProtocolVersion::V2026_07_28;
        let result = match outcome {
            Outcome::Tool(r) => {
                let r = crate::engine::check_output(self.registry.tool(tool).as_deref(), r);
                Ok(serde_json::to_value(&*edge::call_tool_result(&r, v)).unwrap_or_default())
            }
            Outcome::InvalidArguments(errors) => match crate::engine::invalid_arguments_result(v, tool, errors) {
                Ok(r) => Ok(serde_json::to_value(r).unwrap_or_default()),
                Err(e) => Err(rpc_json(&e)),
            },
            Outcome::Error(e) => Err(rpc_json(&e)),
            Outcome::InputRequired(_) => {
                Err(rpc_json(&RpcError::internal("the handler asked for input outside the task's inputRequests")))
            }
            other => Err(rpc_json(&RpcError::internal(format!("a tool handler answered with {other:?}")))),
        };
        let _ = self.patch(id, TaskPatch::Finish(result)).await;
    }

    /// Answers `tasks/get`, `tasks/update` or `tasks/cancel` for `owner`. Another owner's
    /// task is answered as unknown (its existence is not disclosed).
    pub async fn answer(self: &Arc<Self>, op: TaskOp, owner: Option<String>) -> Result<Value, RpcError> {
        let id = op.task_id().to_string();
        let backend = |e: StoreError| RpcError::internal(e.to_string());
        if let TaskOp::List { cursor } = &op {
            let page = match self.store().list(owner.as_deref(), cursor.as_deref(), LIST_PAGE).await {
                Ok(p) => p,
                Err(StoreError::InvalidCursor(c)) => {
                    return Err(RpcError::invalid_params(StoreError::InvalidCursor(c.clone()).to_string())
                        .with_data(json!({ "cursor": c })))
                }
                Err(e) => return Err(backend(e)),
            };
            let tasks: Vec<Value> = page.tasks.iter().map(|t| Value::Object(legacy_task(&t.detailed()))).collect();
            let mut v = json!({ "tasks": tasks });
            if let Some(next) = page.next {
                v["nextCursor"] = json!(next);
            }
            return Ok(v);
        }
        let rec = match self.store().get(&id).await.map_err(backend)? {
            Some(r) if r.owner == owner => r,
            _ => return Err(not_found(&id)),
        };
        match op {
            TaskOp::Get { .. } => Ok(Value::Object(rec.detailed())),
            TaskOp::LegacyGet { .. } => Ok(Value::Object(legacy_task(&rec.detailed()))),
            TaskOp::LegacyCancel { .. } => {
                if rec.status.is_terminal() {
                    return Err(RpcError::invalid_params(format!(
                        "task {id} already ended ({}): it cannot be cancelled",
                        rec.status.as_str()
                    ))
                    .with_data(json!({ "taskId": id, "status": rec.status.as_str() })));
                }
                let after = self.patch(&id, TaskPatch::Cancel).await.map_err(backend)?;
                self.stop(&id);
                let rec = after.ok_or_else(|| not_found(&id))?;
                Ok(Value::Object(legacy_task(&rec.detailed())))
            }
            TaskOp::List { .. } => unreachable!("answered above"),
            TaskOp::Result { .. } => {
                Err(RpcError::internal("tasks/result needs the request's context (TaskRuntime::result)"))
            }
            TaskOp::Cancel { .. } => {
                if !rec.status.is_terminal() {
                    self.patch(&id, TaskPatch::Cancel).await.map_err(backend)?;
                    self.stop(&id);
                }
                Ok(json!({}))
            }
            TaskOp::Update { responses, .. } => {
                let answered: Vec<String> =
                    responses.keys().filter(|k| rec.input_requests.contains_key(*k)).cloned().collect();
                if answered.is_empty() {
                    return Ok(json!({}));
                }
                let answers: Map<String, Value> = responses.into_iter().filter(|(k, _)| answered.contains(k)).collect();
                self.patch(&id, TaskPatch::Answer(answers.clone())).await.map_err(backend)?;
                let waiters: Vec<(String, Waiter)> = {
                    let mut live = self.live();
                    match live.get_mut(&id) {
                        Some(l) => {
                            answered.iter().filter_map(|k| l.waiters.remove(k).map(|w| (k.clone(), w))).collect()
                        }
                        None => Vec::new(),
                    }
                };
                for (k, w) in waiters {
                    let _ = w.send(Ok(Answer::Value(answers[&k].clone())));
                    let _ = self.patch(&id, TaskPatch::TakeAnswer(k)).await;
                }
                Ok(json!({}))
            }
        }
    }
}

impl TaskRuntime {
    /// Answers `tasks/result` (2025-11-25) for `owner`: waits until task `id` ends, then
    /// answers what its call would have (the tool's result, with the related-task `_meta`,
    /// or its JSON-RPC error). Meanwhile each input request of the task goes to the client
    /// as a real request on this request's stream (tagged with the related-task `_meta`),
    /// its answer fed to the task as `tasks/update` would.
    pub async fn result(self: &Arc<Self>, id: &str, owner: Option<String>, ctx: &Context) -> Result<Value, RpcError> {
        use futures_util::stream::{FuturesUnordered, StreamExt};
        let backend = |e: StoreError| RpcError::internal(e.to_string());
        let related = json!({ "taskId": id });
        let mut asked = std::collections::HashSet::new();
        let mut pending = FuturesUnordered::new();
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            let rec = match self.store().get(id).await.map_err(backend)? {
                Some(r) if r.owner == owner => r,
                _ => return Err(not_found(id)),
            };
            match rec.status {
                TaskStatus::Completed => {
                    let mut result = rec.result.unwrap_or_else(|| json!({}));
                    if let Value::Object(m) = &mut result {
                        let meta = m.entry("_meta").or_insert_with(|| json!({}));
                        if let Value::Object(meta) = meta {
                            meta.insert(RELATED_TASK.into(), related.clone());
                        }
                    }
                    return Ok(result);
                }
                TaskStatus::Failed => {
                    let e = rec.error.unwrap_or_default();
                    let code = e.get("code").and_then(Value::as_i64).unwrap_or(-32603) as i32;
                    let message = e.get("message").and_then(Value::as_str).unwrap_or("the task failed");
                    let mut err = RpcError::new(code, message);
                    if let Some(d) = e.get("data") {
                        err = err.with_data(d.clone());
                    }
                    return Err(err);
                }
                TaskStatus::Cancelled => {
                    return Err(RpcError::new(
                        crate::jsonrpc::codes::REQUEST_CANCELLED,
                        format!("task {id} was cancelled"),
                    )
                    .with_data(json!({ "taskId": id })));
                }
                TaskStatus::InputRequired => {
                    for (key, request) in &rec.input_requests {
                        if !asked.insert(key.clone()) {
                            continue;
                        }
                        let method = request.get("method").and_then(Value::as_str).unwrap_or_default().to_string();
                        let mut params = match request.get("params") {
                            Some(Value::Object(p)) => p.clone(),
                            _ => Map::new(),
                        };
                        let meta = params.entry("_meta").or_insert_with(|| json!({}));
                        if let Value::Object(meta) = meta {
                            meta.insert(RELATED_TASK.into(), related.clone());
                        }
                        let (key, ctx) = (key.clone(), ctx.clone());
                        pending.push(async move {
                            let answer = ctx.request(&method, Some(Value::Object(params)), None).await;
                            (key, answer)
                        });
                    }
                }
                TaskStatus::Working => {}
            }
            tokio::select! {
                _ = &mut changed => {}
                Some((key, answer)) = pending.next(), if !pending.is_empty() => match answer {
                    Ok(v) => {
                        let responses = Map::from_iter([(key, v)]);
                        self.answer(TaskOp::Update { task_id: id.to_string(), responses }, owner.clone()).await?;
                    }
                    // The question stays open: another tasks/result asks again.
                    Err(e) => {
                        return Err(match e {
                            crate::Error::Rpc(e) | crate::Error::Request(e) => e,
                            other => RpcError::internal(format!("asking the client for the task's input failed: {other}")),
                        })
                    }
                },
                // Changes made elsewhere (another replica's runtime) are seen by polling.
                _ = tokio::time::sleep(self.options.poll_interval) => {}
                _ = ctx.cancelled() => {
                    return Err(RpcError::new(crate::jsonrpc::codes::REQUEST_CANCELLED, "tasks/result was cancelled"));
                }
            }
        }
    }
}

/// The `_meta` key tying a message to its task (2025-11-25).
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// How many tasks one `tasks/list` page holds.
const LIST_PAGE: usize = 50;

/// A call's tie to its task: set before the handler runs ([`TaskPlan::Start`]), or when
/// the handler calls [`Context::start_task`] ([`TaskPlan::Allowed`]).
pub(crate) struct TaskBinding {
    runtime: Arc<TaskRuntime>,
    tool: String,
    owner: Option<String>,
    link: OnceLock<String>,
    started: Mutex<Option<oneshot::Sender<Outcome>>>,
    inputs: AtomicU64,
}

impl TaskBinding {
    /// The binding of task `id` (already created) whose handler a host runs.
    pub(crate) fn hosted(runtime: Arc<TaskRuntime>, tool: String, owner: Option<String>, id: String) -> Self {
        let link = OnceLock::new();
        let _ = link.set(id);
        TaskBinding { runtime, tool, owner, link, started: Mutex::new(None), inputs: AtomicU64::new(0) }
    }

    /// The tool the task runs.
    pub(crate) fn tool(&self) -> &str {
        &self.tool
    }

    /// The runtime it belongs to.
    pub(crate) fn runtime(&self) -> &Arc<TaskRuntime> {
        &self.runtime
    }

    /// The task's id, once there is one.
    pub(crate) fn task_id(&self) -> Option<&str> {
        self.link.get().map(String::as_str)
    }

    /// Makes the call a task (if it is not one yet): resolves once the store holds it.
    pub(crate) async fn start(&self, cancel: &Arc<CancelState>) -> Result<(), RpcError> {
        if self.link.get().is_some() {
            return Ok(());
        }
        let rec = self
            .runtime
            .create(&self.tool, self.owner.clone(), cancel.clone())
            .await
            .map_err(|e| RpcError::internal(e.to_string()))?;
        let _ = self.link.set(rec.id.clone());
        if let Some(tx) = self.started.lock().unwrap_or_else(|e| e.into_inner()).take() {
            let _ = tx.send(Outcome::TaskCreated(rec.created()));
        }
        Ok(())
    }

    /// A command of the handler's context, once the call is a task. Progress becomes the
    /// status message; log messages have nowhere to go (the spec sends none for a task);
    /// a request to the client becomes an input request of the task.
    pub(crate) fn send(&self, cmd: Command) {
        let Some(id) = self.link.get().cloned() else { return };
        let rt = self.runtime.clone();
        match cmd {
            Command::Progress { progress, total, message, reply, .. } => {
                let text = message.unwrap_or_else(|| match total {
                    Some(t) => format!("{progress}/{t}"),
                    None => format!("{progress}"),
                });
                let _ = reply.send(Ok(true));
                drive(async move {
                    let _ = rt.patch(&id, TaskPatch::Message(text)).await;
                });
            }
            Command::Request { input_key, method, params, reply, .. } => {
                let n = self.inputs.fetch_add(1, Ordering::Relaxed) + 1;
                // The default keys of multi round-trip requests: `elicitation_1`...
                let key = input_key.unwrap_or_else(|| format!("{}_{n}", crate::engine::key_prefix(&method)));
                let mut request = json!({ "method": method });
                if let Some(p) = params {
                    request["params"] = p;
                }
                match rt.live().get_mut(&id) {
                    Some(l) => {
                        l.waiters.insert(key.clone(), reply);
                    }
                    None => {
                        let _ = reply.send(Err(RpcError::internal("the task is no longer running")));
                        return;
                    }
                }
                drive(async move {
                    if let Err(e) = rt.patch(&id, TaskPatch::AskInput { key: key.clone(), request }).await {
                        if let Some(w) = rt.live().get_mut(&id).and_then(|l| l.waiters.remove(&key)) {
                            let _ = w.send(Err(RpcError::internal(e.to_string())));
                        }
                    }
                });
            }
            Command::Visibility { reply, .. } => {
                let _ = reply.send(Err(RpcError::invalid_request(
                    "a task has no caller whose view it could change: change visibility before the call becomes a task",
                )));
            }
            Command::Log { .. } | Command::ElicitationComplete(_) | Command::CloseStream(_) => {}
        }
    }
}

/// Who a request speaks for: the verified token's subject, else its client.
pub(crate) fn owner_of(origin: Option<&crate::engine::Origin>) -> Option<String> {
    let auth = origin?.auth.as_ref()?;
    auth.subject.clone().or_else(|| auth.client_id.clone())
}

/// The future of a tool call that runs (or may run) as a task. It resolves with the
/// call's answer: the created task, or (a call that never became a task) the handler's
/// outcome. The handler itself runs on its own tokio task, so it outlives the request.
pub(crate) fn call(
    handlers: Arc<super::HandlerTable>,
    runtime: Arc<TaskRuntime>,
    inv: Invocation,
    mut ctx: Context,
    plan: TaskPlan,
) -> BoxFuture<'static, Outcome> {
    let crate::engine::Request::CallTool { name, .. } = &inv.request else {
        return super::handle(&handlers, inv, ctx);
    };
    let (started_tx, started_rx) = oneshot::channel();
    let binding = Arc::new(TaskBinding {
        runtime: runtime.clone(),
        tool: name.clone(),
        owner: owner_of(inv.origin.as_deref()),
        link: OnceLock::new(),
        started: Mutex::new(Some(started_tx)),
        inputs: AtomicU64::new(0),
    });
    ctx.task = Some(binding.clone());
    match plan {
        // Only host task runtimes hand handlers out already running as tasks.
        TaskPlan::Running(_) => super::handle(&handlers, inv, ctx),
        TaskPlan::Start => Box::pin(async move {
            let cancel = ctx.cancel.clone();
            if let Err(e) = binding.start(&cancel).await {
                return Outcome::Error(e);
            }
            let id = binding.task_id().unwrap_or_default().to_string();
            // A task has no multi round-trip: its input goes through inputRequests.
            ctx.input = None;
            let tool = binding.tool.clone();
            let handler = super::handle(&handlers, inv, ctx);
            runtime.spawn_handler(id, tool, handler);
            started_rx.await.unwrap_or_else(|_| Outcome::Error(RpcError::internal("the task was not created")))
        }),
        TaskPlan::Allowed => {
            // The handler runs on its own task from the start: if it becomes a task, the
            // call is answered and the handler goes on; if not, its outcome is the answer.
            let (done_tx, done_rx) = oneshot::channel::<Outcome>();
            let handler = super::handle(&handlers, inv, ctx);
            let (abort, reg) = AbortHandle::new_pair();
            let b = binding.clone();
            let rt = runtime.clone();
            tokio::spawn(Abortable::new(
                async move {
                    let outcome = match std::panic::AssertUnwindSafe(handler).catch_unwind().await {
                        Ok(o) => o,
                        Err(p) => {
                            Outcome::Error(RpcError::internal(format!("handler panicked: {}", super::panic_message(p))))
                        }
                    };
                    match b.task_id() {
                        Some(id) => rt.finish(id, &b.tool, outcome).await,
                        None => {
                            let _ = done_tx.send(outcome);
                        }
                    }
                },
                reg,
            ));
            /// Stops the handler if the call ends (cancelled) before it became a task.
            struct Guard(Option<AbortHandle>, Arc<TaskBinding>);
            impl Drop for Guard {
                fn drop(&mut self) {
                    if let Some(a) = self.0.take() {
                        match self.1.task_id() {
                            Some(id) => {
                                if let Some(l) = self.1.runtime.live().get_mut(id) {
                                    l.abort = Some(a);
                                }
                            }
                            None => a.abort(),
                        }
                    }
                }
            }
            let guard = Guard(Some(abort), binding);
            Box::pin(async move {
                let _guard = guard;
                tokio::select! {
                    Ok(o) = started_rx => o,
                    Ok(o) = done_rx => o,
                    else => Outcome::Error(RpcError::internal("the handler ended without an answer")),
                }
            })
        }
    }
}
