//! The async Rust client: connect to a server (a child process over stdio, or any byte
//! stream), then call its tools, read resources, get prompts and so on. Server-to-client
//! requests (sampling, elicitation, roots) go to the handlers set in [`ClientOptions`].

use crate::engine::{ClientSession, Event, OutboundId, Request, RequestKey, RequestOptions};
use crate::error::{Error, Result};
use crate::jsonrpc::RpcError;
use crate::protocol::*;
use crate::runtime::panic_message;
use crate::transport::child::{ChildProcess, StderrTail};
use futures_util::future::BoxFuture;
use futures_util::stream::FuturesUnordered;
use futures_util::{FutureExt, StreamExt};
use serde::de::DeserializeOwned;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

mod http;
mod intercept;
mod options;
mod reconnect;
pub use intercept::{ClientNext, ClientRequest, Interceptor};
pub use options::ClientOptions;
pub use reconnect::ConnectionEvent;
pub(crate) use reconnect::{connect as connect_reconnecting, Conn, Connector};

type Reply = oneshot::Sender<std::result::Result<Value, RpcError>>;
type ProgressFn = Arc<dyn Fn(f64, Option<f64>, Option<&str>) + Send + Sync>;

/// `params` with `extra` added to its `_meta` (keys it has are kept).
fn with_meta(params: Option<Value>, extra: crate::protocol::Meta) -> Result<Value> {
    let mut params = params.unwrap_or_else(|| Value::Object(Default::default()));
    let Some(obj) = params.as_object_mut() else {
        return Err(Error::Message("CallOptions::meta needs the request's params to be an object".into()));
    };
    let meta = obj.entry("_meta").or_insert_with(|| Value::Object(Default::default()));
    let Some(meta) = meta.as_object_mut() else {
        return Err(Error::Message("the request's _meta is not an object".into()));
    };
    for (k, v) in extra {
        meta.entry(k).or_insert(v);
    }
    Ok(params)
}

/// Options of one call.
#[derive(Clone, Default)]
pub struct CallOptions {
    /// Timeout of this call (else the client's default).
    pub timeout: Option<Duration>,
    /// Restart the timeout on each progress notification.
    pub reset_timeout_on_progress: bool,
    /// Cap on the whole call when progress resets the timeout (default: ten times it).
    pub max_total_timeout: Option<Duration>,
    /// Receives progress notifications for this call.
    pub on_progress: Option<ProgressFn>,
    /// Follow a task the server answers a `tools/call` with to its end (set by
    /// [`Client::call_tool`]; a raw [`Client::request`] gets the task itself).
    pub follow_task: bool,
    /// Keys to add to the request's `_meta` (those the params already have are kept): for
    /// example the trace context of the request a server is serving,
    /// `ctx.trace_context().map(|t| t.to_meta())`, so the trace goes on to this server.
    pub meta: Option<crate::protocol::Meta>,
}

impl std::fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallOptions").field("timeout", &self.timeout).finish()
    }
}

type Listener = mpsc::Sender<(String, Value)>;

/// Notifications a [`Subscription`] holds unread before it is closed (never buffered without
/// limit).
pub const LISTEN_BACKLOG: usize = 10_000;

enum Cmd {
    Request {
        method: String,
        params: Option<Value>,
        opts: CallOptions,
        reply: Reply,
    },
    FollowTask {
        task_id: String,
        timeout: Option<Duration>,
        reply: Reply,
    },
    Listen {
        filter: SubscriptionFilter,
        tx: Listener,
        reply: oneshot::Sender<std::result::Result<OutboundId, RpcError>>,
    },
    Unlisten(OutboundId),
    Notify {
        method: String,
        params: Option<Value>,
        reply: oneshot::Sender<std::result::Result<(), RpcError>>,
    },
    /// Close once the calls in flight are answered, or when the grace period ends.
    Close(Duration),
}

/// A connected MCP client. Cheap to clone; the connection closes when [`Client::close`] is
/// called or the last clone is dropped.
#[derive(Clone)]
pub struct Client {
    tx: mpsc::UnboundedSender<Cmd>,
    server: Arc<InitializeResult>,
    version: ProtocolVersion,
    child: Option<Arc<tokio::sync::Mutex<ChildProcess>>>,
    stderr: Arc<Mutex<Option<StderrTail>>>,
    done: Arc<Mutex<Option<BoxFuture<'static, ()>>>>,
    /// Request interceptors, in order.
    interceptors: Arc<[Arc<dyn Interceptor>]>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("server", &self.server.server_info).field("version", &self.version).finish()
    }
}

