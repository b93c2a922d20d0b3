//! The sans-IO session state machines.
//!
//! A session is fed bytes (`feed` for a newline-delimited stream, `handle_message` for one
//! message, e.g. an HTTP body) and the current time; it answers what the protocol can answer
//! by itself and queues [`Event`]s for what needs user code. The driver takes the outbound
//! bytes with `take_output` / `poll_transmit`, runs user code, hands outcomes back with
//! `complete` / `respond`, and calls `handle_timeout` at `next_deadline`. No I/O, no runtime,
//! no clock: the same machine runs under tokio, asyncio or Node, and in deterministic tests.

mod answers;
mod capabilities;
mod client;
mod client_modern;
mod config;
pub mod failure;
mod listen;
pub use listen::DetachedListen;
mod modern;
mod mrtr;
mod outbox;
mod peer;
mod reconnect;
pub mod request_state;
mod server;
mod skills;

pub use capabilities::ClientFeatures;
pub use client::{supports as server_supports, ClientConfig, ClientSession};
pub use client_modern::ClientMode;
pub use config::{CachePolicy, ServerConfig, WallClock};
pub use failure::{failure, Failed};
pub(crate) use modern::is_modern;
pub use modern::{check_extension_id, missing_extension, RequestContext, RequestHeaders};
pub(crate) use mrtr::{key_prefix, legacy_input_required};
pub use mrtr::{InputAnswer, InputRequired};
pub use outbox::{Route, Transmit};
pub use peer::RequestOptions;
pub use reconnect::Reconnect;
pub use request_state::{RequestStateOptions, StateKeys};
pub(crate) use server::{check_output, invalid_arguments as invalid_arguments_result};
pub use server::{Outcome, ServerSession};

use crate::catalogue::TemplateEntry;
use crate::jsonrpc::{RequestId, RpcError};
use crate::protocol::{CompleteParams, CreateMessageParams, ElicitParams, Meta, ProgressToken};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// Hashes keys this side hands out itself (counters such as [`RequestKey`] and outbound
/// ids): a peer cannot choose them, so the DoS-resistant default (SipHash, ~400
/// instructions a lookup on the hot path) buys nothing there. One multiply per word.
#[derive(Clone, Copy, Debug, Default)]
pub struct KeyHasher(u64);

impl std::hash::Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.write_u64(u64::from(*b));
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    fn write_i64(&mut self, n: i64) {
        self.write_u64(n as u64);
    }
}

/// A map keyed by values this side allocates (see [`KeyHasher`]).
pub type KeyMap<K, V> = HashMap<K, V, std::hash::BuildHasherDefault<KeyHasher>>;

/// Identifies a request from the peer that user code is serving.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RequestKey(pub u64);

/// Identifies a request this side sent (it is the JSON-RPC id used on the wire).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OutboundId(pub i64);

/// Session lifecycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    /// Waiting for (server) or about to send (client) `initialize`.
    Uninitialized,
    /// `initialize` answered; waiting for `notifications/initialized` (server) or for the
    /// answer (client).
    Initializing,
    /// Normal operation.
    Operating,
    /// Closed: nothing more is accepted.
    Closed,
}

impl State {
    /// `uninitialized`, `initializing`, `operating` or `closed`.
    pub const fn as_str(self) -> &'static str {
        match self {
            State::Uninitialized => "uninitialized",
            State::Initializing => "initializing",
            State::Operating => "operating",
            State::Closed => "closed",
        }
    }
}

