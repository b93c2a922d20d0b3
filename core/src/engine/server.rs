//! The server side of a session: the `initialize` handshake and version negotiation,
//! everything the engine answers by itself (ping, lists from cached bytes, logging level,
//! subscriptions, errors), argument validation, and [`Event::Invoke`] for the rest.

use super::outbox::{Route, Transmit};
use super::peer::{params, Peer, RequestOptions, Role};
use super::{Event, OutboundId, Request, RequestKey, State};
use crate::catalogue::{ListKind, Registry, RegistryChange, Resolved};
use crate::jsonrpc::{RequestId, RpcError, DEFAULT_MAX_MESSAGE_SIZE};
use crate::protocol::*;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What a server is, shared by all its sessions.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Name and version.
    pub info: Implementation,
    /// Instructions for the model.
    pub instructions: Option<String>,
    /// Revisions this server accepts (negotiation picks among these).
    pub versions: Vec<ProtocolVersion>,
    /// Declare the tools capability even with no tool registered yet.
    pub tools: bool,
    /// Declare the resources capability even with no resource registered yet.
    pub resources: bool,
    /// Declare the prompts capability even with no prompt registered yet.
    pub prompts: bool,
    /// Declare `completions` (a completion handler exists).
    pub completions: bool,
    /// Support `resources/subscribe`.
    pub subscriptions: bool,
    /// Extra experimental capabilities.
    pub experimental: Option<Map<String, Value>>,
    /// Largest accepted message in bytes.
    pub max_message_size: usize,
    /// Default timeout of server-to-client requests.
    pub request_timeout: Option<Duration>,
}

impl ServerConfig {
    /// A configuration with defaults: every legacy revision, 16 MiB messages, 60 s timeout.
    pub fn new(info: Implementation) -> Self {
        ServerConfig {
            info,
            instructions: None,
            versions: ProtocolVersion::LEGACY.to_vec(),
            tools: false,
            resources: false,
            prompts: false,
            completions: false,
            subscriptions: true,
            experimental: None,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            request_timeout: Some(Duration::from_secs(60)),
        }
    }
}

/// The outcome of user code for an [`Invocation`](super::Invocation).
#[derive(Debug, Clone)]
pub enum Outcome {
    /// A tool result.
    Tool(CallToolResult),
    /// Resource contents.
    Resource(ReadResourceResult),
    /// A prompt.
    Prompt(GetPromptResult),
    /// Completion values.
    Completion(CompleteResult),
    /// Any JSON result (client-side answers: sampling, elicitation, roots).
    Json(Value),
    /// The tool's arguments failed a check of the host's own (a zod schema, say), each
    /// error naming where: answered as the revision wants invalid arguments answered,
    /// like a failed JSON Schema check.
    InvalidArguments(Vec<String>),
    /// A JSON-RPC error.
    Error(RpcError),
}

struct ServerRole {
    config: Arc<ServerConfig>,
    registry: Arc<Registry>,
    state: State,
    capabilities: ServerCapabilities,
    client_caps: ClientCapabilities,
    client_info: Option<Implementation>,
    log_level: Option<LoggingLevel>,
    subscriptions: HashSet<String>,
}

/// The server end of one MCP session.
pub struct ServerSession {
    peer: Peer,
    role: ServerRole,
}

impl std::fmt::Debug for ServerSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerSession")
            .field("state", &self.role.state)
            .field("version", &self.peer.version)
            .field("in_flight", &self.peer.inflight.len())
            .finish()
    }
}

#[derive(Deserialize)]
struct MetaOnly {
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
struct CallToolParams<'a> {
    #[serde(borrow)]
    name: Cow<'a, str>,
    #[serde(default)]
    arguments: Option<Value>,
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
struct CursorParams {
    #[serde(default)]
    cursor: Option<String>,
}

#[derive(Deserialize)]
struct UriParams {
    uri: String,
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
struct GetPromptParams {
    name: String,
    #[serde(default)]
    arguments: Option<HashMap<String, String>>,
    #[serde(rename = "_meta", default)]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
struct SetLevelParams {
    level: LoggingLevel,
}

impl ServerSession {
    /// A session serving `registry` as described by `config`.
    pub fn new(config: Arc<ServerConfig>, registry: Arc<Registry>) -> Self {
        let peer = Peer::new(config.max_message_size, config.request_timeout);
        ServerSession {
            peer,
            role: ServerRole {
                config,
                registry,
                state: State::Uninitialized,
                capabilities: ServerCapabilities::default(),
                client_caps: ClientCapabilities::default(),
                client_info: None,
                log_level: None,
                subscriptions: HashSet::new(),
            },
        }
    }

