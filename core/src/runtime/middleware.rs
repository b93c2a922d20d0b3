//! MCP middleware: a chain of links around the invocation path, run in registration order
//! around every request that reaches user code, on every transport and in both eras (a
//! 2026-07-28 multi round-trip call passes it once per round).
//!
//! A link implements [`Middleware`]: one method per hook, each given the request's
//! [`MiddlewareContext`] and [`Next`], the rest of the chain. For a request the chain calls,
//! link by link, `on_message`, then `on_request`, then the method's own hook (`on_call_tool`,
//! `on_read_resource`, `on_get_prompt`, `on_complete`, the list hooks `on_list_tools` and
//! its kin, and `on_custom_method` for the methods of the server's own), as FastMCP does;
//! the last link's
//! `next` is the handler. A link may change the request's arguments (in `cx.message`),
//! answer by itself (return an [`Outcome`] without calling `next`), change or time the
//! outcome, or stop it with an error.
//!
//! A hook a link does not define costs nothing: [`Middleware::hooks`] says which it defines,
//! and the chain steps over the others; a server with no middleware calls its handlers
//! directly.

use super::context::Context;
use super::invoke::Invoke;
use crate::engine::{Invocation, Outcome, Request};
use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

/// The hooks of [`Middleware`], as a set ([`Middleware::hooks`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Hooks(u32);

impl Hooks {
    /// `on_message`: every message.
    pub const MESSAGE: Hooks = Hooks(1);
    /// `on_request`: every request.
    pub const REQUEST: Hooks = Hooks(1 << 1);
    /// `on_call_tool`: `tools/call`.
    pub const CALL_TOOL: Hooks = Hooks(1 << 2);
    /// `on_read_resource`: `resources/read`.
    pub const READ_RESOURCE: Hooks = Hooks(1 << 3);
    /// `on_get_prompt`: `prompts/get`.
    pub const GET_PROMPT: Hooks = Hooks(1 << 4);
    /// `on_complete`: `completion/complete`.
    pub const COMPLETE: Hooks = Hooks(1 << 5);
    /// `on_custom_method`: a request method of the server's own (`Server::method`).
    pub const CUSTOM_METHOD: Hooks = Hooks(1 << 6);
    /// `on_list_tools`: `tools/list`.
    pub const LIST_TOOLS: Hooks = Hooks(1 << 7);
    /// `on_list_resources`: `resources/list`.
    pub const LIST_RESOURCES: Hooks = Hooks(1 << 8);
    /// `on_list_resource_templates`: `resources/templates/list`.
    pub const LIST_RESOURCE_TEMPLATES: Hooks = Hooks(1 << 9);
    /// `on_list_prompts`: `prompts/list`.
    pub const LIST_PROMPTS: Hooks = Hooks(1 << 10);
    /// `on_notification`: a notification that reaches the server's code.
    pub const NOTIFICATION: Hooks = Hooks(1 << 11);
    /// Every hook.
    pub const ALL: Hooks = Hooks((1 << 12) - 1);

    /// The hook of list `kind`.
    pub const fn list(kind: crate::catalogue::ListKind) -> Hooks {
        use crate::catalogue::ListKind;
        match kind {
            ListKind::Tools => Hooks::LIST_TOOLS,
            ListKind::Resources => Hooks::LIST_RESOURCES,
            ListKind::ResourceTemplates => Hooks::LIST_RESOURCE_TEMPLATES,
            ListKind::Prompts => Hooks::LIST_PROMPTS,
        }
    }
    /// No hook.
    pub const NONE: Hooks = Hooks(0);

    /// Whether every hook of `other` is in this set.
    pub const fn contains(self, other: Hooks) -> bool {
        self.0 & other.0 == other.0
    }

    /// Both sets.
    pub const fn union(self, other: Hooks) -> Hooks {
        Hooks(self.0 | other.0)
    }

    /// The hook of a request's own method (none for a request no hook names).
    fn of(request: &Request) -> Hooks {
        match request {
            Request::CallTool { .. } => Hooks::CALL_TOOL,
            Request::ReadResource { .. } => Hooks::READ_RESOURCE,
            Request::GetPrompt { .. } => Hooks::GET_PROMPT,
            Request::Complete(_) => Hooks::COMPLETE,
            Request::Custom { .. } => Hooks::CUSTOM_METHOD,
            Request::List { kind, .. } => Hooks::list(*kind),
            _ => Hooks::NONE,
        }
    }
}

impl std::ops::BitOr for Hooks {
    type Output = Hooks;
    fn bitor(self, rhs: Hooks) -> Hooks {
        self.union(rhs)
    }
}