/// Work that needs user code.
#[derive(Debug, Clone)]
pub enum Request {
    /// `tools/call` (server side). Arguments were validated against the input schema.
    CallTool {
        /// Tool name.
        name: String,
        /// Arguments (an object).
        arguments: Map<String, Value>,
    },
    /// `resources/read` (server side).
    ReadResource {
        /// The URI asked for.
        uri: String,
        /// The template that matched, if the URI is not a static resource.
        template: Option<Arc<TemplateEntry>>,
        /// Variables extracted by the template.
        variables: HashMap<String, String>,
    },
    /// `prompts/get` (server side). Required arguments were checked.
    GetPrompt {
        /// Prompt name.
        name: String,
        /// Arguments.
        arguments: HashMap<String, String>,
    },
    /// `completion/complete` (server side).
    Complete(CompleteParams),
    /// `sampling/createMessage` (client side).
    CreateMessage(Box<CreateMessageParams>),
    /// `elicitation/create` (client side).
    Elicit(Box<ElicitParams>),
    /// `roots/list` (client side).
    ListRoots,
    /// A list that passes middleware (server side, [`crate::catalogue::Registry::set_list_hooks`]):
    /// every entry the caller sees, shaped for its revision; the list as the chain leaves it
    /// ([`Outcome::Listed`]) is paged after it.
    List {
        /// Which list.
        kind: crate::catalogue::ListKind,
        /// Its entries.
        items: Vec<Value>,
    },
    /// A request method of the server's own, which the spec does not define (server side,
    /// [`crate::catalogue::Registry::add_method`]): its params without `_meta`.
    Custom {
        /// The method.
        method: String,
        /// Its params (an object; empty when it sent none).
        params: Map<String, Value>,
    },
    /// `tasks/get`, `tasks/update` or `tasks/cancel` (server side, tasks extension): answered
    /// by the server's task runtime, never by a handler.
    Task(TaskOp),
}

/// What a client asks of a task (2026-07-28 tasks extension).
#[derive(Debug, Clone, PartialEq)]
pub enum TaskOp {
    /// `tasks/get`: the task as it is now.
    Get {
        /// The task.
        task_id: String,
    },
    /// `tasks/update`: answers to the task's input requests, by key.
    Update {
        /// The task.
        task_id: String,
        /// The answers.
        responses: Map<String, Value>,
    },
    /// `tasks/cancel`.
    Cancel {
        /// The task.
        task_id: String,
    },
    /// `tasks/get` of 2025-11-25: the bare `Task`.
    LegacyGet {
        /// The task.
        task_id: String,
    },
    /// `tasks/cancel` of 2025-11-25: a finished task is refused (-32602); the answer is the
    /// cancelled `Task`.
    LegacyCancel {
        /// The task.
        task_id: String,
    },
    /// `tasks/result` (2025-11-25): waits for the task's end and answers what the call would
    /// have; meanwhile the task's input requests go to the client as real requests.
    Result {
        /// The task.
        task_id: String,
    },
    /// `tasks/list` (2025-11-25): the caller's tasks, a page at a time.
    List {
        /// Where the page starts.
        cursor: Option<String>,
    },
}

impl TaskOp {
    /// The task it names (empty for `tasks/list`).
    pub fn task_id(&self) -> &str {
        match self {
            TaskOp::Get { task_id }
            | TaskOp::Update { task_id, .. }
            | TaskOp::Cancel { task_id }
            | TaskOp::LegacyGet { task_id }
            | TaskOp::LegacyCancel { task_id }
            | TaskOp::Result { task_id } => task_id,
            TaskOp::List { .. } => "",
        }
    }
}

/// How a tool call may run as a task (the client declared the tasks extension, and the tool
/// opted in).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaskPlan {
    /// Create the task before the handler runs, answer the call with it at once.
    Start,
    /// Run the handler as usual; it may turn the call into a task (`ctx.start_task()`).
    Allowed,
    /// The handler of the task with this id, handed to a host by its task runtime
    /// ([`crate::transport::host::HostTasks`]): the call was already answered with the task.
    Running(Arc<str>),
}

