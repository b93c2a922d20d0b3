//! The client side of a session: the handshake, capability checks before each request,
//! server-to-client requests (sampling, elicitation, roots, ping) and notifications.

use super::client_modern::{self as cm, ClientMode, ModernCall, ResultCache};
use super::outbox::{Route, Transmit};
use super::peer::{params, Peer, RequestOptions, Role};
use super::{Event, Invocation, OutboundId, Request, RequestKey, State};
use crate::jsonrpc::{codes, RawJson, RequestId, RpcError, DEFAULT_MAX_MESSAGE_SIZE};
use crate::protocol::*;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod opening;
mod rounds;
mod tasks;

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
    /// Which era to speak: probe and fall back (auto), 2026-07-28 only, or `initialize` only.
    pub mode: ClientMode,
    /// How long the `server/discover` probe may go unanswered before an auto client takes
    /// the server for a legacy one (some legacy servers ignore requests sent before
    /// `initialize`). A modern-only client has nothing to fall back to: its probe waits for
    /// the request timeout. Over HTTP see [`ClientConfig::probe_as_request`].
    pub probe_timeout: Duration,
    /// Bound on the `input_required` rounds of one modern request.
    pub max_input_rounds: u32,
    /// Reuse results the server marked with `ttlMs` (lists and resource reads) until they
    /// expire or a change notification says otherwise.
    pub cache_results: bool,
    /// 2026-07-28: the log level every request carries until `logging/setLevel` changes it
    /// (a modern server sends log messages only for requests that name a level; legacy
    /// servers send them unasked). `None`: no log messages until a level is set.
    pub log_level: Option<LoggingLevel>,
    /// 2026-07-28: keep a `subscriptions/listen` stream open for the list changes the server
    /// announces and the resources subscribed to, so that change notifications arrive as
    /// they do on a legacy session (the stream is reopened when a subscription changes).
    pub listen: bool,
    /// Legacy sessions: a keep-alive `ping` is sent this long after the last one was
    /// answered; one left unanswered for as long again means the server is gone (frozen, or
    /// its connection silently dead): the session closes, its pending requests fail with
    /// that reason and [`Event::Lost`] tells the host. `None` (the default): no pings. A
    /// 2026-07-28 session has no `ping` (each request stands alone).
    pub ping_interval: Option<Duration>,
}

impl ClientConfig {
    /// The probe waits as long as any request: for connections where a silent server is no
    /// sign of a legacy one. Over HTTP a legacy server answers `server/discover` at once (an
    /// error, or an HTTP status the transport turns into one), while behind OAuth the probe
    /// holds the whole authorization, a user's login included, which the 10 s probe timeout
    /// would take for a legacy server.
    pub fn probe_as_request(&mut self) {
        // No request timeout: a year is "no timeout".
        self.probe_timeout = self.request_timeout.unwrap_or(Duration::from_secs(365 * 24 * 3600));
    }

    /// Defaults: auto mode (2026-07-28 when the server speaks it, else `initialize` asking
    /// for 2025-11-25), every revision accepted, 60 s timeout, 10 s probe, 16 input rounds,
    /// cached results.
    pub fn new(info: Implementation) -> Self {
        ClientConfig {
            info,
            capabilities: ClientCapabilities::default(),
            protocol_version: ProtocolVersion::LATEST_LEGACY,
            versions: ProtocolVersion::ALL.to_vec(),
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            request_timeout: Some(Duration::from_secs(60)),
            mode: ClientMode::Auto,
            probe_timeout: Duration::from_secs(10),
            max_input_rounds: 16,
            cache_results: true,
            log_level: None,
            listen: true,
            ping_interval: None,
        }
    }
}

/// How far the opening went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Opening {
    /// `server/discover` sent (this wire id).
    Probe(OutboundId),
    /// `initialize` sent (this wire id).
    Initialize(OutboundId),
}