    /// Feeds bytes of a newline-delimited stream.
    pub fn feed(&mut self, data: &[u8], now: Instant) {
        self.peer.feed(&mut self.role, data, now);
    }

    /// Handles one complete message.
    pub fn handle_message(&mut self, bytes: &[u8], now: Instant) {
        self.peer.handle_message(&mut self.role, bytes, now);
    }

    /// The next event for the driver.
    pub fn poll_event(&mut self) -> Option<Event> {
        self.peer.events.pop_front()
    }

    /// Whether events are waiting.
    pub fn poll_event_pending(&self) -> bool {
        !self.peer.events.is_empty()
    }

    /// Appends all pending outbound messages, newline-terminated, to `dst`.
    pub fn take_output(&mut self, dst: &mut Vec<u8>) {
        self.peer.out.drain_into(dst);
    }

    /// The next outbound message with its route (for message-oriented transports).
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

    /// The negotiated revision, once `initialize` was answered.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        self.peer.version
    }

    /// The client's name and version.
    pub fn client_info(&self) -> Option<&Implementation> {
        self.role.client_info.as_ref()
    }

    /// The client's capabilities.
    pub fn client_capabilities(&self) -> &ClientCapabilities {
        &self.role.client_caps
    }

    /// The registry this session serves.
    pub fn registry(&self) -> &Arc<Registry> {
        &self.role.registry
    }

    /// Number of peer requests being served by user code.
    pub fn in_flight(&self) -> usize {
        self.peer.inflight.len()
    }

    /// Hands back the outcome of an invocation. Ignored if the request was cancelled.
    pub fn complete(&mut self, key: RequestKey, outcome: Outcome) {
        let Some(inf) = self.peer.end(key) else { return };
        let v = self.peer.version.unwrap_or(ProtocolVersion::LATEST_LEGACY);
        let route = Route::Reply(key);
        match outcome {
            Outcome::Tool(result) => {
                let checked = match &inf.tool {
                    Some(t) if t.has_output_schema() && !result.failed() => match &result.structured_content {
                        None => Some(CallToolResult::error(format!(
                            "tool {:?} declares an outputSchema but returned no structuredContent",
                            t.tool.name
                        ))),
                        Some(s) => t.validate_output(s).err().map(|errs| {
                            CallToolResult::error(format!(
                                "tool {:?} returned structuredContent that does not match its outputSchema: {}",
                                t.tool.name,
                                errs.join("; ")
                            ))
                        }),
                    },
                    _ => None,
                };
                let result = checked.as_ref().unwrap_or(&result);
                let shaped = edge::call_tool_result(result, v);
                self.peer.write_result(&inf.id, inf.batch, route, &*shaped);
            }
            Outcome::Resource(r) => self.peer.write_result(&inf.id, inf.batch, route, &r),
            Outcome::Prompt(p) => {
                let shaped = edge::get_prompt_result(&p, v);
                self.peer.write_result(&inf.id, inf.batch, route, &*shaped);
            }
            Outcome::Completion(c) => self.peer.write_result(&inf.id, inf.batch, route, &c),
            Outcome::Json(j) => self.peer.write_result(&inf.id, inf.batch, route, &j),
            Outcome::Error(e) => self.peer.write_error(Some(&inf.id), inf.batch, route, &e),
            Outcome::InvalidArguments(errors) => {
                let tool = inf.tool.as_ref().map_or("", |t| t.tool.name.as_str());
                match invalid_arguments(v, tool, errors) {
                    Ok(r) => self.peer.write_result(&inf.id, inf.batch, route, &*edge::call_tool_result(&r, v)),
                    Err(e) => self.peer.write_error(Some(&inf.id), inf.batch, route, &e),
                }
            }
        }
    }

