//! The client side of a session: the handshake, capability checks before each request,
//! server-to-client requests (sampling, elicitation, roots, ping) and notifications.

use super::outbox::{Route, Transmit};
use super::peer::{params, Peer, RequestOptions, Role};
use super::{Event, OutboundId, Request, RequestKey, State};
use crate::jsonrpc::{codes, RequestId, RpcError, DEFAULT_MAX_MESSAGE_SIZE};
use crate::protocol::*;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a client is.
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// Name and version.
    pub info: Implementation,
    /// Capabilities to declare (set roots/sampling/elicitation when handlers exist).
    pub capabilities: ClientCapabilities,
    /// The revision to ask for.
    pub protocol_version: ProtocolVersion,
    /// Revisions accepted in the server's answer.
    pub versions: Vec<ProtocolVersion>,
    /// Largest accepted message in bytes.
    pub max_message_size: usize,
    /// Default request timeout.
    pub request_timeout: Option<Duration>,
}

impl ClientConfig {
    /// Defaults: ask for 2025-11-25, accept every legacy revision, 60 s timeout.
    pub fn new(info: Implementation) -> Self {
        ClientConfig {
            info,
            capabilities: ClientCapabilities::default(),
            protocol_version: ProtocolVersion::LATEST_LEGACY,
            versions: ProtocolVersion::LEGACY.to_vec(),
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            request_timeout: Some(Duration::from_secs(60)),
        }
    }
}

struct ClientRole {
    config: Arc<ClientConfig>,
    state: State,
    init_id: Option<OutboundId>,
    server: Option<InitializeResult>,
}

/// The client end of one MCP session.
pub struct ClientSession {
    peer: Peer,
    role: ClientRole,
}

impl std::fmt::Debug for ClientSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSession").field("state", &self.role.state).field("version", &self.peer.version).finish()
    }
}

impl ClientSession {
    /// A client session; call [`ClientSession::initialize`] to start the handshake.
    pub fn new(config: Arc<ClientConfig>) -> Self {
        let peer = Peer::new(config.max_message_size, config.request_timeout);
        ClientSession { peer, role: ClientRole { config, state: State::Uninitialized, init_id: None, server: None } }
    }

    /// Sends `initialize`. The session reports [`Event::Initialized`] once the server answered
    /// (and `notifications/initialized` was sent), or a failed [`Event::Response`] for the
    /// returned id.
    pub fn initialize(&mut self, now: Instant) -> OutboundId {
        let c = &self.role.config;
        let p = InitializeParams {
            protocol_version: c.protocol_version.as_str().to_string(),
            capabilities: c.capabilities.clone(),
            client_info: c.info.clone(),
            meta: None,
        };
        let value = serde_json::to_value(&p).unwrap_or(Value::Null);
        let id = self.peer.send_request("initialize", Some(value), &RequestOptions::default(), now);
        self.role.init_id = Some(id);
        self.role.state = State::Initializing;
        id
    }

    /// Feeds bytes of a newline-delimited stream.
    pub fn feed(&mut self, data: &[u8], now: Instant) {
        self.peer.feed(&mut self.role, data, now);
        self.after_input();
    }

    /// Handles one complete message.
    pub fn handle_message(&mut self, bytes: &[u8], now: Instant) {
        self.peer.handle_message(&mut self.role, bytes, now);
        self.after_input();
    }

    fn after_input(&mut self) {
        // The initialize answer arrives as a Response event; finish the handshake here so
        // drivers see Initialized in order.
        let Some(init) = self.role.init_id else { return };
        let Some(pos) = self.peer.events.iter().position(|e| matches!(e, Event::Response { id, .. } if *id == init))
        else {
            return;
        };
        let Some(Event::Response { result, .. }) = self.peer.events.remove(pos) else { return };
        self.role.init_id = None;
        let outcome = result.and_then(|v| {
            let r: InitializeResult = serde_json::from_value(v)
                .map_err(|e| RpcError::invalid_params(format!("bad initialize result: {e}")))?;
            let v: ProtocolVersion = r.protocol_version.parse().map_err(|_| {
                RpcError::new(
                    codes::INVALID_REQUEST,
                    format!("server chose unsupported protocol version {:?}", r.protocol_version),
                )
            })?;
            if !self.role.config.versions.contains(&v) {
                return Err(RpcError::new(
                    codes::INVALID_REQUEST,
                    format!("server chose unsupported protocol version {v}"),
                ));
            }
            Ok((r, v))
        });
        match outcome {
            Ok((r, v)) => {
                self.peer.version = Some(v);
                self.role.server = Some(r);
                self.role.state = State::Operating;
                self.peer.notify::<Value>(Route::Standalone, "notifications/initialized", None);
                self.peer.events.insert(pos, Event::Initialized);
            }
            Err(e) => {
                self.role.state = State::Closed;
                self.peer.events.insert(pos, Event::Response { id: init, result: Err(e) });
            }
        }
    }