struct ClientRole {
    config: Arc<ClientConfig>,
    state: State,
    /// The latest time the session was given (what closing it, which takes none, goes by:
    /// the calls it fails are never retried, so no timer depends on it).
    last_now: Option<Instant>,
    /// The id `initialize()` returned: the handshake's failure is reported under it.
    open_id: Option<OutboundId>,
    opening: Option<Opening>,
    server: Option<InitializeResult>,
    /// Serving 2026-07-28 statelessly (the probe found a modern server).
    modern: bool,
    /// `_meta` of every modern request, made once.
    meta: Map<String, Value>,
    /// Modern requests in flight, by the wire id of their current attempt.
    calls: HashMap<OutboundId, ModernCall>,
    /// The calls awaiting inputs (no attempt on the wire), by caller id.
    waiting: HashMap<OutboundId, ModernCall>,
    /// Which call each made-up input invocation belongs to (caller id, input key).
    inputs: HashMap<RequestKey, OutboundId>,
    cache: ResultCache,
    /// The session's own listen stream (wire id), and the resources subscribed through it.
    listen: Option<OutboundId>,
    subscribed: std::collections::BTreeSet<String>,
    /// Probes sent (a server that refuses the version it then lists as supported is asked
    /// once more).
    probes: u8,
    /// The application's own listen streams (their notifications keep their tag).
    user_listens: std::collections::HashSet<OutboundId>,
    /// Tool calls answered with a task, followed until the task ends, by caller id.
    followed: HashMap<OutboundId, Followed>,
    /// This client's own requests about followed tasks: (the followed caller, which).
    task_wire: HashMap<OutboundId, (OutboundId, TaskReq)>,
    /// The input requests of followed tasks being served (the followed caller, input key).
    task_inputs: HashMap<RequestKey, (OutboundId, String)>,
    /// 2025-11-25 tasks: how the server runs each tool as a task (`execution.taskSupport`
    /// of its `tools/list`: `true` for "required", `false` for "optional").
    tool_tasks: HashMap<String, bool>,
    /// 2025-11-25 requests whose answers this client reads first.
    legacy_wire: HashMap<OutboundId, LegacyWire>,
    /// The keep-alive ping on the wire, or when the next is due (legacy, with
    /// [`ClientConfig::ping_interval`]).
    ping: Option<OutboundId>,
    next_ping: Option<Instant>,
    /// Why the server is taken for gone (a ping went unanswered): the session closes at the
    /// end of the current step.
    lost: Option<String>,
}

/// See [`ClientRole::legacy_wire`].
enum LegacyWire {
    /// A `tools/list` page: what it says of tasks is learnt.
    ToolsList,
    /// A `tools/call` sent with `params.task`, followed to its end when `follow`.
    TaskCall { follow: bool, deadline: Option<Instant> },
}

/// How long a 2025-11-25 `tasks/result` may wait on the wire (the caller's own timeout,
/// if any, cancels the task before).
const TASK_RESULT_WAIT: Duration = Duration::from_secs(7 * 24 * 3600);

/// A tool call the server answered with a task (tasks extension): the client polls it with
/// `tasks/get`, serves its input requests through the same handlers as any request and
/// answers them with `tasks/update`, and answers the caller when the task ends (the spec's
/// "a client that calls a tool sees its result", whatever the server chose).
struct Followed {
    task_id: String,
    /// How long between polls (the task's `pollIntervalMs`, within 50 ms and 30 s).
    poll: Duration,
    /// When to poll next (`None` while a `tasks/get` is on the wire).
    next: Option<Instant>,
    /// The input keys already served.
    asked: std::collections::HashSet<String>,
    /// When the caller stops waiting (its own timeout): the task is cancelled then.
    deadline: Option<Instant>,
    /// 2025-11-25: the `tasks/result` on the wire (that revision's tasks are not polled: the
    /// server answers it when the task ends, sending its input requests meanwhile).
    result_wire: Option<OutboundId>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TaskReq {
    Get,
    Update,
    Cancel,
    /// `tasks/result` (2025-11-25).
    Result,
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
        let level = config.log_level.map(|l| serde_json::to_value(l).unwrap_or(Value::Null));
        let meta = cm::request_meta(
            ProtocolVersion::V2026_07_28.as_str(),
            &serde_json::to_value(&config.capabilities).unwrap_or(Value::Null),
            &serde_json::to_value(&config.info).unwrap_or(Value::Null),
            level.as_ref(),
        );
        ClientSession {
            peer,
            role: ClientRole {
                config,
                state: State::Uninitialized,
                last_now: None,
                open_id: None,
                opening: None,
                server: None,
                modern: false,
                meta,
                calls: HashMap::new(),
                waiting: HashMap::new(),
                inputs: HashMap::new(),
                cache: ResultCache::default(),
                listen: None,
                subscribed: Default::default(),
                probes: 0,
                user_listens: Default::default(),
                followed: HashMap::new(),
                task_wire: HashMap::new(),
                task_inputs: HashMap::new(),
                tool_tasks: HashMap::new(),
                legacy_wire: HashMap::new(),
                ping: None,
                next_ping: None,
                lost: None,
            },
        }
    }