impl Client {
    /// Spawns `program args...` and connects over its stdio.
    pub async fn spawn<I, S>(program: &str, args: I, options: ClientOptions) -> Result<Client>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<std::ffi::OsStr>,
    {
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args);
        Self::spawn_command(cmd, options).await
    }

    /// Spawns a prepared command (set env, cwd...) and connects over its stdio.
    pub async fn spawn_command(cmd: tokio::process::Command, options: ClientOptions) -> Result<Client> {
        if let Some(policy) = options.reconnect.clone() {
            return reconnect::connect(reconnect::spawner(cmd, options.stderr.clone()), options, policy).await;
        }
        let (child, stdout, stdin) = ChildProcess::spawn(cmd, options.stderr.clone())?;
        let tail = child.stderr.clone();
        match Self::connect(stdout, stdin, options).await {
            Ok(mut c) => {
                c.child = Some(Arc::new(tokio::sync::Mutex::new(child)));
                c.stderr = Arc::new(Mutex::new(Some(tail)));
                Ok(c)
            }
            Err(e) => {
                let mut child = child;
                let _ = child.shutdown(Duration::from_millis(200)).await;
                let stderr = tail.text();
                if stderr.trim().is_empty() {
                    Err(e)
                } else {
                    Err(Error::Message(format!("{e}; server stderr:\n{}", stderr.trim_end())))
                }
            }
        }
    }

    /// Connects to an in-process [`crate::Server`] (the server runs on a spawned task).
    pub async fn in_memory(server: &crate::Server, options: ClientOptions) -> Result<Client> {
        let (a, b) = crate::transport::duplex::pair();
        let (sr, sw) = tokio::io::split(b);
        let server = server.clone();
        tokio::spawn(async move {
            let _ = server.serve(sr, sw).await;
        });
        let (cr, cw) = tokio::io::split(a);
        Self::connect(cr, cw, options).await
    }

    /// Connects over a byte stream pair and performs the handshake.
    pub async fn connect<R, W>(reader: R, writer: W, options: ClientOptions) -> Result<Client>
    where
        R: AsyncRead + Unpin + Send + 'static,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let interceptors = options.interceptors.clone().into();
        let link = start_link(reader, writer, options).await?;
        // Once the driver ends, the commands it never read are dropped (their callers get
        // `Error::Closed`) rather than left waiting.
        let (ended_tx, ended) = oneshot::channel::<()>();
        let driver_done = link.done;
        tokio::spawn(async move {
            drop(driver_done.await);
            let _ = ended_tx.send(());
        });
        Ok(Client {
            tx: link.tx,
            server: Arc::new(link.server),
            version: link.version,
            child: None,
            stderr: Arc::new(Mutex::new(None)),
            done: Arc::new(Mutex::new(Some(Box::pin(async move {
                let _ = ended.await;
            })))),
            interceptors,
        })
    }

    /// The server's `initialize` answer (info, capabilities, instructions).
    pub fn server(&self) -> &InitializeResult {
        &self.server
    }

    /// The negotiated revision (2026-07-28 when the server answered `server/discover`).
    pub fn protocol_version(&self) -> ProtocolVersion {
        self.version
    }

    /// Whether this session speaks 2026-07-28 (stateless, per-request metadata).
    pub fn is_modern(&self) -> bool {
        self.version.era() == Era::Modern
    }

    /// Whether the server declared `feature`: a capability (`"tools"`, `"logging"`,
    /// `"completions"`), one of its flags by a dotted path (`"resources.subscribe"`,
    /// `"tools.listChanged"`), or an extension by its id (`"io.modelcontextprotocol/ui"`;
    /// `"io.modelcontextprotocol/tasks"` also for a 2025-11-25 server declaring `tasks`).
    pub fn supports(&self, feature: &str) -> bool {
        crate::engine::server_supports(&self.server.capabilities, feature)
    }

    /// The spawned server's recent stderr (empty for other transports).
    pub fn server_stderr(&self) -> String {
        self.stderr.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map(|s| s.text()).unwrap_or_default()
    }

    /// Sends any request and returns its raw result.
    pub async fn request(&self, method: &str, params: Option<Value>, opts: CallOptions) -> Result<Value> {
        if !self.interceptors.is_empty() {
            return self.intercepted(method, params, opts).await;
        }
        self.send(method, params, opts).await
    }

    /// [`Client::request`] after the interceptors.
    async fn send(&self, method: &str, params: Option<Value>, mut opts: CallOptions) -> Result<Value> {
        let params = match opts.meta.take() {
            Some(extra) => Some(with_meta(params, extra)?),
            None => params,
        };
        let (reply, rx) = oneshot::channel();
        self.tx.send(Cmd::Request { method: method.to_string(), params, opts, reply }).map_err(|_| Error::Closed)?;
        Ok(rx.await.map_err(|_| Error::Closed)??)
    }

    async fn typed<T: DeserializeOwned>(&self, method: &str, params: Option<Value>, opts: CallOptions) -> Result<T> {
        let v = self.request(method, params, opts).await?;
        serde_json::from_value(v).map_err(|e| Error::Message(format!("unexpected {method} result: {e}")))
    }

    /// Every item of a paginated list, following `nextCursor` (a server that repeats a cursor
    /// ends the walk instead of looping).
    async fn walk<P: Page>(&self, method: &str) -> Result<Vec<P::Item>> {
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page: P =
                self.typed(method, cursor.as_ref().map(|c| json!({ "cursor": c })), CallOptions::default()).await?;
            let (items, next) = page.into_parts();
            all.extend(items);
            match next {
                Some(c) if Some(&c) != cursor.as_ref() => cursor = Some(c),
                _ => return Ok(all),
            }
        }
    }

    /// Sends a notification.
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<()> {
        let (reply, rx) = oneshot::channel();
        self.tx.send(Cmd::Notify { method: method.to_string(), params, reply }).map_err(|_| Error::Closed)?;
        Ok(rx.await.map_err(|_| Error::Closed)??)
    }

    /// `ping`.
    pub async fn ping(&self) -> Result<()> {
        self.request("ping", None, CallOptions::default()).await.map(|_| ())
    }

    /// One page of tools.
    pub async fn list_tools_page(&self, cursor: Option<&str>) -> Result<ListToolsResult> {
        self.typed("tools/list", cursor.map(|c| json!({ "cursor": c })), CallOptions::default()).await
    }

    /// Every tool (follows `nextCursor`).
    pub async fn list_tools(&self) -> Result<Vec<Tool>> {
        self.walk::<ListToolsResult>("tools/list").await
    }

    /// Calls a tool.
    pub async fn call_tool(&self, name: &str, arguments: Value) -> Result<CallToolResult> {
        self.call_tool_with(name, arguments, CallOptions::default()).await
    }

    /// Calls a tool with a timeout and/or a progress callback.
    ///
    /// A server may run the call as a task (tasks extension, when this client declares
    /// `io.modelcontextprotocol/tasks`): the client then follows the task (`tasks/get`, its
    /// input requests answered through the handlers), and the result is the task's. The
    /// call's timeout, when given, covers the task too (it is cancelled then).
    pub async fn call_tool_with(&self, name: &str, arguments: Value, opts: CallOptions) -> Result<CallToolResult> {
        let opts = CallOptions { follow_task: true, ..opts };
        self.typed("tools/call", Some(json!({ "name": name, "arguments": arguments })), opts).await
    }

    /// One page of resources.
    pub async fn list_resources_page(&self, cursor: Option<&str>) -> Result<ListResourcesResult> {
        self.typed("resources/list", cursor.map(|c| json!({ "cursor": c })), CallOptions::default()).await
    }

    /// Every resource.
    pub async fn list_resources(&self) -> Result<Vec<Resource>> {
        self.walk::<ListResourcesResult>("resources/list").await
    }

    /// One page of resource templates.
    pub async fn list_resource_templates_page(&self, cursor: Option<&str>) -> Result<ListResourceTemplatesResult> {
        self.typed("resources/templates/list", cursor.map(|c| json!({ "cursor": c })), CallOptions::default()).await
    }

    /// Every resource template.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>> {
        self.walk::<ListResourceTemplatesResult>("resources/templates/list").await
    }

    /// Reads a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        self.typed("resources/read", Some(json!({ "uri": uri })), CallOptions::default()).await
    }

    /// Calls a tool and returns at once what the server answered: its result, or (tasks
    /// extension, when this client declares it) the task running the call, to follow, poll
    /// or cancel later, from this client or another one (by id).
    pub async fn call_tool_task(&self, name: &str, arguments: Value) -> Result<ToolCall> {
        let v = self
            .request("tools/call", Some(json!({ "name": name, "arguments": arguments })), CallOptions::default())
            .await?;
        // The task: 2026-07-28 answers it in place, 2025-11-25 as `{task}`.
        let task = match v.get("resultType").and_then(Value::as_str) {
            Some("task") => Some(&v),
            _ => v.get("task").filter(|t| t.is_object()),
        };
        if let Some(task) = task {
            let id = task.get("taskId").and_then(Value::as_str).ok_or_else(|| Error::msg("a task without taskId"))?;
            return Ok(ToolCall::Task(self.task(id)));
        }
        serde_json::from_value(v)
            .map(ToolCall::Done)
            .map_err(|e| Error::msg(format!("unexpected tools/call result: {e}")))
    }

    /// The task `id` (tasks extension): one this client started, or another client did.
    pub fn task(&self, id: &str) -> TaskHandle {
        TaskHandle { client: self.clone(), id: id.to_string() }
    }

    /// Reads the view of an MCP App (`ui://...`): its HTML, what it declares, and the
    /// Content-Security-Policy and iframe `allow` list to render it with. Fails for a URI that
    /// is not `ui://` or contents that are not `text/html;profile=mcp-app`.
    pub async fn read_app(&self, uri: &str) -> Result<AppView> {
        if !uri.starts_with(APP_SCHEME) {
            return Err(Error::msg(format!("{uri} is not an app: app resources are ui:// URIs")));
        }
        let result = self.request("resources/read", Some(json!({ "uri": uri })), CallOptions::default()).await?;
        crate::protocol::read_app(uri, &result, None).map_err(Error::Message)
    }

    /// One page of the server's skills (`io.modelcontextprotocol/skills`).
    pub async fn list_skills_page(&self, cursor: Option<&str>) -> Result<ListSkillsResult> {
        self.typed("skills/list", cursor.map(|c| json!({ "cursor": c })), CallOptions::default()).await
    }

    /// Every skill the server lists (follows `nextCursor`). Nothing is fetched: each entry
    /// names the skill's files with their digests; [`Client::load_skill`] reads it.
    pub async fn list_skills(&self) -> Result<Vec<SkillEntry>> {
        self.walk::<ListSkillsResult>("skills/list").await
    }

    /// The entry of the skill whose `SKILL.md` is `uri` (listed or not).
    pub async fn get_skill(&self, uri: &str) -> Result<SkillEntry> {
        let r: GetSkillResult = self.typed("skills/get", Some(json!({ "uri": uri })), CallOptions::default()).await?;
        Ok(r.skill)
    }

    /// Every child of a directory resource (`resources/directory/read`, when the server
    /// declares `directoryRead`): files, and subdirectories with `mimeType`
    /// `inode/directory`.
    pub async fn read_directory(&self, uri: &str) -> Result<Vec<Resource>> {
        let mut all = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let mut params = json!({ "uri": uri });
            if let Some(c) = &cursor {
                params["cursor"] = json!(c);
            }
            let page: ReadDirectoryResult =
                self.typed("resources/directory/read", Some(params), CallOptions::default()).await?;
            all.extend(page.resources);
            match page.next_cursor {
                Some(c) if Some(&c) != cursor.as_ref() => cursor = Some(c),
                _ => return Ok(all),
            }
        }
    }

    /// Loads a skill: checks its entry, reads its `SKILL.md` and verifies it (size, digest,
    /// then frontmatter against the entry's). Fails with [`Error::SkillVerification`] when
    /// the content is not what the entry describes. Its other files are read on demand with
    /// [`Client::read_skill_file`].
    pub async fn load_skill(&self, skill: &SkillEntry) -> Result<String> {
        let bytes = self.read_skill_file(skill, &skill.uri).await?;
        String::from_utf8(bytes).map_err(|_| Error::msg(format!("{} is not UTF-8 text", skill.uri)))
    }

    /// Reads one file of a skill, by URI or by path relative to the skill's directory
    /// (`references/FORMS.md`), and verifies it against the entry: a file the entry does not
    /// list, or whose size or digest differ, fails with [`Error::SkillVerification`].
    pub async fn read_skill_file(&self, skill: &SkillEntry, path: &str) -> Result<Vec<u8>> {
        let uri = if path.contains("://") { path.to_string() } else { format!("{}/{path}", skill.root()) };
        let entry = serde_json::to_value(skill).map_err(|e| Error::msg(e.to_string()))?;
        crate::catalogue::skills::check_entry(&entry).map_err(Error::SkillVerification)?;
        if let SkillResources::Files(files) = &skill.resources {
            if !files.iter().any(|f| f.uri == uri) {
                return Err(Error::SkillVerification(crate::catalogue::skills::SkillVerificationError {
                    reason: crate::catalogue::skills::VerificationFailure::Unlisted,
                    message: format!("{uri} is not one of the files of {}", skill.uri),
                    uri,
                }));
            }
        }
        let result = self.request("resources/read", Some(json!({ "uri": uri })), CallOptions::default()).await?;
        crate::catalogue::skills::verify_read(&entry, &uri, &result).map_err(Error::SkillVerification)
    }

    /// Subscribes to updates of a resource (delivered to `on_notification`).
    pub async fn subscribe_resource(&self, uri: &str) -> Result<()> {
        self.request("resources/subscribe", Some(json!({ "uri": uri })), CallOptions::default()).await.map(|_| ())
    }

    /// Ends a subscription.
    pub async fn unsubscribe_resource(&self, uri: &str) -> Result<()> {
        self.request("resources/unsubscribe", Some(json!({ "uri": uri })), CallOptions::default()).await.map(|_| ())
    }

    /// One page of prompts.
    pub async fn list_prompts_page(&self, cursor: Option<&str>) -> Result<ListPromptsResult> {
        self.typed("prompts/list", cursor.map(|c| json!({ "cursor": c })), CallOptions::default()).await
    }

    /// Every prompt.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>> {
        self.walk::<ListPromptsResult>("prompts/list").await
    }

    /// Gets a prompt.
    pub async fn get_prompt(&self, name: &str, arguments: HashMap<String, String>) -> Result<GetPromptResult> {
        self.typed("prompts/get", Some(json!({ "name": name, "arguments": arguments })), CallOptions::default()).await
    }

    /// Asks for completions of an argument.
    pub async fn complete(&self, params: CompleteParams) -> Result<CompleteResult> {
        self.typed("completion/complete", Some(serde_json::to_value(params)?), CallOptions::default()).await
    }

    /// Sets the minimum level of log messages the server sends.
    pub async fn set_logging_level(&self, level: LoggingLevel) -> Result<()> {
        self.request("logging/setLevel", Some(json!({ "level": level })), CallOptions::default()).await.map(|_| ())
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28): the change notifications `filter`
    /// asks for, as `(method, params)` items, the first being
    /// `notifications/subscriptions/acknowledged` with what the server agreed to. The stream
    /// ends when the server ends it or the client closes; dropping the [`Subscription`]
    /// closes it, and so does leaving [`LISTEN_BACKLOG`] notifications unread. On a legacy session this is an error: change notifications reach
    /// [`ClientOptions::on_notification`] there (after [`Client::subscribe_resource`] for
    /// resources).
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription> {
        let (tx, rx) = mpsc::channel(LISTEN_BACKLOG);
        let (reply, answer) = oneshot::channel();
        self.tx.send(Cmd::Listen { filter, tx, reply }).map_err(|_| Error::Closed)?;
        let id = answer.await.map_err(|_| Error::Closed)??;
        Ok(Subscription { id, rx, cmds: self.tx.clone() })
    }

    /// Tells the server the roots changed.
    pub async fn notify_roots_changed(&self) -> Result<()> {
        self.notify("notifications/roots/list_changed", None).await
    }

    /// Closes the connection; a spawned server is shut down (stdin closed, then SIGTERM,
    /// then SIGKILL). Calls in flight fail with a connection-closed error: see
    /// [`Client::close_within`] to let them finish first.
    pub async fn close(&self) -> Result<()> {
        self.close_within(Duration::ZERO).await
    }

    /// Closes the connection once the calls in flight are answered, waiting at most `grace`
    /// (then those still unanswered fail with a connection-closed error). Calls made
    /// meanwhile are refused.
    pub async fn close_within(&self, grace: Duration) -> Result<()> {
        let _ = self.tx.send(Cmd::Close(grace));
        let done = self.done.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(done) = done {
            let _ = done.await;
        }
        if let Some(child) = &self.child {
            child.lock().await.shutdown(Duration::from_secs(2)).await?;
        }
        Ok(())
    }
}