/// What a link of the chain sees of a request: the method, its typed params (`message`,
/// whose arguments a link may change before it calls `next`), where it came from, when, and
/// the handler's [`Context`] (the session, the client, the era, auth, headers, progress and
/// requests to the client). What was asked stays asked: the handler that runs is the one of
/// the name (or URI) the client sent, whatever a link writes there; a link that wants
/// another answers by itself.
pub struct MiddlewareContext {
    /// The request's params, typed ([`Request::CallTool`]: the tool's name and arguments).
    pub message: Request,
    /// When the request reached the runtime.
    pub timestamp: SystemTime,
    /// The rest of the invocation; its `request` is what was asked (its arguments are in
    /// `message` meanwhile).
    inv: Invocation,
    ctx: Context,
}

impl std::fmt::Debug for MiddlewareContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MiddlewareContext")
            .field("method", &self.method())
            .field("message", &self.message)
            .field("timestamp", &self.timestamp)
            .finish()
    }
}

impl MiddlewareContext {
    /// The JSON-RPC method (`tools/call`, `resources/read`, ...).
    pub fn method(&self) -> &str {
        method_of(&self.message)
    }

    /// Who sent it: always `client` on a server.
    pub fn source(&self) -> &'static str {
        "client"
    }

    /// `request` (notifications have no hook yet).
    pub fn kind(&self) -> &'static str {
        "request"
    }

    /// The tool's name, the prompt's, or the resource's URI (`None` for completion).
    pub fn name(&self) -> Option<&str> {
        match &self.message {
            Request::CallTool { name, .. } | Request::GetPrompt { name, .. } => Some(name),
            Request::ReadResource { uri, .. } => Some(uri),
            _ => None,
        }
    }

    /// The handler's context.
    pub fn context(&self) -> &Context {
        &self.ctx
    }

    /// The round of a 2026-07-28 multi round-trip request (0: the first; legacy requests
    /// have one round, 0).
    pub fn round(&self) -> u32 {
        self.ctx.request.as_ref().map_or(0, |r| r.round)
    }

    /// Sets a value the handler reads with [`Context::get_state`] (and later links with
    /// [`MiddlewareContext::get_state`]), for this request only.
    pub fn set_state(&mut self, key: impl Into<String>, value: Value) {
        // Made on the first value: a chain that sets none allocates nothing for it.
        let state = self.ctx.state.get_or_insert_with(State::default);
        state.lock().unwrap_or_else(|e| e.into_inner()).insert(key.into(), value);
    }

    /// A value set with [`MiddlewareContext::set_state`] for this request.
    pub fn get_state(&self, key: &str) -> Option<Value> {
        self.ctx.get_state(key)
    }
}

/// The JSON-RPC method of a request.
pub(crate) fn method_of(request: &Request) -> &str {
    match request {
        Request::Custom { method, .. } => method,
        Request::List { kind, .. } => match kind {
            crate::catalogue::ListKind::Tools => "tools/list",
            crate::catalogue::ListKind::Resources => "resources/list",
            crate::catalogue::ListKind::ResourceTemplates => "resources/templates/list",
            crate::catalogue::ListKind::Prompts => "prompts/list",
        },
        Request::CallTool { .. } => "tools/call",
        Request::ReadResource { .. } => "resources/read",
        Request::GetPrompt { .. } => "prompts/get",
        Request::Complete(_) => "completion/complete",
        Request::Task(_) => "tasks",
        Request::CreateMessage(_) => "sampling/createMessage",
        Request::Elicit(_) => "elicitation/create",
        Request::ListRoots => "roots/list",
    }
}

/// The per-request state middleware hands the handler.
pub(crate) type State = Arc<Mutex<Map<String, Value>>>;