    /// Whether the session speaks 2026-07-28 (the server answered `server/discover`).
    pub fn is_modern(&self) -> bool {
        self.role.modern
    }

    /// Feeds bytes of a newline-delimited stream.
    pub fn feed(&mut self, data: &[u8], now: Instant) {
        self.peer.feed(&mut self.role, data, now);
        self.after_input_at(now);
    }

    /// Handles one complete message.
    pub fn handle_message(&mut self, bytes: &[u8], now: Instant) {
        self.peer.handle_message(&mut self.role, bytes, now);
        self.after_input_at(now);
    }

    fn after_input_at(&mut self, now: Instant) {
        self.role.last_now = Some(now);
        // Answers are rewritten in place, so that drivers see events in order.
        let mut i = 0;
        while i < self.peer.events.len() {
            match &self.peer.events[i] {
                Event::Response { id, .. } => {
                    let id = *id;
                    let Some(Event::Response { result, .. }) = self.peer.events.remove(i) else { unreachable!() };
                    let out = self.on_answer(id, result, now);
                    let n = out.len();
                    for (j, ev) in out.into_iter().enumerate() {
                        self.peer.events.insert(i + j, ev);
                    }
                    i += n;
                }
                Event::Progress { id, .. } => {
                    let wire = *id;
                    if let Some(call) = self.role.calls.get(&wire) {
                        let caller = call.caller;
                        if let Some(Event::Progress { id, .. }) = self.peer.events.get_mut(i) {
                            *id = caller;
                        }
                    }
                    i += 1;
                }
                Event::Notification { method, params, .. } => {
                    if self.role.config.cache_results {
                        self.role.cache.invalidate(method, params.as_ref());
                    }
                    let tag = params
                        .as_ref()
                        .and_then(|p| p.get("_meta"))
                        .and_then(|m| m.get(meta_keys::SUBSCRIPTION_ID))
                        .and_then(Value::as_i64)
                        .map(OutboundId);
                    let ours = tag.is_some() && tag == self.role.listen;
                    let ack = method == "notifications/subscriptions/acknowledged";
                    if let Some(t) = tag.filter(|t| self.role.user_listens.contains(t)) {
                        if let Some(Event::Notification { subscription, .. }) = self.peer.events.get_mut(i) {
                            *subscription = Some(t);
                        }
                    }
                    if ours && ack {
                        self.peer.events.remove(i);
                    } else {
                        if ours {
                            // The session's own stream: its notifications read as on a legacy session.
                            if let Some(Event::Notification { params: p @ Some(_), .. }) = self.peer.events.get_mut(i) {
                                if let Some(Value::Object(m)) = p.as_mut() {
                                    cm::strip_meta_key(m, meta_keys::SUBSCRIPTION_ID);
                                    if m.is_empty() {
                                        *p = None;
                                    }
                                }
                            }
                        }
                        i += 1;
                    }
                }
                _ => i += 1,
            }
        }
    }

