//! The server side of a session: [`ServerSession`], what a transport drives (messages in,
//! outcomes of user code, registry changes, requests to the client, the session record
//! replicas share), and the checks every tool result passes. How each request is answered
//! is in `answers.rs`.

use super::config::ServerConfig;
use super::listen::Listen;
use super::modern::RequestHeaders;
use super::outbox::{Route, Transmit};
use super::peer::{Peer, RequestOptions};
use super::{Event, OutboundId, RequestKey, State};
use crate::catalogue::visibility::{Rules, VisibilityChange};
use crate::catalogue::{ListKind, Registry, RegistryChange};
use crate::jsonrpc::RpcError;
use crate::protocol::*;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

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
    /// The call became a task (tasks extension): the task as created (`taskId`, `status`,
    /// times, `ttlMs`, `pollIntervalMs`), sent with `resultType: "task"`.
    TaskCreated(Map<String, Value>),
    /// A list as middleware left it ([`Request::List`](super::Request::List)): the engine pages it.
    Listed(Vec<Value>),
    /// The call needs input from the client first (2026-07-28, multi round-trip requests):
    /// what the handler asked through [`ServerSession::request_input`], plus what this
    /// carries, goes out as an `input_required` result.
    InputRequired(super::InputRequired),
}

pub(super) struct ServerRole {
    pub(super) config: Arc<ServerConfig>,
    pub(super) registry: Arc<Registry>,
    pub(super) state: State,
    pub(super) capabilities: ServerCapabilities,
    pub(super) client_caps: ClientCapabilities,
    pub(super) client_info: Option<Implementation>,
    pub(super) log_level: Option<LoggingLevel>,
    pub(super) subscriptions: HashSet<String>,
    /// Bumped whenever what [`ServerSession::record`] returns changes.
    pub(super) record_changes: u64,
    /// The tasks this 2025-11-25 session created and that have not ended (oldest first,
    /// bounded): it is told of their changes (`notifications/tasks/status`).
    pub(super) created_tasks: std::collections::VecDeque<String>,
    /// The headers of the HTTP request being handled (2026-07-28 checks them).
    pub(super) headers: Option<RequestHeaders>,
    /// Open `subscriptions/listen` streams.
    pub(super) listens: super::KeyMap<RequestKey, Listen>,
    /// The caller's own visibility rules (`ctx.enable_components`, ...): a legacy session's,
    /// or a stdio connection's in either era.
    pub(super) visibility: Rules,
}

/// The server end of one MCP session.
pub struct ServerSession {
    pub(super) peer: Peer,
    pub(super) role: ServerRole,
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

/// How many unfinished tasks a 2025-11-25 session is told about (`notifications/tasks/status`);
/// past that, the oldest are no longer followed (clients poll anyway).
const MAX_FOLLOWED_TASKS: usize = 256;

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
                record_changes: 0,
                created_tasks: std::collections::VecDeque::new(),
                headers: None,
                listens: Default::default(),
                visibility: Rules::new(),
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

    /// Handles one message that came with HTTP headers (Streamable HTTP): a 2026-07-28
    /// request is checked against them (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
    /// `Mcp-Param-*`), and a request the headers declare modern is served as one even when
    /// its body says nothing of its revision (it is then refused for its missing `_meta`).
    pub fn handle_http_message(&mut self, bytes: &[u8], headers: RequestHeaders, now: Instant) {
        self.handle_http_parsed(bytes, None, headers, now);
    }

    /// [`ServerSession::handle_message`] of `bytes`, whose message the caller may have parsed
    /// already (`parsed`: [`crate::jsonrpc::parse_message`] of these bytes, a single message):
    /// an HTTP server that parsed a body to classify it hands the engine the result, which is
    /// not parsed again.
    pub fn handle_parsed(&mut self, bytes: &[u8], parsed: Option<crate::jsonrpc::Envelope<'_>>, now: Instant) {
        self.peer.handle_parsed(&mut self.role, bytes, parsed, now);
    }

