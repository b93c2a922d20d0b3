//! The server side of a session: the `initialize` handshake and version negotiation,
//! everything the engine answers by itself (ping, lists from cached bytes, logging level,
//! subscriptions, errors), argument validation, and [`Event::Invoke`] for the rest.

use super::config::ServerConfig;
use super::listen::Listen;
use super::modern::{self, RequestHeaders};
use super::outbox::{Route, Transmit};
use super::peer::{params, Peer, RequestOptions, Role};
use super::{Event, OutboundId, Request, RequestKey, State};
use crate::catalogue::visibility::{Component, Rules, VisibilityChange};
use crate::catalogue::{Caller, ListKind, Registry, RegistryChange, Resolved};
use crate::jsonrpc::{RawJson, RequestId, RpcError};
use crate::protocol::*;
use serde::Deserialize;
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
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
    /// A list as middleware left it ([`Request::List`]): the engine pages it.
    Listed(Vec<Value>),
    /// The call needs input from the client first (2026-07-28, multi round-trip requests):
    /// what the handler asked through [`ServerSession::request_input`], plus what this
    /// carries, goes out as an `input_required` result.
    InputRequired(super::InputRequired),
}

pub(super) struct ServerRole {
    pub(super) config: Arc<ServerConfig>,
    pub(super) registry: Arc<Registry>,
    state: State,
    capabilities: ServerCapabilities,
    client_caps: ClientCapabilities,
    client_info: Option<Implementation>,
    log_level: Option<LoggingLevel>,
    subscriptions: HashSet<String>,
    /// Bumped whenever what [`ServerSession::record`] returns changes.
    record_changes: u64,
    /// The tasks this 2025-11-25 session created and that have not ended (oldest first,
    /// bounded): it is told of their changes (`notifications/tasks/status`).
    created_tasks: std::collections::VecDeque<String>,
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
    #[serde(rename = "_meta", default, deserialize_with = "modern::caller_meta")]
    meta: Option<Meta>,
    /// 2025-11-25: run the call as a task (`{ttl?}`).
    #[serde(default)]
    task: Option<Value>,
}

impl<'a> CallToolParams<'a> {
    /// The params from what was read with a 2026-07-28 request's context; `None` when the
    /// caller's own `_meta` keys need the full read, or the fields do not read.
    fn preparsed(pre: &modern::Preparsed<'a>) -> Option<Self> {
        if pre.caller_meta {
            return None;
        }
        let name = crate::jsonrpc::message::json_str_text(pre.name?)?;
        let arguments = match pre.arguments {
            None => None,
            Some(a) => Some(serde_json::from_str::<Value>(a).ok()?),
        };
        Some(CallToolParams { name, arguments, meta: None, task: None })
    }
}

/// How many unfinished tasks a 2025-11-25 session is told about (`notifications/tasks/status`);
/// past that, the oldest are no longer followed (clients poll anyway).
const MAX_FOLLOWED_TASKS: usize = 256;

#[derive(Deserialize)]
struct CursorParams {
    #[serde(default)]
    cursor: Option<String>,
}

#[derive(Deserialize)]
struct UriParams {
    uri: String,
    #[serde(rename = "_meta", default, deserialize_with = "modern::caller_meta")]
    meta: Option<Meta>,
}

