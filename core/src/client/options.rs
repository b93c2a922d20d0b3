//! [`ClientOptions`]: how a client presents itself (name, revisions, mode, timeouts) and the
//! handlers of the server's requests and notifications, made into the engine's
//! [`ClientConfig`].

use super::{reconnect, ConnectionEvent, Interceptor};
use crate::engine::{ClientConfig, ClientMode};
use crate::error::Result;
use crate::protocol::*;
use crate::transport::child::StderrCallback;
use futures_util::future::BoxFuture;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::Duration;

#[cfg(doc)]
use super::Client;

pub(super) type SamplingFn =
    Arc<dyn Fn(CreateMessageParams) -> BoxFuture<'static, Result<CreateMessageResult>> + Send + Sync>;
pub(super) type ElicitFn = Arc<dyn Fn(ElicitParams) -> BoxFuture<'static, Result<ElicitResult>> + Send + Sync>;
pub(super) type RootsFn = Arc<dyn Fn() -> BoxFuture<'static, Result<Vec<Root>>> + Send + Sync>;
pub(super) type NotifyFn = Arc<dyn Fn(&str, &Value) + Send + Sync>;

/// How a client presents itself and handles the server's requests.
#[derive(Clone)]
pub struct ClientOptions {
    /// Name and version.
    pub info: Implementation,
    /// The legacy revision `initialize` asks for.
    pub protocol_version: ProtocolVersion,
    /// `Auto` (default): 2026-07-28 when the server speaks it (probed with
    /// `server/discover`), else the `initialize` handshake; `Modern`; `Legacy`.
    pub mode: ClientMode,
    /// The log level 2026-07-28 requests carry until [`Client::set_logging_level`]; by
    /// default `Debug` when a notification handler is set (a legacy server logs unasked, a
    /// modern one only for requests naming a level), else none.
    pub log_level: Option<LoggingLevel>,
    /// Default per-request timeout.
    pub timeout: Option<Duration>,
    /// Legacy sessions: send a keep-alive `ping` this long after the last was answered; one
    /// unanswered for as long again means the server is gone (a frozen process, a dead
    /// network path): the connection is closed and pending calls fail saying so. Default
    /// none.
    pub ping_interval: Option<Duration>,
    pub(super) sampling: Option<SamplingFn>,
    pub(super) elicitation: Option<(ElicitFn, bool)>,
    pub(super) roots: Option<RootsFn>,
    pub(super) notification: Option<NotifyFn>,
    pub(super) stderr: Option<StderrCallback>,
    pub(super) extensions: Map<String, Value>,
    pub(super) reconnect: Option<crate::engine::Reconnect>,
    pub(super) on_connection: Option<reconnect::ConnectionFn>,
    /// Request interceptors, in order ([`ClientOptions::interceptor`]).
    pub(super) interceptors: Vec<Arc<dyn Interceptor>>,
    /// Over HTTP: the probe waits as long as any request ([`ClientConfig::probe_as_request`]).
    pub(crate) over_http: bool,
}

impl std::fmt::Debug for ClientOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientOptions").field("info", &self.info).finish()
    }
}

impl Default for ClientOptions {
    fn default() -> Self {
        ClientOptions {
            info: Implementation::new("hypermcp-client", env!("CARGO_PKG_VERSION")),
            protocol_version: ProtocolVersion::LATEST_LEGACY,
            mode: ClientMode::Auto,
            log_level: None,
            timeout: Some(Duration::from_secs(60)),
            ping_interval: None,
            sampling: None,
            elicitation: None,
            roots: None,
            notification: None,
            stderr: None,
            extensions: Map::new(),
            reconnect: None,
            on_connection: None,
            interceptors: Vec::new(),
            over_http: false,
        }
    }
}