    /// [`ServerSession::handle_http_message`] with the message parsed already, as
    /// [`ServerSession::handle_parsed`].
    pub fn handle_http_parsed(
        &mut self,
        bytes: &[u8],
        parsed: Option<crate::jsonrpc::Envelope<'_>>,
        headers: RequestHeaders,
        now: Instant,
    ) {
        self.role.headers = Some(headers);
        self.peer.handle_parsed(&mut self.role, bytes, parsed, now);
        self.role.headers = None;
    }

    /// Sets the request the next messages came in (HTTP: its headers, session, token
    /// identity): every invocation they start carries it, until it is set again.
    pub fn set_origin(&mut self, origin: Option<Arc<super::Origin>>) {
        self.peer.origin = origin;
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

    /// Whether what unexpected handler failures say is hidden from the client
    /// ([`ServerConfig::mask_error_details`]).
    pub fn masks_errors(&self) -> bool {
        self.role.config.mask_error_details
    }

    /// Number of peer requests being served by user code.
    pub fn in_flight(&self) -> usize {
        self.peer.inflight.len()
    }

    /// Hands back the outcome of an invocation. Ignored if the request was cancelled.
    pub fn complete(&mut self, key: RequestKey, outcome: Outcome) {
        let Some(inf) = self.peer.end(key) else { return };
        if let Some(ctx) = inf.modern.clone() {
            return self.complete_modern(key, inf, &ctx, outcome);
        }
        let v = self.peer.version.unwrap_or(ProtocolVersion::LATEST_LEGACY);
        let route = Route::Reply(key);
        match outcome {
            Outcome::Tool(result) => {
                let result = checked_tool_result(&inf, result);
                let shaped = edge::call_tool_result(&result, v);
                self.peer.write_result(&inf.id, inf.batch, route, &*shaped);
            }
            Outcome::Resource(mut r) => {
                // Caching hints are a 2026-07-28 field.
                r.ttl_ms = None;
                r.cache_scope = None;
                self.peer.write_result(&inf.id, inf.batch, route, &r)
            }
            Outcome::Prompt(p) => {
                let shaped = edge::get_prompt_result(&p, v);
                self.peer.write_result(&inf.id, inf.batch, route, &*shaped);
            }
            Outcome::Completion(c) => self.peer.write_result(&inf.id, inf.batch, route, &c),
            Outcome::Json(j) => self.peer.write_result(&inf.id, inf.batch, route, &j),
            Outcome::Listed(items) => match self.role.listed_page(&inf, items) {
                Ok(bytes) => self.peer.write_result_raw(&inf.id, inf.batch, route, &bytes),
                Err(e) => self.peer.write_error(Some(&inf.id), inf.batch, route, &e),
            },
            // 2025-11-25's CreateTaskResult wraps its Task.
            Outcome::TaskCreated(t) => {
                if let Some(id) = t.get("taskId").and_then(Value::as_str) {
                    let followed = &mut self.role.created_tasks;
                    if followed.len() >= MAX_FOLLOWED_TASKS {
                        followed.pop_front();
                    }
                    followed.push_back(id.to_string());
                }
                let created = serde_json::json!({ "task": crate::store::tasks::legacy_task(&t) });
                self.peer.write_result(&inf.id, inf.batch, route, &created)
            }
            Outcome::Error(e) => self.peer.write_error(Some(&inf.id), inf.batch, route, &e),
            Outcome::InputRequired(_) => {
                self.peer.write_error(Some(&inf.id), inf.batch, route, &super::mrtr::legacy_input_required(v))
            }
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
        let modern = related.and_then(|k| self.peer.inflight.get(&k)).and_then(|inf| inf.modern.as_ref());
        if let Some(ctx) = modern {
            // 2026-07-28: only for a request that asked, at its level or above.
            if ctx.log_level.is_none_or(|min| level < min) {
                return false;
            }
        } else if self.role.state == State::Uninitialized
            || self.role.state == State::Closed
            || self.role.log_level.is_some_and(|min| level < min)
        {
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

    /// Whether [`ServerSession::registry_changed`] would tell the client of `change` (a
    /// legacy session: a list it may list, a resource it subscribed to, a task it created).
    pub fn would_notify(&self, change: &RegistryChange) -> bool {
        if self.role.state != State::Operating && self.role.state != State::Initializing {
            return false;
        }
        let caps = &self.role.capabilities;
        match change {
            RegistryChange::ListChanged(kind) => match kind {
                ListKind::Tools => caps.tools.is_some(),
                ListKind::Resources | ListKind::ResourceTemplates => caps.resources.is_some(),
                ListKind::Prompts => caps.prompts.is_some(),
            },
            RegistryChange::ResourceUpdated(uri) => self.role.subscriptions.contains(uri),
            RegistryChange::TaskChanged { id, .. } => self.role.created_tasks.iter().any(|t| t == id),
        }
    }

    /// Tells the session about a registry change (a driver calls this from the registry's
    /// listener): the client gets `list_changed` or `resources/updated` as appropriate.
    pub fn registry_changed(&mut self, change: &RegistryChange) {
        self.notify_listens(change);
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
            // 2026-07-28 follows tasks on listen streams; a 2025-11-25 session is told of the
            // tasks it created until they end.
            RegistryChange::TaskChanged { id, detailed, .. } => {
                let Some(at) = self.role.created_tasks.iter().position(|t| t == id) else { return };
                let Ok(detailed) = serde_json::from_str::<Map<String, Value>>(detailed) else { return };
                let task = crate::store::tasks::legacy_task(&detailed);
                use crate::store::tasks::TaskStatus;
                let status = task.get("status").and_then(|s| TaskStatus::deserialize(s).ok());
                if status.is_some_and(TaskStatus::is_terminal) {
                    self.role.created_tasks.remove(at);
                }
                self.peer.notify(Route::Standalone, "notifications/tasks/status", Some(&task));
            }
        }
    }

    /// Changes what this session's caller sees (`ctx.enable_components`, ...): the change
    /// applies to it alone, and it is told of each list it sees differently
    /// (`list_changed`). Returns those lists. Fails when the rule is not one (no criterion)
    /// or the session holds too many.
    pub fn change_visibility(&mut self, change: &VisibilityChange) -> Result<Vec<ListKind>, String> {
        let new = change.apply(&self.role.visibility)?;
        if new == self.role.visibility {
            return Ok(Vec::new());
        }
        let lists = self.role.registry.view_changes(Some(&self.role.visibility), Some(&new));
        self.role.visibility = new;
        self.role.record_changes += 1;
        for &kind in &lists {
            self.registry_changed(&RegistryChange::ListChanged(kind));
        }
        Ok(lists)
    }

    /// The caller's own visibility rules (see [`ServerSession::change_visibility`]).
    pub fn caller_rules(&self) -> &Rules {
        &self.role.visibility
    }

    /// Gives the session the rules its caller already has: how a transport serves a request
    /// without a session (2026-07-28, stateless HTTP) as its authenticated caller sees things.
    pub fn set_caller_rules(&mut self, rules: Rules) {
        self.role.visibility = rules;
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
        if opts.related.and_then(|k| self.peer.inflight.get(&k)).is_some_and(|inf| inf.modern.is_some()) {
            return Err(RpcError::invalid_request(format!(
                "a 2026-07-28 request cannot be answered with a {method} request to the client: the call \
                 returns input_required instead"
            )));
        }
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
    /// A 2026-07-28 server (no legacy session) sends nothing: the revision has no such
    /// notification, so a handler calls this the same in both eras.
    pub fn elicitation_complete(&mut self, elicitation_id: &str) -> Result<(), RpcError> {
        let Some(v) = self.peer.version.filter(|v| v.era() == Era::Legacy) else { return Ok(()) };
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

    /// What replicas of an HTTP server share about this legacy session, so that any of them
    /// can serve its next request ([`crate::store::SessionRecord`]); `None` before
    /// `initialize` was answered, and for a session served statelessly.
    pub fn record(&self) -> Option<crate::store::SessionRecord> {
        let operating = match self.role.state {
            State::Initializing => false,
            State::Operating => true,
            _ => return None,
        };
        let version = self.peer.version.filter(|v| v.era() == crate::protocol::Era::Legacy)?;
        let mut subscriptions: Vec<String> = self.role.subscriptions.iter().cloned().collect();
        subscriptions.sort_unstable();
        Some(crate::store::SessionRecord {
            version: version.as_str().to_string(),
            operating,
            capabilities: serde_json::to_value(&self.role.client_caps).unwrap_or_default(),
            client_info: serde_json::to_value(&self.role.client_info).unwrap_or_default(),
            log_level: self.role.log_level.map(|l| l.as_str().to_string()),
            subscriptions,
            visibility: self.role.visibility.clone(),
        })
    }

    /// A number that changes whenever [`ServerSession::record`] does (a driver saves the
    /// record when it moved).
    pub fn record_changes(&self) -> u64 {
        self.role.record_changes
    }

    /// Makes this session the one `record` describes, as if its handshake (and the requests
    /// that changed it since) had happened here: how a replica takes over a session another
    /// one started. Fails when the record names what this server does not speak.
    pub fn restore(&mut self, record: &crate::store::SessionRecord) -> Result<(), String> {
        let version: ProtocolVersion =
            record.version.parse().map_err(|_| format!("unknown protocol version {:?}", record.version))?;
        if version.era() != crate::protocol::Era::Legacy || !self.role.config.versions.contains(&version) {
            return Err(format!("this server does not speak {version} over sessions"));
        }
        let caps: ClientCapabilities =
            serde_json::from_value(record.capabilities.clone()).map_err(|e| format!("client capabilities: {e}"))?;
        let info: Option<Implementation> =
            serde_json::from_value(record.client_info.clone()).map_err(|e| format!("client info: {e}"))?;
        let level = match &record.log_level {
            None => None,
            Some(l) => Some(
                serde_json::from_value::<LoggingLevel>(Value::String(l.clone()))
                    .map_err(|_| format!("unknown log level {l:?}"))?,
            ),
        };
        self.peer.version = Some(version);
        self.role.client_caps = caps;
        self.role.client_info = info;
        self.role.log_level = level;
        self.role.subscriptions = record.subscriptions.iter().cloned().collect();
        self.role.visibility = record.visibility.clone();
        self.role.capabilities = self.role.build_capabilities();
        self.role.state = if record.operating { State::Operating } else { State::Initializing };
        self.role.record_changes += 1;
        Ok(())
    }

    /// Makes the ids of the requests this session sends start at `base` (see
    /// [`crate::store::ClusterStore::replica`]).
    pub fn set_request_id_base(&mut self, base: i64) {
        self.peer.set_out_base(base);
    }

    /// Closes the session (the transport ended): in-flight work is cancelled, and each open
    /// `subscriptions/listen` stream is answered first (its graceful end).
    pub fn close(&mut self) {
        self.end_listens();
        self.role.state = State::Closed;
        self.peer.close();
    }
}

/// A tool's result, or the error it is when it breaks the tool's output schema.
pub(super) fn checked_tool_result(inf: &super::peer::Inflight, result: CallToolResult) -> CallToolResult {
    check_output(inf.tool.as_deref(), result)
}

/// A tool result checked against the tool's `outputSchema` (a result that does not match
/// becomes an `isError` result saying why): what every answer of a tool call goes through,
/// a task's included.
pub(crate) fn check_output(tool: Option<&crate::catalogue::ToolEntry>, result: CallToolResult) -> CallToolResult {
    let Some(t) = tool.filter(|t| t.has_output_schema() && !result.failed()) else { return result };
    match &result.structured_content {
        None => CallToolResult::error(format!(
            "tool {:?} declares an outputSchema but returned no structuredContent",
            t.tool.name
        )),
        Some(s) => match t.validate_output(s) {
            Ok(()) => result,
            Err(errs) => CallToolResult::error(format!(
                "tool {:?} returned structuredContent that does not match its outputSchema: {}",
                t.tool.name,
                errs.join("; ")
            )),
        },
    }
}

/// How arguments that fail a tool's checks are answered: from 2025-11-25 as a tool error
/// the model can read and correct, before as an `InvalidParams` JSON-RPC error.
pub(crate) fn invalid_arguments(
    v: ProtocolVersion,
    tool: &str,
    errors: Vec<String>,
) -> Result<CallToolResult, RpcError> {
    let message = format!("Invalid arguments for tool {tool}: {}", errors.join("; "));
    if v.supports(Feature::ToolInputErrorsAsResults) {
        return Ok(CallToolResult::error(message));
    }
    Err(RpcError::invalid_params(message).with_data(serde_json::json!({ "tool": tool, "errors": errors })))
}
