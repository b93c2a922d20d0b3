//! What a handler gets besides its arguments: the [`Context`] (progress, logging,
//! requests to the client, cancellation), and the commands it sends to the session's driver.

use crate::engine::{InputRequired, RequestContext, RequestKey, RequestOptions};
use crate::error::{Error, Result};
use crate::jsonrpc::{RequestId, RpcError};
use crate::protocol::*;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot, Notify};

/// Commands a [`Context`] sends to the session driver.
pub(crate) enum Command {
    Progress {
        key: RequestKey,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
        reply: oneshot::Sender<std::result::Result<bool, RpcError>>,
    },
    Log {
        level: LoggingLevel,
        logger: Option<String>,
        data: Value,
        related: Option<RequestKey>,
    },
    /// A request to the client on behalf of a call (through
    /// [`crate::engine::ServerSession::request_input`]).
    Request {
        key: RequestKey,
        input_key: Option<String>,
        method: String,
        params: Option<Value>,
        opts: RequestOptions,
        reply: oneshot::Sender<std::result::Result<Answer, RpcError>>,
    },
    ElicitationComplete(String),
    /// Close the HTTP SSE connection the call answers on (the client resumes it).
    CloseStream(RequestKey),
    /// Change what the caller sees (`Context::enable_components`, ...).
    Visibility {
        change: crate::catalogue::visibility::VisibilityChange,
        reply: oneshot::Sender<std::result::Result<(), RpcError>>,
    },
}

/// The answer to [`Command::Request`].
#[derive(Debug)]
pub(crate) enum Answer {
    /// The client's result.
    Value(Value),
    /// A modern call needs this input first: the handler stops; it runs again on the retry.
    Required,
}

/// Where a handler's call ends when it needs input it does not have (2026-07-28): the
/// runner of its future watches `required` after every poll.
#[derive(Default)]
pub(crate) struct InputSlot {
    pub required: AtomicBool,
    /// What a handler returned itself (the low-level form).
    pub own: std::sync::Mutex<Option<InputRequired>>,
}

impl InputSlot {
    /// The outcome of a call that stopped for input.
    pub(crate) fn outcome(&self) -> Option<crate::engine::Outcome> {
        if !self.required.load(Ordering::Acquire) {
            return None;
        }
        let own = self.own.lock().unwrap_or_else(|e| e.into_inner()).take().unwrap_or_default();
        Some(crate::engine::Outcome::InputRequired(own))
    }
}

/// A session that applies a [`Context`]'s commands where they are sent (an HTTP session of
/// the engine's service, a host's stream session through its inbox): the transports
/// implement it, so this floor needs none of them.
pub(crate) trait CommandSink: Send + Sync {
    /// Applies `cmd`; fails when the session is closed.
    fn apply(&self, cmd: Command) -> std::result::Result<(), ()>;
}

/// Where a [`Context`] sends its commands: the channel of a stream driver's task, or a
/// session that applies them at once.
#[derive(Clone)]
pub(crate) enum Sink {
    Channel(mpsc::UnboundedSender<Command>),
    /// Weak: a handler that outlives its session must not keep it.
    Session(std::sync::Weak<dyn CommandSink>),
}

impl Sink {
    /// Fails when the session is gone.
    pub(crate) fn send(&self, cmd: Command) -> std::result::Result<(), ()> {
        match self {
            Sink::Channel(tx) => tx.send(cmd).map_err(|_| ()),
            Sink::Session(session) => match session.upgrade() {
                Some(s) => s.apply(cmd),
                None => Err(()),
            },
        }
    }
}

/// Facts about the connected client, shared by every handler context of a session.
#[derive(Debug, Default)]
pub struct PeerInfo {
    /// The client's name and version.
    pub client: Option<Implementation>,
    /// Its capabilities.
    pub capabilities: ClientCapabilities,
    /// The negotiated revision.
    pub protocol_version: Option<ProtocolVersion>,
}