/// An open `subscriptions/listen` stream ([`Client::listen`]): the change notifications it
/// carries, as `(method, params)`. Dropping it closes the stream.
#[derive(Debug)]
pub struct Subscription {
    id: OutboundId,
    rx: mpsc::Receiver<(String, Value)>,
    cmds: mpsc::UnboundedSender<Cmd>,
}

impl Subscription {
    /// The next notification; `None` once the stream ended.
    pub async fn next(&mut self) -> Option<(String, Value)> {
        self.rx.recv().await
    }
}

impl futures_util::Stream for Subscription {
    type Item = (String, Value);
    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx)
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let _ = self.cmds.send(Cmd::Unlisten(self.id));
    }
}

impl std::fmt::Debug for Cmd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Cmd")
    }
}

/// What a tool call came back with ([`Client::call_tool_task`]).
#[derive(Debug)]
pub enum ToolCall {
    /// Its result.
    Done(CallToolResult),
    /// The task running it.
    Task(TaskHandle),
}

/// A task (tasks extension), by id.
#[derive(Clone, Debug)]
pub struct TaskHandle {
    client: Client,
    id: String,
}

impl TaskHandle {
    /// Its id (all another client needs to follow it).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The task as it is now (`tasks/get`: `status`, `statusMessage`, `inputRequests`,
    /// `result` or `error`...).
    pub async fn status(&self) -> Result<Value> {
        self.client.request("tasks/get", Some(json!({ "taskId": self.id })), CallOptions::default()).await
    }

