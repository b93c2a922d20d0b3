//! The client side: one `ClientSession` per connection (sans-IO).

use crate::bridge::{output, parse, parse_json, poll_events_json, UNIT};
use crate::errors::{option_err, rpc_err};
use hypermcp::engine::{self, RequestKey, RequestOptions};
use hypermcp::transport::host::options::ClientSettings;
use hypermcp::RpcError;
use napi::bindgen_prelude::Buffer;
use napi::Env;
use napi_derive::napi;
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

/// The client end of one connection.
#[napi]
pub struct ClientSession {
    inner: engine::ClientSession,
}

#[napi]
impl ClientSession {
    /// `features` as JSON text (what the client answers and the extensions it names,
    /// `engine::ClientFeatures`: its capabilities follow); `timeout`: the default request timeout in ms (null: none);
    /// `mode`: `auto` (default), `modern` or `legacy`; `http`: the connection is HTTP (the
    /// `server/discover` probe then waits as long as any request).
    #[napi(constructor)]
    #[allow(clippy::too_many_arguments)] // the JS constructor's positional arguments, in order
    pub fn new(
        env: Env,
        name: String,
        version: String,
        features: Option<String>,
        protocol_version: Option<String>,
        timeout: Option<f64>,
        mode: Option<String>,
        log_level: Option<String>,
        ping_interval: Option<f64>,
        http: Option<bool>,
    ) -> napi::Result<Self> {
        let features = features.map(|c| parse_json(&env, &c, "client features")).transpose()?;
        let settings = ClientSettings {
            name,
            version,
            features,
            protocol_version,
            timeout,
            mode,
            log_level,
            ping_interval,
            http: http.unwrap_or(false),
        };
        let cfg = settings.into_config(UNIT).map_err(|e| option_err(&env, e))?;
        Ok(ClientSession { inner: engine::ClientSession::new(Arc::new(cfg)) })
    }

    /// Whether the session speaks 2026-07-28 (the server answered `server/discover`).
    #[napi(getter)]
    pub fn modern(&self) -> bool {
        self.inner.is_modern()
    }

    /// Whether the server declared `feature` (a capability, a dotted flag such as
    /// `resources.subscribe`, or an extension id).
    #[napi]
    pub fn supports(&self, feature: String) -> bool {
        self.inner.supports(&feature)
    }

    /// Opens the session (`server/discover` first unless the mode is legacy); returns the
    /// id its failure is reported under.
    #[napi]
    pub fn initialize(&mut self) -> i64 {
        self.inner.initialize(Instant::now()).0
    }

    /// Feeds bytes read from the stream.
    #[napi]
    pub fn feed(&mut self, data: Buffer) {
        self.inner.feed(&data, Instant::now());
    }

    /// Handles one complete message.
    #[napi]
    pub fn handle_message(&mut self, data: Buffer) {
        self.inner.handle_message(&data, Instant::now());
    }

    /// Pending events as JSON text (empty string when there are none); their layout:
    /// `events.cjs`.
    #[napi]
    pub fn poll_events(&mut self) -> String {
        poll_events_json(|| self.inner.poll_event())
    }

    /// Everything queued for the peer, or null.
    #[napi]
    pub fn take_output(&mut self) -> Option<Buffer> {
        output(|out| self.inner.take_output(out))
    }

    /// Sends a request (params as JSON text); returns its id. Throws when the server lacks
    /// the capability. `follow_task`: a `tools/call` answered with a task is followed to its
    /// end.
    #[napi]
    #[allow(clippy::too_many_arguments)]
    pub fn request(
        &mut self,
        env: Env,
        method: String,
        params: Option<String>,
        timeout: Option<f64>,
        progress: Option<bool>,
        reset_timeout_on_progress: Option<bool>,
        follow_task: Option<bool>,
    ) -> napi::Result<i64> {
        let params = params.map(|p| parse::<Value>(&p, "request params")).transpose()?;
        let opts = RequestOptions {
            timeout: timeout.and_then(|t| UNIT.duration(t)),
            progress: progress.unwrap_or(false),
            reset_timeout_on_progress: reset_timeout_on_progress.unwrap_or(false),
            follow_task: follow_task.unwrap_or(false),
            ..Default::default()
        };
        self.inner.request(&method, params, &opts, Instant::now()).map(|id| id.0).map_err(|e| rpc_err(&env, &e))
    }