    /// What the driver sees of the answer to our request `id` (nothing while a modern call
    /// gathers inputs).
    fn on_answer(&mut self, id: OutboundId, result: Result<Value, RpcError>, now: Instant) -> Vec<Event> {
        match self.role.opening {
            Some(Opening::Probe(p)) if p == id => return self.on_probe(result, now),
            Some(Opening::Initialize(p)) if p == id => return self.on_initialize(result, now),
            _ => {}
        }
        if self.role.ping == Some(id) {
            self.role.ping = None;
            return self.on_ping(result, now);
        }
        if self.role.user_listens.remove(&id) {
            // The server ended an application's listen stream: its answer ends the stream.
            return vec![Event::Response {
                id,
                result: result.map(|mut v| {
                    cm::strip_plumbing(&mut v);
                    v
                }),
            }];
        }
        if let Some((caller, req)) = self.role.task_wire.remove(&id) {
            self.role.calls.remove(&id);
            return self.on_task_answer(caller, req, result, now);
        }
        if let Some(w) = self.role.legacy_wire.remove(&id) {
            match (w, &result) {
                (LegacyWire::ToolsList, Ok(v)) => self.learn_tool_tasks(v),
                (LegacyWire::TaskCall { follow: true, deadline }, Ok(v)) => {
                    if let Some(task) = v.get("task").filter(|t| t.get("taskId").is_some()) {
                        let task = task.clone();
                        return self.follow(id, &task, deadline, now);
                    }
                }
                _ => {}
            }
            return vec![Event::Response { id, result }];
        }
        if self.role.listen == Some(id) {
            // The server ended the session's listen stream (or refused it): not reopened
            // until a subscription changes, so that a server without it is not asked in a loop.
            self.role.listen = None;
            return Vec::new();
        }
        let Some(call) = self.role.calls.remove(&id) else {
            return vec![Event::Response { id, result }];
        };
        if call.relist.is_some() {
            return self.on_relist(call, result, now);
        }
        let caller = call.caller;
        if let Err(e) = &result {
            // Refused for a missing `Mcp-Param-*` header: the tool was called before this
            // client listed it (the transport learns its header parameters from the list).
            if e.code == codes::HEADER_MISMATCH && call.method == "tools/call" && !call.relisted && call.rounds == 0 {
                let relist = cm::Relist { pages: 0, refusal: e.clone() };
                return self.relist(ModernCall { relist: Some(relist), ..call }, None, now);
            }
        }
        let mut result = result;
        if let Ok(v) = &result {
            if v.get("resultType").and_then(Value::as_str) == Some("input_required") {
                return self.on_input_required(call, v, now);
            }
        }
        if let Ok(v) = &result {
            if call.opts.follow_task && v.get("resultType").and_then(Value::as_str) == Some("task") {
                let deadline = call.opts.timeout.map(|t| call.started + t);
                return self.follow(caller, v, deadline, now);
            }
        }
        if let Ok(v) = &mut result {
            if call.method == "tools/list" {
                cm::drop_invalid_tools(v);
            }
            if self.role.config.cache_results {
                if let Some(k) = ResultCache::key(&call.method, Some(&call.params)) {
                    self.role.cache.put(k, v, now);
                }
            }
            cm::strip_plumbing(v);
        }
        vec![Event::Response { id: caller, result }]
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
        if !self.role.modern {
            return Ok(self.legacy_request(method, params, opts, now));
        }
        // 2026-07-28: the log level travels with each request; subscriptions are listen
        // streams; ping is gone.
        match method {
            "logging/setLevel" => {
                let level = params.as_ref().and_then(|p| p.get("level")).cloned();
                let Some(level) = level.filter(|l| serde_json::from_value::<LoggingLevel>(l.clone()).is_ok()) else {
                    return Err(RpcError::invalid_params("logging/setLevel needs a valid level"));
                };
                self.role.meta.insert(meta_keys::LOG_LEVEL.into(), level);
                return Ok(self.answer_now(Ok(Value::Object(Map::new()))));
            }
            "ping" => return Ok(self.answer_now(Ok(Value::Object(Map::new())))),
            "resources/subscribe" | "resources/unsubscribe" => {
                // 2026-07-28 subscribes through the listen stream: it is reopened with the
                // new set of resources.
                let Some(uri) = params.as_ref().and_then(|p| p.get("uri")).and_then(Value::as_str) else {
                    return Err(RpcError::invalid_params(format!("{method} needs a uri")));
                };
                let changed = if method == "resources/subscribe" {
                    self.role.subscribed.insert(uri.to_string())
                } else {
                    self.role.subscribed.remove(uri)
                };
                if changed {
                    self.reopen_listen(now);
                }
                return Ok(self.answer_now(Ok(Value::Object(Map::new()))));
            }
            _ => {}
        }
        let cache_key = if self.role.config.cache_results { ResultCache::key(method, params.as_ref()) } else { None };
        if let Some(k) = &cache_key {
            if let Some(mut hit) = self.role.cache.get(k, now) {
                cm::strip_plumbing(&mut hit);
                return Ok(self.answer_now(Ok(hit)));
            }
        }
        let params = cm::with_meta(params, &self.role.meta)?;
        let wire = self.peer.send_request(method, Some(params.clone()), opts, now);
        self.role.calls.insert(
            wire,
            ModernCall {
                caller: wire,
                method: method.to_string(),
                params,
                opts: opts.clone(),
                rounds: 0,
                awaiting: HashMap::new(),
                answers: Map::new(),
                state: None,
                started: now,
                relist: None,
                relisted: false,
            },
        );
        Ok(wire)
    }

