//! The async Rust server API: register async closures for tools, resources, templates,
//! prompts and completion, then serve over stdio or any byte stream.
//!
//! ```no_run
//! use hypermcp::{CallToolResult, Server, Tool};
//! use serde_json::json;
//!
//! # async fn run() -> hypermcp::Result<()> {
//! let server = Server::new("echo", "1.0.0").tool(
//!     Tool::new("echo").input_schema(json!({
//!         "type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]
//!     })),
//!     |args, _ctx| async move { CallToolResult::text(args["text"].as_str().unwrap_or_default()) },
//! );
//! server.serve_stdio().await
//! # }
//! ```

mod http;

pub use crate::runtime::tasks;
pub use crate::runtime::{Context, PeerInfo, ResourceRequest};

use crate::catalogue::visibility::{Component, Filter};
use crate::catalogue::{DefinitionError, Registry, ScopeTarget};
use crate::engine::ServerConfig;
use crate::error::{Error, Result};
use crate::jsonrpc::RpcError;
use crate::protocol::*;
use crate::runtime::{Handlers, Runtime, Serves, ToolAnswer, ToolFn};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

/// What a tool handler may return.
pub trait IntoToolResult {
    /// Converts into a tool result, or a JSON-RPC error.
    fn into_tool_result(self) -> std::result::Result<CallToolResult, RpcError>;

    /// [`IntoToolResult::into_tool_result`], telling apart an error the handler did not mean
    /// the client to read (an `Err` other than [`Error::Rpc`]), which the server may mask
    /// ([`Server::mask_error_details`]).
    #[doc(hidden)]
    fn into_tool_answer(self) -> ToolAnswer
    where
        Self: Sized,
    {
        match self.into_tool_result() {
            Ok(r) => ToolAnswer::Result(r),
            Err(e) => ToolAnswer::Error(e),
        }
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> std::result::Result<CallToolResult, RpcError> {
        Ok(self)
    }
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> std::result::Result<CallToolResult, RpcError> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for &'static str {
    fn into_tool_result(self) -> std::result::Result<CallToolResult, RpcError> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoToolResult for Vec<Content> {
    fn into_tool_result(self) -> std::result::Result<CallToolResult, RpcError> {
        Ok(CallToolResult::content(self))
    }
}

impl IntoToolResult for Value {
    /// Structured output plus its text rendering.
    fn into_tool_result(self) -> std::result::Result<CallToolResult, RpcError> {
        Ok(CallToolResult::structured(self))
    }
}

impl<T: IntoToolResult, E: Into<Error>> IntoToolResult for std::result::Result<T, E> {
    /// `Err(Error::Rpc)` becomes a JSON-RPC error; any other error an `isError` result.
    fn into_tool_result(self) -> std::result::Result<CallToolResult, RpcError> {
        match self {
            Ok(t) => t.into_tool_result(),
            Err(e) => match e.into() {
                Error::Rpc(rpc) => Err(rpc),
                other => Ok(CallToolResult::error(other.to_string())),
            },
        }
    }

    fn into_tool_answer(self) -> ToolAnswer {
        match self {
            Ok(t) => t.into_tool_answer(),
            Err(e) => match e.into() {
                Error::Rpc(rpc) => ToolAnswer::Error(rpc),
                // Masked when the server masks error details.
                other => ToolAnswer::Failed(other.to_string()),
            },
        }
    }
}

/// An MCP server: a registry plus the async handlers behind it. Clone it freely; clones
/// share everything, and additions or removals while serving reach every connected client as
/// `list_changed` notifications.
#[derive(Clone)]
pub struct Server {
    pub(crate) rt: Arc<Runtime>,
}

impl Serves for Server {
    fn runtime(&self) -> &Arc<Runtime> {
        &self.rt
    }
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server").field("registry", self.rt.registry()).finish()
    }
}

impl Server {
    /// A server with a name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Server { rt: Arc::new(Runtime::new(Implementation::new(name, version))) }
    }

    /// Changes the configuration (instructions, limits, revisions...).
    pub fn configure(self, f: impl FnOnce(&mut ServerConfig)) -> Self {
        f(&mut self.rt.config_write());
        self
    }

    /// Sets the instructions sent in `initialize`.
    pub fn instructions(self, text: impl Into<String>) -> Self {
        let text = text.into();
        self.configure(|c| c.instructions = Some(text))
    }