#[derive(Deserialize)]
struct GetPromptParams {
    name: String,
    #[serde(default)]
    arguments: Option<HashMap<String, String>>,
    #[serde(rename = "_meta", default, deserialize_with = "modern::caller_meta")]
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

impl ServerRole {
    pub(super) fn build_capabilities(&self) -> ServerCapabilities {
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
            // 2025-11-25 only (the edge leaves it out of other revisions).
            tasks: (c.legacy_tasks && c.extensions.contains_key(crate::store::tasks::TASKS_EXTENSION))
                .then(|| serde_json::json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})),
            extensions: {
                // Skills and apps served declare their extensions (unless the app named them).
                let mut all = c.extensions.clone();
                if let Some(skills) = self.skills_settings() {
                    all.entry(crate::catalogue::skills::SKILLS_EXTENSION).or_insert(skills);
                }
                if r.has_apps() {
                    all.entry(crate::protocol::UI_EXTENSION).or_insert_with(|| Value::Object(Map::new()));
                }
                (!all.is_empty()).then_some(all)
            },
        }
    }

    fn initialize(&mut self, peer: &mut Peer, id: RequestId, raw: Option<RawJson<'_>>) {
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
        self.record_changes += 1;
        let result = InitializeResult {
            protocol_version: v.as_str().to_string(),
            capabilities: edge::server_capabilities(&self.capabilities, v).into_owned(),
            server_info: edge::implementation(&self.config.info, v).into_owned(),
            instructions: self.config.instructions.clone(),
            meta: None,
        };
        peer.write_result(&id, None, Route::Standalone, &result);
    }

    fn list(&self, peer: &mut Peer, id: RequestId, kind: ListKind, raw: Option<RawJson<'_>>, batch: Option<u64>) {
        let v = peer.version.unwrap_or(ProtocolVersion::LATEST_LEGACY);
        if self.registry.list_hooked(kind) {
            return self.list_through_middleware(peer, id, kind, v, raw, batch, None);
        }
        let page = params::<CursorParams>(raw)
            .and_then(|p| self.registry.list_page_for(kind, v, p.cursor.as_deref(), self.caller(peer)));
        match page {
            Ok(bytes) => peer.write_result_raw(&id, batch, Route::Standalone, &bytes),
            Err(e) => peer.write_error(Some(&id), batch, Route::Standalone, &e),
        }
    }

    pub(super) fn call_tool(
        &self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        stateless: Option<(&Arc<modern::RequestContext>, &modern::Preparsed<'_>)>,
    ) -> Result<(), RpcError> {
        let ctx = stateless.map(|(c, _)| c);
        // A 2026-07-28 call's name and arguments were read with its context: its params are
        // not read again unless its `_meta` holds keys of the caller's own (or the fast read
        // fails, for the full one to say why).
        let pre = stateless.and_then(|(_, pre)| CallToolParams::preparsed(pre));
        let p: CallToolParams<'_> = match pre {
            Some(p) => p,
            None => params(raw)?,
        };
        let Some(entry) = self.registry.tool(&p.name).filter(|_| self.sees(peer, Component::Tool, &p.name)) else {
            return Err(RpcError::unknown_tool(&p.name));
        };
        let arguments = match p.arguments {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(a) => a,
        };
        if let (Some(_), Some(h)) = (ctx, &self.headers) {
            modern::check_param_headers(&entry, &arguments, h)?;
        }
        if let Err(errors) = entry.validate_arguments(&arguments) {
            let v = ctx.map_or(peer.version.unwrap_or(ProtocolVersion::LATEST_LEGACY), |c| c.version);
            let result = invalid_arguments(v, &p.name, errors)?;
            match ctx {
                Some(_) => self.write_modern(peer, &id, batch, Route::Standalone, None, &result),
                None => peer.write_result(&id, batch, Route::Standalone, &result),
            }
            return Ok(());
        }
        let Value::Object(arguments) = arguments else { unreachable!("the input schema requires an object") };
        let task = match ctx {
            Some(c) => self.task_plan(&p.name, c)?,
            None => self.legacy_task_plan(&p.name, p.task.is_some(), peer.version)?,
        };
        let name = p.name.into_owned();
        let key = peer.invoke(id, batch, p.meta, Request::CallTool { name, arguments }, Some(entry), ctx.cloned());
        if task.is_some() {
            peer.set_task_plan(key, task);
        }
        if ctx.is_some() {
            peer.set_round(key, super::mrtr::Round::new("tools/call", raw));
        }
        Ok(())
    }

    /// Whether a call of tool `name` runs as a task: only at 2026-07-28, when the server
    /// declares the tasks extension and the client declared it with the request. A tool
    /// that runs only as tasks refuses other calls with -32021. (A legacy session's calls:
    /// [`ServerRole::legacy_task_plan`].)
    fn task_plan(&self, name: &str, ctx: &modern::RequestContext) -> Result<Option<super::TaskPlan>, RpcError> {
        use crate::catalogue::TaskMode;
        use crate::store::tasks::TASKS_EXTENSION;
        let Some(mode) = self.registry.task_mode(name) else { return Ok(None) };
        if !self.config.extensions.contains_key(TASKS_EXTENSION) {
            return Ok(None);
        }
        let declared = ctx.client_capabilities.extensions.as_ref().is_some_and(|e| e.contains_key(TASKS_EXTENSION));
        Ok(match (mode, declared) {
            (TaskMode::Required, false) => return Err(super::missing_extension(TASKS_EXTENSION)),
            (_, false) => None,
            (TaskMode::Optional | TaskMode::Required, true) => Some(super::TaskPlan::Start),
            (TaskMode::Manual, true) => Some(super::TaskPlan::Allowed),
        })
    }

    /// `tasks/get`, `tasks/result`, `tasks/list`, `tasks/cancel` of 2025-11-25: the task
    /// runtime answers (the session's client owns the tasks it may see, as at 2026-07-28).
    fn legacy_task_request(
        &self,
        peer: &mut Peer,
        id: RequestId,
        method: &str,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
    ) -> Result<(), RpcError> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct P {
            #[serde(default)]
            task_id: Option<String>,
            #[serde(default)]
            cursor: Option<String>,
        }
        let p: P = params(raw)?;
        let task_id = || p.task_id.clone().ok_or_else(|| RpcError::invalid_params(format!("{method} needs a taskId")));
        let op = match method {
            "tasks/get" => super::TaskOp::LegacyGet { task_id: task_id()? },
            "tasks/result" => super::TaskOp::Result { task_id: task_id()? },
            "tasks/cancel" => super::TaskOp::LegacyCancel { task_id: task_id()? },
            _ => super::TaskOp::List { cursor: p.cursor.clone() },
        };
        peer.invoke(id, batch, None, Request::Task(op), None, None);
        Ok(())
    }

    /// Whether a 2025-11-25 call runs as a task: when the client asked (`params.task`) for a
    /// tool that runs as one (`execution.taskSupport`); a tool that runs only as a task
    /// refuses other calls with -32601, as one that never does refuses `params.task`.
    fn legacy_task_plan(
        &self,
        name: &str,
        wants_task: bool,
        version: Option<ProtocolVersion>,
    ) -> Result<Option<super::TaskPlan>, RpcError> {
        use crate::catalogue::TaskMode;
        let mode = self.registry.task_mode(name);
        let tasks_on = self.config.extensions.contains_key(crate::store::tasks::TASKS_EXTENSION);
        let served = self.capabilities.tasks.is_some()
            && version.is_some_and(|v| v.supports(crate::protocol::Feature::LegacyTasks));
        let not_found = |m: String| RpcError::new(crate::jsonrpc::codes::METHOD_NOT_FOUND, m);
        match (served, mode, wants_task) {
            (true, Some(_), true) => Ok(Some(super::TaskPlan::Start)),
            (true, None, true) => Err(not_found(format!(
                "tool {name} does not run as a task (its execution.taskSupport is forbidden): call it without params.task"
            ))),
            (true, Some(TaskMode::Required), false) => {
                Err(not_found(format!("tool {name} runs only as a task: call it with params.task")))
            }
            (false, Some(TaskMode::Required), _) if tasks_on => Err(not_found(format!(
                "tool {name} runs only as a task: call it at 2026-07-28 with the tasks extension"
            ))),
            _ => Ok(None),
        }
    }

    pub(super) fn read_resource(
        &self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        ctx: Option<&Arc<modern::RequestContext>>,
    ) -> Result<(), RpcError> {
        let p: UriParams = params(raw)?;
        let listed = self.sees(peer, Component::Resource, &p.uri);
        if let Some(file) = super::skills::skill_file(&self.registry, &p.uri).filter(|_| listed) {
            self.read_skill_file(peer, &id, batch, ctx.is_some(), &file);
            return Ok(());
        }
        if let Some(app) = self.registry.app(&p.uri).filter(|_| listed) {
            self.read_app(peer, &id, batch, ctx.is_some(), &p.uri, &app);
            return Ok(());
        }
        let (template, variables) = match self.registry.resolve_for(&p.uri, self.caller(peer)) {
            // 2026-07-28 reports an unknown resource as invalid params.
            None if ctx.is_some() => {
                return Err(RpcError::invalid_params(format!("Resource not found: {}", p.uri))
                    .with_data(serde_json::json!({ "uri": p.uri })))
            }
            None => return Err(RpcError::resource_not_found(&p.uri)),
            Some(Resolved::Static(_)) => (None, HashMap::new()),
            Some(Resolved::Template(t, vars)) => (Some(t), vars),
        };
        let key = peer.invoke(
            id,
            batch,
            p.meta,
            Request::ReadResource { uri: p.uri, template, variables },
            None,
            ctx.cloned(),
        );
        if ctx.is_some() {
            peer.set_round(key, super::mrtr::Round::new("resources/read", raw));
        }
        Ok(())
    }

    pub(super) fn get_prompt(
        &self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        ctx: Option<&Arc<modern::RequestContext>>,
    ) -> Result<(), RpcError> {
        let p: GetPromptParams = params(raw)?;
        let Some(prompt) = self.registry.prompt(&p.name).filter(|_| self.sees(peer, Component::Prompt, &p.name)) else {
            return Err(RpcError::unknown_prompt(&p.name));
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
        let key = peer.invoke(id, batch, p.meta, Request::GetPrompt { name: p.name, arguments }, None, ctx.cloned());
        if ctx.is_some() {
            peer.set_round(key, super::mrtr::Round::new("prompts/get", raw));
        }
        Ok(())
    }

    pub(super) fn complete(
        &self,
        peer: &mut Peer,
        id: RequestId,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        ctx: Option<&Arc<modern::RequestContext>>,
    ) -> Result<(), RpcError> {
        let p: CompleteParams = params(raw)?;
        match &p.reference {
            CompletionReference::Prompt { name } => {
                let Some(prompt) = self.registry.prompt(name).filter(|_| self.sees(peer, Component::Prompt, name))
                else {
                    return Err(RpcError::unknown_prompt(name));
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
                let template = self.registry.template(uri).filter(|_| self.sees(peer, Component::Template, uri));
                let resource = self.registry.resource(uri).filter(|_| self.sees(peer, Component::Resource, uri));
                if template.is_none() && resource.is_none() {
                    return Err(RpcError::invalid_params(format!("Unknown resource template: {uri}"))
                        .with_data(serde_json::json!({ "uri": uri })));
                }
            }
        }
        let meta = params::<MetaOnly>(raw).ok().and_then(|m| m.meta);
        peer.invoke(id, batch, meta, Request::Complete(p), None, ctx.cloned());
        Ok(())
    }

    /// A list some middleware hook sees: built whole for the caller, handed to the chain
    /// ([`Request::List`]), paged when it comes back ([`Outcome::Listed`]).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn list_through_middleware(
        &self,
        peer: &mut Peer,
        id: RequestId,
        kind: ListKind,
        v: ProtocolVersion,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        ctx: Option<&Arc<modern::RequestContext>>,
    ) {
        let offset = params::<CursorParams>(raw).and_then(|p| crate::catalogue::cursor_offset(p.cursor.as_deref()));
        let offset = match offset {
            Ok(o) => o,
            Err(e) => return peer.write_error(Some(&id), batch, Route::Standalone, &e),
        };
        let meta = params::<MetaOnly>(raw).ok().and_then(|m| m.meta);
        let items = self.registry.list_items(kind, v, self.caller(peer));
        let key = peer.invoke(id, batch, meta, Request::List { kind, items }, None, ctx.cloned());
        peer.set_list(key, kind, offset);
    }

    /// A request method of the server's own: its params (an object, or none) without
    /// `_meta` go to its handler.
    pub(super) fn custom(
        &self,
        peer: &mut Peer,
        id: RequestId,
        method: &str,
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        ctx: Option<&Arc<modern::RequestContext>>,
    ) -> Result<(), RpcError> {
        let mut params = match raw.map(|r| serde_json::from_str::<Value>(r.get())) {
            None | Some(Ok(Value::Null)) => Map::new(),
            Some(Ok(Value::Object(m))) => m,
            Some(Ok(_)) => return Err(RpcError::invalid_params(format!("{method}: params must be an object"))),
            Some(Err(e)) => return Err(RpcError::invalid_params(format!("{method}: {e}"))),
        };
        let meta = match params.remove("_meta") {
            None | Some(Value::Null) => None,
            Some(Value::Object(m)) => Some(m),
            Some(_) => return Err(RpcError::invalid_params(format!("{method}: _meta must be an object"))),
        };
        let params = Value::Object(params);
        if let Err(errors) = self.registry.check_method_params(method, &params) {
            return Err(RpcError::invalid_params(format!("{method}: {}", errors.join("; ")))
                .with_data(serde_json::json!({ "method": method, "errors": errors })));
        }
        let Value::Object(params) = params else { unreachable!("made an object above") };
        let request = Request::Custom { method: method.to_string(), params };
        peer.invoke(id, batch, meta, request, None, ctx.cloned());
        Ok(())
    }

    /// The page a list that passed middleware answers with.
    pub(super) fn listed_page(&self, inf: &super::peer::Inflight, items: Vec<Value>) -> Result<Vec<u8>, RpcError> {
        let Some((kind, offset)) = inf.list else {
            return Err(RpcError::internal("a list outcome for a request that was not a list"));
        };
        self.registry.page_of(kind, items, offset as usize)
    }

    /// Whether this session's caller sees a component (the server's rules, then its own).
    pub(super) fn sees(&self, peer: &Peer, kind: Component, key: &str) -> bool {
        self.registry.visible(kind, key, self.caller(peer))
    }

    /// Who asks the request at hand: this session's own rules and, when the HTTP server
    /// hides what a token may not use, the scopes of the request's token.
    pub(super) fn caller<'a>(&'a self, peer: &'a Peer) -> Caller<'a> {
        let scopes = peer
            .origin
            .as_deref()
            .filter(|o| o.hide_unauthorized)
            .and_then(|o| o.auth.as_deref())
            .map(|a| a.scopes.as_slice());
        Caller { rules: Some(&self.visibility), scopes }
    }

    fn subscription(&mut self, peer: &mut Peer, raw: Option<RawJson<'_>>, subscribe: bool) -> Result<(), RpcError> {
        let p: UriParams = params(raw)?;
        if subscribe {
            let skill = super::skills::skill_file(&self.registry, &p.uri)
                .filter(|_| self.sees(peer, Component::Resource, &p.uri));
            if self.registry.resolve_for(&p.uri, self.caller(peer)).is_none() && skill.is_none() {
                return Err(RpcError::resource_not_found(&p.uri));
            }
            if self.subscriptions.insert(p.uri) {
                self.record_changes += 1;
            }
        } else if self.subscriptions.remove(&p.uri) {
            self.record_changes += 1;
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
        raw: Option<RawJson<'_>>,
        batch: Option<u64>,
        _now: Instant,
    ) {
        // The version header first: when it names 2026-07-28 the params need no probing.
        if self.headers.as_ref().is_some_and(RequestHeaders::declares_modern) || modern::is_modern(method, raw) {
            return self.modern_request(peer, id, method, raw, batch);
        }
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
        if let Some(r) = self.skills_request(peer, &id, method, raw, batch, false) {
            if let Err(e) = r {
                peer.write_error(Some(&id), batch, Route::Standalone, &e);
            }
            return;
        }
        let caps = &self.capabilities;
        let result: Result<(), RpcError> = match method {
            "tools/list" if caps.tools.is_some() => {
                self.list(peer, id, ListKind::Tools, raw, batch);
                return;
            }
            "tools/call" if caps.tools.is_some() => self.call_tool(peer, id.clone(), raw, batch, None),
            "resources/list" if caps.resources.is_some() => {
                self.list(peer, id, ListKind::Resources, raw, batch);
                return;
            }
            "resources/templates/list" if caps.resources.is_some() => {
                self.list(peer, id, ListKind::ResourceTemplates, raw, batch);
                return;
            }
            "resources/read" if caps.resources.is_some() => self.read_resource(peer, id.clone(), raw, batch, None),
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
            "prompts/get" if caps.prompts.is_some() => self.get_prompt(peer, id.clone(), raw, batch, None),
            "completion/complete" if caps.completions.is_some() => self.complete(peer, id.clone(), raw, batch, None),
            "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel"
                if caps.tasks.is_some()
                    && peer.version.is_some_and(|v| v.supports(crate::protocol::Feature::LegacyTasks)) =>
            {
                self.legacy_task_request(peer, id.clone(), method, raw, batch)
            }
            "logging/setLevel" => match params::<SetLevelParams>(raw) {
                Ok(p) => {
                    if self.log_level != Some(p.level) {
                        self.log_level = Some(p.level);
                        self.record_changes += 1;
                    }
                    peer.write_result_raw(&id, batch, Route::Standalone, b"{}");
                    return;
                }
                Err(e) => Err(e),
            },
            _ if self.registry.has_method(method) => self.custom(peer, id.clone(), method, raw, batch, None),
            _ => Err(RpcError::method_not_found(method)),
        };
        if let Err(e) = result {
            peer.write_error(Some(&id), batch, Route::Standalone, &e);
        }
    }

    fn on_notification(&mut self, peer: &mut Peer, method: &str, raw: Option<RawJson<'_>>) {
        match method {
            "notifications/initialized" => {
                if self.state == State::Initializing {
                    self.state = State::Operating;
                    self.record_changes += 1;
                    peer.events.push_back(Event::Initialized);
                }
            }
            _ => {
                // Before the handshake only a notification of the server's own (a 2026-07-28
                // connection has no handshake): the spec's would be out of place.
                let own = || crate::protocol::methods::check_custom(method).is_ok();
                if self.state == State::Uninitialized && !own() {
                    return;
                }
                let params = raw.and_then(|r| serde_json::from_str(r.get()).ok());
                peer.events.push_back(Event::Notification { method: method.to_string(), params, subscription: None });
            }
        }
    }

    fn batchable(&self, method: &str) -> bool {
        method != "initialize"
    }
}