    /// Reports progress on a request being served. `Ok(false)`: the client asked for none.
    pub fn progress(
        &mut self,
        key: RequestKey,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<bool, RpcError> {
        self.peer.send_progress(key, progress, total, message)
    }

    /// Sends a log message if the client's level lets it through. `related` ties it to the
    /// request being served. Returns whether it was sent.
    pub fn log(&mut self, level: LoggingLevel, logger: Option<&str>, data: Value, related: Option<RequestKey>) -> bool {
        if self.role.state == State::Uninitialized || self.role.state == State::Closed {
            return false;
        }
        if self.role.log_level.is_some_and(|min| level < min) {
            return false;
        }
        let mut p = Map::new();
        p.insert("level".into(), serde_json::to_value(level).unwrap_or(Value::Null));
        if let Some(l) = logger {
            p.insert("logger".into(), l.into());
        }
        p.insert("data".into(), data);
        let route = related.map(Route::Related).unwrap_or(Route::Standalone);
        self.peer.notify(route, "notifications/message", Some(&Value::Object(p)));
        true
    }

    /// The minimum level the client asked for (`None`: it has not set one).
    pub fn log_level(&self) -> Option<LoggingLevel> {
        self.role.log_level
    }

    /// Tells the session about a registry change (a driver calls this from the registry's
    /// listener): the client gets `list_changed` or `resources/updated` as appropriate.
    pub fn registry_changed(&mut self, change: &RegistryChange) {
        if self.role.state != State::Operating && self.role.state != State::Initializing {
            return;
        }
        match change {
            RegistryChange::ListChanged(kind) => {
                let caps = &self.role.capabilities;
                let method = match kind {
                    ListKind::Tools if caps.tools.is_some() => "notifications/tools/list_changed",
                    ListKind::Resources | ListKind::ResourceTemplates if caps.resources.is_some() => {
                        "notifications/resources/list_changed"
                    }
                    ListKind::Prompts if caps.prompts.is_some() => "notifications/prompts/list_changed",
                    _ => return,
                };
                self.peer.notify::<Value>(Route::Standalone, method, None);
            }
            RegistryChange::ResourceUpdated(uri) => {
                if self.role.subscriptions.contains(uri) {
                    self.peer.notify(
                        Route::Standalone,
                        "notifications/resources/updated",
                        Some(&serde_json::json!({ "uri": uri })),
                    );
                }
            }
        }
    }

    /// Sends a request to the client (sampling, elicitation, roots, ping), checking the
    /// client declared the capability and the revision has the feature. The answer arrives as
    /// [`Event::Response`].
    pub fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
        now: Instant,
    ) -> Result<OutboundId, RpcError> {
        if self.role.state == State::Uninitialized || self.role.state == State::Closed {
            return Err(RpcError::invalid_request("the session is not initialized"));
        }
        if self.role.state == State::Initializing && method != "ping" {
            // Lifecycle: until the client sent `initialized`, only pings may be sent to it.
            return Err(RpcError::invalid_request(format!(
                "cannot send {method} before the client sent notifications/initialized"
            )));
        }
        let v = self.peer.version.unwrap_or(ProtocolVersion::LATEST_LEGACY);
        let caps = &self.role.client_caps;
        let missing = |what: &str| {
            RpcError::new(crate::jsonrpc::codes::METHOD_NOT_FOUND, format!("the client does not support {what}"))
        };
        match method {
            "ping" => {}
            "sampling/createMessage" => {
                if caps.sampling.is_none() {
                    return Err(missing("sampling"));
                }
                let has_tools =
                    params.as_ref().is_some_and(|p| p.get("tools").is_some() || p.get("toolChoice").is_some());
                if has_tools && !(caps.sampling_tools() && v.supports(Feature::SamplingTools)) {
                    return Err(missing("sampling with tools"));
                }
            }
            "elicitation/create" => {
                if !v.supports(Feature::Elicitation) {
                    return Err(missing(&format!("elicitation (protocol {v} has none)")));
                }
                let url = params.as_ref().is_some_and(|p| p.get("mode").and_then(Value::as_str) == Some("url"));
                if url {
                    if !(v.supports(Feature::UrlElicitation) && caps.elicitation_url()) {
                        return Err(missing("URL-mode elicitation"));
                    }
                } else if !caps.elicitation_form() {
                    return Err(missing("form elicitation"));
                }
            }
            "roots/list" if caps.roots.is_none() => return Err(missing("roots")),
            _ => {}
        }
        Ok(self.peer.send_request(method, params, opts, now))
    }