    /// Waits for its end and returns its result, serving its input requests through this
    /// client's handlers (`timeout`: the task is cancelled when it passes). A failed task is
    /// its error; a cancelled one -32800.
    pub async fn result(&self, timeout: Option<Duration>) -> Result<CallToolResult> {
        let (reply, rx) = oneshot::channel();
        self.client.tx.send(Cmd::FollowTask { task_id: self.id.clone(), timeout, reply }).map_err(|_| Error::Closed)?;
        let v = rx.await.map_err(|_| Error::Closed)??;
        serde_json::from_value(v).map_err(|e| Error::msg(format!("unexpected task result: {e}")))
    }

    /// Asks the server to cancel it (cooperatively: its handler is told).
    pub async fn cancel(&self) -> Result<()> {
        self.client
            .request("tasks/cancel", Some(json!({ "taskId": self.id })), CallOptions::default())
            .await
            .map(|_| ())
    }
}

/// A page of a paginated list result.
trait Page: DeserializeOwned {
    type Item;
    fn into_parts(self) -> (Vec<Self::Item>, Option<String>);
}

macro_rules! page {
    ($ty:ty, $item:ty, $field:ident) => {
        impl Page for $ty {
            type Item = $item;
            fn into_parts(self) -> (Vec<$item>, Option<String>) {
                (self.$field, self.next_cursor)
            }
        }
    };
}

