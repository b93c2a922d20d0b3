//! Where user code is called: the floor between the sans-IO [`engine`](crate::engine) and
//! the [`transport`](crate::transport) drivers. Every request that needs user code passes
//! here, on every transport, in both eras:
//!
//! - [`Runtime`]: one server's configuration, catalogue, handler table and task runtime,
//!   shared by all its connections; its [`Invoke`] is the one invocation path;
//! - [`Context`]: what a handler gets besides its arguments (progress, logging, requests to
//!   the client, cancellation, the request's origin);
//! - [`Middleware`]: the links of a server's chain around the invocation path;
//! - [`tasks`]: the task runtime (tool calls that outlive their request).
//!
//! The transports take a [`Serves`] (a [`crate::Server`], or the runtime itself) and know
//! nothing of the Rust API above them.

pub mod builtin;
mod context;
mod handlers;
mod invoke;
mod middleware;
pub mod tasks;

pub(crate) use context::{Answer, CancelState, Command, CommandSink, Sink};
pub use context::{Context, PeerInfo};
/// The future a [`Middleware`] hook returns (re-exported: no dependency on `futures` needed).
pub use futures_util::future::BoxFuture;
pub(crate) use handlers::{HandlerTable, Handlers, MethodFn, NotificationFn, ToolFn};
pub use handlers::{ResourceRequest, ToolAnswer};
pub use invoke::Invoke;
pub(crate) use invoke::{panic_message, panicked_masked, ready};
pub use middleware::{Hooks, Middleware, MiddlewareContext, Next, NotificationContext, NotificationNext};

use crate::catalogue::{ListKind, Registry};
use crate::engine::{Invocation, Outcome, Request, ServerConfig, TaskOp};
use crate::jsonrpc::RpcError;
use crate::protocol::Implementation;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::task::Poll;

/// One server's runtime: its configuration, its catalogue (what it lists), its handlers
/// and its task runtime, shared by every connection it serves. A [`crate::Server`] is a
/// handle on one.
pub struct Runtime {
    config: RwLock<ServerConfig>,
    registry: Arc<Registry>,
    path: Arc<Path>,
    /// The middleware, when there is some.
    chain: RwLock<Option<Arc<middleware::Chain>>>,
    /// Whether `chain` holds any: a server without middleware reads no lock per call.
    has_chain: AtomicBool,
    /// The built-in middleware, run at the edge of the invocation path ([`builtin::Builtins`]).
    builtins: builtin::Builtins,
    /// Whether `builtins` holds any.
    has_builtins: AtomicBool,
}

/// The invocation path below the middleware: the task runtime, then the handler table.
struct Path {
    handlers: Arc<HandlerTable>,
    tasks: RwLock<Option<Arc<tasks::TaskRuntime>>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime").field("registry", &self.registry).finish()
    }
}

impl Runtime {
    /// The runtime of a server named `info`, with nothing registered.
    pub(crate) fn new(info: Implementation) -> Self {
        Runtime {
            config: RwLock::new(with_env(ServerConfig::new(info))),
            registry: Arc::new(Registry::new()),
            path: Arc::new(Path { handlers: Arc::default(), tasks: RwLock::new(None) }),
            chain: RwLock::new(None),
            has_chain: AtomicBool::new(false),
            builtins: builtin::Builtins::default(),
            has_builtins: AtomicBool::new(false),
        }
    }

    /// The handler table.
    pub(crate) fn handlers(&self) -> &HandlerTable {
        &self.path.handlers
    }

    /// Adds a link at the end of the middleware chain (it runs inside those added before).
    pub(crate) fn add_middleware(&self, link: Arc<dyn Middleware>) {
        if let Some(b) = link.builtin() {
            self.builtins.add(b, Some(&self.registry));
            self.has_builtins.store(true, Ordering::Release);
            return;
        }
        let mut chain = self.chain.write().unwrap_or_else(|e| e.into_inner());
        let mut links = chain.as_ref().map(|c| c.links().to_vec()).unwrap_or_default();
        links.push(link);
        let new = middleware::Chain::new(links);
        // Lists are served from cached pages unless a hook wants to see them.
        let lists: Vec<ListKind> =
            ListKind::ALL.into_iter().filter(|k| new.hooks().contains(middleware::Hooks::list(*k))).collect();
        self.registry.set_list_hooks(&lists);
        *chain = Some(Arc::new(new));
        self.has_chain.store(true, Ordering::Release);
    }