    /// Sends a request of a legacy session. A `tools/call` of a tool the server runs as a
    /// 2025-11-25 task (`execution.taskSupport` "required", or "optional" when this client
    /// declared the tasks extension) gets `params.task`: followed to its end when
    /// `opts.follow_task` (its answer is then the tool's result), else answered with the
    /// task (`{task}`).
    fn legacy_request(
        &mut self,
        method: &str,
        params: Option<Value>,
        opts: &RequestOptions,
        now: Instant,
    ) -> OutboundId {
        // Only tools/list and tools/call concern tasks: other requests pay nothing here.
        let served = method.starts_with("tools/") && self.legacy_tasks_served();
        let mut params = params;
        let mut task_call = false;
        if served && method == "tools/call" {
            if let Some(Value::Object(p)) = &mut params {
                let required = p.get("name").and_then(Value::as_str).and_then(|n| self.role.tool_tasks.get(n)).copied();
                let declared = self
                    .role
                    .config
                    .capabilities
                    .extensions
                    .as_ref()
                    .is_some_and(|e| e.contains_key(crate::store::tasks::TASKS_EXTENSION));
                if !p.contains_key("task") && (required == Some(true) || (required == Some(false) && declared)) {
                    p.insert("task".into(), Value::Object(Map::new()));
                    task_call = true;
                }
            }
        }
        let wire = self.peer.send_request(method, params, opts, now);
        if task_call {
            let deadline = opts.timeout.map(|t| now + t);
            self.role.legacy_wire.insert(wire, LegacyWire::TaskCall { follow: opts.follow_task, deadline });
        } else if served && method == "tools/list" {
            self.role.legacy_wire.insert(wire, LegacyWire::ToolsList);
        }
        wire
    }

    /// Opens a `subscriptions/listen` stream (2026-07-28) for the changes `filter` asks for.
    /// Its notifications arrive as [`Event::Notification`]s whose `subscription` is the
    /// returned id (their `_meta` keeps the server's tag), the first being
    /// `notifications/subscriptions/acknowledged` with the part of the filter the server
    /// honours; the stream's [`Event::Response`] ends it; [`ClientSession::cancel_request`]
    /// closes it. A legacy session has no listen streams: its change notifications arrive
    /// untagged (after `resources/subscribe` for resources).
    pub fn listen(&mut self, filter: &SubscriptionFilter, now: Instant) -> Result<OutboundId, RpcError> {
        match self.role.state {
            State::Operating => {}
            State::Closed => return Err(RpcError::new(codes::CONNECTION_CLOSED, "the session is closed")),
            _ => return Err(RpcError::invalid_request("cannot listen before the session is open")),
        }
        if !self.role.modern {
            return Err(RpcError::new(
                codes::METHOD_NOT_FOUND,
                "subscriptions/listen needs a 2026-07-28 session; on a legacy session change notifications \
                 arrive without one (resources/subscribe for resource updates)",
            ));
        }
        let mut params = Map::new();
        params.insert("notifications".into(), serde_json::to_value(filter).map_err(RpcError::internal)?);
        params.insert("_meta".into(), Value::Object(self.role.meta.clone()));
        let opts = RequestOptions { timeout: Some(Duration::from_secs(365 * 24 * 3600)), ..Default::default() };
        let id = self.peer.send_request("subscriptions/listen", Some(Value::Object(params)), &opts, now);
        self.role.user_listens.insert(id);
        Ok(id)
    }