page!(ListToolsResult, Tool, tools);
page!(ListResourcesResult, Resource, resources);
page!(ListResourceTemplatesResult, ResourceTemplate, resource_templates);
page!(ListPromptsResult, Prompt, prompts);
page!(ListSkillsResult, SkillEntry, skills);

/// One connection's session, through its handshake: the channel to its driver, and the
/// driver's end (why the connection ended).
struct Link {
    tx: mpsc::UnboundedSender<Cmd>,
    done: oneshot::Receiver<Ended>,
    server: InitializeResult,
    version: ProtocolVersion,
}

/// How a connection's driver ended: why, and the commands it was given but never read.
struct Ended {
    why: String,
    unsent: mpsc::UnboundedReceiver<Cmd>,
}

/// Starts a session's driver over a byte stream pair and performs the handshake.
async fn start_link<R, W>(reader: R, writer: W, options: ClientOptions) -> Result<Link>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::unbounded_channel();
    let (init_tx, init_rx) = oneshot::channel();
    let (done_tx, done) = oneshot::channel();
    let session = ClientSession::new(Arc::new(options.config()));
    tokio::spawn(async move {
        let mut rx = rx;
        let why = drive(session, reader, writer, &mut rx, options, init_tx).await;
        rx.close();
        let _ = done_tx.send(Ended { why, unsent: rx });
    });
    match init_rx.await {
        Ok(Ok((server, version))) => Ok(Link { tx, done, server, version }),
        Ok(Err(e)) => Err(e.into()),
        Err(_) => Err(Error::Closed),
    }
}