/// One link of the chain. Every hook's default passes the request on unchanged; implement
/// the ones you need and name them in [`Middleware::hooks`].
///
/// ```
/// use hypermcp::runtime::{Hooks, Middleware, MiddlewareContext, Next};
/// use hypermcp::engine::{Outcome, Request};
/// use hypermcp::RpcError;
/// use futures_util::future::BoxFuture;
///
/// /// Refuses the tool `delete` to clients that did not authenticate.
/// struct Guard;
///
/// impl Middleware for Guard {
///     fn hooks(&self) -> Hooks {
///         Hooks::CALL_TOOL
///     }
///     fn on_call_tool<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
///         if cx.name() == Some("delete") && cx.context().auth().is_none() {
///             return Box::pin(async { Outcome::Error(RpcError::new(-32001, "delete needs a login")) });
///         }
///         next.run(cx)
///     }
/// }
/// let server = hypermcp::Server::new("files", "1.0").middleware(Guard);
/// ```
pub trait Middleware: Send + Sync + 'static {
    /// The hooks this link defines: the chain calls no other (default: all of them).
    fn hooks(&self) -> Hooks {
        Hooks::ALL
    }

    /// A built-in of hypermcp's ([`crate::middleware`]): run at the edge of the server's code
    /// rather than as a link of the chain.
    #[doc(hidden)]
    fn builtin(&self) -> Option<super::builtin::Builtin> {
        None
    }

    /// Every message (first, outermost).
    fn on_message<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        next.run(cx)
    }

    /// Every request (inside `on_message`).
    fn on_request<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        next.run(cx)
    }

    /// `tools/call` (inside `on_request`).
    fn on_call_tool<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        next.run(cx)
    }

    /// `resources/read`.
    fn on_read_resource<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        next.run(cx)
    }

    /// `prompts/get`.
    fn on_get_prompt<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        next.run(cx)
    }

    /// `completion/complete`.
    fn on_complete<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        next.run(cx)
    }

    /// `tools/list`: `next` resolves with [`Outcome::Listed`], every tool the caller sees (as
    /// JSON); return the list to send, filtered or edited (the engine pages it after).
    fn on_list_tools<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        next.run(cx)
    }

    /// `resources/list` (as [`Middleware::on_list_tools`]).
    fn on_list_resources<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        next.run(cx)
    }

    /// `resources/templates/list` (as [`Middleware::on_list_tools`]).
    fn on_list_resource_templates<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        next.run(cx)
    }

    /// `prompts/list` (as [`Middleware::on_list_tools`]).
    fn on_list_prompts<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        next.run(cx)
    }

    /// A request method of the server's own (`Server::method`): the catch-all of the methods
    /// the spec does not define (`cx.method()` names it; `cx.message` holds its params).
    fn on_custom_method<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
        next.run(cx)
    }

    /// A notification the client sent that reaches the server's code: those of its own
    /// (`Server::notification`), `notifications/roots/list_changed`, and any other the
    /// engine does not act on itself (`initialized`, `cancelled` and `progress` are the
    /// engine's). `next` runs the server's handler of it, if any; a link that does not call
    /// it drops the notification. It answers nothing.
    fn on_notification<'a>(&'a self, cx: NotificationContext, next: NotificationNext<'a>) -> BoxFuture<'a, ()> {
        next.run(cx)
    }
}

/// What a link sees of a notification ([`Middleware::on_notification`]).
#[derive(Debug, Clone)]
pub struct NotificationContext {
    /// The method (`notifications/roots/list_changed`, `vendor/event`, ...).
    pub method: String,
    /// Its params (a link may change them before it calls `next`).
    pub params: Map<String, Value>,
    /// When it reached the runtime.
    pub timestamp: SystemTime,
}

impl NotificationContext {
    /// Who sent it: always `client` on a server.
    pub fn source(&self) -> &'static str {
        "client"
    }

    /// `notification`.
    pub fn kind(&self) -> &'static str {
        "notification"
    }
}

/// The server's handler of a notification, at the end of the chain.
pub(crate) type NotificationEnd = dyn Fn(NotificationContext) -> BoxFuture<'static, ()> + Send + Sync;

/// The rest of the chain of a notification: [`NotificationNext::run`] passes it on.
pub struct NotificationNext<'a> {
    links: &'a [Arc<dyn Middleware>],
    end: &'a NotificationEnd,
}

impl<'a> NotificationNext<'a> {
    /// Runs the rest of the chain (the next link's `on_notification`, at the end the
    /// server's handler) with `cx` as the link left it.
    pub fn run(self, cx: NotificationContext) -> BoxFuture<'a, ()> {
        let mut links = self.links;
        while let Some((link, rest)) = links.split_first() {
            if link.hooks().contains(Hooks::NOTIFICATION) {
                return link.on_notification(cx, NotificationNext { links: rest, end: self.end });
            }
            links = rest;
        }
        (self.end)(cx)
    }
}

impl Chain {
    /// Whether some link has a hook for notifications.
    pub(crate) fn wraps_notifications(&self) -> bool {
        self.hooks.contains(Hooks::NOTIFICATION)
    }

    /// Runs a notification through the links' `on_notification`, then `end`.
    pub(crate) fn notify(
        self: Arc<Self>,
        cx: NotificationContext,
        end: Box<NotificationEnd>,
    ) -> BoxFuture<'static, ()> {
        Box::pin(async move { NotificationNext { links: &self.links, end: &*end }.run(cx).await })
    }
}

/// The links of one server, in registration order, around its invocation path.
pub(crate) struct Chain {
    links: Vec<Arc<dyn Middleware>>,
    /// The union of the links' hooks.
    hooks: Hooks,
}

impl Chain {
    pub(crate) fn new(links: Vec<Arc<dyn Middleware>>) -> Self {
        let hooks = links.iter().fold(Hooks::NONE, |h, l| h | l.hooks());
        Chain { links, hooks }
    }

    pub(crate) fn links(&self) -> &[Arc<dyn Middleware>] {
        &self.links
    }