    /// Sends `notifications/elicitation/complete` for a URL-mode elicitation (2025-11-25).
    pub fn elicitation_complete(&mut self, elicitation_id: &str) -> Result<(), RpcError> {
        let v = self.peer.version.unwrap_or(ProtocolVersion::LATEST_LEGACY);
        if !v.supports(Feature::UrlElicitation) || !self.role.client_caps.elicitation_url() {
            return Err(RpcError::invalid_request("the client does not support URL-mode elicitation"));
        }
        self.peer.notify(
            Route::Standalone,
            "notifications/elicitation/complete",
            Some(&serde_json::json!({ "elicitationId": elicitation_id })),
        );
        Ok(())
    }

    /// Cancels a request sent with [`ServerSession::request`].
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
    }

    /// The client's input ended (stdin closed) but answers may still be written: requests
    /// to the client fail; requests being served can still complete.
    pub fn input_closed(&mut self) {
        self.peer.input_closed();
    }

    /// Starts the session without a handshake, at `version`: for stateless HTTP, where each
    /// request stands alone (the revision comes from the `MCP-Protocol-Version` header).
    pub fn assume_initialized(&mut self, version: ProtocolVersion) {
        self.peer.version = Some(version);
        self.role.capabilities = self.role.build_capabilities();
        self.role.state = State::Operating;
    }

    /// Closes the session (the transport ended): in-flight work is cancelled.
    pub fn close(&mut self) {
        self.role.state = State::Closed;
        self.peer.close();
    }
}

/// How arguments that fail a tool's checks are answered: from 2025-11-25 as a tool error
/// the model can read and correct, before as an `InvalidParams` JSON-RPC error.
fn invalid_arguments(v: ProtocolVersion, tool: &str, errors: Vec<String>) -> Result<CallToolResult, RpcError> {
    let message = format!("Invalid arguments for tool {tool}: {}", errors.join("; "));
    if v.supports(Feature::ToolInputErrorsAsResults) {
        return Ok(CallToolResult::error(message));
    }
    Err(RpcError::invalid_params(message).with_data(serde_json::json!({ "tool": tool, "errors": errors })))
}

impl ServerRole {
    fn build_capabilities(&self) -> ServerCapabilities {
        let c = &self.config;
        let r = &self.registry;
        let list = ListChangedCapability { list_changed: Some(true) };
        ServerCapabilities {
            experimental: c.experimental.clone(),
            logging: Some(Map::new()),
            completions: c.completions.then(Map::new),
            prompts: (c.prompts || r.has(ListKind::Prompts)).then(|| list.clone()),
            resources: (c.resources || r.has(ListKind::Resources) || r.has(ListKind::ResourceTemplates))
                .then(|| ResourcesCapability { subscribe: Some(c.subscriptions), list_changed: Some(true) }),
            tools: (c.tools || r.has(ListKind::Tools)).then_some(list),
            tasks: None,
        }
    }

    fn initialize(&mut self, peer: &mut Peer, id: RequestId, raw: Option<&RawValue>) {
        if self.state != State::Uninitialized {
            peer.write_error(
                Some(&id),
                None,
                Route::Standalone,
                &RpcError::invalid_request("the session is already initialized"),
            );
            return;
        }
        let p: InitializeParams = match params(raw) {
            Ok(p) => p,
            Err(e) => {
                peer.write_error(Some(&id), None, Route::Standalone, &e);
                return;
            }
        };
        let v = ProtocolVersion::negotiate(&p.protocol_version, &self.config.versions);
        peer.version = Some(v);
        self.client_caps = p.capabilities;
        self.client_info = Some(p.client_info);
        self.capabilities = self.build_capabilities();
        self.state = State::Initializing;
        let result = InitializeResult {
            protocol_version: v.as_str().to_string(),
            capabilities: edge::server_capabilities(&self.capabilities, v).into_owned(),
            server_info: edge::implementation(&self.config.info, v).into_owned(),
            instructions: self.config.instructions.clone(),
            meta: None,
        };
        peer.write_result(&id, None, Route::Standalone, &result);
    }