type ServeTask = BoxFuture<'static, (RequestKey, std::result::Result<Value, RpcError>)>;

fn serve_request(options: &ClientOptions, request: Request) -> ServeTask {
    fn wrap<T: serde::Serialize>(r: Result<T>) -> std::result::Result<Value, RpcError> {
        match r {
            Ok(v) => serde_json::to_value(v).map_err(RpcError::internal),
            Err(Error::Rpc(e)) => Err(e),
            Err(e) => Err(RpcError::internal(e)),
        }
    }
    let key = RequestKey(0);
    match request {
        Request::CreateMessage(p) => match options.sampling.clone() {
            Some(f) => Box::pin(async move { (key, wrap(f(*p).await)) }),
            None => Box::pin(async move { (key, Err(RpcError::method_not_found("sampling/createMessage"))) }),
        },
        Request::Elicit(p) => match options.elicitation.clone() {
            Some((f, _)) => Box::pin(async move { (key, wrap(f(*p).await)) }),
            None => Box::pin(async move { (key, Err(RpcError::method_not_found("elicitation/create"))) }),
        },
        Request::ListRoots => match options.roots.clone() {
            Some(f) => Box::pin(async move { (key, wrap(f().await.map(|roots| ListRootsResult { roots }))) }),
            None => Box::pin(async move { (key, Err(RpcError::method_not_found("roots/list"))) }),
        },
        _ => Box::pin(async move { (key, Err(RpcError::method_not_found("server request sent to a client"))) }),
    }
}