impl PeerInfo {
    /// What `session` knows of its client now.
    pub(crate) fn of(session: &crate::engine::ServerSession) -> Self {
        PeerInfo {
            client: session.client_info().cloned(),
            capabilities: session.client_capabilities().clone(),
            protocol_version: session.protocol_version(),
        }
    }
}

#[derive(Default)]
pub(crate) struct CancelState {
    pub flag: AtomicBool,
    pub notify: Notify,
}

impl CancelState {
    /// Cancels: `is_cancelled` turns true and `cancelled()` resolves.
    pub(crate) fn cancel(&self) {
        self.flag.store(true, Ordering::Release);
        self.notify.notify_waiters();
    }
}

/// What a handler gets besides its arguments: progress, logging, requests to the client
/// (sampling, elicitation, roots), the request id, the client, and cancellation.
#[derive(Clone)]
pub struct Context {
    pub(crate) key: RequestKey,
    pub(crate) id: RequestId,
    pub(crate) meta: Option<Meta>,
    pub(crate) tx: Sink,
    pub(crate) peer: Arc<PeerInfo>,
    pub(crate) cancel: Arc<CancelState>,
    /// A 2026-07-28 request's own context.
    pub(crate) request: Option<Arc<RequestContext>>,
    /// Where the call stops for input (2026-07-28 requests only).
    pub(crate) input: Option<Arc<InputSlot>>,
    /// The HTTP request the call came in.
    pub(crate) origin: Option<Arc<crate::engine::Origin>>,
    /// The task this call runs as, or may become (tasks extension).
    pub(crate) task: Option<Arc<super::tasks::TaskBinding>>,
    /// What middleware set for this request ([`super::MiddlewareContext::set_state`]).
    pub(crate) state: Option<super::middleware::State>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context").field("request_id", &self.id).finish()
    }
}

impl Context {
    /// The context of one invocation.
    pub(crate) fn new(
        inv: &crate::engine::Invocation,
        tx: Sink,
        peer: Arc<PeerInfo>,
        cancel: Arc<CancelState>,
    ) -> Self {
        Context {
            key: inv.key,
            id: inv.id.clone(),
            meta: inv.meta.clone(),
            tx,
            peer,
            cancel,
            input: inv.context.as_ref().map(|_| Arc::new(InputSlot::default())),
            request: inv.context.clone(),
            origin: inv.origin.clone(),
            task: None,
            state: None,
        }
    }

    /// A value middleware set for this request
    /// ([`MiddlewareContext::set_state`](super::MiddlewareContext::set_state)).
    pub fn get_state(&self, key: &str) -> Option<Value> {
        self.state.as_ref()?.lock().unwrap_or_else(|e| e.into_inner()).get(key).cloned()
    }

    /// Sends a command: to the task once the call is one, else to the session.
    fn send(&self, cmd: Command) -> std::result::Result<(), ()> {
        match self.task.as_ref().filter(|b| b.task_id().is_some()) {
            Some(b) => {
                b.send(cmd);
                Ok(())
            }
            None => self.tx.send(cmd),
        }
    }

    /// The id of the task this call runs as (tasks extension), if it is one.
    pub fn task_id(&self) -> Option<&str> {
        self.task.as_ref().and_then(|b| b.task_id())
    }