    fn list(&self, peer: &mut Peer, id: RequestId, kind: ListKind, raw: Option<&RawValue>, batch: Option<u64>) {
        let v = peer.version.unwrap_or(ProtocolVersion::LATEST_LEGACY);
        let page = params::<CursorParams>(raw).and_then(|p| self.registry.list_page(kind, v, p.cursor.as_deref()));
        match page {
            Ok(bytes) => peer.write_result_raw(&id, batch, Route::Standalone, &bytes),
            Err(e) => peer.write_error(Some(&id), batch, Route::Standalone, &e),
        }
    }

    fn call_tool(
        &self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<&RawValue>,
        batch: Option<u64>,
    ) -> Result<(), RpcError> {
        let p: CallToolParams<'_> = params(raw)?;
        let Some(entry) = self.registry.tool(&p.name) else {
            return Err(RpcError::invalid_params(format!("Unknown tool: {}", p.name))
                .with_data(serde_json::json!({ "name": p.name })));
        };
        let arguments = match p.arguments {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(a) => a,
        };
        if let Err(errors) = entry.validate_arguments(&arguments) {
            let v = peer.version.unwrap_or(ProtocolVersion::LATEST_LEGACY);
            let result = invalid_arguments(v, &p.name, errors)?;
            peer.write_result(&id, batch, Route::Standalone, &result);
            return Ok(());
        }
        let Value::Object(arguments) = arguments else { unreachable!("the input schema requires an object") };
        let name = p.name.into_owned();
        peer.invoke(id, batch, p.meta, Request::CallTool { name, arguments }, Some(entry));
        Ok(())
    }

    fn read_resource(
        &self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<&RawValue>,
        batch: Option<u64>,
    ) -> Result<(), RpcError> {
        let p: UriParams = params(raw)?;
        let (template, variables) = match self.registry.resolve(&p.uri) {
            None => return Err(RpcError::resource_not_found(&p.uri)),
            Some(Resolved::Static(_)) => (None, HashMap::new()),
            Some(Resolved::Template(t, vars)) => (Some(t), vars),
        };
        peer.invoke(id, batch, p.meta, Request::ReadResource { uri: p.uri, template, variables }, None);
        Ok(())
    }

    fn get_prompt(
        &self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<&RawValue>,
        batch: Option<u64>,
    ) -> Result<(), RpcError> {
        let p: GetPromptParams = params(raw)?;
        let Some(prompt) = self.registry.prompt(&p.name) else {
            return Err(RpcError::invalid_params(format!("Unknown prompt: {}", p.name))
                .with_data(serde_json::json!({ "name": p.name })));
        };
        let arguments = p.arguments.unwrap_or_default();
        let missing: Vec<&str> = prompt
            .arguments
            .iter()
            .flatten()
            .filter(|a| a.required == Some(true) && !arguments.contains_key(&a.name))
            .map(|a| a.name.as_str())
            .collect();
        if !missing.is_empty() {
            return Err(RpcError::invalid_params(format!(
                "prompt {} is missing required argument(s): {}",
                p.name,
                missing.join(", ")
            ))
            .with_data(serde_json::json!({ "prompt": p.name, "missing": missing })));
        }
        peer.invoke(id, batch, p.meta, Request::GetPrompt { name: p.name, arguments }, None);
        Ok(())
    }

    fn complete(
        &self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<&RawValue>,
        batch: Option<u64>,
    ) -> Result<(), RpcError> {
        let p: CompleteParams = params(raw)?;
        match &p.reference {
            CompletionReference::Prompt { name } => {
                let Some(prompt) = self.registry.prompt(name) else {
                    return Err(RpcError::invalid_params(format!("Unknown prompt: {name}"))
                        .with_data(serde_json::json!({ "name": name })));
                };
                let known = prompt.arguments.iter().flatten().any(|a| a.name == p.argument.name);
                if !known {
                    return Err(RpcError::invalid_params(format!(
                        "prompt {name} has no argument {:?}",
                        p.argument.name
                    ))
                    .with_data(serde_json::json!({ "argument": p.argument.name })));
                }
            }
            CompletionReference::Resource { uri } => {
                if self.registry.template(uri).is_none() && self.registry.resource(uri).is_none() {
                    return Err(RpcError::invalid_params(format!("Unknown resource template: {uri}"))
                        .with_data(serde_json::json!({ "uri": uri })));
                }
            }
        }
        let meta = params::<MetaOnly>(raw).ok().and_then(|m| m.meta);
        peer.invoke(id, batch, meta, Request::Complete(p), None);
        Ok(())
    }