    /// The union of the links' hooks.
    pub(crate) fn hooks(&self) -> Hooks {
        self.hooks
    }

    /// Whether any link has a hook for `request` (only requests with a hook of their own
    /// pass the chain: those that reach user code).
    pub(crate) fn wraps(&self, request: &Request) -> bool {
        let own = Hooks::of(request);
        own != Hooks::NONE && (self.hooks.0 & (Hooks::MESSAGE.0 | Hooks::REQUEST.0 | own.0)) != 0
    }

    /// Runs `inv` through the chain, then `inner`.
    pub(crate) fn run(
        self: Arc<Self>,
        inner: Arc<dyn Invoke>,
        inv: Invocation,
        ctx: Context,
    ) -> BoxFuture<'static, Outcome> {
        let mut inv = inv;
        // The arguments move into the context (a link may change them) and back at the end;
        // the name or URI asked stays in the invocation.
        let message = match &mut inv.request {
            Request::CallTool { name, arguments } => {
                Request::CallTool { name: name.clone(), arguments: std::mem::take(arguments) }
            }
            Request::GetPrompt { name, arguments } => {
                Request::GetPrompt { name: name.clone(), arguments: std::mem::take(arguments) }
            }
            Request::Custom { method, params } => {
                Request::Custom { method: method.clone(), params: std::mem::take(params) }
            }
            Request::List { kind, items } => Request::List { kind: *kind, items: std::mem::take(items) },
            other => other.clone(),
        };
        let cx = MiddlewareContext { message, timestamp: SystemTime::now(), inv, ctx };
        Box::pin(async move {
            let next = Next { chain: &self, inner: &*inner, at: 0, stage: Stage::Message };
            next.run(cx).await
        })
    }
}

/// Where a [`Next`] is in a link's hooks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    Message,
    Request,
    Own,
}

/// The rest of the chain: [`Next::run`] passes the request on (to the next hook of this
/// link, the next link, or at the end the handler).
pub struct Next<'a> {
    chain: &'a Chain,
    inner: &'a dyn Invoke,
    /// The link whose hook runs next.
    at: usize,
    stage: Stage,
}

impl<'a> Next<'a> {
    /// Runs the rest of the chain with `cx` (as the link left it) and resolves with its
    /// outcome.
    pub fn run(self, cx: MiddlewareContext) -> BoxFuture<'a, Outcome> {
        let own = Hooks::of(&cx.message);
        let (mut at, mut stage) = (self.at, self.stage);
        loop {
            let Some(link) = self.chain.links.get(at) else {
                // The end of the chain: the handler of what was asked, with the arguments as
                // the links left them.
                let MiddlewareContext { message, mut inv, ctx, .. } = cx;
                match (&mut inv.request, message) {
                    (Request::CallTool { arguments, .. }, Request::CallTool { arguments: given, .. }) => {
                        *arguments = given;
                    }
                    (Request::GetPrompt { arguments, .. }, Request::GetPrompt { arguments: given, .. }) => {
                        *arguments = given;
                    }
                    (Request::Complete(params), Request::Complete(given)) => *params = given,
                    (Request::Custom { params, .. }, Request::Custom { params: given, .. }) => *params = given,
                    (Request::List { items, .. }, Request::List { items: given, .. }) => *items = given,
                    _ => {}
                }
                return self.inner.invoke(inv, ctx);
            };
            let hooks = link.hooks();
            let (hook, after) = match stage {
                Stage::Message => (Hooks::MESSAGE, (at, Stage::Request)),
                Stage::Request => (Hooks::REQUEST, (at, Stage::Own)),
                Stage::Own => (own, (at + 1, Stage::Message)),
            };
            if hook == Hooks::NONE || !hooks.contains(hook) {
                (at, stage) = after;
                continue;
            }
            let next = Next { chain: self.chain, inner: self.inner, at: after.0, stage: after.1 };
            return match stage {
                Stage::Message => link.on_message(cx, next),
                Stage::Request => link.on_request(cx, next),
                Stage::Own => match hook {
                    Hooks::CALL_TOOL => link.on_call_tool(cx, next),
                    Hooks::READ_RESOURCE => link.on_read_resource(cx, next),
                    Hooks::GET_PROMPT => link.on_get_prompt(cx, next),
                    Hooks::CUSTOM_METHOD => link.on_custom_method(cx, next),
                    Hooks::LIST_TOOLS => link.on_list_tools(cx, next),
                    Hooks::LIST_RESOURCES => link.on_list_resources(cx, next),
                    Hooks::LIST_RESOURCE_TEMPLATES => link.on_list_resource_templates(cx, next),
                    Hooks::LIST_PROMPTS => link.on_list_prompts(cx, next),
                    _ => link.on_complete(cx, next),
                },
            };
        }
    }
}