    /// The registry (page size, resource update notifications).
    pub fn registry(&self) -> &Arc<Registry> {
        self.rt.registry()
    }

    /// A snapshot of the configuration.
    pub fn config(&self) -> ServerConfig {
        self.rt.config()
    }

    fn handlers(&self) -> std::sync::RwLockWriteGuard<'_, Handlers> {
        self.rt.handlers().write()
    }

    /// Adds (or replaces) a tool.
    ///
    /// # Panics
    /// If the definition is invalid (see [`Server::add_tool`] for the fallible form).
    pub fn tool<F, Fut, R>(self, tool: Tool, handler: F) -> Self
    where
        F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        if let Err(e) = self.add_tool(tool, handler) {
            panic!("{e}");
        }
        self
    }

    /// Adds (or replaces) a tool; clients are told the list changed.
    pub fn add_tool<F, Fut, R>(&self, tool: Tool, handler: F) -> std::result::Result<(), DefinitionError>
    where
        F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = R> + Send + 'static,
        R: IntoToolResult,
    {
        let name = tool.name.clone();
        let f: ToolFn = Arc::new(move |args, ctx| {
            let fut = handler(args, ctx);
            Box::pin(async move { fut.await.into_tool_answer() })
        });
        self.handlers().tools.insert(name.clone(), f);
        self.rt.config_write().tools = true;
        let result = self.rt.registry().add_tool(tool);
        if result.is_err() {
            self.handlers().tools.remove(&name);
        }
        result
    }

    /// Removes a tool; returns whether it existed.
    pub fn remove_tool(&self, name: &str) -> bool {
        self.handlers().tools.remove(name);
        self.rt.registry().remove_tool(name)
    }

    /// Adds a static resource.
    ///
    /// # Panics
    /// If the definition is invalid.
    pub fn resource<F, Fut>(self, resource: Resource, handler: F) -> Self
    where
        F: Fn(ResourceRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult>> + Send + 'static,
    {
        if let Err(e) = self.add_resource(resource, handler) {
            panic!("{e}");
        }
        self
    }

    /// Adds (or replaces) a static resource.
    pub fn add_resource<F, Fut>(&self, resource: Resource, handler: F) -> std::result::Result<(), DefinitionError>
    where
        F: Fn(ResourceRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult>> + Send + 'static,
    {
        let uri = resource.uri.clone();
        self.handlers().resources.insert(uri, Arc::new(move |r, c| Box::pin(handler(r, c))));
        self.rt.config_write().resources = true;
        self.rt.registry().add_resource(resource)
    }

    /// Removes a static resource.
    pub fn remove_resource(&self, uri: &str) -> bool {
        self.handlers().resources.remove(uri);
        self.rt.registry().remove_resource(uri)
    }

    /// Adds a resource template (RFC 6570), served for every URI it matches.
    ///
    /// # Panics
    /// If the template does not parse.
    pub fn resource_template<F, Fut>(self, template: ResourceTemplate, handler: F) -> Self
    where
        F: Fn(ResourceRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult>> + Send + 'static,
    {
        if let Err(e) = self.add_resource_template(template, handler) {
            panic!("{e}");
        }
        self
    }

    /// Adds (or replaces) a resource template.
    pub fn add_resource_template<F, Fut>(
        &self,
        template: ResourceTemplate,
        handler: F,
    ) -> std::result::Result<(), DefinitionError>
    where
        F: Fn(ResourceRequest, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult>> + Send + 'static,
    {
        let key = template.uri_template.clone();
        self.handlers().resources.insert(key, Arc::new(move |r, c| Box::pin(handler(r, c))));
        self.rt.config_write().resources = true;
        self.rt.registry().add_template(template)
    }

    /// Removes a resource template.
    pub fn remove_resource_template(&self, uri_template: &str) -> bool {
        self.handlers().resources.remove(uri_template);
        self.rt.registry().remove_template(uri_template)
    }

    /// Adds a prompt.
    ///
    /// # Panics
    /// If the definition is invalid.
    pub fn prompt<F, Fut>(self, prompt: Prompt, handler: F) -> Self
    where
        F: Fn(HashMap<String, String>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult>> + Send + 'static,
    {
        if let Err(e) = self.add_prompt(prompt, handler) {
            panic!("{e}");
        }
        self
    }

    /// Adds (or replaces) a prompt.
    pub fn add_prompt<F, Fut>(&self, prompt: Prompt, handler: F) -> std::result::Result<(), DefinitionError>
    where
        F: Fn(HashMap<String, String>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult>> + Send + 'static,
    {
        let name = prompt.name.clone();
        self.handlers().prompts.insert(name, Arc::new(move |a, c| Box::pin(handler(a, c))));
        self.rt.config_write().prompts = true;
        self.rt.registry().add_prompt(prompt)
    }

    /// Removes a prompt.
    pub fn remove_prompt(&self, name: &str) -> bool {
        self.handlers().prompts.remove(name);
        self.rt.registry().remove_prompt(name)
    }

    /// Declares an extension this server supports (`capabilities.extensions` of
    /// `server/discover` and `initialize`), with its settings (`json!({})` for none). Panics
    /// on an identifier that is not `prefix/name` (see [`Server::add_extension`]).
    pub fn extension(self, id: &str, settings: Value) -> Self {
        if let Err(e) = self.add_extension(id, settings) {
            panic!("{e}");
        }
        self
    }

    /// Declares an extension (see [`Server::extension`]); sessions opened afterwards see it.
    pub fn add_extension(&self, id: &str, settings: Value) -> std::result::Result<(), DefinitionError> {
        crate::engine::check_extension_id(id).map_err(DefinitionError)?;
        if !settings.is_object() {
            return Err(DefinitionError(format!("extension {id:?}: its settings must be a JSON object")));
        }
        self.rt.config_write().extensions.insert(id.to_string(), settings);
        Ok(())
    }

    /// Serves tasks (`io.modelcontextprotocol/tasks`): declares the extension and keeps
    /// tasks as `options` say (an in-memory store by default). Tools opt in with
    /// [`Server::task_mode`]; a call runs as a task only when its client declared the
    /// extension with the request (2026-07-28), or asked for one with `params.task` in a
    /// 2025-11-25 session (that revision's experimental tasks: `capabilities.tasks`,
    /// `execution.taskSupport`, `tasks/get|result|list|cancel`, served by the same runtime).
    ///
    /// ```
    /// # use hypermcp::{Server, Tool, server::tasks::TaskOptions, catalogue::TaskMode};
    /// let server = Server::new("jobs", "1.0")
    ///     .tasks(TaskOptions::default())
    ///     .tool(Tool::new("slow"), |_args, ctx| async move {
    ///         tokio::select! {
    ///             _ = tokio::time::sleep(std::time::Duration::from_secs(5)) => "done",
    ///             _ = ctx.cancelled() => "cancelled",
    ///         }
    ///     })
    ///     .task_mode("slow", hypermcp::catalogue::TaskMode::Optional);
    /// ```
    pub fn tasks(self, options: tasks::TaskOptions) -> Self {
        let runtime = tasks::TaskRuntime::new(options, self.rt.registry().clone());
        self.rt.set_task_runtime(runtime);
        let mut config = self.rt.config_write();
        config.extensions.entry(crate::store::tasks::TASKS_EXTENSION).or_insert_with(|| Value::Object(Map::new()));
        config.legacy_tasks = true;
        drop(config);
        self
    }

    /// Sets how tool `name` runs as a task: [`TaskMode::Optional`](crate::catalogue::TaskMode)
    /// (when the client can follow one), `Required` (only so: other clients get -32021) or
    /// `Manual` (the handler decides, with [`Context::start_task`]). Needs [`Server::tasks`].
    pub fn task_mode(self, name: &str, mode: crate::catalogue::TaskMode) -> Self {
        self.rt.registry().set_task_mode(name, Some(mode));
        self
    }

    /// The task runtime, when the server serves tasks.
    pub fn task_runtime(&self) -> Option<Arc<tasks::TaskRuntime>> {
        self.rt.task_runtime()
    }

    /// Serves the view of an MCP App at `uri` (`ui://...`): `html` (a whole HTML document) as
    /// `text/html;profile=mcp-app`, with what it declares (`meta`: the origins it needs,
    /// permissions, border), listed and read from memory; the server declares
    /// `io.modelcontextprotocol/ui`. Link it to a tool with [`Tool::ui`](crate::Tool::ui).
    /// Panics on a URI that is not `ui://` or declarations that are not origins (see
    /// [`Server::add_app`]).
    ///
    /// ```
    /// # use hypermcp::{Server, Tool, UiResourceMeta};
    /// let server = Server::new("weather", "1.0")
    ///     .app("ui://weather/forecast", "<!doctype html><title>Forecast</title>", UiResourceMeta::default())
    ///     .tool(Tool::new("forecast").ui("ui://weather/forecast"), |_args, _ctx| async move { "Sunny" });
    /// ```
    pub fn app(self, uri: &str, html: impl Into<String>, meta: crate::protocol::UiResourceMeta) -> Self {
        if let Err(e) = self.add_app(uri, html, meta) {
            panic!("{e}");
        }
        self
    }

    /// Serves (or replaces) an app's view (see [`Server::app`]); clients are told.
    pub fn add_app(
        &self,
        uri: &str,
        html: impl Into<String>,
        meta: crate::protocol::UiResourceMeta,
    ) -> std::result::Result<(), DefinitionError> {
        self.rt.registry().add_app(uri, html.into(), meta, None, None)
    }

    /// Serves the skills of directory `dir` (`io.modelcontextprotocol/skills`): every
    /// directory under it holding a `SKILL.md`, as `skill://` resources, with `skills/list`,
    /// `skills/get` and `resources/directory/read` answered from memory. Panics when the
    /// directory cannot be read or a skill breaks a rule (see [`Server::set_skills`]).
    ///
    /// ```no_run
    /// # use hypermcp::Server;
    /// let server = Server::new("docs", "1.0").skills_dir("skills/");
    /// ```
    pub fn skills_dir(self, dir: impl AsRef<std::path::Path>) -> Self {
        match crate::transport::skills_dir::read_skills_dir(dir) {
            Ok(c) => self.skills(c),
            Err(e) => panic!("{e}"),
        }
    }

    /// Serves `catalog` as the server's skills (built with
    /// [`SkillCatalog::from_files`](crate::catalogue::skills::SkillCatalog::from_files) from
    /// files made in code, or read with
    /// [`read_skills_dir`](crate::transport::skills_dir::read_skills_dir)).
    pub fn skills(self, catalog: crate::catalogue::skills::SkillCatalog) -> Self {
        self.set_skills(Some(catalog));
        self
    }

    /// Replaces the skills served (`None`: none) while serving: clients are told the resource
    /// list changed, and subscribers of a changed file that it was updated. The server
    /// declares the extension with `{"directoryRead": true}` while it serves skills (unless
    /// [`Server::extension`] named it with other settings).
    pub fn set_skills(&self, catalog: Option<crate::catalogue::skills::SkillCatalog>) {
        self.rt.registry().set_skills(catalog);
    }

    /// Requires `scopes` of the access token to call a tool, read a resource (or any resource
    /// of a template) or get a prompt, besides the HTTP `auth` option's `required_scopes`:
    /// a request without them gets 403 `insufficient_scope` naming them (clients step up).
    ///
    /// ```
    /// # use hypermcp::{Server, ScopeTarget};
    /// let server = Server::new("s", "1").require_scopes(ScopeTarget::Tool("delete".into()), ["files:write"]);
    /// ```
    pub fn require_scopes<S: Into<String>>(self, target: ScopeTarget, scopes: impl IntoIterator<Item = S>) -> Self {
        self.rt.registry().set_required_scopes(target, scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Serves a request method of the server's own, which the spec does not define, in both
    /// eras: the handler gets its params (without `_meta`, which [`Context::meta`] holds) and
    /// the request's context, and its value is the result. Clients send one with
    /// [`Client::request`](crate::Client::request).
    ///
    /// # Panics
    /// For a name the spec or an extension owns (see [`Server::add_method`]).
    ///
    /// ```
    /// # use hypermcp::Server;
    /// let server = Server::new("s", "1").method("acme/search", |params, _ctx| async move {
    ///     Ok(serde_json::json!({ "hits": [params.get("q").cloned()] }))
    /// });
    /// ```
    pub fn method<F, Fut>(self, method: &str, handler: F) -> Self
    where
        F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value>> + Send + 'static,
    {
        if let Err(e) = self.add_method(method, handler) {
            panic!("{e}");
        }
        self
    }

    /// [`Server::method`], fallible and at any time. Fails for a name the spec or an extension
    /// owns (`tools/...`, `notifications/progress`...), one JSON-RPC keeps (`rpc.`), or one
    /// with spaces.
    pub fn add_method<F, Fut>(&self, method: &str, handler: F) -> std::result::Result<(), DefinitionError>
    where
        F: Fn(Map<String, Value>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value>> + Send + 'static,
    {
        self.rt.registry().add_method(method, None)?;
        let f: crate::runtime::MethodFn = Arc::new(move |params, ctx| Box::pin(handler(params, ctx)));
        self.handlers().methods.insert(method.to_string(), f);
        Ok(())
    }

    /// Stops serving a method of the server's own; returns whether it was served.
    pub fn remove_method(&self, method: &str) -> bool {
        self.handlers().methods.remove(method);
        self.rt.registry().remove_method(method)
    }

    /// Handles a notification of the server's own (sent with
    /// [`Client::notify`](crate::Client::notify)): the handler gets its params and runs on
    /// its own task.
    ///
    /// # Panics
    /// For a name the spec or an extension owns (see [`Server::add_method`]).
    pub fn notification<F, Fut>(self, method: &str, handler: F) -> Self
    where
        F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        if let Err(e) = self.add_notification(method, handler) {
            panic!("{e}");
        }
        self
    }

    /// [`Server::notification`], fallible and at any time.
    pub fn add_notification<F, Fut>(&self, method: &str, handler: F) -> std::result::Result<(), DefinitionError>
    where
        F: Fn(Map<String, Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = ()> + Send + 'static,
    {
        crate::protocol::methods::check_custom(method).map_err(DefinitionError)?;
        let f: crate::runtime::NotificationFn = Arc::new(move |params| Box::pin(handler(params)));
        self.handlers().notifications.insert(method.to_string(), f);
        Ok(())
    }

    /// Tags a tool, resource, template or prompt (by name, URI or URI template): the
    /// visibility rules ([`Server::disable`], [`Server::enable`]) select by tag. Clients do
    /// not see tags.
    ///
    /// ```
    /// # use hypermcp::{Server, Tool, Component, Filter};
    /// let server = Server::new("s", "1")
    ///     .tool(Tool::new("wipe"), |_args, _ctx| async { "wiped" })
    ///     .tags(Component::Tool, "wipe", ["admin"]);
    /// server.disable(Filter::tags(["admin"])).unwrap(); // clients no longer see "wipe"
    /// ```
    pub fn tags<S: Into<String>>(self, kind: Component, key: &str, tags: impl IntoIterator<Item = S>) -> Self {
        self.set_tags(kind, key, tags);
        self
    }

    /// [`Server::tags`] while serving: sessions that now see another list are told
    /// (`list_changed`).
    pub fn set_tags<S: Into<String>>(&self, kind: Component, key: &str, tags: impl IntoIterator<Item = S>) {
        self.rt.registry().set_tags(kind, key, tags.into_iter().map(Into::into).collect());
    }

    /// Shows every client the components `filter` matches, overriding earlier rules where
    /// they overlap (later rules win). Sessions that now see another list are told
    /// (`list_changed`). Fails for a filter without criteria.
    pub fn enable(&self, filter: Filter) -> std::result::Result<(), DefinitionError> {
        self.rt.registry().enable(filter, false).map(drop)
    }

    /// The allow-list form of [`Server::enable`]: only what `filter` matches is visible
    /// (earlier enables are dropped; later rules still override it).
    pub fn enable_only(&self, filter: Filter) -> std::result::Result<(), DefinitionError> {
        self.rt.registry().enable(filter, true).map(drop)
    }

    /// Hides from every client the components `filter` matches: they are left out of the
    /// lists, and a call by name is "not found", as if they did not exist.
    pub fn disable(&self, filter: Filter) -> std::result::Result<(), DefinitionError> {
        self.rt.registry().disable(filter).map(drop)
    }

    /// Drops the server's visibility rules: every component visible again.
    pub fn reset_visibility(&self) {
        self.rt.registry().reset_visibility();
    }

    /// Hides what unexpected failures say (FastMCP's `mask_error_details`): a tool whose
    /// handler returns an `Err` other than [`Error::Rpc`] answers `Error calling tool "name"`,
    /// a resource, prompt, completion or method of your own a -32603 of the same kind, and
    /// a panic `handler failed`; the failure goes to the log (target `hypermcp::errors`).
    /// `Error::Rpc` and results you make with `CallToolResult::error` pass unchanged.
    pub fn mask_error_details(self, mask: bool) -> Self {
        self.rt.handlers().set_mask(mask);
        self.rt.config_write().mask_error_details = mask;
        self
    }

    /// Adds a middleware at the end of the chain: it runs inside the ones added before, around
    /// every tool call, resource read, prompt and completion, on every transport and in both
    /// eras (see [`Middleware`](crate::runtime::Middleware)). Sessions already open see it too.
    ///
    /// ```
    /// use futures_util::future::BoxFuture;
    /// use hypermcp::engine::Outcome;
    /// use hypermcp::runtime::{Hooks, Middleware, MiddlewareContext, Next};
    /// use std::sync::atomic::{AtomicU64, Ordering};
    ///
    /// /// Counts tool calls.
    /// #[derive(Default)]
    /// struct Count(AtomicU64);
    ///
    /// impl Middleware for Count {
    ///     fn hooks(&self) -> Hooks {
    ///         Hooks::CALL_TOOL
    ///     }
    ///     fn on_call_tool<'a>(&'a self, cx: MiddlewareContext, next: Next<'a>) -> BoxFuture<'a, Outcome> {
    ///         self.0.fetch_add(1, Ordering::Relaxed);
    ///         next.run(cx)
    ///     }
    /// }
    /// let server = hypermcp::Server::new("counted", "1.0").middleware(Count::default());
    /// ```
    pub fn middleware(self, link: impl crate::runtime::Middleware) -> Self {
        self.add_middleware(Arc::new(link));
        self
    }

    /// Adds a middleware (see [`Server::middleware`]), shared.
    pub fn add_middleware(&self, link: Arc<dyn crate::runtime::Middleware>) {
        self.rt.add_middleware(link);
    }

    /// Sets the completion handler (declares the `completions` capability). It gets every
    /// `completion/complete` request, for prompt arguments and template variables alike.
    pub fn completion<F, Fut>(self, handler: F) -> Self
    where
        F: Fn(CompleteParams, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CompleteResult>> + Send + 'static,
    {
        self.handlers().completion = Some(Arc::new(move |p, c| Box::pin(handler(p, c))));
        self.rt.config_write().completions = true;
        self
    }

    /// Tells subscribed clients that a resource changed.
    pub fn notify_resource_updated(&self, uri: &str) {
        self.rt.registry().notify_resource_updated(uri);
    }

    /// Serves one client over this process's stdin and stdout until stdin closes (in-flight
    /// calls are finished first). Logs belong on stderr: stdout carries only protocol.
    pub async fn serve_stdio(&self) -> Result<()> {
        let (r, w) = crate::transport::stdio::stdio_streams();
        self.serve(r, w).await
    }

    /// Serves one client over any byte stream pair (a socket, an in-memory duplex...).
    pub async fn serve<R, W>(&self, reader: R, writer: W) -> Result<()>
    where
        R: tokio::io::AsyncRead + Unpin,
        W: tokio::io::AsyncWrite + Unpin,
    {
        crate::transport::driver::serve_stream(&self.rt, reader, writer).await
    }
}

impl ReadResourceResult {
    /// One text part.
    pub fn text(uri: impl Into<String>, text: impl Into<String>, mime_type: Option<&str>) -> Self {
        let mut c = ResourceContents::text(uri, text);
        if let Some(m) = mime_type {
            c = c.with_mime_type(m);
        }
        ReadResourceResult { contents: vec![c], ..Default::default() }
    }
    /// One binary part.
    pub fn blob(uri: impl Into<String>, bytes: &[u8], mime_type: &str) -> Self {
        ReadResourceResult { contents: vec![ResourceContents::blob(uri, bytes, mime_type)], ..Default::default() }
    }
}

impl GetPromptResult {
    /// A prompt of messages.
    pub fn messages(messages: Vec<PromptMessage>) -> Self {
        GetPromptResult { description: None, messages, meta: None }
    }
}