    /// (Re)opens the session's listen stream for what the server announces (list changes)
    /// and the resources subscribed to; closes it when there is nothing to listen for.
    fn reopen_listen(&mut self, now: Instant) {
        if let Some(old) = self.role.listen.take() {
            self.role.calls.remove(&old);
            self.peer.cancel_with_meta(old, Some("the subscriptions changed"), Some(&self.role.meta));
        }
        if !self.role.config.listen {
            return;
        }
        let Some(server) = &self.role.server else { return };
        let caps = &server.capabilities;
        let flag = |on: bool| on.then_some(true);
        let filter = SubscriptionFilter {
            tools_list_changed: flag(caps.tools.as_ref().is_some_and(|t| t.list_changed == Some(true))),
            prompts_list_changed: flag(caps.prompts.as_ref().is_some_and(|p| p.list_changed == Some(true))),
            resources_list_changed: flag(caps.resources.as_ref().is_some_and(|r| r.list_changed == Some(true))),
            resource_subscriptions: (!self.role.subscribed.is_empty()
                && caps.resources.as_ref().is_some_and(|r| r.subscribe == Some(true)))
            .then(|| self.role.subscribed.iter().cloned().collect()),
            task_ids: None,
        };
        if filter == SubscriptionFilter::default() {
            return;
        }
        let mut params = Map::new();
        params.insert("notifications".into(), serde_json::to_value(&filter).unwrap_or(Value::Null));
        params.insert("_meta".into(), Value::Object(self.role.meta.clone()));
        // A stream, not a call: it lasts as long as the session (a year is "no timeout").
        let opts = RequestOptions { timeout: Some(Duration::from_secs(365 * 24 * 3600)), ..Default::default() };
        let id = self.peer.send_request("subscriptions/listen", Some(Value::Object(params)), &opts, now);
        self.role.listen = Some(id);
    }

    /// An answer given without a round trip (queued as an event, like any answer).
    fn answer_now(&mut self, result: Result<Value, RpcError>) -> OutboundId {
        let id = self.peer.alloc_out_id();
        self.peer.events.push_back(Event::Response { id, result });
        id
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
        if self.role.modern && method == "notifications/roots/list_changed" {
            // 2026-07-28 has no such notification: servers ask for the roots when they need them.
            return Ok(());
        }
        self.peer.notify(Route::Standalone, method, params.as_ref());
        Ok(())
    }

    /// Answers a server-to-client request at `now`. Ignored if the server cancelled it.
    pub fn respond(&mut self, key: RequestKey, result: Result<Value, RpcError>, now: Instant) {
        if let Some((caller, input)) = self.role.task_inputs.remove(&key) {
            match result {
                Ok(v) => self.task_request(caller, TaskReq::Update, Some(Map::from_iter([(input, v)])), now),
                Err(e) => {
                    // No answer to give: the task is cancelled and the call fails.
                    self.task_request(caller, TaskReq::Cancel, None, now);
                    self.end_followed(caller);
                    let e = RpcError { message: format!("tools/call: input {input:?} failed: {}", e.message), ..e };
                    self.peer.events.push_back(Event::Response { id: caller, result: Err(e) });
                }
            }
            return;
        }
        if let Some(caller) = self.role.inputs.remove(&key) {
            self.on_input_answer(caller, key, result, now);
            return;
        }
        let Some(inf) = self.peer.end(key) else { return };
        match result {
            Ok(v) => self.peer.write_result(&inf.id, inf.batch, Route::Reply(key), &v),
            Err(e) => self.peer.write_error(Some(&inf.id), inf.batch, Route::Reply(key), &e),
        }
    }