    /// The catalogue.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.registry
    }

    /// A snapshot of the configuration (what a new session starts with).
    pub fn config(&self) -> ServerConfig {
        self.config_read().clone()
    }

    pub(crate) fn config_read(&self) -> RwLockReadGuard<'_, ServerConfig> {
        self.config.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn config_write(&self) -> RwLockWriteGuard<'_, ServerConfig> {
        self.config.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The task runtime, when the server serves tasks.
    pub fn task_runtime(&self) -> Option<Arc<tasks::TaskRuntime>> {
        self.path.task_runtime()
    }

    /// Runs a notification the client sent through the middleware's `on_notification`
    /// hooks, then the server's handler of it (`Server::notification`) if it has one, on a
    /// task of its own: it answers nothing, and a panic in it ends it alone.
    pub(crate) fn notification(&self, method: &str, params: Option<&serde_json::Value>) {
        let f = self.path.handlers.read().notifications.get(method).cloned();
        let chain = match self.has_chain.load(Ordering::Acquire) {
            true => self.chain.read().unwrap_or_else(|e| e.into_inner()).clone(),
            false => None,
        }
        .filter(|c| c.wraps_notifications());
        if f.is_none() && chain.is_none() {
            return;
        }
        let params = match params {
            Some(serde_json::Value::Object(m)) => m.clone(),
            _ => serde_json::Map::new(),
        };
        let end = move |cx: middleware::NotificationContext| -> BoxFuture<'static, ()> {
            let Some(f) = &f else { return Box::pin(async {}) };
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(cx.params))) {
                Ok(fut) => fut,
                Err(p) => {
                    let (method, panic) = (cx.method, panic_message(p));
                    tracing::warn!(target: "hypermcp::session", method, panic, "notification handler panicked");
                    Box::pin(async {})
                }
            }
        };
        let cx = middleware::NotificationContext {
            method: method.to_string(),
            params,
            timestamp: std::time::SystemTime::now(),
        };
        let fut = match chain {
            Some(chain) => chain.notify(cx, Box::new(end)),
            None => end(cx),
        };
        let name = method.to_string();
        let run = async move {
            let method = name;
            if let Err(p) = futures_util::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(fut)).await {
                let panic = panic_message(p);
                tracing::warn!(target: "hypermcp::session", method, panic, "notification handler panicked");
            }
        };
        match tokio::runtime::Handle::try_current() {
            Ok(rt) => drop(rt.spawn(run)),
            Err(_) => {
                tracing::warn!(target: "hypermcp::session", method, "no tokio runtime to run a notification handler on")
            }
        }
    }

    pub(crate) fn set_task_runtime(&self, runtime: Arc<tasks::TaskRuntime>) {
        *self.path.tasks.write().unwrap_or_else(|e| e.into_inner()) = Some(runtime);
    }
}

impl Runtime {
    /// The middleware chain, when a link has a hook for requests like `inv`'s.
    fn chain_for(&self, inv: &Invocation) -> Option<Arc<middleware::Chain>> {
        if !self.has_chain.load(Ordering::Acquire) {
            return None;
        }
        let chain = self.chain.read().unwrap_or_else(|e| e.into_inner()).clone();
        chain.filter(|c| c.wraps(&inv.request))
    }
}

/// `config` with what the environment configures (`HYPERMCP_REQUEST_STATE_KEYS`): read here,
/// once per server, since the engine reads none.
fn with_env(mut config: ServerConfig) -> ServerConfig {
    let env = std::env::var(crate::engine::request_state::KEYS_ENV).ok();
    config.request_state = config.request_state.with_env_keys(env.as_deref());
    config
}

/// What the built-ins `links` note of `inv` once admitted.
fn begin(links: &[builtin::Builtin], inv: &Invocation, ctx: &Context) -> builtin::Noted {
    builtin::begin(links, &inv.request, inv.origin.as_deref(), builtin::uncacheable(inv), client_of(ctx))
}

/// How the built-ins' log line names the client of `ctx` (`name/version`).
fn client_of(ctx: &Context) -> impl FnOnce() -> Option<String> + '_ {
    || ctx.client_info().map(|c| format!("{}/{}", c.name, c.version))
}

/// The chain (if any), then the task runtime and the handler table.
fn inner(
    chain: Option<Arc<middleware::Chain>>,
    path: &Arc<Path>,
    inv: Invocation,
    ctx: Context,
) -> BoxFuture<'static, Outcome> {
    match chain {
        Some(chain) => chain.run(path.clone(), inv, ctx),
        None => path.invoke(inv, ctx),
    }
}