    /// Turns this call into a task, when the tool allows it
    /// ([`TaskMode::Manual`](crate::catalogue::TaskMode::Manual)) and the client declared
    /// the tasks extension: the client gets the task at once, and the handler goes on,
    /// detached from the request; from then on progress becomes the task's status message
    /// and requests to the client become the task's input requests. `Ok(false)` when the
    /// call cannot become a task (it goes on as a plain call). Typically called after the
    /// input the call needs up front (multi round-trip requests), before the long work.
    pub async fn start_task(&self) -> Result<bool> {
        match &self.task {
            Some(b) => {
                b.start(&self.cancel).await.map_err(Error::Rpc)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The HTTP headers of the request (`None` over stdio). The `Authorization` and `DPoP`
    /// headers of a verified token are left out: see [`Context::auth`].
    pub fn headers(&self) -> Option<&http::HeaderMap> {
        self.origin.as_ref().map(|o| &o.headers)
    }
    /// The first value of HTTP header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.origin.as_ref().and_then(|o| o.header(name))
    }
    /// The `Mcp-Session-Id` of a legacy HTTP session (`None` over stdio, in stateless mode
    /// and at 2026-07-28).
    pub fn session_id(&self) -> Option<&str> {
        self.origin.as_ref().and_then(|o| o.session_id.as_deref())
    }
    /// The client's IP address over HTTP (the connection's peer, or what the trusted
    /// proxy's header says); `None` over stdio and in memory.
    pub fn client_address(&self) -> Option<std::net::IpAddr> {
        self.origin.as_ref().and_then(|o| o.client_address)
    }
    /// Who the request's access token speaks for (subject, client, scopes, claims), when the
    /// HTTP server verifies tokens (its `auth` option).
    pub fn auth(&self) -> Option<&crate::auth::server::AuthInfo> {
        self.origin.as_ref().and_then(|o| o.auth.as_deref())
    }

    /// The JSON-RPC id of the request being served.
    pub fn request_id(&self) -> &RequestId {
        &self.id
    }
    /// The request's `_meta`.
    pub fn meta(&self) -> Option<&Meta> {
        self.meta.as_ref()
    }
    /// The W3C trace context the caller sent in `_meta` (`traceparent`, `tracestate`,
    /// `baggage`), when it sent a valid one. Carry it on with a request of your own:
    /// `CallOptions { meta: ctx.trace_context().map(|t| t.to_meta()), ..Default::default() }`.
    pub fn trace_context(&self) -> Option<crate::trace::TraceContext> {
        self.meta.as_ref().and_then(crate::trace::TraceContext::from_meta)
    }
    /// The client's name and version (of this request, at 2026-07-28; of the session's
    /// handshake before).
    pub fn client_info(&self) -> Option<&Implementation> {
        match &self.request {
            Some(r) => r.client_info.as_deref(),
            None => self.peer.client.as_ref(),
        }
    }
    /// The client's capabilities (declared with this request at 2026-07-28).
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        match &self.request {
            Some(r) => &r.client_capabilities,
            None => &self.peer.capabilities,
        }
    }
    /// The settings of extension `id` when the client declared it (with this request at
    /// 2026-07-28, at `initialize` before); answer [`crate::engine::missing_extension`] when a
    /// request cannot be served without it.
    pub fn client_extension(&self, id: &str) -> Option<&Value> {
        self.client_capabilities().extensions.as_ref().and_then(|e| e.get(id))
    }
    /// The client's settings of extension `id`, or the -32021 error naming it
    /// (`data.requiredCapabilities.extensions`) to answer with when the client did not
    /// declare it: `let settings = ctx.require_extension("com.example/widgets")?;`.
    pub fn require_extension(&self, id: &str) -> Result<&Value> {
        self.client_extension(id).ok_or_else(|| Error::Rpc(crate::engine::missing_extension(id)))
    }
    /// The revision this request speaks.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        match &self.request {
            Some(r) => Some(r.version),
            None => self.peer.protocol_version,
        }
    }
    /// The context a 2026-07-28 request carries (`None` in a legacy session).
    pub fn request_context(&self) -> Option<&RequestContext> {
        self.request.as_deref()
    }
    /// The client's answers to input requests so far (2026-07-28; the low-level form of
    /// multi round-trip requests: most handlers just await [`Context::elicit`] and friends).
    pub fn input_responses(&self) -> Option<&serde_json::Map<String, Value>> {
        self.request.as_ref().and_then(|r| r.input_responses.as_ref())
    }
    /// The state this handler returned with its own `input_required` result in the
    /// previous round ([`Context::input_required`]), now that the client retried.
    pub fn request_state(&self) -> Option<&str> {
        self.request.as_ref().and_then(|r| r.request_state.as_deref())
    }
    /// Whether the client cancelled this request. (The handler's future is also dropped at
    /// its next await point; this is for work spawned elsewhere.)
    pub fn is_cancelled(&self) -> bool {
        self.cancel.flag.load(Ordering::Acquire)
    }
    /// Resolves when the client cancels this request.
    pub async fn cancelled(&self) {
        loop {
            let notified = self.cancel.notify.notified();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }

    /// Reports progress; `Ok(false)` when the client asked for none. Values must increase.
    pub async fn report_progress(&self, progress: f64, total: Option<f64>, message: Option<&str>) -> Result<bool> {
        let (reply, rx) = oneshot::channel();
        self.send(Command::Progress { key: self.key, progress, total, message: message.map(str::to_string), reply })
            .map_err(|_| Error::Closed)?;
        rx.await.map_err(|_| Error::Closed)?.map_err(Error::Request)
    }

    /// Sends a log message tied to this request (filtered by the client's level).
    pub fn log(&self, level: LoggingLevel, logger: Option<&str>, data: impl Into<Value>) {
        let _ = self.send(Command::Log {
            level,
            logger: logger.map(str::to_string),
            data: data.into(),
            related: Some(self.key),
        });
    }

    /// Sends a request to the client on behalf of this request and awaits the answer.
    ///
    /// Both eras: in a legacy session the request goes to the client now. A 2026-07-28
    /// request has no channel back while it runs: if the client has not answered already
    /// (in `inputResponses`), this call never returns; the handler is stopped, the call
    /// ends with an `input_required` result, and when the client retries with its answer
    /// the handler runs again **from the start**, and this call returns the answer. Code
    /// before it therefore runs once per round: keep side effects after the inputs.
    pub async fn request(&self, method: &str, params: Option<Value>, timeout: Option<Duration>) -> Result<Value> {
        self.request_input(None, method, params, timeout).await
    }

    /// [`Context::request`] under a key of your choosing in a 2026-07-28 `inputRequests`
    /// map (by default the method's short name and a call counter: `elicitation_1`).
    pub async fn request_input(
        &self,
        input_key: Option<&str>,
        method: &str,
        params: Option<Value>,
        timeout: Option<Duration>,
    ) -> Result<Value> {
        let (reply, rx) = oneshot::channel();
        let opts = RequestOptions { timeout, ..Default::default() };
        self.send(Command::Request {
            key: self.key,
            input_key: input_key.map(str::to_string),
            method: method.to_string(),
            params,
            opts,
            reply,
        })
        .map_err(|_| Error::Closed)?;
        match rx.await {
            Err(_) => Err(Error::Closed),
            Ok(Ok(Answer::Value(v))) => Ok(v),
            Ok(Ok(Answer::Required)) => match &self.input {
                Some(slot) => {
                    slot.required.store(true, Ordering::Release);
                    std::future::pending().await
                }
                None => Err(Error::Request(RpcError::internal("input required outside a 2026-07-28 request"))),
            },
            Ok(Err(e)) if e.code == crate::jsonrpc::codes::CONNECTION_CLOSED => Err(Error::Closed),
            // The request itself is refused (the spec's -32021), not only this input.
            Ok(Err(e)) if e.code == crate::jsonrpc::codes::MISSING_REQUIRED_CLIENT_CAPABILITY => Err(Error::Rpc(e)),
            Ok(Err(e)) => Err(Error::Request(e)),
        }
    }

    /// Ends this call with your own `input_required` result (2026-07-28, the low-level
    /// form of multi round-trip requests): input requests by key, and state of yours that
    /// comes back sealed on the retry as [`Context::request_state`]. Never returns in a
    /// 2026-07-28 request; in a legacy session it returns the error to send instead (use
    /// [`Context::elicit`] and friends, which work in both eras).
    pub async fn input_required(&self, own: InputRequired) -> Error {
        let Some(slot) = &self.input else {
            let v = self.peer.protocol_version.unwrap_or(ProtocolVersion::LATEST_LEGACY);
            return Error::Rpc(crate::engine::legacy_input_required(v));
        };
        *slot.own.lock().unwrap_or_else(|e| e.into_inner()) = Some(own);
        slot.required.store(true, Ordering::Release);
        std::future::pending().await
    }

    /// Asks the user for input through the client (form or URL mode). See
    /// [`Context::request`] for how this works at 2026-07-28.
    pub async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult> {
        let v = self.request("elicitation/create", Some(params.into_value()), None).await?;
        Ok(serde_json::from_value(v)?)
    }

    /// Tells the client a URL-mode elicitation finished.
    pub fn elicitation_complete(&self, elicitation_id: &str) {
        let _ = self.send(Command::ElicitationComplete(elicitation_id.to_string()));
    }

    /// Closes the SSE connection this call answers on, after a `retry` hint; the client
    /// reconnects with `Last-Event-ID` and gets the rest (2025-11-25 SSE polling). Does
    /// nothing on stdio or when the call has no resumable stream.
    pub fn close_sse_stream(&self) {
        let _ = self.send(Command::CloseStream(self.key));
    }

    /// Asks the client's model for a completion.
    pub async fn sample(&self, params: CreateMessageParams) -> Result<CreateMessageResult> {
        let v = self.request("sampling/createMessage", Some(serde_json::to_value(params)?), None).await?;
        Ok(serde_json::from_value(v)?)
    }

    /// Asks the client for its roots.
    pub async fn list_roots(&self) -> Result<Vec<Root>> {
        let v = self.request("roots/list", None, None).await?;
        Ok(serde_json::from_value::<ListRootsResult>(v)?.roots)
    }

    /// Shows this caller (and no one else) the components `filter` matches, over the
    /// server's rules: the caller is the legacy session (every replica applies its rules),
    /// at 2026-07-28 over stdio the connection, and over HTTP without a session the subject
    /// of the request's access token (its rules kept for its next requests: by every
    /// replica with a store). It is told of each list it now sees differently
    /// (`list_changed`). Fails for a request without any of these.
    ///
    /// ```no_run
    /// # async fn f(ctx: hypermcp::Context) -> hypermcp::Result<()> {
    /// use hypermcp::catalogue::visibility::Filter;
    /// ctx.enable_components(Filter::tags(["premium"])).await?;
    /// # Ok(()) }
    /// ```
    pub async fn enable_components(&self, filter: crate::catalogue::visibility::Filter) -> Result<()> {
        self.change_visibility(crate::catalogue::visibility::VisibilityChange::Enable(filter)).await
    }

    /// Hides from this caller the components `filter` matches (see
    /// [`Context::enable_components`]).
    pub async fn disable_components(&self, filter: crate::catalogue::visibility::Filter) -> Result<()> {
        self.change_visibility(crate::catalogue::visibility::VisibilityChange::Disable(filter)).await
    }

    /// Drops this caller's own rules: it sees what the server's rules show.
    pub async fn reset_visibility(&self) -> Result<()> {
        self.change_visibility(crate::catalogue::visibility::VisibilityChange::Reset).await
    }

    async fn change_visibility(&self, change: crate::catalogue::visibility::VisibilityChange) -> Result<()> {
        let (reply, rx) = oneshot::channel();
        self.send(Command::Visibility { change, reply }).map_err(|_| Error::Closed)?;
        rx.await.map_err(|_| Error::Closed)?.map_err(Error::Request)
    }

    /// Pings the client.
    pub async fn ping(&self) -> Result<()> {
        self.request("ping", None, None).await.map(|_| ())
    }
}