    fn on_input_answer(&mut self, caller: OutboundId, key: RequestKey, result: Result<Value, RpcError>, now: Instant) {
        let Some(mut call) = self.role.waiting.remove(&caller) else { return };
        let Some(input) = call.awaiting.remove(&key) else { return };
        match result {
            Ok(v) => {
                call.answers.insert(input, v);
                if call.awaiting.is_empty() {
                    self.retry(call, now);
                } else {
                    self.role.waiting.insert(caller, call);
                }
            }
            Err(e) => {
                // No answer to give: the call fails with the handler's error, and the other
                // inputs of the round are abandoned.
                for k in call.awaiting.keys() {
                    self.role.inputs.remove(k);
                    self.peer.events.push_back(Event::Cancelled { key: *k, reason: Some("the call failed".into()) });
                }
                let e = RpcError { message: format!("{}: input {input:?} failed: {}", call.method, e.message), ..e };
                self.peer.events.push_back(Event::Response { id: caller, result: Err(e) });
            }
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

    /// Cancels one of our requests at `now` (the server is told; no answer event follows).
    pub fn cancel_request(&mut self, id: OutboundId, reason: Option<&str>, now: Instant) -> bool {
        if self.role.followed.contains_key(&id) {
            // The call is a task by now: the task is cancelled (cooperatively) with it.
            self.task_request(id, TaskReq::Cancel, None, now);
            self.end_followed(id);
            return true;
        }
        if let Some(call) = self.role.waiting.remove(&id) {
            for k in call.awaiting.keys() {
                self.role.inputs.remove(k);
                self.peer.events.push_back(Event::Cancelled { key: *k, reason: reason.map(str::to_string) });
            }
            return true;
        }
        self.role.user_listens.remove(&id);
        // A legacy call's answer is no longer read (nothing is kept for it).
        self.role.legacy_wire.remove(&id);
        let wire = self.role.calls.iter().find(|(_, c)| c.caller == id).map(|(w, _)| *w).unwrap_or(id);
        self.role.calls.remove(&wire);
        if self.role.modern {
            self.peer.cancel_with_meta(wire, reason, Some(&self.role.meta))
        } else {
            self.peer.cancel(wire, reason)
        }
    }

    /// When `handle_timeout` must next be called.
    pub fn next_deadline(&self) -> Option<Instant> {
        let polls = self.role.followed.values().flat_map(|f| f.next.into_iter().chain(f.deadline)).min();
        [self.peer.next_deadline(), polls, self.role.next_ping].into_iter().flatten().min()
    }

    /// Expires timed-out requests, polls the followed tasks that are due, and sends the
    /// keep-alive ping when it is due.
    pub fn handle_timeout(&mut self, now: Instant) {
        self.peer.handle_timeout(now);
        self.poll_tasks(now);
        if self.role.next_ping.is_some_and(|t| t <= now) && self.role.state == State::Operating {
            self.role.next_ping = None;
            let timeout = self.role.config.ping_interval;
            let opts = RequestOptions { timeout, ..Default::default() };
            self.role.ping = Some(self.peer.send_request("ping", None, &opts, now));
        }
        self.after_input_at(now);
        if let Some(reason) = self.role.lost.take() {
            self.shut(&reason);
            self.peer.events.push_back(Event::Lost { reason });
        }
    }

    /// A keep-alive ping's answer: any answer (even an error) shows the server is there; no
    /// answer in time, that it is gone.
    fn on_ping(&mut self, result: Result<Value, RpcError>, now: Instant) -> Vec<Event> {
        match result {
            Err(e) if e.code == codes::REQUEST_TIMEOUT => {
                let waited = self.role.config.ping_interval.unwrap_or_default();
                self.role.lost =
                    Some(format!("the server did not answer a ping within {} ms: taken for gone", waited.as_millis()));
            }
            Err(e) if e.code == codes::CONNECTION_CLOSED => {}
            _ => self.role.next_ping = self.role.config.ping_interval.map(|i| now + i),
        }
        Vec::new()
    }

    /// Requests awaiting answers.
    pub fn pending_requests(&self) -> usize {
        // The session's own listen stream and keep-alive ping are not requests anyone waits for.
        let internal = self.role.task_wire.len() + usize::from(self.role.ping.is_some());
        (self.peer.pending_count() + self.role.waiting.len() + self.role.followed.len())
            .saturating_sub(usize::from(self.role.listen.is_some()) + internal)
    }

    /// Whether the server declared `feature`: a capability (`"tools"`, `"logging"`,
    /// `"completions"`), one of its flags by a dotted path (`"resources.subscribe"`,
    /// `"tools.listChanged"`, snake_case accepted: `"prompts.list_changed"`), or an
    /// extension by its id (`"io.modelcontextprotocol/tasks"`, also answered for a
    /// 2025-11-25 server declaring `tasks`). False before the handshake.
    pub fn supports(&self, feature: &str) -> bool {
        let Some(server) = &self.role.server else { return false };
        supports(&server.capabilities, feature)
    }

    /// Closes the session: pending requests fail with a connection-closed error.
    pub fn close(&mut self) {
        self.shut("connection closed");
    }

    fn shut(&mut self, why: &str) {
        self.role.state = State::Closed;
        self.role.ping = None;
        self.role.next_ping = None;
        self.peer.close_because(why);
        for (caller, call) in std::mem::take(&mut self.role.waiting) {
            for k in call.awaiting.keys() {
                self.role.inputs.remove(k);
                self.peer.events.push_back(Event::Cancelled { key: *k, reason: Some("the session closed".into()) });
            }
            self.peer.events.push_back(Event::Response {
                id: caller,
                result: Err(RpcError::new(codes::CONNECTION_CLOSED, "the session is closed")),
            });
        }
        // Followed tasks go on at the server; this client stops waiting for them.
        let followed: Vec<OutboundId> = self.role.followed.keys().copied().collect();
        for caller in followed {
            self.end_followed(caller);
            self.peer.events.push_back(Event::Response {
                id: caller,
                result: Err(RpcError::new(codes::CONNECTION_CLOSED, "the session is closed")),
            });
        }
        self.role.task_wire.clear();
        self.role.cache.clear();
        // Nothing was ever sent without a time given: without one, there is nothing to fail.
        if let Some(now) = self.role.last_now {
            self.after_input_at(now);
        }
    }
}

/// The invocation of one input request the server asked for (its key as the request id), to
/// be answered by the client's handlers like a request from the server.
fn input_invocation(key: RequestKey, input: &str, request: Request) -> Event {
    Event::Invoke(Invocation {
        key,
        id: RequestId::String(input.into()),
        request,
        progress_token: None,
        meta: None,
        context: None,
        origin: None,
        task: None,
    })
}

/// Whether `caps` declare `feature` (see [`ClientSession::supports`]).
pub fn supports(caps: &ServerCapabilities, feature: &str) -> bool {
    let Ok(caps) = serde_json::to_value(caps) else { return false };
    let declared = |v: Option<&Value>| v.is_some_and(|v| !matches!(v, Value::Null | Value::Bool(false)));
    if feature.contains('/') {
        let ext = caps.get("extensions").and_then(|e| e.get(feature));
        return declared(ext) || (feature == crate::store::tasks::TASKS_EXTENSION && declared(caps.get("tasks")));
    }
    let mut at = Some(&caps);
    for part in feature.split('.') {
        let camel = snake_to_camel(part);
        at = at.and_then(|v| v.get(part).or_else(|| v.get(camel.as_str())));
    }
    !feature.is_empty() && declared(at)
}

fn snake_to_camel(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut up = false;
    for c in s.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
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
        raw: Option<RawJson<'_>>,
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

    fn on_notification(&mut self, peer: &mut Peer, method: &str, raw: Option<RawJson<'_>>) {
        let params = raw.and_then(|r| serde_json::from_str(r.get()).ok());
        peer.events.push_back(Event::Notification { method: method.to_string(), params, subscription: None });
    }

    fn batchable(&self, _method: &str) -> bool {
        true
    }
}