impl Invoke for Runtime {
    /// The built-ins first (rate limits admit the call; timing and the log line begin), then
    /// the middleware chain (when a link has a hook for the request), the task runtime and
    /// the handler table.
    fn invoke(&self, inv: Invocation, ctx: Context) -> BoxFuture<'static, Outcome> {
        let chain = self.chain_for(&inv);
        if !self.has_builtins.load(Ordering::Acquire) || !builtin::reaches_user_code(&inv.request) {
            return inner(chain, &self.path, inv, ctx);
        }
        let links = self.builtins.snapshot();
        if builtin::all_local(&links) {
            if let Some(refused) = builtin::refused_now(&links, &inv.request, inv.origin.as_deref()) {
                builtin::say_refused(&links, &inv.request, inv.origin.as_deref(), client_of(&ctx), &refused);
                return ready(refused);
            }
            let mut noted = begin(&links, &inv, &ctx);
            if let Some(hit) = noted.take_hit() {
                noted.end(&hit);
                return ready(hit);
            }
            let fut = inner(chain, &self.path, inv, ctx);
            if noted.is_empty() {
                return fut;
            }
            return Box::pin(async move {
                let outcome = fut.await;
                noted.end(&outcome);
                outcome
            });
        }
        // Limits or answers kept in Redis: asked as the call's first step.
        let path = self.path.clone();
        Box::pin(async move {
            for limit in builtin::limits(&links) {
                if let Some(refused) = limit.admit(&inv.request, inv.origin.as_deref()).await {
                    builtin::say_refused(&links, &inv.request, inv.origin.as_deref(), client_of(&ctx), &refused);
                    return refused;
                }
            }
            let mut noted = begin(&links, &inv, &ctx);
            if let Some(hit) = noted.take_hit() {
                noted.end(&hit);
                return hit;
            }
            if let Some(remote) = noted.remote() {
                if let Some(hit) = remote.fetch().await {
                    noted.end_hit(&hit);
                    return hit;
                }
            }
            let outcome = inner(chain, &path, inv, ctx).await;
            noted.end(&outcome);
            outcome
        })
    }
}

impl Path {
    fn task_runtime(&self) -> Option<Arc<tasks::TaskRuntime>> {
        self.tasks.read().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Invoke for Path {
    /// A call that runs (or may run) as a task goes to the task runtime, a task operation is
    /// answered by it, everything else by the handler table. In a 2026-07-28 request the
    /// future also ends when the handler stops for input it does not have yet
    /// (`input_required`).
    fn invoke(&self, mut inv: Invocation, ctx: Context) -> BoxFuture<'static, Outcome> {
        if let Some(plan) = inv.task.take() {
            if let Some(rt) = self.task_runtime() {
                return tasks::call(self.handlers.clone(), rt, inv, ctx, plan);
            }
        }
        if let Request::Task(op) = inv.request {
            let Some(rt) = self.task_runtime() else {
                return ready(Outcome::Error(RpcError::method_not_found("tasks (this server runs no task runtime)")));
            };
            let owner = tasks::owner_of(inv.origin.as_deref());
            return Box::pin(async move {
                let answer = match op {
                    TaskOp::Result { task_id } => rt.result(&task_id, owner, &ctx).await,
                    op => rt.answer(op, owner).await,
                };
                match answer {
                    Ok(v) => Outcome::Json(v),
                    Err(e) => Outcome::Error(e),
                }
            });
        }
        handle(&self.handlers, inv, ctx)
    }
}

/// The handler table's outcome of `inv`; in a 2026-07-28 request the future also ends when
/// the handler stops for input it does not have yet (`input_required`).
pub(crate) fn handle(handlers: &HandlerTable, inv: Invocation, ctx: Context) -> BoxFuture<'static, Outcome> {
    let Some(slot) = ctx.input.clone() else { return handlers.invoke(inv, ctx) };
    let mut fut = handlers.invoke(inv, ctx);
    Box::pin(std::future::poll_fn(move |cx| match fut.as_mut().poll(cx) {
        Poll::Ready(o) => Poll::Ready(o),
        Poll::Pending => slot.outcome().map_or(Poll::Pending, Poll::Ready),
    }))
}

/// What serves a [`Runtime`]: a [`crate::Server`], or the runtime itself. The transports
/// (an [`HttpService`](crate::http::HttpService), a stream driver) take one.
pub trait Serves {
    /// The runtime served.
    fn runtime(&self) -> &Arc<Runtime>;
}

impl Serves for Arc<Runtime> {
    fn runtime(&self) -> &Arc<Runtime> {
        self
    }
}