/// A request for user code, with what the handler context needs.
#[derive(Debug, Clone)]
pub struct Invocation {
    /// Key to complete it with.
    pub key: RequestKey,
    /// The JSON-RPC id the peer used.
    pub id: RequestId,
    /// The request.
    pub request: Request,
    /// The progress token the peer asked progress under, if any.
    pub progress_token: Option<ProgressToken>,
    /// The request's `_meta`.
    pub meta: Option<Meta>,
    /// A 2026-07-28 request's own context (its revision, the client's identity and
    /// capabilities, its log level, the inputs of earlier rounds); `None` in a legacy
    /// session, whose handshake said all that once.
    pub context: Option<Arc<RequestContext>>,
    /// What the transport knew of the request it came in (HTTP: its headers, the legacy
    /// session id, the verified token's identity); `None` over stdio and in memory.
    pub origin: Option<Arc<Origin>>,
    /// Whether this tool call runs (or may run) as a task (tasks extension).
    pub task: Option<TaskPlan>,
}

/// The HTTP request an invocation came in: what a handler may read of it besides the
/// message (`ctx.headers`, `ctx.session_id`, `ctx.auth`). The transport sets it
/// ([`ServerSession::set_origin`]) around the messages of one request.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct Origin {
    /// The request's headers. The `Authorization` and `DPoP` headers of a token the server
    /// verified are left out: the token is never handed around, its identity is in `auth`.
    /// (Serialized as `[[name, value], ...]`, names in lower case, values as text.)
    #[serde(serialize_with = "header_pairs")]
    pub headers: http::HeaderMap,
    /// The `Mcp-Session-Id` of a legacy session (the `sessionId` of the HTTP+SSE
    /// transport); `None` at 2026-07-28 and in stateless mode.
    #[serde(rename = "sessionId")]
    pub session_id: Option<String>,
    /// Who the verified access token speaks for (the HTTP server's `auth` option).
    pub auth: Option<Arc<crate::auth::server::AuthInfo>>,
    /// Whether entries whose scopes the token lacks are hidden from this request (the
    /// `auth` option's `hide_unauthorized`) rather than answered 403.
    #[serde(skip)]
    pub hide_unauthorized: bool,
    /// The client's address (the connection's peer, or the trusted proxy's header:
    /// [`HttpOptions::client_address_header`](crate::http::HttpOptions::client_address_header)).
    #[serde(rename = "clientAddress", skip_serializing_if = "Option::is_none")]
    pub client_address: Option<std::net::IpAddr>,
}

impl Origin {
    /// The first value of header `name` (any case), when it is text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

fn header_pairs<S: serde::Serializer>(h: &http::HeaderMap, s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(h.len()))?;
    for (name, value) in h {
        seq.serialize_element(&(name.as_str(), String::from_utf8_lossy(value.as_bytes())))?;
    }
    seq.end()
}

/// What a session tells its driver.
#[derive(Debug, Clone)]
pub enum Event {
    /// Run user code and complete the key with its outcome.
    Invoke(Invocation),
    /// The peer cancelled a request (or the session closed): stop its handler; a late
    /// outcome is ignored.
    Cancelled {
        /// The request.
        key: RequestKey,
        /// The peer's reason.
        reason: Option<String>,
    },
    /// The answer to a request this side sent.
    Response {
        /// Which request.
        id: OutboundId,
        /// Its result or error (a timeout or a closed session is an error too).
        result: Result<Value, RpcError>,
    },
    /// Progress on a request this side sent.
    Progress {
        /// Which request.
        id: OutboundId,
        /// Progress so far.
        progress: f64,
        /// Total, if known.
        total: Option<f64>,
        /// A message (2025-03-26).
        message: Option<String>,
    },
    /// The handshake finished.
    Initialized,
    /// A notification for the application (log messages, list changes, resource updates,
    /// roots changes, elicitation completions, and any the engine does not know).
    Notification {
        /// The method.
        method: String,
        /// The params.
        params: Option<Value>,
        /// The application's listen stream it came on ([`ClientSession::listen`]'s id, from
        /// its `_meta` subscription tag); `None` for any other.
        subscription: Option<OutboundId>,
    },
    /// The peer stopped answering (a client's keep-alive `ping` went unanswered, see
    /// [`ClientConfig::ping_interval`]): the session closed itself, its pending requests
    /// failed; the host ends the connection (and reconnects, under its policy).
    Lost {
        /// Why, for people.
        reason: String,
    },
}

#[cfg(test)]
mod tests;