    /// Follows task `task_id` (tasks extension) to its end; returns the id its answer comes
    /// under (`cancelRequest` of it cancels the task). `timeout` in ms.
    #[napi]
    pub fn follow_task(&mut self, env: Env, task_id: String, timeout: Option<f64>) -> napi::Result<i64> {
        let timeout = timeout.and_then(|t| UNIT.duration(t));
        self.inner.follow_task(&task_id, timeout, Instant::now()).map(|id| id.0).map_err(|e| rpc_err(&env, &e))
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28) for `filter` (JSON text of a
    /// `SubscriptionFilter`); returns its id, which tags its notifications.
    #[napi]
    pub fn listen(&mut self, env: Env, filter: String) -> napi::Result<i64> {
        let filter: hypermcp::protocol::SubscriptionFilter = parse(&filter, "listen filter")?;
        self.inner.listen(&filter, Instant::now()).map(|id| id.0).map_err(|e| rpc_err(&env, &e))
    }

    /// Sends a notification (params as JSON text).
    #[napi]
    pub fn notify(&mut self, env: Env, method: String, params: Option<String>) -> napi::Result<()> {
        let params = params.map(|p| parse::<Value>(&p, "notification params")).transpose()?;
        self.inner.notify(&method, params).map_err(|e| rpc_err(&env, &e))
    }

    /// Answers a server request with a result (JSON text).
    #[napi]
    pub fn respond(&mut self, key: i64, result: String) -> napi::Result<()> {
        let v: Value = parse(&result, "result")?;
        self.inner.respond(RequestKey(key as u64), Ok(v), Instant::now());
        Ok(())
    }

    /// Answers a server request with a JSON-RPC error.
    #[napi]
    pub fn respond_error(&mut self, key: i64, code: i32, message: String, data: Option<String>) -> napi::Result<()> {
        let data = data.map(|d| parse::<Value>(&d, "error data")).transpose()?;
        self.inner.respond(RequestKey(key as u64), Err(RpcError { code, message, data }), Instant::now());
        Ok(())
    }

    /// Stops waiting for a request and tells the server.
    #[napi]
    pub fn cancel_request(&mut self, id: i64, reason: Option<String>) -> bool {
        self.inner.cancel_request(engine::OutboundId(id), reason.as_deref(), Instant::now())
    }

    /// Milliseconds until `handleTimeout` is due, or null.
    #[napi]
    pub fn next_timeout(&self) -> Option<f64> {
        self.inner.next_deadline().map(|d| UNIT.amount(d.saturating_duration_since(Instant::now())))
    }

    /// Expires timed-out requests.
    #[napi]
    pub fn handle_timeout(&mut self) {
        self.inner.handle_timeout(Instant::now());
    }

    /// Closes the session: pending requests fail.
    #[napi]
    pub fn close(&mut self) {
        self.inner.close();
    }

    /// Lifecycle state.
    #[napi(getter)]
    pub fn state(&self) -> String {
        self.inner.state().as_str().to_string()
    }

    /// The negotiated revision.
    #[napi(getter)]
    pub fn protocol_version(&self) -> Option<String> {
        self.inner.protocol_version().map(|v| v.as_str().to_string())
    }

    /// JSON text of the server's `initialize` result (or null).
    #[napi(getter)]
    pub fn server(&self) -> Option<String> {
        self.inner.server().map(|r| serde_json::to_string(r).unwrap_or_default())
    }

    /// Requests awaiting answers.
    #[napi(getter)]
    pub fn pending_requests(&self) -> u32 {
        self.inner.pending_requests() as u32
    }
}

/// A client's reconnect policy (the engine's `Reconnect`): built from `true` or an object of
/// its options (JSON text), it says how long to wait before each try.
#[napi]
pub struct ReconnectPolicy {
    inner: engine::Reconnect,
}

#[napi]
impl ReconnectPolicy {
    /// `options`: JSON text of `true` or `{initialDelay, maxDelay (ms), multiplier, jitter,
    /// maxAttempts, wait}`; a bad option throws an `OptionError`.
    #[napi(constructor)]
    pub fn new(env: Env, options: String) -> napi::Result<Self> {
        let value = parse_json(&env, &options, "reconnect options")?;
        match hypermcp::transport::host::options::reconnect(value, UNIT) {
            Ok(Some(inner)) => Ok(ReconnectPolicy { inner }),
            Ok(None) => Err(napi::Error::from_reason("no reconnect policy (false or null)")),
            Err(e) => Err(option_err(&env, e)),
        }
    }

    /// Milliseconds to wait before try `attempt` (1 for the first, jitter drawn), or null
    /// once the tries are spent.
    #[napi]
    pub fn delay(&self, attempt: u32) -> Option<f64> {
        self.inner.delay(attempt).map(|d| UNIT.amount(d))
    }

    /// Whether requests made while reconnecting wait for it (else they fail at once).
    #[napi(getter)]
    pub fn wait(&self) -> bool {
        self.inner.wait
    }

    /// Tries before giving up (0: never).
    #[napi(getter)]
    pub fn max_attempts(&self) -> u32 {
        self.inner.max_attempts
    }
}