    /// The next event for the driver.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.peer.events.pop_front()
    }

    /// Appends all pending outbound messages, newline-terminated, to `dst`.
    pub fn take_output(&mut self, dst: &mut Vec<u8>) {
        self.peer.out.drain_into(dst);
    }

    /// The next outbound message with its route.
    pub fn poll_transmit(&mut self) -> Option<Transmit> {
        self.peer.out.pop()
    }

    /// Whether output is waiting.
    pub fn has_output(&self) -> bool {
        !self.peer.out.is_empty()
    }

    /// Lifecycle state.
    pub fn state(&self) -> State {
        self.role.state
    }

    /// The negotiated revision.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.peer.version
    }

    /// The server's `initialize` answer.
    pub fn server(&self) -> Option<&InitializeResult> {
        self.role.server.as_ref()
    }

    /// Sends a request after checking the server declared what it needs. The answer arrives
    /// as [`Event::Response`].
    pub fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
        now: Instant,
    ) -> Result<OutboundId, RpcError> {
        match self.role.state {
            State::Operating => {}
            State::Closed => return Err(RpcError::new(codes::CONNECTION_CLOSED, "the session is closed")),
            _ if method == "ping" => {}
            _ => return Err(RpcError::invalid_request(format!("cannot send {method} before the handshake completed"))),
        }
        if let Some(server) = &self.role.server {
            check_server_capability(&server.capabilities, self.peer.version, method)?;
        }
        Ok(self.peer.send_request(method, params, opts, now))
    }

    /// Sends a notification (e.g. `notifications/roots/list_changed`).
    pub fn notify(&mut self, method: &str, params: Option<Value>) -> Result<(), RpcError> {
        if self.role.state == State::Closed {
            return Err(RpcError::new(codes::CONNECTION_CLOSED, "the session is closed"));
        }
        if method == "notifications/roots/list_changed"
            && self.role.config.capabilities.roots.as_ref().is_none_or(|r| r.list_changed != Some(true))
        {
            return Err(RpcError::invalid_request("roots.listChanged was not declared"));
        }
        self.peer.notify(Route::Standalone, method, params.as_ref());
        Ok(())
    }

    /// Answers a server-to-client request. Ignored if the server cancelled it.
    pub fn respond(&mut self, key: RequestKey, result: Result<Value, RpcError>) {
        let Some(inf) = self.peer.end(key) else { return };
        match result {
            Ok(v) => self.peer.write_result(&inf.id, inf.batch, Route::Reply(key), &v),
            Err(e) => self.peer.write_error(Some(&inf.id), inf.batch, Route::Reply(key), &e),
        }
    }

    /// Reports progress on a server-to-client request.
    pub fn progress(
        &mut self,
        key: RequestKey,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<bool, RpcError> {
        self.peer.send_progress(key, progress, total, message)
    }

    /// Cancels one of our requests (the server is told; no answer event follows).
    pub fn cancel_request(&mut self, id: OutboundId, reason: Option<&str>) -> bool {
        self.peer.cancel(id, reason)
    }

    /// When `handle_timeout` must next be called.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.peer.next_deadline()
    }

    /// Expires timed-out requests.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.peer.handle_timeout(now);
        self.after_input();
    }

    /// Requests awaiting answers.
    pub fn pending_requests(&self) -> usize {
        self.peer.pending_count()
    }

    /// Closes the session: pending requests fail with a connection-closed error.
    pub fn close(&mut self) {
        self.role.state = State::Closed;
        self.peer.close();
        self.after_input();
    }
}

/// Checks that the server declared the capability `method` needs.
pub fn check_server_capability(
    caps: &ServerCapabilities,
    v: Option<ProtocolVersion>,
    method: &str,
) -> Result<(), RpcError> {
    let missing = |what: &str| {
        RpcError::new(codes::METHOD_NOT_FOUND, format!("the server does not support {what} (needed by {method})"))
    };
    match method {
        m if m.starts_with("tools/") && caps.tools.is_none() => Err(missing("tools")),
        "resources/subscribe" | "resources/unsubscribe" => match &caps.resources {
            Some(r) if r.subscribe == Some(true) => Ok(()),
            _ => Err(missing("resource subscriptions")),
        },
        m if m.starts_with("resources/") && caps.resources.is_none() => Err(missing("resources")),
        m if m.starts_with("prompts/") && caps.prompts.is_none() => Err(missing("prompts")),
        "logging/setLevel" if caps.logging.is_none() => Err(missing("logging")),
        "completion/complete"
            if caps.completions.is_none() && v.is_some_and(|v| v.supports(Feature::CompletionsCapability)) =>
        {
            Err(missing("completions"))
        }
        _ => Ok(()),
    }
}

impl Role for ClientRole {
    fn on_request(
        &mut self,
        peer: &mut Peer,
        id: RequestId,
        method: &str,
        raw: Option<&RawValue>,
        batch: Option<u64>,
        _now: Instant,
    ) {
        let caps = &self.config.capabilities;
        let meta: Option<Meta> =
            params::<Map<String, Value>>(raw).ok().and_then(|m| m.get("_meta").and_then(|v| v.as_object().cloned()));
        let request = match method {
            "ping" => return peer.write_result_raw(&id, batch, Route::Standalone, b"{}"),
            "roots/list" if caps.roots.is_some() => Ok(Request::ListRoots),
            "sampling/createMessage" if caps.sampling.is_some() => {
                params::<CreateMessageParams>(raw).map(|p| Request::CreateMessage(Box::new(p)))
            }
            "elicitation/create" if caps.elicitation.is_some() => params::<ElicitParams>(raw).and_then(|p| {
                let ok = if p.is_url() { caps.elicitation_url() } else { caps.elicitation_form() };
                if ok {
                    Ok(Request::Elicit(Box::new(p)))
                } else {
                    Err(RpcError::invalid_params("this client does not support that elicitation mode"))
                }
            }),
            _ => Err(RpcError::method_not_found(method)),
        };
        match request {
            Ok(request) => {
                peer.invoke(id, batch, meta, request, None, None);
            }
            Err(e) => peer.write_error(Some(&id), batch, Route::Standalone, &e),
        }
    }

    fn on_notification(&mut self, peer: &mut Peer, method: &str, raw: Option<&RawValue>) {
        let params = raw.and_then(|r| serde_json::from_str(r.get()).ok());
        peer.events.push_back(Event::Notification { method: method.to_string(), params });
    }

    fn batchable(&self, _method: &str) -> bool {
        true
    }
}