async fn drive<R, W>(
    mut session: ClientSession,
    mut reader: R,
    mut writer: W,
    rx: &mut mpsc::UnboundedReceiver<Cmd>,
    options: ClientOptions,
    init: oneshot::Sender<std::result::Result<(InitializeResult, ProtocolVersion), RpcError>>,
) -> String
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    // Why the connection ended (for the reconnect policy's events).
    let mut why: Option<String> = None;
    let mut init = Some(init);
    let init_id = session.initialize(Instant::now());
    let mut waiters: HashMap<OutboundId, (Reply, Option<ProgressFn>)> = HashMap::new();
    let mut tasks: FuturesUnordered<ServeTask> = FuturesUnordered::new();
    let mut running: HashMap<RequestKey, futures_util::future::AbortHandle> = HashMap::new();
    let mut listeners: HashMap<OutboundId, Listener> = HashMap::new();
    let mut buf = vec![0u8; 64 * 1024];
    let mut out = Vec::new();
    let mut eof = false;
    let mut closing = false;
    // Closing once the calls in flight are answered (Client::close_within), until then.
    let mut draining: Option<Instant> = None;
    loop {
        while let Some(ev) = session.poll_event() {
            match ev {
                Event::Initialized => {
                    if let (Some(tx), Some(server), Some(v)) =
                        (init.take(), session.server(), session.protocol_version())
                    {
                        let _ = tx.send(Ok((server.clone(), v)));
                    }
                }
                Event::Response { id, result } if id == init_id => {
                    if let Some(tx) = init.take() {
                        let _ = tx.send(Err(result.err().unwrap_or_else(|| RpcError::internal("handshake failed"))));
                    }
                }
                Event::Response { id, result } => {
                    if let Some((w, _)) = waiters.remove(&id) {
                        let _ = w.send(result);
                    } else {
                        // A listen stream's answer: the stream ended.
                        listeners.remove(&id);
                    }
                }
                Event::Progress { id, progress, total, message } => {
                    if let Some((_, Some(cb))) = waiters.get(&id) {
                        cb(progress, total, message.as_deref());
                    }
                }
                Event::Notification { method, params, subscription } => {
                    if let Some(id) = subscription.filter(|id| listeners.contains_key(id)) {
                        let full = listeners.get(&id).is_some_and(|l| {
                            matches!(
                                l.try_send((method.clone(), params.clone().unwrap_or(Value::Null))),
                                Err(mpsc::error::TrySendError::Full(_))
                            )
                        });
                        if full {
                            // Nobody reads it: closed (the stream ends), never buffered without limit.
                            listeners.remove(&id);
                            session.cancel_request(id, Some("the application did not read the stream"), Instant::now());
                        }
                        continue;
                    }
                    if let Some(cb) = &options.notification {
                        cb(&method, params.as_ref().unwrap_or(&Value::Null));
                    }
                }
                Event::Invoke(inv) => {
                    let key = inv.key;
                    let (handle, reg) = futures_util::future::AbortHandle::new_pair();
                    // A handler that panics (before or after returning its future) answers
                    // -32603 instead of taking the connection down.
                    let panicked = |p| RpcError::internal(format!("handler panicked: {}", panic_message(p)));
                    let fut = match std::panic::catch_unwind(AssertUnwindSafe(|| serve_request(&options, inv.request)))
                    {
                        Ok(fut) => fut,
                        Err(p) => {
                            let e = panicked(p);
                            Box::pin(async move { (key, Err(e)) })
                        }
                    };
                    running.insert(key, handle);
                    tasks.push(Box::pin(async move {
                        match futures_util::future::Abortable::new(AssertUnwindSafe(fut).catch_unwind(), reg).await {
                            Ok(Ok((_, r))) => (key, r),
                            Ok(Err(p)) => (key, Err(panicked(p))),
                            Err(_) => (key, Err(RpcError::internal("cancelled"))),
                        }
                    }));
                }
                Event::Cancelled { key, .. } => {
                    if let Some(h) = running.remove(&key) {
                        h.abort();
                    }
                }
                // The server stopped answering pings: the session closed itself (its pending
                // requests failed, saying so); the connection ends as at end of input.
                Event::Lost { reason } => {
                    eof = true;
                    why = Some(reason);
                }
            }
        }
        if draining.is_some_and(|at| waiters.is_empty() || Instant::now() >= at) {
            draining = None;
            closing = true;
            session.close();
        }
        session.take_output(&mut out);
        if !out.is_empty() {
            if let Err(e) = writer.write_all(&out).await.and(writer.flush().await) {
                session.close();
                eof = true;
                why.get_or_insert_with(|| format!("writing to the server failed: {e}"));
            }
            out.clear();
        }
        if closing || (eof && session.pending_requests() == 0) {
            if !closing {
                session.close();
            }
            while let Some(ev) = session.poll_event() {
                if let Event::Response { id, result } = ev {
                    if let Some((w, _)) = waiters.remove(&id) {
                        let _ = w.send(result);
                    }
                }
            }
            for (_, (w, _)) in waiters.drain() {
                let _ = w.send(Err(RpcError::new(crate::jsonrpc::codes::CONNECTION_CLOSED, "connection closed")));
            }
            if let Some(tx) = init.take() {
                let _ = tx.send(Err(RpcError::new(
                    crate::jsonrpc::codes::CONNECTION_CLOSED,
                    "the server closed the connection during the handshake",
                )));
            }
            let _ = writer.shutdown().await;
            if closing && why.is_none() {
                return "the client closed the connection".into();
            }
            let why = why.unwrap_or_else(|| "the server closed the connection".into());
            crate::metrics::client_event("disconnected", &why);
            return why;
        }
        let deadline = [session.next_deadline(), draining].into_iter().flatten().min();
        tokio::select! {
            biased;
            Some((key, result)) = tasks.next(), if !tasks.is_empty() => {
                running.remove(&key);
                session.respond(key, result, Instant::now());
            }
            n = reader.read(&mut buf), if !eof => match n {
                Ok(0) => { eof = true; session.close(); }
                Err(e) => { eof = true; session.close(); why.get_or_insert_with(|| format!("reading from the server failed: {e}")); }
                Ok(n) => session.feed(&buf[..n], Instant::now()),
            },
            cmd = rx.recv() => match cmd {
                None => { closing = true; session.close(); }
                Some(Cmd::Close(grace)) => {
                    let at = Instant::now() + grace;
                    draining = Some(draining.map_or(at, |d| d.min(at)));
                }
                Some(Cmd::Request { reply, .. } | Cmd::FollowTask { reply, .. }) if draining.is_some() => {
                    let _ = reply.send(Err(RpcError::new(crate::jsonrpc::codes::CONNECTION_CLOSED, "the client is closing")));
                }
                Some(Cmd::Request { method, params, opts, reply }) => {
                    let ro = RequestOptions {
                        timeout: opts.timeout,
                        reset_timeout_on_progress: opts.reset_timeout_on_progress,
                        max_total_timeout: opts.max_total_timeout,
                        progress: opts.on_progress.is_some(),
                        related: None,
                        follow_task: opts.follow_task,
                    };
                    match session.request(&method, params, &ro, Instant::now()) {
                        Ok(id) => { waiters.insert(id, (reply, opts.on_progress)); }
                        Err(e) => { let _ = reply.send(Err(e)); }
                    }
                }
                Some(Cmd::FollowTask { task_id, timeout, reply }) => match session.follow_task(&task_id, timeout, Instant::now()) {
                    Ok(id) => { waiters.insert(id, (reply, None)); }
                    Err(e) => { let _ = reply.send(Err(e)); }
                },
                Some(Cmd::Notify { method, params, reply }) => { let _ = reply.send(session.notify(&method, params)); }
                Some(Cmd::Listen { filter, tx, reply }) => match session.listen(&filter, Instant::now()) {
                    Ok(id) => { listeners.insert(id, tx); let _ = reply.send(Ok(id)); }
                    Err(e) => { let _ = reply.send(Err(e)); }
                },
                Some(Cmd::Unlisten(id)) => {
                    if listeners.remove(&id).is_some() {
                        session.cancel_request(id, Some("the subscription was dropped"), Instant::now());
                    }
                }
            },
            _ = async { if let Some(d) = deadline { tokio::time::sleep_until(d.into()).await } }, if deadline.is_some() => {
                session.handle_timeout(Instant::now());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn over_http_the_probe_waits_as_long_as_any_request() {
        // A silent stdio server is a legacy one after 10 s; an HTTP server answers at once,
        // and behind OAuth the probe holds the authorization (Client::http sets over_http).
        let stdio = ClientOptions::default();
        assert_eq!(stdio.config().probe_timeout, Duration::from_secs(10));
        let mut http = ClientOptions { timeout: Some(Duration::from_secs(90)), ..ClientOptions::default() };
        http.over_http = true;
        assert_eq!(http.config().probe_timeout, Duration::from_secs(90));
    }
}