impl ClientOptions {
    /// Options with a client name and version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        ClientOptions { info: Implementation::new(name, version), ..Default::default() }
    }
    /// Chooses the era: [`ClientMode::Auto`] (the default), `Modern` or `Legacy`.
    pub fn mode(mut self, mode: ClientMode) -> Self {
        self.mode = mode;
        self
    }
    /// Sends keep-alive pings on legacy sessions (see [`ClientOptions::ping_interval`]).
    pub fn ping_interval(mut self, interval: Duration) -> Self {
        self.ping_interval = Some(interval);
        self
    }
    /// Answers `sampling/createMessage` (declares the sampling capability, with tools).
    pub fn on_sampling<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn(CreateMessageParams) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<CreateMessageResult>> + Send + 'static,
    {
        self.sampling = Some(Arc::new(move |p| Box::pin(f(p))));
        self
    }
    /// Answers `elicitation/create` (declares form mode, and URL mode if `url` is true).
    pub fn on_elicitation<F, Fut>(mut self, url: bool, f: F) -> Self
    where
        F: Fn(ElicitParams) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<ElicitResult>> + Send + 'static,
    {
        self.elicitation = Some((Arc::new(move |p| Box::pin(f(p))), url));
        self
    }
    /// Answers `roots/list` (declares roots with `listChanged`).
    pub fn on_roots<F, Fut>(mut self, f: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<Vec<Root>>> + Send + 'static,
    {
        self.roots = Some(Arc::new(move || Box::pin(f())));
        self
    }
    /// Receives every notification: log messages (`notifications/message`), list changes,
    /// resource updates, elicitation completions.
    pub fn on_notification(mut self, f: impl Fn(&str, &Value) + Send + Sync + 'static) -> Self {
        self.notification = Some(Arc::new(f));
        self
    }
    /// Adds a request interceptor inside those added before: every request the client sends
    /// ([`Client::request`] and every method built on it) passes it.
    pub fn interceptor(mut self, link: impl Interceptor) -> Self {
        self.interceptors.push(Arc::new(link));
        self
    }
    /// Declares an extension this client supports, with its settings (`json!({})` for none):
    /// sent in its capabilities (with every request at 2026-07-28, at `initialize` before).
    /// The server's are in `client.server().capabilities.extensions`.
    pub fn extension(mut self, id: impl Into<String>, settings: Value) -> Self {
        self.extensions.insert(id.into(), settings);
        self
    }
    /// Declares the tasks extension (`io.modelcontextprotocol/tasks`): calls a server runs
    /// as tasks are followed to their end (see [`Client::call_tool_task`]).
    pub fn tasks(self) -> Self {
        self.extension(crate::store::tasks::TASKS_EXTENSION, Value::Object(Default::default()))
    }
    /// Declares MCP Apps (`io.modelcontextprotocol/ui`, `mimeTypes: ["text/html;profile=mcp-app"]`):
    /// this client renders apps.
    pub fn apps(self) -> Self {
        self.extension(crate::protocol::UI_EXTENSION, serde_json::json!({ "mimeTypes": [crate::protocol::APP_MIME] }))
    }
    /// Brings the client back when its server goes away after the handshake
    /// ([`Client::spawn`] and [`Client::spawn_command`]: the server is spawned again;
    /// [`Client::http`]: a new session is opened, after a restart or a `404`). Calls in flight
    /// fail with a connection-closed error; calls made while reconnecting wait for the new
    /// session within their timeout (or fail at once, per [`crate::engine::Reconnect::wait`]);
    /// once the tries are spent the client closes. Listen streams end. [`Client::server`]
    /// stays the first handshake's answer.
    pub fn reconnect(mut self, policy: crate::engine::Reconnect) -> Self {
        self.reconnect = Some(policy);
        self
    }
    /// Told of each step of the connection (lost, reconnecting, back, given up).
    pub fn on_connection(mut self, f: impl Fn(&ConnectionEvent) + Send + Sync + 'static) -> Self {
        self.on_connection = Some(Arc::new(f));
        self
    }
    /// Receives each stderr line of a spawned server.
    pub fn on_stderr(mut self, f: impl Fn(&str) + Send + Sync + 'static) -> Self {
        self.stderr = Some(Arc::new(f));
        self
    }

    pub(crate) fn reconnect_policy(&self) -> Option<crate::engine::Reconnect> {
        self.reconnect.clone()
    }

    pub(super) fn config(&self) -> ClientConfig {
        let mut c = ClientConfig::new(self.info.clone());
        c.protocol_version = self.protocol_version;
        c.mode = self.mode;
        c.log_level = self.log_level.or(self.notification.as_ref().map(|_| LoggingLevel::Debug));
        c.request_timeout = self.timeout;
        c.ping_interval = self.ping_interval.filter(|d| !d.is_zero());
        if self.over_http {
            c.probe_as_request();
        }
        let features = crate::engine::ClientFeatures {
            sampling: self.sampling.is_some(),
            elicitation: self.elicitation.is_some(),
            elicitation_url: self.elicitation.as_ref().is_some_and(|(_, url)| *url),
            roots: self.roots.is_some(),
            extensions: self.extensions.clone(),
            ..Default::default()
        };
        // Only a URL mode without a handler is refused, and these options cannot say that.
        c.capabilities = features.capabilities().unwrap_or_default();
        c
    }
}