    fn subscription(&mut self, peer: &mut Peer, raw: Option<&RawValue>, subscribe: bool) -> Result<(), RpcError> {
        let p: UriParams = params(raw)?;
        if subscribe {
            if self.registry.resolve(&p.uri).is_none() {
                return Err(RpcError::resource_not_found(&p.uri));
            }
            self.subscriptions.insert(p.uri);
        } else {
            self.subscriptions.remove(&p.uri);
        }
        let _ = peer;
        Ok(())
    }
}

impl Role for ServerRole {
    fn on_request(
        &mut self,
        peer: &mut Peer,
        id: RequestId,
        method: &str,
        raw: Option<&RawValue>,
        batch: Option<u64>,
        _now: Instant,
    ) {
        if method == "initialize" {
            return self.initialize(peer, id, raw);
        }
        if method == "ping" {
            return peer.write_result_raw(&id, batch, Route::Standalone, b"{}");
        }
        if self.state == State::Uninitialized {
            let err = RpcError::invalid_request(format!("received {method} before initialize: send initialize first"));
            return peer.write_error(Some(&id), batch, Route::Standalone, &err);
        }
        let caps = &self.capabilities;
        let result: Result<(), RpcError> = match method {
            "tools/list" if caps.tools.is_some() => {
                self.list(peer, id, ListKind::Tools, raw, batch);
                return;
            }
            "tools/call" if caps.tools.is_some() => self.call_tool(peer, id.clone(), raw, batch),
            "resources/list" if caps.resources.is_some() => {
                self.list(peer, id, ListKind::Resources, raw, batch);
                return;
            }
            "resources/templates/list" if caps.resources.is_some() => {
                self.list(peer, id, ListKind::ResourceTemplates, raw, batch);
                return;
            }
            "resources/read" if caps.resources.is_some() => self.read_resource(peer, id.clone(), raw, batch),
            "resources/subscribe" | "resources/unsubscribe"
                if caps.resources.as_ref().is_some_and(|r| r.subscribe == Some(true)) =>
            {
                match self.subscription(peer, raw, method == "resources/subscribe") {
                    Ok(()) => {
                        peer.write_result_raw(&id, batch, Route::Standalone, b"{}");
                        return;
                    }
                    Err(e) => Err(e),
                }
            }
            "prompts/list" if caps.prompts.is_some() => {
                self.list(peer, id, ListKind::Prompts, raw, batch);
                return;
            }
            "prompts/get" if caps.prompts.is_some() => self.get_prompt(peer, id.clone(), raw, batch),
            "completion/complete" if caps.completions.is_some() => self.complete(peer, id.clone(), raw, batch),
            "logging/setLevel" => match params::<SetLevelParams>(raw) {
                Ok(p) => {
                    self.log_level = Some(p.level);
                    peer.write_result_raw(&id, batch, Route::Standalone, b"{}");
                    return;
                }
                Err(e) => Err(e),
            },
            _ => Err(RpcError::method_not_found(method)),
        };
        if let Err(e) = result {
            peer.write_error(Some(&id), batch, Route::Standalone, &e);
        }
    }

    fn on_notification(&mut self, peer: &mut Peer, method: &str, raw: Option<&RawValue>) {
        match method {
            "notifications/initialized" => {
                if self.state == State::Initializing {
                    self.state = State::Operating;
                    peer.events.push_back(Event::Initialized);
                }
            }
            _ => {
                if self.state == State::Uninitialized {
                    return;
                }
                let params = raw.and_then(|r| serde_json::from_str(r.get()).ok());
                peer.events.push_back(Event::Notification { method: method.to_string(), params });
            }
        }
    }

    fn batchable(&self, method: &str) -> bool {
        method != "initialize"
    }
}
